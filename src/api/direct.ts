import type http from 'node:http'
import {brotliDecompressSync, gunzipSync, inflateSync} from 'node:zlib'

/** What a transport hands back to the client's pipeline. */
export interface RawResponse {
  statusCode: number
  headers: http.IncomingHttpHeaders
  /** The body decoded as UTF-8. */
  body: string
}

export interface DirectRequest {
  url: URL
  method: string
  headers: Record<string, string>
  body?: string | Buffer
  /** node:http's or node:https's `request` and keep-alive agent, as the URL's protocol needs. */
  transport: {request: typeof http.request; agent: http.Agent}
  timeoutMs: number
  signal?: AbortSignal
}

/**
 * One request straight through node:http(s) on the client's keep-alive agents,
 * for the requests a batch sends by the hundred (RequestOptions.bulk). got's
 * per-request work (normalising options, its stream wrapper, hooks, timers per
 * phase) costs about 1 ms of CPU per request, and a batch's client shares the
 * machine with the server it feeds. Failures carry what got's would, so the
 * pipeline reads both alike: Node's error codes (ECONNRESET, ECONNREFUSED...),
 * and a TimeoutError with code ETIMEDOUT and event "request" when the whole
 * exchange takes longer than `timeoutMs`.
 */
export function sendDirect(req: DirectRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const data = typeof req.body === 'string' ? Buffer.from(req.body) : req.body
    const headers: Record<string, string> = {...req.headers}
    if (data !== undefined) headers['content-length'] = String(data.length)
    let settled = false
    const outgoing = req.transport.request(req.url, {method: req.method, agent: req.transport.agent, headers})
    const timer = setTimeout(() => {
      fail(
        Object.assign(new Error(`no answer within ${req.timeoutMs} ms`), {
          name: 'TimeoutError',
          code: 'ETIMEDOUT',
          event: 'request',
        }),
      )
    }, req.timeoutMs)
    timer.unref()
    const onAbort = () => fail(Object.assign(new Error('request aborted'), {name: 'AbortError', code: 'ABORT_ERR'}))
    req.signal?.addEventListener('abort', onAbort, {once: true})

    function finish(): void {
      settled = true
      clearTimeout(timer)
      req.signal?.removeEventListener('abort', onAbort)
    }
    function fail(error: Error): void {
      if (settled) return
      finish()
      outgoing.destroy()
      reject(error)
    }

    outgoing.on('error', fail)
    outgoing.on('response', (res) => {
      const parts: Buffer[] = []
      res.on('data', (piece: Buffer) => parts.push(piece))
      res.on('error', fail)
      // The connection closed before the body was complete.
      res.on('close', () => {
        if (!res.complete) fail(Object.assign(new Error('the connection closed mid-answer'), {code: 'ECONNRESET'}))
      })
      res.on('end', () => {
        if (settled) return
        let body: string
        try {
          body = decode(Buffer.concat(parts), res.headers['content-encoding']).toString('utf8')
        } catch (error) {
          fail(error as Error)
          return
        }
        finish()
        resolve({statusCode: res.statusCode ?? 0, headers: res.headers, body})
      })
    })
    outgoing.end(data)
  })
}

/** The body as sent, whichever of the codings the request offers (as got does) the server chose. */
function decode(raw: Buffer, encoding: string | undefined): Buffer {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(raw)
    case 'deflate':
      return inflateSync(raw)
    case 'br':
      return brotliDecompressSync(raw)
    default:
      return raw
  }
}
