import type {IncomingHttpHeaders} from 'node:http'
import type {Readable} from 'node:stream'

import type {ResponseType} from './types.js'

/** The content codings every request offers (Accept-Encoding) and receive() undoes. */
const KNOWN_CODINGS = new Set(['gzip', 'x-gzip', 'deflate', 'br'])

/** The codings named by a Content-Encoding header, in the order they were applied; identity left out. */
export function codingsOf(headers: IncomingHttpHeaders): string[] {
  return String(headers['content-encoding'] ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity')
}

/** The first coding of an answer that receive() could not undo, if any. */
export function unknownCoding(headers: IncomingHttpHeaders): string | undefined {
  return codingsOf(headers).find((c) => !KNOWN_CODINGS.has(c))
}

/**
 * Reads an answer's body to its end and undoes its content codings (gzip,
 * deflate or br, which every request offers, one or several). A body in a coding
 * nobody offered is kept as sent, for decode() to judge. A break in the body, or
 * bytes that do not decode, reject with the error's code (ECONNRESET,
 * Z_DATA_ERROR...), for the pipeline to map like any network failure.
 */
export async function receive(body: Readable, headers: IncomingHttpHeaders, limit = Infinity): Promise<Buffer> {
  const parts = await collect(body, limit)
  const raw = parts.length === 1 ? parts[0]! : Buffer.concat(parts)
  const codings = codingsOf(headers)
  if (codings.length === 0 || raw.length === 0 || codings.some((c) => !KNOWN_CODINGS.has(c))) return raw
  const zlib = process.getBuiltinModule('node:zlib')
  let bytes = raw
  for (const coding of codings.reverse()) {
    if (coding === 'deflate') bytes = zlib.inflateSync(bytes)
    else if (coding === 'br') bytes = zlib.brotliDecompressSync(bytes)
    else bytes = zlib.gunzipSync(bytes)
  }
  return bytes
}

/**
 * A body as it streams in, with its content codings (gzip, deflate, br) undone: a
 * file host may compress a download that asked for none. A coding it cannot undo
 * (unknownCoding) is the caller's to refuse; a body with none is returned as is.
 */
export function decodedStream(body: Readable, headers: IncomingHttpHeaders): Readable {
  const codings = codingsOf(headers)
  if (codings.length === 0) return body
  const zlib = process.getBuiltinModule('node:zlib')
  const {pipeline} = process.getBuiltinModule('node:stream')
  // Each stage takes the one before, and its failure (a break, bytes that do not decode) is the next one's.
  return codings.reverse().reduce<Readable>((source, coding) => {
    const stage =
      coding === 'deflate'
        ? zlib.createInflate()
        : coding === 'br'
          ? zlib.createBrotliDecompress()
          : zlib.createGunzip()
    return pipeline(source, stage, () => {})
  }, body)
}

/**
 * The body's bytes, up to about `limit`. Listeners rather than an async iterator:
 * this runs once per answer, hundreds of times in a batch, and the iterator's
 * set-up and tear-down cost more than the reading.
 */
function collect(body: Readable, limit: number): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = []
    let size = 0
    // The error listener stays: a late error on a body already read is then
    // dropped here rather than thrown at the process.
    const done = (error?: Error) => {
      body.off('data', onData)
      body.off('end', onEnd)
      body.off('close', onClose)
      if (error) reject(error)
      else resolve(parts)
    }
    const onData = (part: Buffer) => {
      parts.push(part)
      size += part.length
      if (size >= limit) {
        done()
        body.destroy()
      }
    }
    const onEnd = () => done()
    // Closed before its end without an error of its own: the answer was cut short.
    const onClose = () =>
      done(body.errored ?? Object.assign(new Error('the answer ended early'), {code: 'ERR_STREAM_PREMATURE_CLOSE'}))
    body.on('data', onData)
    body.once('end', onEnd)
    body.on('error', done)
    body.once('close', onClose)
  })
}

export interface Decoded {
  value: unknown
  /** Set when the content type says JSON but the text does not parse: `value` is then the text. */
  jsonError?: string
  /** Set when the body cannot be read at all (a content coding nobody offered, over bytes that are not text). */
  unreadable?: string
  /** What was read more leniently than the headers say, for `--verbose`. */
  notes?: string[]
}

/** Statuses that never carry a body. */
const BODILESS = new Set([204, 205, 304])

/**
 * The one decoder of answers. `buffer` gives the bytes as they are and `text` the
 * UTF-8 text. `json` (the default) gives nothing (undefined) for an empty body or
 * a 204, 205 or 304; the parsed value when the content type says JSON
 * (application/json or any +json type), and also when it is missing or says
 * otherwise but the text is a JSON object or array (noted); the text otherwise.
 * A leading byte-order mark is ignored. A body in a content coding nobody offered
 * is read as it came when it is UTF-8 text (noted), and is `unreadable` otherwise.
 */
export function decode(
  bytes: Buffer,
  status: number,
  headers: IncomingHttpHeaders,
  as: ResponseType = 'json',
): Decoded {
  if (as === 'buffer') return {value: bytes}
  const notes: string[] = []
  const coding = bytes.length === 0 ? undefined : unknownCoding(headers)
  if (coding !== undefined) {
    if (!isText(bytes)) {
      return {value: undefined, unreadable: `the body is in a content coding mfg cannot read (${coding})`}
    }
    notes.push(`content coding ${JSON.stringify(coding)} is unknown; the body is plain text and was read as it came`)
  }
  const text = bytes.toString('utf8')
  const done = (d: Decoded): Decoded => (notes.length > 0 ? {...d, notes} : d)
  if (as === 'text') return done({value: text})
  if (bytes.length === 0 || BODILESS.has(status)) return done({value: undefined})
  const type = String(headers['content-type'] ?? '').toLowerCase()
  const isJson = /^application\/([\w.+-]*\+)?json\b/.test(type) || /\+json\b/.test(type)
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  if (!isJson) {
    const start = json.trimStart()[0]
    if (start !== '{' && start !== '[') return done({value: text})
    try {
      const value = JSON.parse(json) as unknown
      notes.push(
        `the body, ${type === '' ? 'without a Content-Type' : `labelled ${JSON.stringify(type.split(';')[0])}`}, was read as JSON`,
      )
      return done({value})
    } catch {
      return done({value: text})
    }
  }
  if (json.trim() === '') return done({value: undefined})
  try {
    return done({value: JSON.parse(json) as unknown})
  } catch (error) {
    return done({value: text, jsonError: error instanceof Error ? error.message : String(error)})
  }
}

/** Whether bytes are UTF-8 text: they decode without error and hold no control characters but white space. */
function isText(bytes: Buffer): boolean {
  const sample = bytes.subarray(0, 64 * 1024)
  let text: string
  try {
    // Streaming: a character cut at the end of the sample is not an error.
    text = new TextDecoder('utf-8', {fatal: true}).decode(sample, {stream: bytes.length > sample.length})
  } catch {
    return false
  }
  // eslint-disable-next-line no-control-regex
  return !/[\u0000-\u0008\u000E-\u001F\u007F]/.test(text)
}
