// The text of an input file, whatever a spreadsheet or a shell saved it as. A
// file starting with a byte-order mark says its encoding (UTF-8, UTF-16 LE or
// BE, as Excel's "Unicode text" and Windows PowerShell's `>` write them); any
// other is read as --encoding says, UTF-8 unless told. Bytes that are not text
// in that encoding are refused with the line they are on, never replaced: a
// name read as "L�we" would be sent and stored so.

import {InputError} from '../services/errors.js'

/** The encodings `--encoding` takes: the WHATWG names Node's TextDecoder knows. */
export const ENCODINGS = ['utf-8', 'utf-16le', 'utf-16be', 'windows-1252', 'iso-8859-15'] as const
export type Encoding = (typeof ENCODINGS)[number]

/** Where the bytes stopped being text: the offset in the input and what was found. */
export class NotTextError extends Error {
  constructor(
    readonly offset: number,
    readonly encoding: string,
    found: string,
  ) {
    super(`not ${encoding === 'utf-8' ? 'UTF-8' : encoding} text (${found})`)
  }

  /** The whole message, once the line is known; `flag`: whether the command takes --encoding. */
  explain(label: string, line: number, flag = true): string {
    const advice = !flag
      ? 'save it as UTF-8'
      : this.encoding === 'utf-8'
        ? 'save it as UTF-8 (Excel: "CSV UTF-8"), or name its encoding with --encoding (a Windows spreadsheet\'s is usually windows-1252)'
        : 'name its encoding with --encoding'
    return `${label}: line ${line}: ${this.message}; ${advice}.`
  }
}

/** Decodes an input a piece at a time; `write` throws a NotTextError at the first byte that is not text. */
export class InputDecoder {
  private decoder: InstanceType<typeof TextDecoder> | undefined
  private encoding: string
  private head: Buffer | undefined
  /** Bytes handed to the decoder so far. */
  private offset = 0

  constructor(encoding: Encoding = 'utf-8') {
    this.encoding = encoding
  }

  write(piece: Buffer): string {
    if (this.decoder === undefined) {
      // The byte-order mark decides, once three bytes are in (a pipe may hand them over one by one).
      const head: Buffer = this.head ? Buffer.concat([this.head, piece]) : piece
      if (head.length < 3) {
        this.head = head
        return ''
      }
      this.head = undefined
      this.start(head)
      return this.decode(head, true)
    }
    return this.decode(piece, true)
  }

  end(): string {
    if (this.decoder === undefined) {
      const head = this.head ?? Buffer.alloc(0)
      this.head = undefined
      this.start(head)
      return this.decode(head, false)
    }
    return this.decode(Buffer.alloc(0), false)
  }

  private start(head: Buffer): void {
    if (head[0] === 0xff && head[1] === 0xfe) this.encoding = 'utf-16le'
    else if (head[0] === 0xfe && head[1] === 0xff) this.encoding = 'utf-16be'
    else if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) this.encoding = 'utf-8'
    else if (this.encoding === 'utf-8' && looksLikeUtf16(head)) {
      throw new NotTextError(0, 'utf-8', 'UTF-16 without a byte-order mark (every other byte is 0)')
    }
    // The mark itself is not text of the file: the decoder drops it.
    this.decoder = new TextDecoder(this.encoding, {fatal: true})
  }

  private decode(bytes: Buffer, stream: boolean): string {
    let text: string
    try {
      text = this.decoder!.decode(bytes, {stream})
    } catch {
      throw new NotTextError(
        this.offset + firstBadByte(bytes, this.encoding),
        this.encoding,
        foundAt(bytes, this.encoding),
      )
    }
    this.offset += bytes.length
    return text
  }
}

/** Decodes a whole input (UTF-8, or UTF-16 with its mark) at once, as InputDecoder does; bytes that are not text are an InputError. */
export function decodeText(bytes: Buffer, label: string): string {
  const decoder = new InputDecoder()
  try {
    return decoder.write(bytes) + decoder.end()
  } catch (error) {
    if (error instanceof NotTextError) throw new InputError(error.explain(label, lineAt(bytes, error.offset), false))
    throw error
  }
}

/** The 1-based line of a byte offset: the line feeds before it, plus one. */
export function lineAt(bytes: Buffer, offset: number): number {
  let line = 1
  for (let i = bytes.indexOf(10); i !== -1 && i < offset; i = bytes.indexOf(10, i + 1)) line++
  return line
}

/** UTF-16 text of the ASCII range, without its mark: a zero byte in every other position of the first ones. */
function looksLikeUtf16(head: Buffer): boolean {
  const n = Math.min(head.length, 64) & ~1
  if (n < 4) return false
  let zeros = 0
  for (let i = 0; i < n; i++) if (head[i] === 0) zeros++
  return zeros * 2 >= n - 2 && (head[0] === 0 || head[1] === 0)
}

/** The offset in `bytes` of the first that does not decode (the piece is decoded again, leniently, to find it). */
function firstBadByte(bytes: Buffer, encoding: string): number {
  if (encoding !== 'utf-8') return 0
  const text = new TextDecoder('utf-8').decode(bytes)
  const at = text.indexOf('\uFFFD')
  return at === -1 ? 0 : Buffer.byteLength(text.slice(0, at))
}

function foundAt(bytes: Buffer, encoding: string): string {
  if (encoding !== 'utf-8') return 'bytes that do not decode'
  const byte = bytes[firstBadByte(bytes, encoding)]
  return byte === undefined
    ? 'a character cut off at the end'
    : `byte 0x${byte.toString(16).toUpperCase().padStart(2, '0')}`
}
