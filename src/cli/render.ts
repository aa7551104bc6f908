import {stripVTControlCharacters} from 'node:util'

import chalk from 'chalk'

import type {ListOutputFlags} from './flags.js'
import {isTty, streamOut, writeErr, writeOut, type LineOut} from './output.js'

type Row = Record<string, unknown>

/** Reads a dotted field path (`shippingAddress.city`, `quoteModel.0.fileName`). */
export function getPath(obj: unknown, path: string): unknown {
  if (!path.includes('.'))
    return obj !== null && typeof obj === 'object' ? (obj as Record<string, unknown>)[path] : undefined
  let cur: unknown = obj
  for (const part of path.split('.')) {
    if (cur === null || cur === undefined || typeof cur !== 'object') return undefined
    cur = (cur as Record<string, unknown>)[part]
  }
  return cur
}

export function parseColumns(spec: string | undefined, defaults: readonly string[]): string[] {
  if (!spec) return [...defaults]
  const cols = spec
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean)
  return cols.length > 0 ? cols : [...defaults]
}

/** Sorts by a field path; `-field` descends. Numbers compare as numbers, missing values last. */
export function sortRows<T>(rows: readonly T[], spec: string | undefined): T[] {
  if (!spec) return [...rows]
  const desc = spec.startsWith('-')
  const field = desc ? spec.slice(1) : spec
  const dir = desc ? -1 : 1
  return [...rows].sort((a, b) => {
    const x = getPath(a, field)
    const y = getPath(b, field)
    if (x === undefined || x === null) return y === undefined || y === null ? 0 : 1
    if (y === undefined || y === null) return -1
    if (typeof x === 'number' && typeof y === 'number') return (x - y) * dir
    return String(x).localeCompare(String(y), undefined, {numeric: true}) * dir
  })
}

/** One cell's text: scalars as they are, objects as compact JSON; absent values (and NaN) an empty cell. */
export function cellText(value: unknown): string {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string') return value
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : ''
  if (typeof value === 'boolean') return String(value)
  if (typeof value === 'bigint') return value.toString()
  if (typeof value !== 'object') return ''
  return JSON.stringify(value) ?? ''
}

/** RFC 4180: quote fields holding a comma, quote, CR or LF; double embedded quotes. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

export function toCsv(rows: readonly Row[], columns: readonly string[], header = true): string {
  const lines: string[] = []
  if (header) lines.push(csvHeader(columns))
  for (const row of rows) lines.push(csvLine(row, columns))
  return lines.join('\r\n')
}

/** The CSV header line of `columns` (no line end). */
export function csvHeader(columns: readonly string[]): string {
  return columns.map(csvField).join(',')
}

/** One row as a CSV line (no line end). */
export function csvLine(row: Row, columns: readonly string[]): string {
  return columns.map((c) => csvField(cellText(getPath(row, c)))).join(',')
}

export function project(row: unknown, columns: readonly string[]): Row {
  const out: Row = {}
  for (const c of columns) out[c] = getPath(row, c) ?? null
  return out
}

/** Columns of a table for one command: which may go when the terminal is narrow, which --wide adds. */
export interface TableLayout {
  /** Columns --wide adds after the default ones. */
  wide?: readonly string[]
  /** Columns that may be left out to fit the terminal, least important first. */
  drop?: readonly string[]
  /** Columns never cut while others can be (ids: a cut id is of no use). */
  keep?: readonly string[]
}

export interface TableOptions {
  header?: boolean
  /** The terminal's width to fit in; undefined (piped output, --no-truncate) never cuts anything. */
  width?: number | undefined
  /** Columns that may be left out to fit `width`, least important first. */
  drop?: readonly string[]
  /** Columns cut only when nothing else can be. */
  keep?: readonly string[]
}

/** A table's text, and the columns left out to fit the width. */
export interface RenderedTable {
  text: string
  dropped: string[]
  /** The columns did not fit the width at a readable size: the rows are shown as records. */
  records?: true
}

const GAP = 2
/** The narrowest a cut column gets (unless its header or values are narrower). */
const MIN_CUT = 8
const ISO_DATETIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i
const LEGACY_DATE = /^(\d{2})\/(\d{2})\/(\d{4})$/
const PLAIN = /^[\x20-\x7e]*$/
// eslint-disable-next-line no-control-regex -- control characters are exactly what is looked for
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g
/** Bidirectional embeddings, overrides and isolates: a cell's U+202E would show the rest of its row reversed. */
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g

/**
 * A table cell's text: cellText, a date-time (ISO 8601 with a zone) shown in
 * UTC to the second (2025-01-18T09:00:00Z) whatever the zone and precision it
 * came in, and newlines and tabs as one space and other control characters as
 * \u escapes, so that a cell never breaks its row or sends terminal codes.
 */
export function tableCell(value: unknown): string {
  const text = cellText(value)
  if (PLAIN.test(text)) return text.length >= 10 && text.length <= 35 && maybeDate(text) ? tableDate(text) : text
  return oneLine(text)
}

/** Whether plain text has the shape of a date tableDate rewrites (DD/MM/... or YYYY-MM-DDT...): most cells are not dates. */
function maybeDate(text: string): boolean {
  return text.charCodeAt(2) === 47 || (text.charCodeAt(4) === 45 && (text.charCodeAt(10) | 32) === 116)
}

/**
 * Text as one line that sends no terminal codes: line breaks and tabs as a space,
 * other control characters (ESC, BEL...) as \u escapes. Values come from buyers
 * (names, addresses), so none may move the cursor, retitle the window or add a line.
 */
export function oneLine(text: string): string {
  const escape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
  return text
    .replace(/[\r\n\t]+/g, ' ')
    .replace(CONTROL, escape)
    .replace(BIDI, escape)
}

/**
 * An ISO 8601 date-time with a zone in UTC to the second; a legacy DD/MM/YYYY
 * date (legacy products' createdAt, legacy fabricatedDate) as YYYY-MM-DD; other
 * text as it is.
 */
export function tableDate(text: string): string {
  const dmy = LEGACY_DATE.exec(text)
  if (dmy) {
    const [, d, m, y] = dmy
    return Number(m) >= 1 && Number(m) <= 12 && Number(d) >= 1 && Number(d) <= 31 ? `${y}-${m}-${d}` : text
  }
  if (!ISO_DATETIME.test(text)) return text
  const ms = Date.parse(text)
  if (Number.isNaN(ms)) return text
  // Already UTC with seconds (the service's own form, every row's createdAt) is its own first 19 characters,
  // unless Date.parse carries a field over (24:00, 29 to 31 of a shorter month): building a Date is most of the cost.
  if (isUtcToTheSecond(text)) return `${text.slice(0, 19)}Z`
  return `${new Date(ms).toISOString().slice(0, 19)}Z`
}

/** An ISO_DATETIME text in Z with seconds whose fields Date.parse takes as they are (hour under 24, day under 29). */
function isUtcToTheSecond(text: string): boolean {
  return (
    text.endsWith('Z') && text[10] === 'T' && text[16] === ':' && text.slice(11, 13) < '24' && text.slice(8, 10) <= '28'
  )
}

/** Characters a terminal draws two columns wide (CJK, Hangul, full-width forms, emoji shown as pictures). */
function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x20000 && cp <= 0x3fffd) ||
    (cp >= 0x1f000 && EMOJI.test(String.fromCodePoint(cp))) ||
    (cp >= 0x231a && cp <= 0x2b55 && EMOJI.test(String.fromCodePoint(cp)))
  )
}
/** Emoji a terminal shows as a picture by default (🚀 ✅ ⌚), flags' halves aside. */
const EMOJI = /^(?!\p{Regional_Indicator})\p{Emoji_Presentation}$/u
/** What starts a cluster drawn as one emoji picture, two columns: a flag's pair, ZWJ sequences, skin tones. */
const PICTURE = /^(?:\p{Regional_Indicator}{2}|\p{Extended_Pictographic}.*(?:\u200d|\ufe0f|\p{Emoji_Modifier}))/u

/** Combining marks, zero-width spaces and joiners, variation selectors, the BOM: no column of their own. */
function isZeroWidth(cp: number): boolean {
  return (
    (cp >= 0x300 && cp <= 0x36f) ||
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x2060 && cp <= 0x2064) ||
    (cp >= 0x20d0 && cp <= 0x20ff) ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    cp === 0xfeff
  )
}

let graphemes: Intl.Segmenter | undefined
/** What makes a cluster of several code points: marks, joiners, selectors, flags' halves, skin tones, Hangul jamo. */
const JOINS = /\p{M}|\u200c|\u200d|\p{Regional_Indicator}|\p{Emoji_Modifier}|[\u1100-\u11ff]/u
/**
 * `text` in the units a terminal draws (grapheme clusters: a letter with its accents,
 * a flag, a family emoji joined by ZWJ), each with the columns it takes.
 */
function* clusters(text: string): Generator<[string, number]> {
  if (!JOINS.test(text)) {
    // Nothing joins code points here (the common case: Malmö, 東京): each is a cluster, and segmenting costs 20 times more.
    for (const ch of text) yield [ch, codePointWidth(ch.codePointAt(0) ?? 0)]
    return
  }
  graphemes ??= new Intl.Segmenter(undefined, {granularity: 'grapheme'})
  for (const {segment} of graphemes.segment(text)) {
    if (segment.length > 1 && PICTURE.test(segment)) {
      yield [segment, 2]
      continue
    }
    let width = 0
    for (const ch of segment) {
      const cp = ch.codePointAt(0) ?? 0
      if (!isZeroWidth(cp)) width += isWide(cp) ? 2 : 1
    }
    yield [segment, width]
  }
}

/** The columns a terminal uses to show `text` (escape sequences take none). */
export function displayWidth(text: string): number {
  if (PLAIN.test(text)) return text.length
  const shown = stripVTControlCharacters(text)
  let width = 0
  if (!JOINS.test(shown)) {
    // Each code point its own cluster (Malmö, 東京, a cut cell's …), counted without a generator's cost.
    for (const ch of shown) width += codePointWidth(ch.codePointAt(0) ?? 0)
    return width
  }
  for (const [, w] of clusters(shown)) width += w
  return width
}

/** The columns one code point takes that stands alone (no marks or joiners around it). */
function codePointWidth(cp: number): number {
  return isZeroWidth(cp) ? 0 : isWide(cp) ? 2 : 1
}

/**
 * `text` cut to `width` display columns, its last one an ellipsis when anything was cut.
 * A cut falls between clusters, never inside one (half a flag, an emoji without its joined part, a letter without its accent).
 */
export function cutText(text: string, width: number): string {
  return cutToWidth(text, width, displayWidth(text))[0]
}

/** cutText of a text `shown` columns wide, with the columns the result takes. */
function cutToWidth(text: string, width: number, shown: number): [string, number] {
  if (shown <= width) return [text, shown]
  if (PLAIN.test(text)) return [`${text.slice(0, Math.max(0, width - 1))}…`, Math.max(0, width - 1) + 1]
  let out = ''
  let used = 0
  for (const [segment, w] of clusters(text)) {
    if (used + w > width - 1) break
    out += segment
    used += w
  }
  return [`${out}…`, used + 1]
}

/**
 * The widths that fit `total` columns: each column gets what it needs up to a
 * common cap, the widest ones are cut to that cap, none below its minimum.
 * Undefined when even the minimums do not fit.
 */
function fitWidths(natural: readonly number[], minimum: readonly number[], total: number): number[] | undefined {
  const budget = total - GAP * (natural.length - 1)
  const sum = (cap: number) => natural.reduce((s, n, i) => s + Math.min(n, Math.max(minimum[i] ?? 0, cap)), 0)
  if (sum(0) > budget) return undefined
  let lo = 0
  let hi = Math.max(0, ...natural)
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2)
    if (sum(mid) <= budget) lo = mid
    else hi = mid - 1
  }
  return natural.map((n, i) => Math.min(n, Math.max(minimum[i] ?? 0, lo)))
}

/**
 * Column widths for a table in `width` terminal columns: the least important
 * droppable columns are left out until the others fit with their long cells cut
 * (to at least MIN_CUT or their header). When nothing more may go and the rest
 * still do not fit so, the rows are shown as records (`records`), with or without
 * a header; a table of one column is cut as far as needed (an id only when even
 * that is not enough).
 */
function layoutColumns(
  columns: readonly string[],
  natural: readonly number[],
  width: number | undefined,
  opts: {drop?: readonly string[] | undefined; keep?: readonly string[] | undefined},
): {keep: number[]; widths: number[]; records?: true} {
  let keep = columns.map((_, i) => i)
  if (width === undefined) return {keep, widths: [...natural]}
  const whole = new Set(opts.keep ?? [])
  const full = (i: number) => natural[i] ?? 0
  const kept = (i: number) => whole.has(columns[i] ?? '')
  // How far each column may be cut, from the gentlest to the last resort.
  const floors = [
    (i: number) => (kept(i) ? full(i) : Math.min(full(i), Math.max(displayWidth(columns[i] ?? ''), MIN_CUT))),
    (i: number) => (kept(i) ? full(i) : 1),
    () => 1,
  ] as const
  const fit = (floor: (i: number) => number) => fitWidths(keep.map(full), keep.map(floor), width)
  const droppable = (opts.drop ?? []).filter((c) => columns.includes(c))
  for (;;) {
    const widths = fit(floors[0])
    if (widths) return {keep, widths}
    const next = droppable.shift()
    if (next === undefined || keep.length === 1) break
    keep = keep.filter((i) => columns[i] !== next)
  }
  // Past its gentlest floor a column's header or cells say next to nothing ("sta…", "shippin…"
  // twice): a table with headers is shown as records instead (every column, one a line).
  if (columns.length > 1) return {keep: columns.map((_, i) => i), widths: [], records: true}
  return {keep, widths: fit(floors[1]) ?? fit(floors[2]) ?? keep.map(() => 1)}
}

/** Rows as table cells (tableCell), raising `natural` to each column's widest. */
function tableCells(rows: readonly Row[], columns: readonly string[], natural: number[]): string[][] {
  const cells: string[][] = new Array<string[]>(rows.length)
  for (let r = 0; r < rows.length; r++) {
    const line = new Array<string>(columns.length)
    for (let c = 0; c < columns.length; c++) {
      const text = tableCell(getPath(rows[r], columns[c] ?? ''))
      line[c] = text
      const w = displayWidth(text)
      if (w > (natural[c] ?? 0)) natural[c] = w
    }
    cells[r] = line
  }
  return cells
}

/** The columns shown and a line's text at the widths chosen for `opts.width` (layoutColumns). */
function tableFormat(columns: readonly string[], natural: readonly number[], opts: TableOptions): TableFormat {
  const {keep, widths, records} = layoutColumns(columns, natural, opts.width, opts)
  if (records) {
    // Keys may be cut, the values of `keep` columns (ids) not, where the width allows.
    const whole = Math.max(0, ...columns.map((c, i) => (opts.keep?.includes(c) ? (natural[i] ?? 0) : 0)))
    return recordFormat(columns, opts.width ?? 80, whole)
  }
  const cut = opts.width !== undefined
  const gap = ' '.repeat(GAP)
  const format = (cells: readonly string[], style?: (s: string) => string): string => {
    let out = ''
    for (let k = 0; k < keep.length; k++) {
      const w = widths[k] ?? 0
      let text = cells[keep[k] ?? 0] ?? ''
      let shown = displayWidth(text)
      if (cut && shown > w) [text, shown] = cutToWidth(text, w, shown)
      if (style) text = style(text)
      out += k === keep.length - 1 ? text : `${text}${' '.repeat(Math.max(0, w - shown))}${gap}`
    }
    return out.trimEnd()
  }
  return {
    dropped: columns.filter((_, i) => !keep.includes(i)),
    header: format(columns, (t) => chalk.bold(t)),
    line: (cells) => format(cells),
  }
}

interface TableFormat {
  dropped: string[]
  /** The header line; empty when the rows are shown as records. */
  header: string
  /** One row's text: a line of the table, or a record's block of lines. */
  line(cells: readonly string[]): string
  /** Shown as records: the table's columns did not fit its width. */
  records?: true
}

/**
 * Rows as records, for a table too wide for its terminal (as psql's expanded display):
 * a rule with the record's number, then one `column  value` line per column, the
 * values cut to the width.
 */
function recordFormat(columns: readonly string[], width: number, wholeValue: number): TableFormat {
  const room = Math.max(4, Math.min(Math.floor(width / 2), width - GAP - wholeValue))
  const keyWidth = Math.min(Math.max(...columns.map(displayWidth)), room)
  const keys = columns.map((c) => {
    const key = cutKey(c, keyWidth)
    return chalk.bold(key + ' '.repeat(Math.max(0, keyWidth - displayWidth(key))))
  })
  const valueWidth = Math.max(1, width - keyWidth - GAP)
  let count = 0
  return {
    dropped: [],
    header: '',
    records: true,
    line(cells) {
      count += 1
      const label = `-[ ${count} ]`
      const lines = [chalk.dim(label + '-'.repeat(Math.max(0, Math.min(width, 40) - label.length)))]
      for (let c = 0; c < columns.length; c++) {
        lines.push(`${keys[c]}${' '.repeat(GAP)}${cutText(cells[c] ?? '', valueWidth)}`.trimEnd())
      }
      return lines.join('\n')
    },
  }
}

/**
 * A record's key in `width` columns: a field path loses its start, so that
 * shippingAddress.city and shippingAddress.country stay told apart (…Address.city,
 * …ess.country); other keys their end.
 */
function cutKey(key: string, width: number): string {
  if (displayWidth(key) <= width || !key.includes('.') || !PLAIN.test(key)) return cutText(key, width)
  return `…${key.slice(key.length - Math.max(0, width - 1))}`
}

/**
 * A borderless table, columns two spaces apart, in one pass over the rows for
 * the widths and one to write them (cost linear in the cells; bench/table-render.ts).
 * With `width` (a terminal's), long cells are cut with an ellipsis and the
 * `drop` columns left out as needed to fit; without, nothing is ever cut.
 */
export function renderTable(rows: readonly Row[], columns: readonly string[], opts: TableOptions = {}): RenderedTable {
  const header = opts.header ?? true
  const natural = columns.map((c) => (header ? displayWidth(c) : 0))
  const cells = tableCells(rows, columns, natural)
  const format = tableFormat(columns, natural, opts)
  const lines: string[] = header && !format.records ? [format.header] : []
  for (const line of cells) lines.push(format.line(line))
  return {text: lines.join('\n'), dropped: format.dropped, ...(format.records ? {records: true} : {})}
}

/** A table written while its rows still come (streamTable). */
export interface TableStream {
  row(row: Row): void
  /** Writes what is held; the number of rows in all. */
  end(): number
}

/**
 * A table written as its rows come, holding at most `block` rows (1,000 by
 * default): the widths (and on a terminal the columns left out) are chosen from
 * the first block, then every later row is written at once at those widths. A
 * later cell wider than its column is cut on a terminal; in piped output, which
 * is never cut, it is written whole and pushes the rest of its row right.
 * `onLayout` hears the columns left out (and whether the rows are shown as records), once,
 * when the widths are chosen.
 */
export function streamTable(
  columns: readonly string[],
  opts: TableOptions & {block?: number},
  onLayout: (dropped: string[], records: boolean) => void = () => undefined,
  out: LineOut = streamOut(),
): TableStream {
  const header = opts.header ?? true
  const block = opts.block ?? 1000
  let held: Row[] = []
  let count = 0
  let format: ReturnType<typeof tableFormat> | undefined
  const start = () => {
    const natural = columns.map((c) => (header ? displayWidth(c) : 0))
    const cells = tableCells(held, columns, natural)
    format = tableFormat(columns, natural, opts)
    onLayout(format.dropped, format.records === true)
    if (header && held.length > 0 && !format.records) out.line(format.header)
    for (const line of cells) out.line(format.line(line))
    held = []
  }
  return {
    row(row) {
      count++
      if (format) out.line(format.line(columns.map((c) => tableCell(getPath(row, c)))))
      else {
        held.push(row)
        if (held.length >= block) start()
      }
    },
    end() {
      if (!format) start()
      out.flush()
      return count
    },
  }
}

/** A table with no width to fit (nothing cut); see renderTable. */
export function toTable(rows: readonly Row[], columns: readonly string[], header = true): string {
  return renderTable(rows, columns, {header}).text
}

/**
 * Key/value table for one record: nested objects flattened to dotted paths,
 * each value shown as a table cell is (tableCell: dates in UTC to the second, one line).
 */
export function toKeyValue(record: Row, opts: {skip?: readonly string[]} = {}): string {
  const pairs: [string, string][] = []
  const walk = (value: unknown, prefix: string): void => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value)) walk(v, prefix ? `${prefix}.${k}` : k)
      return
    }
    if (Array.isArray(value) && value.some((v) => v !== null && typeof v === 'object')) {
      pairs.push([prefix, `${value.length} item${value.length === 1 ? '' : 's'}`])
      return
    }
    pairs.push([prefix, Array.isArray(value) ? value.map(tableCell).join(', ') : tableCell(value)])
  }
  for (const [k, v] of Object.entries(record)) if (!opts.skip?.includes(k)) walk(v, k)
  const width = Math.max(0, ...pairs.map(([k]) => k.length))
  return pairs.map(([k, v]) => `${chalk.bold(k.padEnd(width))}  ${v}`).join('\n')
}

/**
 * The columns a list shows: --columns as given, else the command's defaults
 * (with its wide ones under --wide).
 */
export function listColumns(
  flags: ListOutputFlags,
  defaultColumns: readonly string[],
  layout: TableLayout = {},
): string[] {
  if (flags.columns) return parseColumns(flags.columns, defaultColumns)
  return flags.wide ? [...defaultColumns, ...(layout.wide ?? [])] : [...defaultColumns]
}

/** The width a table must fit: the terminal's when stdout is one and --no-truncate was not given. */
export function terminalWidth(flags: {'no-truncate'?: boolean | undefined} = {}): number | undefined {
  if (flags['no-truncate'] || !isTty(process.stdout)) return undefined
  const columns = process.stdout.columns
  return Number.isInteger(columns) && columns > 0 ? columns : undefined
}

/**
 * Writes a table on stdout, fitted to the terminal (see terminalWidth); the
 * columns left out to fit are named on stderr. Only columns in `drop` may go:
 * a list's own columns, never those asked for with --columns or --wide.
 */
export function printTable(
  rows: readonly Row[],
  columns: readonly string[],
  opts: TableLayout & {
    header?: boolean
    'no-truncate'?: boolean | undefined
    /** The command's flags that change the table's fit, for the note on records (none by default). */
    flags?: readonly TableFlagName[]
    /** Notes already written by the command's earlier tables (shared by them), so that each is said once. */
    said?: Set<string>
  } = {},
): void {
  const width = terminalWidth(opts)
  const table = renderTable(rows, columns, {
    header: opts.header ?? true,
    width,
    drop: opts.drop ?? [],
    keep: opts.keep ?? [],
  })
  writeOut(table.text)
  const note = layoutNote(columns, table.dropped, table.records === true, width, opts.flags ?? [], opts.said)
  if (note) writeErr(note)
}

/** The flags of a command that prints a table that change how it fits: what the note on records suggests. */
export type TableFlagName = 'columns' | 'no-truncate'

/**
 * What stderr says of a table fitted to the terminal: the columns left out, or
 * that the rows are records (once for all the tables that share `said`),
 * and how to get a table with the flags the command has.
 */
function layoutNote(
  columns: readonly string[],
  dropped: readonly string[],
  records: boolean,
  width: number | undefined,
  flags: readonly TableFlagName[],
  said?: Set<string>,
): string | undefined {
  if (records) {
    if (said?.has('records')) return undefined
    said?.add('records')
    const how = [
      ...(flags.includes('columns') ? ['--columns chooses fewer'] : []),
      ...(flags.includes('no-truncate') ? ['--no-truncate prints the table uncut'] : []),
    ]
    const hint =
      how.length > 0 ? `${how.join(', ')}.` : 'A wider terminal shows the table; piped output (| less -S) is never cut.'
    return `The table's ${columns.length} columns do not fit ${width} characters; shown as records. ${hint}`
  }
  if (dropped.length === 0) return undefined
  return `${dropped.length === 1 ? 'Column' : 'Columns'} ${dropped.join(', ')} left out to fit ${width} characters; --no-truncate shows every column.`
}

/** Every list command has --columns and --no-truncate (tableFlags). */
const LIST_FLAGS: readonly TableFlagName[] = ['columns', 'no-truncate']

/**
 * Prints rows as the list flags ask: table (default), CSV or NDJSON.
 * `--json` is handled by BaseCommand from the command's returned value.
 * An empty table prints `empty` (such as "No demands.") on stderr, so that an
 * empty answer is told apart from no answer; stdout stays empty.
 * A table on a terminal fits its width (printTable): `layout.drop` columns go
 * first, unless the columns were chosen with --columns or --wide.
 */
export function printList(
  rows: readonly Row[],
  flags: ListOutputFlags,
  defaultColumns: readonly string[],
  empty?: string,
  layout: TableLayout = {},
): void {
  const columns = listColumns(flags, defaultColumns, layout)
  const header = !flags['no-header']
  if (flags.ndjson) {
    const out = streamOut()
    for (const row of rows) out.line(JSON.stringify(flags.columns ? project(row, columns) : row))
    out.flush()
    return
  }
  if (rows.length === 0 && !flags.csv) {
    if (empty) writeErr(empty)
    return
  }
  if (flags.csv) writeOut(toCsv(rows, columns, header))
  else {
    const chosen = Boolean(flags.columns) || Boolean(flags.wide)
    printTable(rows, columns, {
      header,
      drop: chosen ? [] : (layout.drop ?? []),
      keep: layout.keep ?? [],
      'no-truncate': flags['no-truncate'],
      flags: LIST_FLAGS,
    })
  }
}

/**
 * A list streamed with --all as a table (streamTable, fitted like printList's):
 * each item written as it comes once the first block has set the widths (on a
 * terminal, where a later cell wider than its column is cut anyway, the first
 * 100 rows, so that someone watching sees the first page as soon as it comes).
 * An empty list prints `layout.empty` on stderr. Stopped quietly when `signal`
 * says stdout has closed (`| head`). The number of rows written.
 */
export async function printTableStream<T>(
  items: AsyncIterable<T>,
  toRow: (item: T) => Row,
  flags: ListOutputFlags,
  defaultColumns: readonly string[],
  layout: TableLayout & {empty?: string} = {},
  signal?: AbortSignal,
): Promise<number> {
  const width = terminalWidth(flags)
  const chosen = Boolean(flags.columns) || Boolean(flags.wide)
  const opts = {
    header: !flags['no-header'],
    width,
    drop: chosen ? [] : (layout.drop ?? []),
    keep: layout.keep ?? [],
    block: process.stdout.isTTY ? 100 : 1000,
  }
  const columns = listColumns(flags, defaultColumns, layout)
  const table = streamTable(columns, opts, (dropped, records) => {
    const note = layoutNote(columns, dropped, records, width, LIST_FLAGS)
    if (note) writeErr(note)
  })
  let rows: number
  try {
    for await (const item of items) {
      if (signal?.aborted) break
      table.row(toRow(item))
    }
  } catch (error) {
    // The reader has gone: the page asked for last was cancelled with it.
    if (!signal?.aborted) throw error
  } finally {
    // Rows held for the widths are written even when the listing fails part way.
    rows = table.end()
  }
  if (rows === 0 && layout.empty) writeErr(layout.empty)
  return rows
}

/**
 * The hint under one page of a list when the service says there are more pages
 * (`Page 1 of 3 (52 demands); --page 2 or --all for more.`); undefined when it
 * does not say, or says this is the last page.
 */
export function morePagesNote(
  paging: {page?: number | undefined; totalPages?: number | undefined; total?: number | undefined},
  noun: string,
): string | undefined {
  const {page, totalPages, total} = paging
  if (page === undefined || totalPages === undefined || totalPages <= page) return undefined
  return `Page ${page} of ${totalPages}${total === undefined ? '' : ` (${total} ${noun})`}; --page ${page + 1} or --all for more.`
}

/** NDJSON line for one item, for streaming output. */
export function ndjsonLine(row: unknown, flags: ListOutputFlags, defaultColumns: readonly string[]): string {
  return JSON.stringify(flags.columns ? project(row, parseColumns(flags.columns, defaultColumns)) : row)
}

/** An epoch-ms time as ISO 8601 in the local time zone, with its offset (2025-01-03T10:00:00+01:00). */
export function isoLocal(ms: number): string {
  const d = new Date(ms)
  if (Number.isNaN(d.getTime())) return String(ms)
  const pad = (n: number, w = 2) => String(Math.trunc(Math.abs(n))).padStart(w, '0')
  const offset = -d.getTimezoneOffset()
  const sign = offset >= 0 ? '+' : '-'
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}${sign}${pad(offset / 60)}:${pad(offset % 60)}`
}
