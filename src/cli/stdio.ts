// Writing to stdout and stderr, without colour support: what output.ts offers
// that needs no chalk (and so no node:tty), for the paths that print plain
// data. output.ts re-exports it.
import {stripVTControlCharacters} from 'node:util'

/** Whether a stream is an interactive terminal (tests and pipes are not). */
export function isTty(stream: NodeJS.WriteStream | NodeJS.ReadStream = process.stdout): boolean {
  return Boolean((stream as {isTTY?: boolean}).isTTY)
}

/** Data goes to stdout, and only data. */
export function writeOut(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`)
}

/**
 * Writes to stdout and resolves once the text is handed to its reader; rejects
 * when the reader has gone (see onStdoutClosed), so a caller can tell what was
 * not written.
 */
export function writeOutConfirmed(text: string): Promise<void> {
  if (stdoutGone()) return Promise.reject(new Error('stdout is closed'))
  return new Promise((resolve, reject) => {
    process.stdout.write(text.endsWith('\n') ? text : `${text}\n`, (error) => (error ? reject(error) : resolve()))
  })
}

/** Lines for stdout gathered while a list streams (see streamOut). */
export interface LineOut {
  /** Adds one line; it is written with the others at the next turn of the event loop, or sooner when many wait. */
  line(text: string): void
  /** Writes what waits now; call it when the stream ends, however it ends. */
  flush(): void
}

/** Gathered lines are written at once from this many characters on, so a burst never holds much. */
const FLUSH_AT = 64 * 1024

/**
 * Streamed lines written together: each line still goes out as soon as the
 * items that arrived with it are done (the next turn of the event loop, which
 * comes while the next page is awaited), but as one write per batch rather
 * than one per line. On a pipe every write is a system call that wakes the
 * reader, and a long `--ndjson` listing made 100,000 of them (docs/benchmarks.md).
 * The very first line is written at once: the time to it is what the next
 * command of a pipeline waits for.
 */
export function streamOut(stream: NodeJS.WritableStream = process.stdout, transform?: BatchTransform): LineOut {
  let pending = ''
  let scheduled: NodeJS.Immediate | undefined
  let first = true
  let failed: unknown
  const flush = () => {
    if (scheduled) clearImmediate(scheduled)
    scheduled = undefined
    if (failed !== undefined) throw failed
    if (pending === '') return
    const text = pending
    pending = ''
    let out = text
    if (transform) {
      try {
        out = transform(text)
      } catch (err) {
        failed = err
        const partial = (err as {output?: unknown}).output
        if (typeof partial === 'string' && partial !== '')
          stream.write(partial.endsWith('\n') ? partial : `${partial}\n`)
        throw err
      }
      if (out === '') return
      if (!out.endsWith('\n')) out += '\n'
    }
    stream.write(out)
  }
  // A batch flushed on its own turn of the event loop keeps a transform's error for the next call.
  const later = () => {
    try {
      flush()
    } catch {
      // kept in `failed`
    }
  }
  return {
    line(text) {
      if (failed !== undefined) throw failed
      pending += text.endsWith('\n') ? text : `${text}\n`
      if (first || pending.length >= FLUSH_AT) {
        first = false
        flush()
      } else scheduled ??= setImmediate(later)
    },
    flush,
  }
}

/**
 * Turns a batch of lines into what is written (`--jq` over NDJSON); an empty answer writes
 * nothing. One that fails may carry in `output` what it made before: that is written first.
 */
export type BatchTransform = (lines: string) => string

let closed: AbortController | undefined

/**
 * Watches stdout for its reader going away (EPIPE: `mfg ... | head -1` after
 * head has exited). From then on the returned signal is aborted: listings stop
 * fetching and writing at once, and the command ends with exit code 0, as
 * `yes | head -1` does. Without this watch, Node would throw the write error.
 */
export function onStdoutClosed(stream: NodeJS.WriteStream = process.stdout): AbortSignal {
  if (closed) return closed.signal
  const controller = new AbortController()
  closed = controller
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') throw err
    if (!controller.signal.aborted) controller.abort(err)
  })
  return controller.signal
}

/** Whether stdout's reader has gone (see onStdoutClosed). */
export function stdoutGone(): boolean {
  return closed?.signal.aborted ?? false
}

/**
 * A listing's items, streamed or kept: with `line`, each item is written as the
 * line it gives as soon as it comes (streamOut) and nothing is kept, so memory
 * stays flat however long the list; without, the items are collected and returned.
 * `transform` rewrites each batch of lines before it is written. When
 * stdout's reader goes away, the listing stops there: the request in flight is
 * aborted through `signal` (give the same one to the listing) and no error is raised.
 */
export async function streamOrCollect<T>(
  items: AsyncIterable<T>,
  line?: (item: T) => string,
  signal: AbortSignal = onStdoutClosed(),
  transform?: BatchTransform,
): Promise<T[]> {
  const kept: T[] = []
  const out = streamOut(process.stdout, transform)
  streaming = out
  try {
    for await (const item of items) {
      if (signal.aborted) break
      if (!line) {
        kept.push(item)
        continue
      }
      out.line(line(item))
    }
  } catch (err) {
    if (!signal.aborted) throw err
  } finally {
    streaming = undefined
    if (!signal.aborted) out.flush()
  }
  return kept
}

/** The lines of the listing being streamed, if any. */
let streaming: LineOut | undefined

/**
 * Writes out the lines a streamed listing holds and waits one turn of the event
 * loop, in which a write to a reader that has gone reports EPIPE (see
 * onStdoutClosed): a listing awaits this before asking for its next page.
 */
export async function settleStdout(): Promise<void> {
  streaming?.flush()
  await new Promise((done) => setImmediate(done))
}

/**
 * Notes, progress, summaries and errors go to stderr. The colour setting follows
 * stdout (output.ts configureColor), so when stderr alone is a pipe or a file
 * (`mfg ... 2>log`) its escape codes are taken out here, unless FORCE_COLOR
 * asks for colour (as chalk reads it: set, and not 0 or false).
 */
export function writeErr(text: string): void {
  const line = text.endsWith('\n') ? text : `${text}\n`
  process.stderr.write(line.includes('\u001b') && !stderrColor() ? stripVTControlCharacters(line) : line)
}

function stderrColor(): boolean {
  const force = process.env.FORCE_COLOR
  return isTty(process.stderr) || (force !== undefined && force !== '0' && force !== 'false')
}
