import type http from 'node:http'
import type https from 'node:https'
import type {Readable} from 'node:stream'

import type {Got} from 'got'

import {isMultipart, type PreparedRequest} from './request.js'
import type {ProxyEnv} from './proxy.js'

export interface SendOptions {
  /** The whole exchange, from connecting to the body's last byte; with `upload`, see there. */
  timeoutMs?: number
  /**
   * A body that may take long to send (files): `timeoutMs` then bounds the wait for
   * the answer once the body is sent, not the whole transfer; a line silent for
   * UPLOAD_IDLE_MS (or `timeoutMs`, if longer) while sending is cut off.
   */
  upload?: boolean
  /** An answer read as it arrives: `timeoutMs` bounds the wait for it to start and each silence within it. */
  streamed?: boolean
  /** The longest silence on the connection (downloads, whose whole length is unknown). */
  idleTimeoutMs?: number
  signal?: AbortSignal
  onUploadProgress?: (progress: {transferred: number; total?: number}) => void
  /** Redirects to follow; API requests follow none (they would carry the credentials elsewhere). */
  maxRedirects?: number
}

/**
 * The silence an upload's connection may keep while its body is sent. Node counts a
 * write as activity when the whole of it is in the kernel's buffers, so a big write
 * on a slow line is silent for as long as the buffers take to drain (seconds per
 * megabyte at 1 MB/s): far longer than an answer's wait.
 */
export const UPLOAD_IDLE_MS = 120_000

/** An answer as it arrives: the body still in its content coding, read by the pipeline. */
export interface TransportResponse {
  status: number
  headers: http.IncomingHttpHeaders
  /** Fails with a Node-style error (`code` ECONNRESET, a TimeoutError...) when the answer breaks off. */
  body: Readable
}

/**
 * Moves bytes, and nothing else: a transport neither decodes bodies, nor maps
 * failures, nor retries; the pipeline (http.ts) does those once for all.
 * Failures are thrown as Node and got report them: an error with a `code`
 * (ECONNREFUSED, ECONNRESET...), or a TimeoutError with code ETIMEDOUT and the
 * phase that ran out in `event`.
 */
export interface Transport {
  send(req: PreparedRequest, opts: SendOptions): Promise<TransportResponse>
}

/**
 * The keep-alive agents the client's transports share, one per protocol. The
 * https one (and TLS with it) is made when a first https request needs it: a
 * batch sent to the sandbox on this machine never does.
 */
export class Agents {
  readonly http: http.Agent
  private secure: https.Agent | undefined
  /** Node's own proxying, when HTTPS_PROXY or HTTP_PROXY is set (proxy.ts); the agents are plain otherwise. */
  private readonly options: http.AgentOptions & {proxyEnv?: ProxyEnv}

  constructor(
    private readonly maxSockets = 32,
    proxy: ProxyEnv | undefined = undefined,
  ) {
    this.options = {keepAlive: true, maxSockets, ...(proxy === undefined ? {} : {proxyEnv: proxy})}
    const lib = process.getBuiltinModule('node:http')
    this.http = new lib.Agent(this.options)
  }

  get https(): https.Agent {
    this.secure ??= new (process.getBuiltinModule('node:https').Agent)(this.options)
    return this.secure
  }

  /** The agent for a URL's protocol. */
  for(url: URL): http.Agent {
    return url.protocol === 'https:' ? this.https : this.http
  }

  destroy(): void {
    this.http.destroy()
    this.secure?.destroy()
  }
}

/** The default transport: got, without its own retries, redirects, decompression or errors for statuses. */
export function gotTransport(agents: Agents, load: () => Promise<Got> = loadGot): Transport {
  let instance: Promise<Got> | undefined
  return {
    async send(req, opts) {
      const got = await (instance ??= load())
      return new Promise((resolve, reject) => {
        const stream = got.stream(req.url, {
          method: req.method,
          headers: req.headers,
          // A multipart body is read anew for each attempt.
          ...(req.body === undefined ? {} : {body: isMultipart(req.body) ? req.body.stream() : req.body}),
          agent: req.url.protocol === 'https:' ? {https: agents.https} : {http: agents.http},
          retry: {limit: 0},
          throwHttpErrors: false,
          decompress: false,
          followRedirect: (opts.maxRedirects ?? 0) > 0,
          maxRedirects: opts.maxRedirects ?? 0,
          timeout: {
            ...(opts.timeoutMs === undefined
              ? {}
              : opts.upload
                ? {socket: Math.max(opts.timeoutMs, UPLOAD_IDLE_MS), response: opts.timeoutMs}
                : opts.streamed
                  ? {socket: opts.timeoutMs, response: opts.timeoutMs}
                  : {request: opts.timeoutMs}),
            ...(opts.idleTimeoutMs === undefined ? {} : {socket: opts.idleTimeoutMs}),
          },
          ...(opts.signal ? {signal: opts.signal} : {}),
        })
        const onProgress = opts.onUploadProgress
        if (onProgress) stream.on('uploadProgress', (p) => onProgress({transferred: p.transferred, total: p.total}))
        // Kept after the answer too (a no-op then): a break in the body before the
        // reader starts is kept by the stream as its error, not thrown at the process.
        stream.on('error', reject)
        stream.once('response', (res: http.IncomingMessage) => {
          resolve({status: res.statusCode ?? 0, headers: res.headers, body: stream})
        })
        // A stream request with a method that may carry a body waits for one to be written.
        if (req.body === undefined && req.method !== 'GET') stream.end()
      })
    },
  }
}

async function loadGot(): Promise<Got> {
  return (await import('got')).default
}
