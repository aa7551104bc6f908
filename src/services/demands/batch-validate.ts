import {closeSync, createReadStream, mkdtempSync, openSync, rmSync, writeSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import type * as z from 'zod'

import {CreateDemandItem, MAX_BATCH} from '../../schemas/demand.js'
import {BODY_LIMIT, withCurrencyCode, type ErrorDetail} from '../../schemas/common.js'
import {InputError} from '../errors.js'
import {ContentDraftIds} from './batch-ids.js'
import {
  fieldTree,
  type FieldPath,
  pathText,
  unknownFields,
  type UnknownFields,
  withoutFields,
} from '../../schemas/unknown-fields.js'
import {issueProblems} from '../../schemas/issue-reason.js'
import {type FieldProblem, problemLine, quickCheck, quickCheckMetUnknown, rowLabel} from '../validate.js'
import {fileReason} from '../../util/file-reason.js'

export type {FieldProblem}

/** One row as an input reader yields it. */
export interface InputRow {
  /** 1-based row number (JSON array element, NDJSON line with content, CSV record). */
  row: number
  /** 1-based line where the row starts, for messages. */
  line?: number
  /** The row as parsed; absent when it could not be read at all. */
  value?: unknown
  /** Problems the reader found (bad JSON on an NDJSON line, a CSV cell of the wrong type). */
  problems?: FieldProblem[]
  /** The raw text, when the value could not be parsed (for the errors file). */
  raw?: string
}

/**
 * The input of a batch. `read()` may be called more than once and reads from
 * the start each time (a first pass validates, a second one sends); it streams,
 * so memory does not grow with the number of rows.
 */
export interface RowSource {
  /** For messages: the path, or "stdin". */
  label: string
  read(): AsyncIterable<InputRow>
  /**
   * The same rows as `read`, a piece of the input at a time: one await per
   * piece rather than per row, which a big input notices. Optional; the first
   * pass uses it when present.
   */
  readBatches?(): AsyncIterable<InputRow[]>
  /** sha256 of the input bytes; known once one read has finished. */
  contentHash(): string
}

/** `--shard I/N`: rows whose 0-based index modulo N is I−1. */
export interface Shard {
  index: number
  count: number
}

export const inShard = (row: number, shard: Shard | undefined): boolean =>
  !shard || (row - 1) % shard.count === shard.index - 1

export function parseShard(spec: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(spec)
  const index = m ? Number(m[1]) : Number.NaN
  const count = m ? Number(m[2]) : Number.NaN
  if (!m || count < 1 || index < 1 || index > count) {
    throw new InputError(`--shard must be I/N with 1 ≤ I ≤ N, for example 2/3; got ${JSON.stringify(spec)}.`)
  }
  return {index, count}
}

/**
 * The create schema of the chosen generation. The legacy one is built only when
 * asked for: a v1 batch never pays for its schemas.
 */
export async function createSchema(legacy: boolean): Promise<z.ZodObject> {
  return legacy ? (await import('../../schemas/legacy-demand.js')).CreateLegacyDemandItem : CreateDemandItem
}

export interface CheckedRow {
  row: number
  line: number | undefined
  ok: boolean
  /** Empty for a valid row (a shared array: replaced, never added to). */
  problems: readonly FieldProblem[]
  /** Fields the schema does not know, at any depth (not sent); empty for most rows (shared, like `problems`). */
  unknownFields: readonly FieldPath[]
  /** Fields a loose object of the schema keeps without naming them (sent as given); empty for most rows. */
  keptFields: readonly FieldPath[]
}

/** What a valid row without unknown fields holds in both lists: one frozen array, so a good row allocates neither. */
const NONE: readonly never[] = Object.freeze([])

/**
 * Validates one row against the create schema of the chosen generation. The
 * quick check settles the rows it can vouch for; zod parses the others, and
 * its issues, worded by `issueProblems`, are the row's problems.
 */
export function checkRow(input: InputRow, schema: z.ZodType, tree = fieldTree(schema)): CheckedRow {
  const checked: CheckedRow = {
    row: input.row,
    line: input.line,
    ok: false,
    problems: NONE,
    unknownFields: NONE,
    keptFields: NONE,
  }
  if (input.problems && input.problems.length > 0) {
    checked.problems = input.problems
    return checked
  }
  const value = input.value
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    checked.problems = [{path: '', reason: 'is not a JSON object'}]
    return checked
  }
  if (quickCheck(schema)(value)) {
    checked.ok = true
    // The quick check walked every key of the row: only a row where it met an unknown field is walked again.
    if (quickCheckMetUnknown()) noteUnknownFields(checked, unknownFields(value, tree))
    return checked
  }
  noteUnknownFields(checked, unknownFields(value, tree))
  const result = schema.safeParse(value, {reportInput: true})
  if (result.success) checked.ok = true
  else checked.problems = issueProblems(result.error)
  return checked
}

function noteUnknownFields(checked: CheckedRow, found: UnknownFields): void {
  checked.unknownFields = found.dropped
  checked.keptFields = found.kept
}

/**
 * A row the first pass found valid, made ready to send without validating it a
 * second time: the fields the check found unknown are left out, as zod would; a
 * row without any is sent as it was read.
 */
export function knownFields(input: InputRow, checked: CheckedRow): Record<string, unknown> {
  return withCurrencyCode(withoutFields(input.value as Record<string, unknown>, checked.unknownFields))
}

/**
 * The valid rows of the first pass, kept for the second so the input is read
 * (and CSV converted) once: each row as the object that will be sent, in memory
 * up to a budget (counted in characters of its JSON, estimated without building
 * it), then as JSON lines in a private temporary file (0600 in a 0700
 * directory, removed by `close`). Memory therefore stays bounded whatever the
 * number of rows.
 */
export class RowSpool {
  private readonly rows: number[] = []
  private readonly items: Record<string, unknown>[] = []
  private readonly sizes: number[] = []
  private chars = 0
  private dir: string | undefined
  private fd: number | undefined
  private pending = ''
  /** Rows held. */
  size = 0

  constructor(
    private readonly memoryBudget = 4 * 1024 * 1024,
    private readonly tmp = tmpdir(),
  ) {}

  add(row: number, item: Record<string, unknown>): void {
    this.size++
    if (this.fd === undefined) {
      const chars = jsonLength(item)
      if (this.chars + chars <= this.memoryBudget) {
        this.rows.push(row)
        this.items.push(item)
        this.sizes.push(chars)
        this.chars += chars
        return
      }
      this.dir = mkdtempSync(join(this.tmp, 'mfg-rows-'))
      this.fd = openSync(join(this.dir, 'rows'), 'w', 0o600)
    }
    // JSON text holds no raw line break: one row per line, its number first.
    this.pending += `${row} ${JSON.stringify(item)}\n`
    if (this.pending.length >= 256 * 1024) this.flush()
  }

  /**
   * The rows in the order they were added (the objects kept in memory are handed
   * out as they are), each with about the length of its JSON in characters.
   */
  async *read(): AsyncGenerator<{row: number; item: Record<string, unknown>; chars: number}> {
    for (let i = 0; i < this.rows.length; i++) yield {row: this.rows[i]!, item: this.items[i]!, chars: this.sizes[i]!}
    if (this.fd === undefined || this.dir === undefined) return
    this.flush()
    let rest = ''
    for await (const piece of createReadStream(join(this.dir, 'rows'), {encoding: 'utf8', highWaterMark: 256 * 1024})) {
      const text = rest + (piece as string)
      let start = 0
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
        const space = text.indexOf(' ', start)
        yield {
          row: Number(text.slice(start, space)),
          item: JSON.parse(text.slice(space + 1, nl)) as Record<string, unknown>,
          chars: nl - space - 1,
        }
        start = nl + 1
      }
      rest = text.slice(start)
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
    if (this.dir !== undefined) rmSync(this.dir, {recursive: true, force: true})
    this.dir = undefined
  }

  private flush(): void {
    if (this.fd !== undefined && this.pending.length > 0) writeSync(this.fd, this.pending)
    this.pending = ''
  }
}

/**
 * The size of a row's JSON in bytes, as a request body carries it: its length in
 * characters (`chars`, or jsonLength's) up to `exactFrom`, counted exactly past
 * that (where a character may take up to three bytes and the difference matters).
 */
export function jsonBytes(value: unknown, exactFrom = 0, chars = jsonLength(value)): number {
  return chars < exactFrom ? chars : Buffer.byteLength(JSON.stringify(value))
}

/** The --errors file, written from the start; a path that cannot be written is named with the flag (exit 2). */
function openErrorsFile(path: string): number {
  try {
    return openSync(path, 'w', 0o600)
  } catch (error) {
    throw new InputError(`cannot write --errors ${path}: ${fileReason(error, true)}. Nothing was sent.`)
  }
}

/** About the length of a value's JSON text, without building it. */
export function jsonLength(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2
    case 'number':
      return 8
    case 'boolean':
      return 5
    case 'object': {
      if (value === null) return 4
      let n = 2
      if (Array.isArray(value)) {
        for (const v of value as unknown[]) n += jsonLength(v) + 1
        return n
      }
      for (const key in value) n += key.length + 4 + jsonLength((value as Record<string, unknown>)[key])
      return n
    }
    default:
      return 0
  }
}

export interface ValidationReport {
  source: string
  /** Rows in the input. */
  rows: number
  /** Rows in this shard. */
  selected: number
  valid: number
  invalid: number
  /** Requests a send would make (chunks of at most `chunkSize`). */
  chunks: number
  /** The first invalid rows' problems, for the listing. */
  problems: {row: number; line?: number; path: string; reason: string}[]
  /** Problems beyond those listed. */
  moreProblems: number
  /** Each field the schema does not know (never sent), once, with the rows that have it (the first 50 such fields). */
  unknownFields: UnknownField[]
  /** Further such fields, not listed. */
  moreUnknownFields: number
  /**
   * Fields a loose object keeps without naming them (sent as given) that look
   * like a misspelt known one (`quoteModel.0.fileNam`), with it and the rows that have them.
   */
  lookalikeFields: (UnknownField & {meant: string})[]
  /** The input's identity: sha256 of its bytes. */
  contentHash: string
  errorsFile?: string
}

/** A field the schema does not know, as the report lists it: once, however many rows have it. */
export interface UnknownField {
  /** Its path as the input wrote it: `emial`, `shippingAddress.cty`, `quoteModel.0.failure.optoin`. */
  field: string
  /** How many rows have it. */
  rows: number
  /** The first rows that have it (at most 5), with the line each starts on. */
  firstRows: {row: number; line?: number}[]
  /** The known field it probably is, when one is close. */
  meant?: string
}

export interface ValidateOptions {
  legacy?: boolean
  shard?: Shard
  /** Keep going with the valid rows; write the invalid ones to `errorsFile`. */
  skipInvalid?: boolean
  errorsFile?: string
  chunkSize?: number
  /** Problems listed in the report and the error (default 50). */
  maxListed?: number
  /** Filled with the numbers of the invalid rows, so a second pass can skip them without validating again. */
  invalidRows?: Set<number>
  /**
   * Called with each valid row of the shard (after the draftId check), in input order;
   * with `draftIds`, also the draftId its content gives it (ContentDraftIds).
   */
  onValid?: (input: InputRow, checked: CheckedRow, draftId?: string) => void
  /** Name every row by its content (every row of the input is counted, whatever the shard). */
  draftIds?: boolean
  /** The business the demands go to: a row naming another one is invalid (the service answers it with 403). */
  businessId?: string
}

/**
 * The first pass: reads every row, validates the rows of the shard, and keeps
 * only counts, the first problems and the input's explicit draftIds (to refuse
 * repeats). Invalid rows go to the errors file as they are found. Without
 * `skipInvalid`, any invalid row ends here with one InputError listing them.
 */
export async function validateSource(source: RowSource, opts: ValidateOptions = {}): Promise<ValidationReport> {
  const schema = await createSchema(opts.legacy ?? false)
  const tree = fieldTree(schema)
  // The distinct unknown fields met, and those loose objects keep, each with the rows that have it.
  const unknown = new FieldTally()
  const kept = new FieldTally()
  const maxListed = opts.maxListed ?? 50
  const chunkSize = Math.min(opts.chunkSize ?? MAX_BATCH, MAX_BATCH)
  const report: ValidationReport = {
    source: source.label,
    rows: 0,
    selected: 0,
    valid: 0,
    invalid: 0,
    chunks: 0,
    problems: [],
    moreProblems: 0,
    unknownFields: [],
    moreUnknownFields: 0,
    lookalikeFields: [],
    contentHash: '',
    ...(opts.errorsFile ? {errorsFile: opts.errorsFile} : {}),
  }
  const draftIds = new Map<string, number>()
  const byContent = opts.draftIds ? new ContentDraftIds() : undefined
  const errorsFd = opts.skipInvalid && opts.errorsFile ? openErrorsFile(opts.errorsFile) : undefined
  try {
    if (source.readBatches) {
      // Index loops: before the JIT has compiled them, a for-of makes a result object per row.
      for await (const batch of source.readBatches()) for (let i = 0; i < batch.length; i++) visit(batch[i]!)
    } else {
      for await (const input of source.read()) visit(input)
    }
  } finally {
    if (errorsFd !== undefined) closeSync(errorsFd)
  }
  report.contentHash = source.contentHash()
  if (unknown.size > 0 || kept.size > 0) {
    const {meantField} = await import('../../schemas/field-hints.js')
    for (const {path, entry} of unknown.values()) {
      const known = meantField(tree, path)
      report.unknownFields.push(known === undefined ? entry : {...entry, meant: known})
    }
    for (const {path, entry} of kept.values()) {
      const known = meantField(tree, path)
      if (known !== undefined) report.lookalikeFields.push({...entry, meant: known})
    }
  }
  report.moreUnknownFields = unknown.unlisted
  report.chunks = Math.ceil(report.valid / chunkSize)
  if (report.rows === 0) throw new InputError(`${source.label} holds no rows; nothing to create.`)
  if (report.invalid > 0 && !opts.skipInvalid) throw invalidRowsError(report)
  return report

  function visit(input: InputRow): void {
    report.rows++
    const contentId = byContent && input.value !== undefined ? byContent.next(input.value) : undefined
    if (!inShard(input.row, opts.shard)) return
    report.selected++
    const checked = checkRow(input, schema, tree)
    const own = checked.ok ? (input.value as Record<string, unknown>).draftId : undefined
    if (checked.ok && typeof own === 'string') {
      const first = draftIds.get(own)
      if (first === undefined) draftIds.set(own, input.row)
      else {
        checked.ok = false
        checked.problems = [
          {
            path: 'draftId',
            reason: `${JSON.stringify(own)} repeats row ${first} (a draftId must be unique within the input)`,
          },
        ]
      }
    }
    if (checked.ok && opts.businessId !== undefined) {
      const other = otherBusiness(input.value as Record<string, unknown>, opts.businessId, opts.legacy ?? false)
      if (other) {
        checked.ok = false
        checked.problems = [other]
      }
    }
    // A row no request can carry (with the brackets of the array around it) would fail every time it is sent.
    const bytes = checked.ok && jsonLength(input.value) > BODY_LIMIT / 3 ? jsonBytes(knownFields(input, checked)) : 0
    if (bytes > BODY_LIMIT - 2) {
      checked.ok = false
      const mb = (bytes / 1024 / 1024).toFixed(1)
      checked.problems = [
        {
          path: '',
          reason: `is ${mb} MiB as JSON; a request to the service holds at most ${BODY_LIMIT / 1024 / 1024} MiB`,
        },
      ]
    }
    if (checked.unknownFields.length > 0) unknown.add(checked, checked.unknownFields)
    if (checked.keptFields.length > 0) kept.add(checked, checked.keptFields)
    if (checked.ok) {
      report.valid++
      opts.onValid?.(input, checked, contentId)
      return
    }
    report.invalid++
    opts.invalidRows?.add(checked.row)
    for (const p of checked.problems) {
      if (report.problems.length < maxListed) {
        report.problems.push({row: checked.row, ...(checked.line === undefined ? {} : {line: checked.line}), ...p})
      } else report.moreProblems++
    }
    if (errorsFd !== undefined) {
      const entry = {
        row: input.row,
        ...(input.line === undefined ? {} : {line: input.line}),
        errors: checked.problems.map((p) => ({path: p.path, reason: p.reason})),
        input: input.value === undefined ? (input.raw ?? null) : input.value,
      }
      writeSync(errorsFd, `${JSON.stringify(entry)}\n`)
    }
  }
}

/**
 * The problem of a row that names a business other than the one its demands go
 * to (`business`, or a legacy row's `machineOwner`): the service refuses the
 * whole request carrying it, so the first pass refuses the row instead.
 */
function otherBusiness(value: Record<string, unknown>, businessId: string, legacy: boolean): FieldProblem | undefined {
  for (const field of legacy ? ['business', 'machineOwner'] : ['business']) {
    const named = value[field]
    if (typeof named === 'string' && named !== businessId) {
      return {
        path: field,
        reason: `is ${JSON.stringify(named)}, but the demands go to business ${businessId}; leave the field out, or create them with that business's profile`,
      }
    }
  }
  return undefined
}

/** Distinct fields listed, each looked up for a likely meaning: CSV columns and JSON keys repeat from row to row. */
const MAX_LISTED_FIELDS = 50
/** Distinct fields counted beyond those. */
const MAX_UNLISTED = 10_000
/** Rows kept for each field, to say where it is. */
const FIRST_ROWS = 5
/** Fields a warning or an error lists (the report holds more). */
const SHOWN_FIELDS = 10
/** Rows named in each of those lines. */
const SHOWN_ROWS = 3

/** Fields met in the rows, each once with the rows that have it: the first MAX_LISTED_FIELDS, then a count. */
class FieldTally {
  private readonly fields = new Map<string, {path: FieldPath; entry: UnknownField}>()
  private readonly beyond = new Set<string>()

  add(checked: CheckedRow, paths: readonly FieldPath[]): void {
    const place = checked.line === undefined ? {row: checked.row} : {row: checked.row, line: checked.line}
    for (const path of paths) {
      const text = pathText(path)
      const seen = this.fields.get(text)?.entry
      if (seen) {
        seen.rows++
        if (seen.firstRows.length < FIRST_ROWS) seen.firstRows.push(place)
      } else if (this.fields.size < MAX_LISTED_FIELDS) {
        this.fields.set(text, {path, entry: {field: text, rows: 1, firstRows: [place]}})
      } else if (this.beyond.size < MAX_UNLISTED) this.beyond.add(text)
    }
  }

  get size(): number {
    return this.fields.size
  }

  /** Distinct fields met beyond those listed. */
  get unlisted(): number {
    return this.beyond.size
  }

  values(): IterableIterator<{path: FieldPath; entry: UnknownField}> {
    return this.fields.values()
  }
}

/**
 * A field a line, indented for a warning or an error: where it is
 * (`every row (5000)` for a misspelt column, else the first rows and how many
 * more) and the known field it probably is.
 */
function fieldLines(fields: readonly UnknownField[], selected: number, more: number): string[] {
  const lines = fields.slice(0, SHOWN_FIELDS).map((u) => {
    const others = u.rows - SHOWN_ROWS
    const where =
      u.rows === selected && u.rows > 1
        ? `every row (${u.rows})`
        : u.firstRows.slice(0, SHOWN_ROWS).map(rowLabel).join(', ') +
          (others > 0 ? ` and ${others} more row${others === 1 ? '' : 's'}` : '')
    return `  ${u.field}: ${where}${u.meant === undefined ? '' : `; did you mean ${u.meant}?`}`
  })
  const unshown = fields.length - Math.min(fields.length, SHOWN_FIELDS) + more
  if (unshown > 0) lines.push(`  … and ${unshown} more field${unshown === 1 ? '' : 's'}`)
  return lines
}

/** The unknown fields (never sent), a line each: `  emial: every row (5000); did you mean email?`. */
export const unknownFieldLines = (report: ValidationReport): string[] =>
  fieldLines(report.unknownFields, report.selected, report.moreUnknownFields)

/** The kept fields that look misspelt, a line each: `  quoteModel.0.fileNam: row 2 (line 3); did you mean quoteModel.0.fileName?`. */
export const lookalikeLines = (report: ValidationReport): string[] =>
  fieldLines(report.lookalikeFields, report.selected, 0)

/**
 * The listing of invalid rows: `row N: field.path: reason`, at most `maxListed`,
 * then a count; then the unknown fields, since a misspelt field often makes the row invalid.
 */
export function invalidRowsError(report: ValidationReport): InputError {
  const lines = report.problems.map((p) => `  ${problemLine(p)}`)
  if (report.moreProblems > 0) lines.push(`  … and ${report.moreProblems} more problem(s)`)
  if (report.unknownFields.length > 0) lines.push('Unknown fields (never sent):', ...unknownFieldLines(report))
  if (report.lookalikeFields.length > 0)
    lines.push('Fields that look like misspelt known ones:', ...lookalikeLines(report))
  const details: ErrorDetail[] = report.problems.map((p) => ({
    path: [String(p.row - 1), ...(p.path ? [p.path] : [])].join('.'),
    message: p.reason,
  }))
  return new InputError(
    `${report.invalid} of ${report.selected} row${report.selected === 1 ? '' : 's'} invalid; nothing was sent (--skip-invalid sends the valid rows):\n${lines.join('\n')}`,
    details,
  )
}
