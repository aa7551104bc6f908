/* eslint-disable @typescript-eslint/no-explicit-any -- answers are arbitrary JSON that tests inspect freely */
import type {RunningSandbox, SandboxOptions} from '../../src/sandbox/index.js'
import type {SandboxBusiness} from '../../src/schemas/business.js'

/**
 * Starts a real sandbox for a test: port 0, in-memory database unless a
 * dataDir is given. Close it in afterAll/afterEach.
 */
export async function startTestSandbox(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  const {startSandbox} = await import('../../src/sandbox/index.js')
  return startSandbox({port: 0, ...(opts.dataDir === undefined ? {memory: true} : {}), ...opts})
}

export interface HttpAnswer<T = any> {
  status: number
  headers: Headers
  /** Parsed JSON, or undefined when the body is not JSON. */
  body: T
  text: string
}

export interface RequestOptions {
  /** JSON-encoded as the body. */
  body?: unknown
  /** Sent as is (with Content-Type application/json unless headers say otherwise). */
  rawBody?: string | Uint8Array
  headers?: Record<string, string>
  /** Whose credentials to send; null sends none. Default: the client's business. */
  as?: SandboxBusiness | null
  /** Also send X-Auth-Token (legacy v2). Default: true for paths under /api/v2. */
  v2?: boolean
}

/** A tiny fetch-based client for one sandbox and (by default) one business. */
export interface SandboxClient {
  business: SandboxBusiness
  request<T = any>(method: string, path: string, opts?: RequestOptions): Promise<HttpAnswer<T>>
  get<T = any>(path: string, opts?: RequestOptions): Promise<HttpAnswer<T>>
  post<T = any>(path: string, body?: unknown, opts?: RequestOptions): Promise<HttpAnswer<T>>
  put<T = any>(path: string, body?: unknown, opts?: RequestOptions): Promise<HttpAnswer<T>>
  delete<T = any>(path: string, opts?: RequestOptions): Promise<HttpAnswer<T>>
}

export function sandboxClient(
  sandbox: RunningSandbox,
  business: SandboxBusiness | undefined = sandbox.businesses[0],
): SandboxClient {
  if (!business) throw new Error('the sandbox has no businesses')
  const request = async <T>(method: string, path: string, opts: RequestOptions = {}): Promise<HttpAnswer<T>> => {
    const who = opts.as === undefined ? business : opts.as
    const headers: Record<string, string> = {}
    if (who) {
      headers.authorization = `Bearer ${who.apiKey}`
      if (opts.v2 ?? path.startsWith('/api/v2/')) headers['x-auth-token'] = who.authToken
    }
    let body: string | Uint8Array | undefined
    if (opts.rawBody !== undefined) body = opts.rawBody
    else if (opts.body !== undefined) body = JSON.stringify(opts.body)
    if (body !== undefined) headers['content-type'] = 'application/json'
    Object.assign(headers, opts.headers)
    const response = await fetch(sandbox.url + path, {method, headers, body})
    const text = await response.text()
    let parsed: unknown
    try {
      parsed = text ? JSON.parse(text) : undefined
    } catch {
      parsed = undefined
    }
    return {status: response.status, headers: response.headers, body: parsed as T, text}
  }
  return {
    business,
    request,
    get: (path, opts) => request('GET', path, opts),
    post: (path, body, opts) => request('POST', path, {...opts, body}),
    put: (path, body, opts) => request('PUT', path, {...opts, body}),
    delete: (path, opts) => request('DELETE', path, opts),
  }
}

/** What a raw request saw: an answer, or the connection failing before one arrived. */
export type RawOutcome =
  | {kind: 'answer'; status: number; headers: Record<string, string | string[] | undefined>; body: any; text: string}
  | {kind: 'connection-error'; code: string; message: string}

/**
 * One request on a fresh connection (no keep-alive, no retries), for tests that
 * need to see exactly what the server did to the connection (fault injection).
 */
export async function rawRequest(
  sandbox: RunningSandbox,
  method: string,
  path: string,
  opts: {body?: unknown; headers?: Record<string, string>; as?: SandboxBusiness | null} = {},
): Promise<RawOutcome> {
  const {request} = await import('node:http')
  const who = opts.as === undefined ? sandbox.businesses[0] : opts.as
  const headers: Record<string, string> = {}
  if (who) {
    headers.authorization = `Bearer ${who.apiKey}`
    if (path.startsWith('/api/v2/')) headers['x-auth-token'] = who.authToken
  }
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body)
  if (payload !== undefined) {
    headers['content-type'] = 'application/json'
    headers['content-length'] = String(Buffer.byteLength(payload))
  }
  Object.assign(headers, opts.headers)
  return new Promise((resolve) => {
    const req = request(sandbox.url + path, {method, headers, agent: false}, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('error', (error: NodeJS.ErrnoException) =>
        resolve({kind: 'connection-error', code: error.code ?? 'ERR', message: error.message}),
      )
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        let body: unknown
        try {
          body = text ? JSON.parse(text) : undefined
        } catch {
          body = undefined
        }
        resolve({kind: 'answer', status: res.statusCode ?? 0, headers: res.headers, body, text})
      })
    })
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve({kind: 'connection-error', code: error.code ?? 'ERR', message: error.message}),
    )
    req.end(payload)
  })
}
