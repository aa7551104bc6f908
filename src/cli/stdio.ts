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
export function streamOut(stream: NodeJS.WritableStream = process.stdout): LineOut {
  let pending = ''
  let scheduled: NodeJS.Immediate | undefined
  let first = true
  const flush = () => {
    if (scheduled) clearImmediate(scheduled)
    scheduled = undefined
    if (pending === '') return
    const text = pending
    pending = ''
    stream.write(text)
  }
  return {
    line(text) {
      pending += text.endsWith('\n') ? text : `${text}\n`
      if (first || pending.length >= FLUSH_AT) {
        first = false
        flush()
      } else scheduled ??= setImmediate(flush)
    },
    flush,
  }
}

/**
 * A listing's items, streamed or kept: with `line`, each item is written as the
 * line it gives as soon as it comes (streamOut) and nothing is kept, so memory
 * stays flat however long the list; without, the items are collected and returned.
 */
export async function streamOrCollect<T>(items: AsyncIterable<T>, line?: (item: T) => string): Promise<T[]> {
  const kept: T[] = []
  const out = streamOut()
  try {
    for await (const item of items) {
      if (line) out.line(line(item))
      else kept.push(item)
    }
  } finally {
    out.flush()
  }
  return kept
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
