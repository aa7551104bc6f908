import type {IncomingHttpHeaders} from 'node:http'
import type {Readable} from 'node:stream'

import type {ResponseType} from './types.js'

/**
 * Reads an answer's body to its end and undoes its content coding (gzip,
 * deflate or br, which every request offers; any other is kept as sent). A
 * break in the body, or bytes that do not decode, reject with the error's code
 * (ECONNRESET, Z_DATA_ERROR...), for the pipeline to map like any network failure.
 */
export async function receive(body: Readable, headers: IncomingHttpHeaders, limit = Infinity): Promise<Buffer> {
  const parts = await collect(body, limit)
  const raw = parts.length === 1 ? parts[0]! : Buffer.concat(parts)
  const coding = String(headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase()
  if (coding === '' || coding === 'identity' || raw.length === 0) return raw
  const zlib = process.getBuiltinModule('node:zlib')
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.gunzipSync(raw)
    case 'deflate':
      return zlib.inflateSync(raw)
    case 'br':
      return zlib.brotliDecompressSync(raw)
    default:
      return raw
  }
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
}

/** Statuses that never carry a body. */
const BODILESS = new Set([204, 205, 304])

/**
 * The one decoder of answers. `buffer` gives the bytes and `text` the UTF-8
 * text as they are. `json` (the default) gives nothing (undefined) for an empty
 * body or a 204, 205 or 304; the parsed value when the content type says JSON
 * (application/json or any +json type; a leading byte-order mark is ignored);
 * the text otherwise.
 */
export function decode(
  bytes: Buffer,
  status: number,
  headers: IncomingHttpHeaders,
  as: ResponseType = 'json',
): Decoded {
  if (as === 'buffer') return {value: bytes}
  const text = bytes.toString('utf8')
  if (as === 'text') return {value: text}
  if (bytes.length === 0 || BODILESS.has(status)) return {value: undefined}
  const type = String(headers['content-type'] ?? '').toLowerCase()
  const isJson = /^application\/([\w.+-]*\+)?json\b/.test(type) || /\+json\b/.test(type)
  if (!isJson) return {value: text}
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  if (json.trim() === '') return {value: undefined}
  try {
    return {value: JSON.parse(json) as unknown}
  } catch (error) {
    return {value: text, jsonError: error instanceof Error ? error.message : String(error)}
  }
}
