// A plain HTTP proxy in front of a sandbox, for tests and benchmarks that need to see or
// slow the requests the CLI sends (it counts list pages, holds creates, and so on).
import http from 'node:http'
import type {AddressInfo} from 'node:net'

export interface Proxy {
  server: http.Server
  /** The proxy's base URL, to give the CLI instead of the sandbox's. */
  url: string
  close(): Promise<void>
}

/**
 * Starts a proxy on a loopback port that forwards every request to `target` as it is.
 * `before` sees each request first and may return a delay in ms before it is forwarded,
 * a promise that holds it until it settles, or `{status}` to answer it with that status itself (a failing service) instead, with
 * `headers` added to the answer when given (a Retry-After, say).
 * `bytesPerSecond` reads request bodies no faster than that (a slow line for uploads).
 * `after` may replace the service's answer, once it has done the work, by an HTML page
 * with that status (a gateway that fails after the service committed), or by a
 * dropped connection ('drop').
 */
export async function startProxy(
  target: string,
  before?: (
    req: http.IncomingMessage,
  ) => number | Promise<unknown> | {status: number; headers?: Record<string, string>} | void,
  opts: {
    bytesPerSecond?: number
    after?: (req: http.IncomingMessage) => {status: number} | 'drop' | void
    /** Rewrites a JSON answer's body (a service that leaves out or renames fields); void keeps it. */
    rewrite?: (req: http.IncomingMessage, body: unknown) => unknown
  } = {},
): Promise<Proxy> {
  const to = new URL(target)
  const server = http.createServer((req, res) => {
    const forward = () => {
      const up = http.request(
        {host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers},
        (answer) => {
          const replaced = opts.after?.(req)
          if (replaced === 'drop') {
            answer.resume()
            return void req.socket.destroy()
          }
          if (replaced) {
            answer.resume()
            res.writeHead(replaced.status, {'content-type': 'text/html'})
            return void res.end(`<html><body><h1>${replaced.status} Bad Gateway</h1></body></html>`)
          }
          const rewrite = opts.rewrite
          if (rewrite && String(answer.headers['content-type'] ?? '').includes('json')) {
            const chunks: Buffer[] = []
            answer.on('data', (c: Buffer) => chunks.push(c))
            answer.on('end', () => {
              const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown
              const text = JSON.stringify(rewrite(req, body) ?? body)
              const headers = {...answer.headers, 'content-length': String(Buffer.byteLength(text))}
              res.writeHead(answer.statusCode ?? 502, headers)
              res.end(text)
            })
            return
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
        },
      )
      up.on('error', () => res.destroy())
      // A client gone before its body's end is passed on as the same cut to the service.
      req.on('close', () => {
        if (!req.complete) up.destroy()
      })
      const rate = opts.bytesPerSecond
      if (rate === undefined) return void req.pipe(up)
      req.on('data', (chunk: Buffer) => {
        up.write(chunk)
        req.pause()
        setTimeout(() => req.resume(), (chunk.length / rate) * 1000)
      })
      req.on('end', () => up.end())
    }
    const wait = before?.(req)
    if (wait instanceof Promise) void wait.then(forward, forward)
    else if (typeof wait === 'object') {
      req.resume()
      res.writeHead(wait.status, {'content-type': 'application/json', ...wait.headers})
      res.end(JSON.stringify({statusCode: wait.status, message: 'failed by the test proxy'}))
    } else if (typeof wait === 'number' && wait > 0) setTimeout(forward, wait)
    else forward()
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {server, url, close: () => new Promise((ok) => server.close(() => ok()))}
}
