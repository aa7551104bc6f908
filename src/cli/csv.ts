import {finished} from 'node:stream/promises'

import type {Parser} from 'csv-parse'
import type * as z from 'zod'

import {type Def, defOf} from '../schemas/schema-def.js'
import type {FieldProblem} from '../services/validate.js'
import {MAX_JSON_DEPTH, nestedDeeperThan} from './json-locate.js'

/** One CSV record: its cells and the line it starts on. */
export interface CsvRecord {
  cells: string[]
  line: number
}

/** Makes what a reader yields of one record (its cells, the line it starts on); undefined yields nothing. */
export type RecordMaker<T> = (cells: string[], line: number) => T | undefined

const asRecord: RecordMaker<CsvRecord> = (cells, line) => ({cells, line})

/**
 * RFC 4180 records read from text given a piece at a time: fields separated by
 * commas, records by CRLF, LF or CR, a quoted field may hold commas, doubled
 * quotes and line breaks; empty lines are skipped. Each batch holds the records
 * one piece completed, each as `make` makes it (a CsvRecord by default): made
 * as soon as it is cut, a record's cells are garbage before the next one is.
 * A wrong number of cells is the row builder's to judge, and a quote inside an
 * unquoted field is kept as text. What `make` throws goes through unchanged.
 *
 * Quotes are csv-parse's to read: from the first piece that holds one, the rest
 * of the input goes through it. Until then the text has no quote, so a record is
 * a line and its cells are what lies between its commas; `PlainRecords` cuts
 * those with the engine's own string search, which costs a quarter of what
 * csv-parse's byte-by-byte loop does on a run's first 10,000 rows, before the
 * JIT has compiled it (bench/readers.ts).
 */
export function csvRecords(pieces: AsyncIterable<string>): AsyncGenerator<CsvRecord[]>
export function csvRecords<T>(
  pieces: AsyncIterable<string>,
  make: RecordMaker<T>,
  delimiter?: string,
): AsyncGenerator<T[]>
export async function* csvRecords<T>(
  input: AsyncIterable<string>,
  make: RecordMaker<T> = asRecord as RecordMaker<T>,
  given?: string,
): AsyncGenerator<T[]> {
  let delimiter = given ?? ','
  const pieces = given === undefined ? headerFirst(input, (found) => (delimiter = found)) : input
  const plain = new PlainRecords(() => delimiter)
  let lines: LineCounter | undefined
  let parser: Parser | undefined
  let done: CsvRecord[] = []
  const take = (): T[] => {
    const out: T[] = []
    for (let i = 0; i < done.length; i++) {
      const made = make(done[i]!.cells, done[i]!.line)
      if (made !== undefined) out.push(made)
    }
    done = []
    return out
  }
  const failed = (error: unknown): Error =>
    new Error(csvProblem(error, lines && parser ? lines.next(parser.info.empty_lines) : plain.line), {cause: error})
  for await (const piece of pieces) {
    if (!parser) {
      if (piece.indexOf('"') === -1) {
        const out = plain.push(piece, false, make)
        if (out.length > 0) yield out
        continue
      }
      const counter = new LineCounter(plain.line)
      lines = counter
      parser = await quotedParser(!plain.started, delimiter, (cells, emptyLines) =>
        done.push({cells, line: counter.record(cells, emptyLines)}),
      )
      // Failures come through the write and end callbacks; this only keeps them from being unhandled.
      parser.on('error', () => {})
      await write(parser, plain.handOver(piece)).catch((error: unknown) => Promise.reject(failed(error)))
    } else await write(parser, piece).catch((error: unknown) => Promise.reject(failed(error)))
    const out = take()
    if (out.length > 0) yield out
  }
  if (parser) {
    parser.end()
    await finished(parser, {readable: false}).catch((error: unknown) => Promise.reject(failed(error)))
    const out = take()
    if (out.length > 0) yield out
  } else {
    const out = plain.push('', true, make)
    if (out.length > 0) yield out
  }
}

/**
 * The pieces, the first one held until it holds the header's whole line, whose
 * delimiter is then `found`: a comma, unless the line has more semicolons or
 * tabs than commas (a spreadsheet saved where the comma is the decimal mark
 * separates fields with semicolons).
 */
async function* headerFirst(pieces: AsyncIterable<string>, found: (delimiter: string) => void): AsyncGenerator<string> {
  let head: string | undefined = ''
  for await (const piece of pieces) {
    if (head === undefined) {
      yield piece
      continue
    }
    head += piece
    if (!/[\r\n]/.test(head)) continue
    found(headerDelimiter(head))
    yield head
    head = undefined
  }
  if (head !== undefined) {
    found(headerDelimiter(head))
    yield head
  }
}

function headerDelimiter(text: string): string {
  const line = text.slice(0, text.search(/[\r\n]|$/))
  const count = (d: string) => line.split(d).length - 1
  const commas = count(',')
  const best = [';', '\t'].map((d) => ({d, n: count(d)})).sort((a, b) => b.n - a.n)[0]!
  return best.n > commas ? best.d : ','
}

function write(parser: Parser, text: string): Promise<void> {
  return new Promise<void>((ok, fail) => parser.write(text, (error) => (error ? fail(error) : ok())))
}

/**
 * csv-parse as the reader above uses it; `record` is handed each record and the
 * empty lines skipped so far. `bom`: the text it reads starts the input.
 */
async function quotedParser(
  bom: boolean,
  delimiter: string,
  record: (cells: string[], emptyLines: number) => void,
): Promise<Parser> {
  // Loaded when a quote first appears: a file without one never compiles csv-parse.
  const {Parser} = await import('csv-parse')
  return new Parser({
    bom,
    delimiter,
    record_delimiter: ['\r\n', '\n', '\r'],
    skip_empty_lines: true,
    relax_column_count: true,
    relax_quotes: true,
    on_record: (cells: string[], info) => {
      record(cells, info.empty_lines)
      // Taken here, not pushed on: the records of a piece are known as soon as it is written.
      return null
    },
  })
}

/** A line break: CRLF, LF or CR. */
const BREAK = /\r\n?|\n/g

/**
 * The records of text that holds no quote, as csv-parse reads it: each line
 * with anything on it is a record, its cells split at the commas; a BOM at the
 * start is dropped. The unfinished last line waits for the next piece.
 */
class PlainRecords {
  /** `delimiter`: the field delimiter, asked for when the first piece is cut (the header decides it). */
  constructor(private readonly delimiter: () => string) {}

  /** The line the next record starts on. */
  line = 1
  private rest = ''
  /** Whether text has been read (a BOM is dropped only at the start). */
  started = false

  /** The records `piece` completes, as `make` makes them; `last` when the input ends after it. */
  push<T>(piece: string, last: boolean, make: RecordMaker<T>): T[] {
    const delimiter = this.delimiter()
    let text = this.rest + piece
    if (!this.started && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
      this.started = true
    }
    const out: T[] = []
    const crs = text.indexOf('\r') !== -1
    let from = 0
    for (;;) {
      let end: number
      let next: number
      if (crs) {
        BREAK.lastIndex = from
        const m = BREAK.exec(text)
        // A CR that ends the piece may be the first half of a CRLF.
        if (!m || (!last && m[0] === '\r' && m.index === text.length - 1)) break
        end = m.index
        next = end + m[0].length
      } else {
        end = text.indexOf('\n', from)
        if (end === -1) break
        next = end + 1
      }
      if (end > from) {
        const made = make(text.slice(from, end).split(delimiter), this.line)
        if (made !== undefined) out.push(made)
      }
      this.line++
      from = next
    }
    this.rest = text.slice(from)
    if (last && this.rest !== '') {
      const made = make(this.rest.split(delimiter), this.line)
      if (made !== undefined) out.push(made)
      this.rest = ''
    }
    return out
  }

  /** The text not read yet, followed by `piece`: what csv-parse reads from here on. */
  handOver(piece: string): string {
    const text = this.rest + piece
    this.rest = ''
    return text
  }
}

/**
 * The line each record starts on. csv-parse's own line count takes a CRLF
 * inside a quoted field for two lines, so the lines are counted here: a
 * record starts after the one before it and the empty lines skipped since
 * (csv-parse counts those), and spans the line breaks inside its cells.
 */
class LineCounter {
  private empty = 0

  /** `after`: the line after the last record read (where the first record starts). */
  constructor(private after = 1) {}

  /** The line a record starts on, given csv-parse's count of empty lines so far. */
  record(cells: string[], emptyLines: number): number {
    const line = this.next(emptyLines)
    this.empty = emptyLines
    let breaks = 0
    for (const cell of cells) breaks += lineBreaks(cell)
    this.after = line + breaks + 1
    return line
  }

  /** The line the next record starts on. */
  next(emptyLines: number): number {
    return this.after + emptyLines - this.empty
  }
}

/** Line breaks (CRLF, LF or CR) in a cell; most cells have none, found without a regular expression. */
function lineBreaks(text: string): number {
  if (text.indexOf('\n') === -1 && text.indexOf('\r') === -1) return 0
  return text.match(/\r\n|\r|\n/g)!.length
}

/** What is wrong with the CSV: an unclosed quote in our words (csv-parse names the line it ends on), anything else in csv-parse's. */
function csvProblem(error: unknown, line: number): string {
  if ((error as {code?: string}).code === 'CSV_QUOTE_NOT_CLOSED') {
    return `a quoted field that starts in the record on line ${line} is never closed`
  }
  return (error as Error).message
}

type Leaf = 'number' | 'boolean' | 'string' | 'json'

/** The schema node at a field path (`quoteModel.0.fileName`), or undefined when the schema does not know it. */
function nodeAt(schema: z.ZodType, parts: string[]): z.ZodType | undefined {
  let node: z.ZodType | undefined = schema
  for (const part of parts) {
    const def: Def | undefined = node && defOf(unwrap(node))
    if (!def) return undefined
    // Own keys only: `toString` or `valueOf` in a header is a field the schema does not know.
    if (def.type === 'object' && def.shape) node = Object.hasOwn(def.shape, part) ? def.shape[part] : undefined
    else if (def.type === 'array' && /^\d+$/.test(part)) node = def.element
    else return undefined
  }
  return node
}

function unwrap(node: z.ZodType): z.ZodType {
  let n = node
  for (;;) {
    const def = defOf(n)
    const t = def.type
    if ((t === 'optional' || t === 'nullable' || t === 'default' || t === 'readonly') && def.innerType)
      n = def.innerType
    else if (t === 'pipe' && def.in) n = def.in
    else return n
  }
}

function leafOf(node: z.ZodType | undefined): Leaf {
  if (!node) return 'string'
  const def = defOf(unwrap(node))
  switch (def.type) {
    case 'number':
      return 'number'
    case 'boolean':
      return 'boolean'
    case 'object':
    case 'array':
    case 'record':
    case 'unknown':
    case 'any':
      return 'json'
    case 'union': {
      // A cell that may be a string stays one; a number-or-null union reads as a number.
      const kinds = (def.options ?? []).map((o) => leafOf(o))
      if (kinds.includes('string')) return 'string'
      if (kinds.includes('number')) return 'number'
      return 'string'
    }
    default:
      return 'string'
  }
}

/** A number as a spreadsheet writes one in a cell: 12, -3.5, .5, 1e3. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/

const TRUE = new Set(['true', 'yes', '1', 'y'])
const FALSE = new Set(['false', 'no', '0', 'n'])

/** One header column: its field path worked out once for every row. */
interface Column {
  /** The field path as the header writes it (trimmed), for messages. */
  path: string
  parts: string[]
  /** Each part read as an array index (`Number(part)`), used when its container is an array. */
  indexes: number[]
  /** Whether the part after each one is all digits (a missing container is then made an array). */
  nextIsIndex: boolean[]
  leaf: Leaf
}

/** A cell that does not convert; returned instead of a value, so a good cell costs no wrapper object. */
class CellError {
  constructor(readonly reason: string) {}
}

/**
 * Turns CSV records into objects: the header's cells are field paths, each cell
 * converted to the type the schema expects at its path (numbers, booleans;
 * objects and arrays as JSON), empty cells left out.
 */
export class CsvRowBuilder {
  private readonly columns: Column[]

  constructor(
    readonly header: string[],
    schema: z.ZodType,
  ) {
    const seen = new Set<string>()
    this.columns = []
    for (let i = 0; i < header.length; i++) {
      const path = header[i]!.trim()
      if (path === '') throw new Error(`column ${i + 1} of the header is empty; every column needs a field path`)
      if (seen.has(path)) throw new Error(`the header names ${JSON.stringify(path)} twice`)
      seen.add(path)
      const parts = path.split('.')
      if (parts.some((p) => p === '' || p === '__proto__' || p === 'constructor' || p === 'prototype')) {
        throw new Error(`the header's field path ${JSON.stringify(path)} is not valid`)
      }
      this.columns.push({
        path,
        parts,
        indexes: parts.map(Number),
        nextIsIndex: parts.map((_, k) => k + 1 < parts.length && /^\d+$/.test(parts[k + 1]!)),
        leaf: leafOf(nodeAt(schema, parts)),
      })
    }
  }

  /** The row's object, or a FaultyRow when a cell does not convert or the row has the wrong number of cells. */
  build(cells: string[]): Record<string, unknown> | FaultyRow {
    const columns = this.columns
    const value = new RowObject()
    // Made at the first problem: a good row allocates neither the list nor a wrapper.
    let problems: FieldProblem[] | undefined
    if (cells.length !== columns.length) {
      problems = [{path: '', reason: `has ${cells.length} cells; the header has ${columns.length}`}]
    }
    let holes = false
    for (let i = 0; i < columns.length; i++) {
      const cell = cells[i]
      if (cell === undefined || cell === '') continue
      const column = columns[i]!
      const converted = convert(cell, column.leaf)
      if (converted instanceof CellError) {
        ;(problems ??= []).push({path: column.path, reason: converted.reason})
        continue
      }
      if (column.parts.length === 1) value[column.path] = converted
      else if (setPath(value, column, converted)) holes = true
    }
    // Only a row whose cells left a hole in an array (or wrote a key that is no
    // index into one) needs compacting; any other row is already compact.
    const row = holes ? (compact(value) as Record<string, unknown>) : value
    return problems ? new FaultyRow(row, problems) : row
  }
}

/**
 * Makes a row's top-level object: a plain object (its prototype is
 * Object.prototype, as `{}`'s), made by a constructor so that V8 sizes it for
 * the fields rows turn out to have (in-object slack tracking) instead of a
 * literal's four, which a dozen columns outgrow into a property array
 * reallocated twice. Building 10,000 rows costs about a fifth less.
 */
const RowObject = function RowObject() {} as unknown as new () => Record<string, unknown>
RowObject.prototype = Object.prototype

/** A row with problems: its object as far as its cells converted, and what is wrong. */
export class FaultyRow {
  constructor(
    readonly value: Record<string, unknown>,
    readonly problems: FieldProblem[],
  ) {}
}

/**
 * A cell as the type of its column: a number or a boolean when it reads as one,
 * otherwise the text itself, which validation then refuses in the same words
 * as the same text given for that field in JSON. Only a JSON cell that does not
 * parse is a CellError: it has no JSON counterpart.
 */
function convert(cell: string, leaf: Leaf): unknown {
  switch (leaf) {
    case 'number': {
      // Decimal notation only, as JSON writes numbers: "0x10", "0b1" or "Infinity" stay text for the schema to refuse.
      const text = cell.trim()
      const n = DECIMAL.test(text) ? Number(text) : Number.NaN
      return Number.isFinite(n) ? n : cell
    }
    case 'boolean': {
      const t = cell.trim().toLowerCase()
      if (TRUE.has(t)) return true
      if (FALSE.has(t)) return false
      return cell
    }
    case 'json': {
      const text = cell.trim()
      const first = text.charCodeAt(0)
      if (first === 91 || first === 123) {
        try {
          const value = JSON.parse(text) as unknown
          return nestedDeeperThan(value)
            ? new CellError(`expected JSON nested at most ${MAX_JSON_DEPTH} levels deep`)
            : value
        } catch {
          return new CellError(
            `expected JSON, got ${JSON.stringify(cell.length > 40 ? `${cell.slice(0, 40)}…` : cell)}`,
          )
        }
      }
      return cell
    }
    default:
      return cell
  }
}

/**
 * Sets `value` at the column's path inside `target`, making the objects and
 * arrays on the way. True when it wrote into an array at a place other than an
 * existing element or the end (a hole, or a key that is no index): the row then
 * needs `compact`.
 */
function setPath(target: Record<string, unknown>, column: Column, value: unknown): boolean {
  const {parts, indexes, nextIsIndex} = column
  const last = parts.length - 1
  let holes = false
  let cur: Record<string | number, unknown> = target
  for (let i = 0; ; i++) {
    let key: string | number
    if (Array.isArray(cur)) {
      key = indexes[i]!
      if (!(Number.isInteger(key) && key >= 0 && key <= (cur as unknown[]).length)) holes = true
    } else key = parts[i]!
    if (i === last) {
      cur[key] = value
      return holes
    }
    let next = cur[key]
    if (next === null || typeof next !== 'object') {
      if (nextIsIndex[i] && indexes[i + 1] === 0) {
        // A new array whose first element is set now is made with it: `[]` would grow room for 17 at its first store.
        if (i + 1 === last) {
          cur[key] = [value]
          return holes
        }
        next = nextIsIndex[i + 1] ? [] : {}
        cur[key] = [next]
        cur = next as Record<string | number, unknown>
        i++
        continue
      }
      next = nextIsIndex[i] ? [] : {}
      cur[key] = next
    }
    cur = next as Record<string | number, unknown>
  }
}

/** Drops the holes that empty cells leave in arrays (`quoteModel.1.x` without `quoteModel.0`). */
function compact(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => v !== undefined).map(compact)
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) (value as Record<string, unknown>)[k] = compact(v)
  }
  return value
}
