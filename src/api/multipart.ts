import {randomBytes} from 'node:crypto'
import {Readable} from 'node:stream'

/** One file part: its bytes come from `read`, which must give exactly `size` of them (or throw). */
export interface FilePart {
  /** The part's form field name. */
  field: string
  filename: string
  size: number
  read(): AsyncIterable<Uint8Array>
}

/**
 * A multipart/form-data body of file parts, of a length known before sending (so the
 * request has a Content-Length, and its upload progress a total). `stream()` gives
 * the body afresh for each attempt, read from the parts as it is sent; a part that
 * fails to read fails the stream with the part's own error, before the body's end,
 * so that the server never gets a complete body.
 *
 * Node's own FormData is not used: it reads a file-backed Blob (fs.openAsBlob) on a
 * path whose failure (the file changed while it was sent) is thrown at the process,
 * where no caller can catch it.
 */
export class MultipartBody {
  readonly [Symbol.toStringTag] = 'MultipartBody'
  readonly boundary = `----mfg${randomBytes(12).toString('hex')}`
  readonly contentType = `multipart/form-data; boundary=${this.boundary}`
  /** The body's length in bytes. */
  readonly length: number
  private readonly heads: Buffer[]
  private readonly tail: Buffer

  constructor(private readonly parts: readonly FilePart[]) {
    this.heads = parts.map((p, i) =>
      Buffer.from(
        `${i === 0 ? '' : '\r\n'}--${this.boundary}\r\n` +
          `Content-Disposition: form-data; name="${escapeName(p.field)}"; filename="${escapeName(p.filename)}"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      ),
    )
    this.tail = Buffer.from(`${parts.length === 0 ? '' : '\r\n'}--${this.boundary}--\r\n`)
    this.length = this.heads.reduce((n, h, i) => n + h.length + parts[i]!.size, this.tail.length)
  }

  /** The body, from its first byte: a new stream at each call. */
  stream(): Readable {
    return Readable.from(this.chunks(), {objectMode: false})
  }

  private async *chunks(): AsyncGenerator<Uint8Array> {
    for (const [i, part] of this.parts.entries()) {
      yield this.heads[i]!
      yield* part.read()
    }
    yield this.tail
  }
}

/** A name in a quoted header parameter, escaped as browsers do (WHATWG HTML, multipart/form-data encoding). */
function escapeName(name: string): string {
  return name.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22')
}
