import {createHash} from 'node:crypto'
import {closeSync, mkdtempSync, openSync, read, readSync, rmSync, statSync, writeSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {extname, join} from 'node:path'
import {promisify} from 'node:util'

import type * as z from 'zod'

import type {InputRow, RowSource} from '../services/demands/batch-validate.js'
import {InputError} from '../services/errors.js'
import {CsvRowBuilder, csvRecords, FaultyRow} from './csv.js'
import {jsonErrorOffset, lineColumn, nestedDeeperThan, TOO_DEEP} from './json-locate.js'
import {type Encoding, InputDecoder, lineAt, NotTextError} from './text-decode.js'
import {fileReason} from '../util/file-reason.js'

export type RowFormat = 'json' | 'ndjson' | 'csv'
export const ROW_FORMATS = ['json', 'ndjson', 'csv'] as const

export interface OpenRowsOptions {
  /** Forces the format; otherwise the extension decides, then the first character. */
  format?: RowFormat
  /** The schema CSV cells are converted for. */
  schema: z.ZodType
  /** The input's encoding when it starts without a byte-order mark (UTF-8 unless told). */
  encoding?: Encoding
  /** The CSV field delimiter; otherwise the header line decides (a comma unless it has none and has a semicolon or a tab). */
  delimiter?: string
  stdin?: NodeJS.ReadableStream
}

/** A RowSource that can also release what it holds (stdin's spool file). */
export interface ClosableRowSource extends RowSource {
  close(): void
}

/**
 * Opens `--file PATH` or `--file -` as a stream of rows that can be read more
 * than once: stdin is copied to a private temporary file (0600) on the first
 * read and read back from it afterwards, so memory never holds the input.
 */
export function openRowSource(file: string, opts: OpenRowsOptions): ClosableRowSource {
  const stdin = file === '-'
  const label = stdin ? 'stdin' : file
  if (stdin && ((opts.stdin ?? process.stdin) as {isTTY?: boolean}).isTTY) {
    throw new InputError(
      '--file - reads from stdin, but stdin is a terminal; pipe the data in, for example `cat quotes.ndjson | mfg demand create --file -`.',
    )
  }
  if (!stdin) checkReadable(file)
  const byExtension = formatOfName(file)
  let hash: string | undefined
  let spoolDir: string | undefined
  let spoolFile: string | undefined
  let reads = 0

  async function* chunks(): AsyncGenerator<string> {
    const first = reads++ === 0
    let stream: AsyncIterable<unknown>
    let spoolFd: number | undefined
    if (stdin && first) {
      stream = opts.stdin ?? process.stdin
      spoolDir = mkdtempSync(join(tmpdir(), 'mfg-stdin-'))
      spoolFile = join(spoolDir, 'input')
      spoolFd = openSync(spoolFile, 'w', 0o600)
    } else if (stdin) {
      if (!spoolFile) throw new Error('stdin was not read to the end on the first pass')
      stream = filePieces(spoolFile)
    } else {
      stream = filePieces(file)
    }
    const hasher = first ? createHash('sha256') : undefined
    const decoder = new InputDecoder(opts.encoding)
    try {
      for await (const piece of stream) {
        const buf = typeof piece === 'string' ? Buffer.from(piece) : (piece as Buffer)
        hasher?.update(buf)
        if (spoolFd !== undefined) writeSync(spoolFd, buf)
        const text = decoder.write(buf)
        if (text) yield text
      }
      const rest = decoder.end()
      if (rest) yield rest
    } catch (error) {
      if (!(error instanceof NotTextError)) throw error
      // The line is counted only now, from the bytes read so far (the file, or stdin's copy).
      if (spoolFd !== undefined) closeSync(spoolFd)
      spoolFd = undefined
      throw new InputError(
        error.explain(label, lineAt(readPrefix(stdin ? spoolFile! : file, error.offset), error.offset)),
      )
    } finally {
      if (spoolFd !== undefined) closeSync(spoolFd)
    }
    if (hasher) hash = hasher.digest('hex')
  }

  /** The rows a piece of the input at a time, in the format it is in. */
  async function* batches(): AsyncGenerator<InputRow[]> {
    const source = peekable(chunks())
    try {
      yield* formatBatches(source)
    } finally {
      // However the reading ends (done, a bad row thrown, the reader stopping early),
      // the file under it is closed now, not left to the garbage collector.
      await source.close()
    }
  }

  async function* formatBatches(source: ReturnType<typeof peekable>): AsyncGenerator<InputRow[]> {
    const head = await source.peekNonSpace()
    const format = opts.format ?? byExtension ?? sniff(head.char)
    if (format === 'csv') {
      yield* csvBatches(source.all(), label, opts.schema, opts.delimiter)
    } else if (format === 'ndjson') {
      yield* ndjsonBatches(source.all(), label)
    } else if (head.char === '[' || head.char === undefined) {
      yield* jsonBatches(source.all(), 'array', label)
    } else if (
      head.char === '{' &&
      opts.format === undefined &&
      byExtension === undefined &&
      (await source.firstLineIsJson())
    ) {
      yield* ndjsonBatches(source.all(), label)
    } else {
      yield* jsonBatches(source.all(), 'sequence', label)
    }
  }

  return {
    label,
    read: () => flatten(batches()),
    readBatches: batches,
    contentHash() {
      if (hash === undefined) throw new Error('the input has not been read to the end yet')
      return hash
    },
    close() {
      if (spoolDir) rmSync(spoolDir, {recursive: true, force: true})
      spoolDir = undefined
    },
  }
}

/** The first `length` bytes of a file. */
function readPrefix(path: string, length: number): Buffer {
  const fd = openSync(path, 'r')
  try {
    const buf = Buffer.alloc(length)
    return buf.subarray(0, readSync(fd, buf, 0, length, 0))
  } finally {
    closeSync(fd)
  }
}

/** fs.read as a promise of {bytesRead, buffer} (Node's own promisified form of it). */
const readAsync = promisify(read)

/**
 * A file's bytes 64 KiB at a time, read into two buffers in turn: the next
 * piece is read while the one handed out is hashed, copied to the spool and
 * decoded, which is all done with it before it is asked for again. Plainer
 * than a read stream (a new buffer a piece, and its machinery between them): a
 * first pass over 10,000 CSV rows took about 2 ms less. A plain descriptor, not
 * a FileHandle: the readers close it when they end (openRowSource's batches),
 * and one a reader dropped without ending stays open until the process exits,
 * where Node 26 ends the process with an error when it collects an open FileHandle.
 */
async function* filePieces(path: string): AsyncGenerator<Buffer> {
  const fd = openSync(path, 'r')
  const buffers = [Buffer.allocUnsafe(64 * 1024), Buffer.allocUnsafe(64 * 1024)]
  let turn = 0
  let reading: Promise<{bytesRead: number; buffer: Buffer}> | undefined
  try {
    reading = readAsync(fd, buffers[0]!, 0, 64 * 1024, null)
    for (;;) {
      const {bytesRead, buffer} = await reading
      reading = undefined
      if (bytesRead === 0) return
      turn ^= 1
      reading = readAsync(fd, buffers[turn]!, 0, 64 * 1024, null)
      yield buffer.subarray(0, bytesRead)
    }
  } finally {
    // A reader that stops early leaves a read in flight: it ends before the file is closed.
    await reading?.catch(() => undefined)
    closeSync(fd)
  }
}

function checkReadable(file: string): void {
  try {
    if (statSync(file).isDirectory()) throw new InputError(`cannot read --file ${file}: it is a directory`)
  } catch (error) {
    if (error instanceof InputError) throw error
    throw new InputError(`cannot read --file ${file}: ${fileReason(error)}`)
  }
}

function formatOfName(file: string): RowFormat | undefined {
  switch (extname(file).toLowerCase()) {
    case '.json':
      return 'json'
    case '.ndjson':
    case '.jsonl':
      return 'ndjson'
    case '.csv':
      return 'csv'
    default:
      return undefined
  }
}

function sniff(char: string | undefined): RowFormat {
  return char === '[' || char === '{' || char === undefined ? 'json' : 'csv'
}

/** Lets the format be chosen from the first characters without losing them. */
function peekable(gen: AsyncGenerator<string>) {
  const buffered: string[] = []
  let done = false
  const pull = async (): Promise<boolean> => {
    if (done) return false
    const next = await gen.next()
    if (next.done) {
      done = true
      return false
    }
    buffered.push(next.value)
    return true
  }
  return {
    async peekNonSpace(): Promise<{char: string | undefined}> {
      for (let i = 0; ; i++) {
        if (i >= buffered.length && !(await pull())) return {char: undefined}
        const m = /\S/.exec(buffered[i]!)
        if (m) return {char: m[0]}
      }
    },
    /** Whether the first non-empty line is one whole JSON value (then the input is NDJSON). */
    async firstLineIsJson(): Promise<boolean> {
      for (;;) {
        const text = buffered.join('')
        const begin = text.search(/\S/)
        const nl = begin === -1 ? -1 : text.indexOf('\n', begin)
        if (begin !== -1 && (nl !== -1 || done)) {
          try {
            JSON.parse(text.slice(begin, nl === -1 ? undefined : nl))
            return true
          } catch {
            return false
          }
        }
        if (done) return false
        await pull()
      }
    },
    async *all(): AsyncGenerator<string> {
      while (buffered.length > 0) yield buffered.shift()!
      if (done) return
      yield* gen
    },
    /** Ends the source (its finally blocks run: a file it reads is closed). */
    async close(): Promise<void> {
      done = true
      await gen.return(undefined)
    },
  }
}

/** One row at a time from a reader that gives them a piece of the input at a time. */
async function* flatten(batches: AsyncIterable<InputRow[]>): AsyncGenerator<InputRow> {
  for await (const batch of batches) yield* batch
}

/** NDJSON: one object per non-empty line. A bad line is an invalid row, not the end of the input. */
export function ndjsonRows(chunks: AsyncIterable<string>, label: string): AsyncGenerator<InputRow> {
  return flatten(ndjsonBatches(chunks, label))
}

/**
 * `ndjsonRows`, the rows each piece of text completes as one array. Lines end
 * at LF only (a CR before it is dropped), as NDJSON says: node:readline would
 * also end them at U+2028 and U+2029, which JSON.stringify leaves raw inside
 * strings, and cut such rows in two.
 */
export async function* ndjsonBatches(chunks: AsyncIterable<string>, label: string): AsyncGenerator<InputRow[]> {
  let rest = ''
  let line = 0
  let row = 0
  const one = (text: string): InputRow | undefined => {
    line++
    const body = text.endsWith('\r') ? text.slice(0, -1) : text
    return body.trim() === '' ? undefined : ndjsonRow(body, ++row, line, label)
  }
  for await (const chunk of chunks) {
    const text = rest + chunk
    let start = 0
    const out: InputRow[] = []
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      const r = one(text.slice(start, nl))
      if (r) out.push(r)
      start = nl + 1
    }
    rest = text.slice(start)
    if (out.length > 0) yield out
  }
  const last = one(rest)
  if (last) yield [last]
}

/** One non-empty NDJSON line as a row; JSON that does not parse makes an invalid row naming its column. */
function ndjsonRow(body: string, row: number, line: number, label: string): InputRow {
  try {
    const value = JSON.parse(body) as unknown
    if (nestedDeeperThan(value)) return {row, line, raw: body, problems: [{path: '', reason: TOO_DEEP}]}
    return {row, line, value}
  } catch (error) {
    const found = jsonErrorOffset(body)
    const where = found ? `column ${lineColumn(body, found.offset).column}: ${found.reason}` : (error as Error).message
    return {row, line, raw: body, problems: [{path: '', reason: `invalid JSON on line ${line} of ${label} (${where})`}]}
  }
}

/**
 * A JSON array of objects (`array`), or objects one after another separated by
 * white space (`sequence`, which covers one pretty-printed object), read
 * element by element. Broken JSON ends the input with its line and column.
 */
export function jsonValues(
  chunks: AsyncIterable<string>,
  mode: 'array' | 'sequence',
  label: string,
): AsyncGenerator<InputRow> {
  return flatten(jsonBatches(chunks, mode, label))
}

/** `jsonValues`, the rows each piece of text completes as one array. */
export async function* jsonBatches(
  chunks: AsyncIterable<string>,
  mode: 'array' | 'sequence',
  label: string,
): AsyncGenerator<InputRow[]> {
  const splitter = new JsonSplitter(mode, label)
  for await (const chunk of chunks) {
    const out = splitter.push(chunk)
    if (out.length > 0) yield out
  }
  const last = splitter.lastNumber()
  if (last) yield [last]
  splitter.end()
}

/**
 * Finds where each top-level value of a JSON array (or of a sequence of
 * values) begins and ends, a piece of text at a time, and hands each value's
 * text to JSON.parse: a scan for brackets, quotes and commas costs less than
 * a streaming JSON parser building the values itself (bench/readers.ts).
 */
class JsonSplitter {
  private opened: boolean
  private closed = false
  private afterValue = false
  private expectValue = false
  private inValue = false
  private primitive = false
  private inString = false
  private escape = false
  private depth = 0
  /** The text of the value being read, from the pieces before this one. */
  private buf = ''
  private line = 1
  private col = 0
  private startLine = 1
  private startCol = 1
  private row = 0
  private previousLine = 0

  constructor(
    private readonly mode: 'array' | 'sequence',
    private readonly label: string,
  ) {
    this.opened = mode === 'sequence'
  }

  /** The rows this piece of text completes. */
  push(chunk: string): InputRow[] {
    const out: InputRow[] = []
    let segStart = 0
    let i = 0
    while (i < chunk.length) {
      if (this.inValue) {
        const end = this.valueEnd(chunk, i)
        if (end === -1) break
        out.push(this.finish(this.buf + chunk.slice(segStart, end)))
        this.buf = ''
        this.inValue = false
        this.afterValue = true
        i = end
        continue
      }
      const c = chunk.charCodeAt(i)
      if (c === 10) {
        this.line++
        this.col = 0
      } else this.col++
      if (this.begins(c)) segStart = i
      i++
    }
    if (this.inValue) this.buf += chunk.slice(segStart)
    return out
  }

  /**
   * Reads on in the value from `from`: the index after its last character, or
   * -1 when it goes on past this piece. A number or a literal ends before the
   * comma, bracket or white space after it.
   */
  private valueEnd(chunk: string, from: number): number {
    let {inString, escape, depth, line, col} = this
    const primitive = this.primitive
    let end = -1
    for (let i = from; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i)
      if (primitive && !inString && (c === 44 || c === 93 || c === 32 || c === 9 || c === 10 || c === 13)) {
        end = i
        break
      }
      if (c === 10) {
        line++
        col = 0
      } else col++
      if (inString) {
        if (escape) escape = false
        else if (c === 92) escape = true
        else if (c === 34) {
          inString = false
          if (primitive) {
            end = i + 1
            break
          }
        }
      } else if (primitive) continue
      else if (c === 34) inString = true
      else if (c === 123 || c === 91) depth++
      else if ((c === 125 || c === 93) && --depth === 0) {
        end = i + 1
        break
      }
    }
    Object.assign(this, {inString, escape, depth, line, col})
    return end
  }

  /** A character outside any value: checks the array's punctuation; true when a value starts with it. */
  private begins(c: number): boolean {
    if (c === 32 || c === 9 || c === 10 || c === 13) return false
    if (this.closed) this.fail('unexpected text after the end of the array')
    if (!this.opened) {
      if (c !== 91) this.fail('expected [')
      this.opened = true
      return false
    }
    if (this.mode === 'array' && c === 44) {
      if (!this.afterValue) this.fail('unexpected ,')
      this.afterValue = false
      this.expectValue = true
      return false
    }
    if (this.mode === 'array' && c === 93) {
      if (this.expectValue) this.fail('unexpected ] after ,')
      this.closed = true
      return false
    }
    if (this.afterValue && this.mode === 'array') this.fail('expected , or ]')
    this.inValue = true
    this.expectValue = false
    this.afterValue = false
    this.buf = ''
    this.startLine = this.line
    this.startCol = this.col
    this.primitive = !(c === 123 || c === 91)
    this.depth = this.primitive ? 0 : 1
    this.inString = c === 34
    this.escape = false
    return true
  }

  /** A number or literal the input ends with (it has nothing after it to end it). */
  lastNumber(): InputRow | undefined {
    if (!(this.inValue && this.primitive && !this.inString)) return undefined
    this.inValue = false
    return this.finish(this.buf)
  }

  /** Throws when the input ends inside a row or before the array is closed. */
  end(): void {
    if (this.inValue) {
      throw new InputError(
        `${this.label}: invalid JSON: the input ends inside row ${this.row + 1} (line ${this.startLine})`,
      )
    }
    if (this.mode === 'array' && this.opened && !this.closed) {
      throw new InputError(`${this.label}: invalid JSON: the input ends before the array is closed with ]`)
    }
  }

  private fail(what: string): never {
    throw new InputError(`${this.label}: invalid JSON at line ${this.line}, column ${this.col}: ${what}`)
  }

  private finish(text: string): InputRow {
    const row = ++this.row
    // A line number helps only when rows sit on lines of their own.
    const own = this.startLine !== this.previousLine
    this.previousLine = this.startLine
    const at = own ? {line: this.startLine} : {}
    try {
      const value = JSON.parse(text) as unknown
      if (nestedDeeperThan(value)) return {row, ...at, raw: text, problems: [{path: '', reason: TOO_DEEP}]}
      return {row, ...at, value}
    } catch (error) {
      const found = jsonErrorOffset(text)
      if (!found)
        throw new InputError(
          `${this.label}: invalid JSON in row ${row} (line ${this.startLine}): ${(error as Error).message}`,
        )
      const rel = lineColumn(text, found.offset)
      const absLine = this.startLine + rel.line - 1
      const absCol = rel.line === 1 ? this.startCol + rel.column - 1 : rel.column
      throw new InputError(`${this.label}: invalid JSON at line ${absLine}, column ${absCol}: ${found.reason}`)
    }
  }
}

/** CSV with a header of field paths; each record becomes an object shaped for `schema`. */
export function csvRows(chunks: AsyncIterable<string>, label: string, schema: z.ZodType): AsyncGenerator<InputRow> {
  return flatten(csvBatches(chunks, label, schema))
}

/** `csvRows`, the rows each piece of text completes as one array. */
export async function* csvBatches(
  chunks: AsyncIterable<string>,
  label: string,
  schema: z.ZodType,
  delimiter?: string,
): AsyncGenerator<InputRow[]> {
  let builder: CsvRowBuilder | undefined
  let row = 0
  // Each record becomes its row as soon as it is cut; the first one is the header.
  const make = (cells: string[], line: number): InputRow | undefined => {
    if (!builder) {
      try {
        builder = new CsvRowBuilder(cells, schema)
      } catch (error) {
        throw new InputError(`${label}: ${(error as Error).message}`)
      }
      return undefined
    }
    row++
    const built = builder.build(cells)
    return built instanceof FaultyRow
      ? {row, line, value: built.value, problems: built.problems, raw: cells.join(',')}
      : {row, line, value: built}
  }
  try {
    yield* csvRecords(chunks, make, delimiter)
  } catch (error) {
    if (error instanceof InputError) throw error
    throw new InputError(`${label}: invalid CSV: ${(error as Error).message}`)
  }
}

/** Rows already in memory (one quote built from flags), as a RowSource. */
export function memoryRowSource(values: readonly unknown[], label: string, identity: string): ClosableRowSource {
  return {
    label,
    async *read(): AsyncGenerator<InputRow> {
      for (const [i, value] of values.entries()) yield {row: i + 1, value}
    },
    async *readBatches(): AsyncGenerator<InputRow[]> {
      if (values.length > 0) yield values.map((value, i) => ({row: i + 1, value}))
    },
    contentHash: () => identity,
    close() {},
  }
}
