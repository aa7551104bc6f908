// Line-by-line reading of text formats in bounded chunks, so a large ASCII file is never
// decoded into one giant string.

import {runSteps, type Steps} from './steps.js'

const CHUNK = 1 << 22

/**
 * Calls `onLine` for every line (without its line ending) with its 1-based number.
 * Bytes are decoded as Latin-1: the formats are ASCII and only names may be anything else.
 */
export function forEachLine(bytes: Uint8Array, onLine: (line: string, lineNo: number) => void): void {
  runSteps(lineSteps(bytes, onLine))
}

/** forEachLine in steps: yields the bytes done after each chunk of about 4 MB. */
export function* lineSteps(bytes: Uint8Array, onLine: (line: string, lineNo: number) => void): Steps<void> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let lineNo = 0
  let start = 0
  while (start < buf.length) {
    let end = Math.min(buf.length, start + CHUNK)
    if (end < buf.length) {
      const nl = buf.lastIndexOf(10, end - 1)
      // A single line longer than a chunk is decoded whole.
      end = nl >= start ? nl + 1 : buf.indexOf(10, end) === -1 ? buf.length : buf.indexOf(10, end) + 1
    }
    lineNo = chunkLines(buf.toString('latin1', start, end), lineNo, onLine)
    start = end
    yield start
  }
}

/**
 * The bytes after a leading UTF-8 byte-order mark (EF BB BF), which some editors and
 * exporters write at the start of a text file; the bytes themselves when there is none.
 */
export function withoutBom(bytes: Uint8Array): Uint8Array {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes
}

/** Calls `onLine` for each line of a chunk of text; returns the number of the last. */
function chunkLines(text: string, lineNo: number, onLine: (line: string, lineNo: number) => void): number {
  let pos = 0
  while (pos < text.length) {
    let nl = text.indexOf('\n', pos)
    if (nl === -1) nl = text.length
    let line = text.slice(pos, nl)
    if (line.endsWith('\r')) line = line.slice(0, -1)
    onLine(line, ++lineNo)
    pos = nl + 1
  }
  return lineNo
}

const WS = /\s+/

/** Splits a line into whitespace-separated tokens. */
export function tokens(line: string): string[] {
  const t = line.trim()
  return t === '' ? [] : t.split(WS)
}

/** A strict decimal number (no hex, no empty string); NaN when malformed. */
export function parseNumber(token: string | undefined): number {
  if (token === undefined || token === '') return Number.NaN
  const c = token.charCodeAt(token.length - 1)
  // Number() accepts '0x1F', 'Infinity' and surrounding blanks; a decimal ends in a digit or '.'.
  if (!((c >= 48 && c <= 57) || c === 46)) return Number.NaN
  if (token.length > 1 && (token[1] === 'x' || token[1] === 'X' || token[2] === 'x' || token[2] === 'X'))
    return Number.NaN
  return Number(token)
}

/** Shortens a token for an error message. */
export function quote(s: string): string {
  return JSON.stringify(s.length > 40 ? s.slice(0, 40) + '…' : s)
}
