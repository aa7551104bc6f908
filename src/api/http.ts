import http from 'node:http'
import type https from 'node:https'
import {BlockList, isIP} from 'node:net'
import {performance} from 'node:perf_hooks'

import type {Got} from 'got'

import {redact} from '../schemas/secrets.js'
import {type RawResponse, sendDirect} from './direct.js'
import {ApiError, AuthenticationError, InsecureTransportError, NetworkError, ValidationError} from './errors.js'
import {errorFromResponse} from './response-error.js'

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH'

export interface ClientOptions {
  baseUrl: string
  apiKey?: string
  authToken?: string
  /** Per attempt, whole request. Default 30000. */
  timeoutMs?: number
  /** Retries after the first attempt. Default 3. */
  retries?: number
  /** `--verbose` sink: one line per attempt (`→ GET /path 200 12ms`), secrets masked. */
  log?: (line: string) => void
  userAgent?: string
  /** First back-off step; later steps double, jittered. Default 500. */
  retryBaseMs?: number
  /**
   * Longest single wait. A `Retry-After` beyond it is not waited for: the
   * RateLimitError/ServerError is thrown at once with `retryAfterSeconds`. Default 8000.
   */
  maxRetryWaitMs?: number
  /**
   * Send credentials over plain http to a host that is not this machine. Off by
   * default: such a request is refused (InsecureTransportError) before anything
   * is sent, since the key and token would cross the network in clear.
   */
  insecure?: boolean
}

export interface RequestOptions {
  method: HttpMethod
  /** Starts with /api/...; may carry its own query string. */
  path: string
  query?: Record<string, string | number | boolean | undefined>
  /** Sent as JSON; a string or Buffer is sent as is; a FormData is sent as multipart/form-data (streamed). */
  body?: unknown
  /** Called as the request body is sent (multipart uploads), with bytes sent and the total when known. */
  onUploadProgress?: (progress: {transferred: number; total?: number}) => void
  headers?: Record<string, string>
  /** Sets Idempotency-Key; makes a POST (or PATCH) retryable. */
  idempotencyKey?: string
  signal?: AbortSignal
  /**
   * One of many like it (a batch's chunks): sent straight through node:http on
   * the same agents, skipping got's per-request work. Same retries, errors and
   * time-out. Ignored for FormData bodies and upload progress, which need got.
   */
  bulk?: boolean
  /**
   * How the body comes back: `json` (default) parsed when the response says it
   * is JSON, else its text; `text` the text as received, whatever its type (an
   * event stream, say); `buffer` the bytes of that text.
   */
  responseType?: 'json' | 'text' | 'buffer'
}

export interface ApiResponse<T = unknown> {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: T
  durationMs: number
}

export interface ApiClient {
  readonly baseUrl: string
  request<T = unknown>(opts: RequestOptions): Promise<ApiResponse<T>>
  /** Frees the keep-alive sockets. Optional to call: idle sockets do not keep the process alive. */
  close?(): void
}

export type Generation = 'v1' | 'v2' | 'mcp'

/** The MCP endpoint sits under /api/v2/ but takes the v1 key only (interface, Authentication 3). */
const MCP_PREFIX = '/api/v2/ms-integrations/api/public/v1/mcp'

/** Which credentials a path needs: v2 paths the key and the auth token, others the key. */
export function generationOf(path: string): Generation {
  if (path.startsWith(MCP_PREFIX)) return 'mcp'
  if (path.startsWith('/api/v2/')) return 'v2'
  return 'v1'
}

export const DEFAULT_TIMEOUT_MS = 30_000
export const DEFAULT_RETRIES = 3
export const DEFAULT_RETRY_BASE_MS = 500
export const DEFAULT_MAX_RETRY_WAIT_MS = 8_000

const IDEMPOTENT = new Set<string>(['GET', 'PUT', 'DELETE', 'HEAD', 'OPTIONS'])
/** Failures where no byte of the request reached the server. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EADDRNOTAVAIL',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'ERR_INVALID_URL',
])
const NOT_SENT_TIMEOUT_EVENTS = new Set(['lookup', 'connect', 'secureConnect'])
const RETRYABLE_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
])

/**
 * The one HTTP pipeline for both API generations: auth headers by generation,
 * time-outs, retries with capped jittered back-off honouring Retry-After,
 * keep-alive connections, JSON parsing and errors mapped by status.
 */
export function createClient(opts: ClientOptions): ApiClient {
  const baseUrl = normaliseBaseUrl(opts.baseUrl)
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const retries = Math.max(0, opts.retries ?? DEFAULT_RETRIES)
  const retryBaseMs = opts.retryBaseMs ?? DEFAULT_RETRY_BASE_MS
  const maxRetryWaitMs = opts.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS
  const secrets = [opts.apiKey, opts.authToken]
  const log = opts.log
  const userAgent = opts.userAgent ?? `mfg node/${process.versions.node}`
  const httpAgent = new http.Agent({keepAlive: true, maxSockets: 32})
  // node:https (with TLS) and got are loaded when first needed: a batch sent
  // over http (the sandbox on this machine) needs neither.
  let tlsTransport: Promise<{request: typeof https.request; agent: https.Agent}> | undefined
  let httpsAgent: https.Agent | undefined
  let instance: Promise<Got> | undefined
  const httpsTransport = () =>
    (tlsTransport ??= import('node:https').then(({default: lib}) => {
      httpsAgent = new lib.Agent({keepAlive: true, maxSockets: 32})
      return {request: lib.request, agent: httpsAgent}
    }))
  const gotInstance = () =>
    (instance ??= Promise.all([import('got'), httpsTransport()]).then(([{default: got}, tls]) =>
      got.extend({
        agent: {http: httpAgent, https: tls.agent},
        retry: {limit: 0},
        throwHttpErrors: false,
        // A redirect would carry the credentials somewhere else; report it instead.
        followRedirect: false,
        timeout: {request: timeoutMs},
        headers: {'user-agent': userAgent},
      }),
    ))

  async function request<T>(req: RequestOptions): Promise<ApiResponse<T>> {
    const method = req.method.toUpperCase() as HttpMethod
    if (!req.path.startsWith('/')) {
      throw new ValidationError({
        method,
        path: req.path,
        serverMessage: 'the request path must start with /',
        clientSide: true,
        secrets,
      })
    }
    const url = new URL(baseUrl + req.path)
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value))
    }
    const shownPath = url.pathname.slice(new URL(baseUrl).pathname.replace(/\/$/, '').length) + url.search
    const headers = buildHeaders(method, req, shownPath)
    if (!opts.insecure) refuseCleartext(url, headers, method, shownPath)

    let body: string | Buffer | FormData | undefined
    if (req.body !== undefined) {
      if (typeof req.body === 'string' || Buffer.isBuffer(req.body) || isFormData(req.body)) {
        body = req.body as string | Buffer | FormData
      } else {
        body = JSON.stringify(req.body)
        headers['content-type'] ??= 'application/json'
      }
    }

    const mayRetry = IDEMPOTENT.has(method) || req.idempotencyKey !== undefined
    const direct = req.bulk === true && !isFormData(body) && req.onUploadProgress === undefined
    // Loaded before the first attempt, so that a failure to load is not taken for a network error.
    const secure = url.protocol === 'https:'
    const transport = direct ? (secure ? await httpsTransport() : {request: http.request, agent: httpAgent}) : undefined
    const viaGot = direct ? undefined : await gotInstance()
    for (let attempt = 0; ; attempt++) {
      if (req.signal?.aborted) throw abortError(method, shownPath, attempt > 0)
      const started = performance.now()
      let res: RawResponse
      try {
        if (transport) {
          res = await sendDirect({
            url,
            method,
            headers: {...headers, 'user-agent': userAgent, 'accept-encoding': 'gzip, deflate, br'},
            body: body as string | Buffer | undefined,
            transport,
            timeoutMs,
            ...(req.signal ? {signal: req.signal} : {}),
          })
        } else {
          const pending = viaGot!(url, {
            method,
            headers,
            body,
            responseType: 'text',
            ...(req.signal ? {signal: req.signal} : {}),
          })
          const onProgress = req.onUploadProgress
          if (onProgress) pending.on('uploadProgress', (p) => onProgress({transferred: p.transferred, total: p.total}))
          res = await pending
        }
      } catch (error) {
        const ms = Math.round(performance.now() - started)
        const info = describeNetworkFailure(error, timeoutMs)
        if (req.signal?.aborted) {
          emit(`→ ${method} ${shownPath} aborted ${ms}ms`)
          throw abortError(method, shownPath, true)
        }
        const canRetry = mayRetry && attempt < retries && RETRYABLE_NETWORK_CODES.has(info.code)
        const wait = canRetry ? backoff(attempt + 1) : 0
        emit(
          `→ ${method} ${shownPath} ${info.code} ${ms}ms${canRetry ? ` (retry ${attempt + 1}/${retries} in ${wait}ms)` : ''}`,
        )
        if (!canRetry) {
          throw new NetworkError({
            method,
            path: shownPath,
            serverMessage: info.message,
            code: 'network_error',
            mayHaveBeenSent: info.mayHaveBeenSent,
            secrets,
            cause: error,
          })
        }
        await sleep(wait, req.signal)
        continue
      }
      const durationMs = Math.round(performance.now() - started)
      const status = res.statusCode
      const retryAfterSeconds = parseRetryAfter(res.headers['retry-after'])
      const retryableStatus = status === 429 || status >= 500
      let wait = 0
      let canRetry = retryableStatus && mayRetry && attempt < retries
      if (canRetry) {
        if (retryAfterSeconds !== undefined) {
          const ms = retryAfterSeconds * 1000
          if (ms > maxRetryWaitMs) canRetry = false
          else wait = ms + Math.floor(Math.random() * 100)
        } else {
          wait = backoff(attempt + 1)
        }
      }
      emit(
        `→ ${method} ${shownPath} ${status} ${durationMs}ms${canRetry ? ` (retry ${attempt + 1}/${retries} in ${wait}ms)` : ''}`,
      )
      if (canRetry) {
        await sleep(wait, req.signal)
        continue
      }

      if (status >= 200 && status < 300 && req.responseType !== undefined && req.responseType !== 'json') {
        const raw = req.responseType === 'buffer' ? Buffer.from(res.body) : res.body
        return {status, headers: {...res.headers}, body: raw as T, durationMs}
      }
      const parsed = parseBody(res)
      if (status >= 200 && status < 300) {
        if (parsed.jsonError) {
          throw new ApiError({
            status,
            method,
            path: shownPath,
            code: 'bad_response',
            secrets,
            serverMessage: `the response claims JSON but is not valid JSON (${parsed.jsonError})`,
          })
        }
        return {status, headers: {...res.headers}, body: parsed.value as T, durationMs}
      }
      if (status >= 300 && status < 400) {
        const location = res.headers.location
        throw new ApiError({
          status,
          method,
          path: shownPath,
          code: 'redirect',
          secrets,
          serverMessage: `the service redirected to ${location ?? 'another address'}; set the profile's base URL to the final address`,
        })
      }
      throw errorFromResponse({status, method, path: shownPath, body: parsed.value, retryAfterSeconds, secrets})
    }
  }

  function buildHeaders(method: HttpMethod, req: RequestOptions, shownPath: string): Record<string, string> {
    const headers: Record<string, string> = {accept: 'application/json'}
    const generation = generationOf(req.path)
    const missing: string[] = []
    if (!opts.apiKey) missing.push('API key')
    if (generation === 'v2' && !opts.authToken) missing.push('auth token')
    if (missing.length > 0) {
      const hint =
        generation === 'v2'
          ? `v2 calls need the API key and the auth token; set ${missing.length > 1 ? 'them' : 'it'} with mfg profile add ${missing
              .map((m) => (m === 'API key' ? '--api-key' : '--auth-token'))
              .join(' ')} or ${missing.map((m) => (m === 'API key' ? 'MFG_API_KEY' : 'MFG_AUTH_TOKEN')).join(' and ')}`
          : 'set it with mfg profile add --api-key or MFG_API_KEY'
      throw new AuthenticationError({
        method,
        path: shownPath,
        code: 'missing_credentials',
        secrets,
        serverMessage: `no ${missing.join(' and no ')}: ${hint}`,
      })
    }
    headers.authorization = `Bearer ${opts.apiKey}`
    if (generation === 'v2') headers['x-auth-token'] = opts.authToken as string
    if (req.idempotencyKey !== undefined) headers['idempotency-key'] = req.idempotencyKey
    for (const [name, value] of Object.entries(req.headers ?? {})) headers[name.toLowerCase()] = value
    return headers
  }

  /** Credentials never leave over plain http for another machine unless `insecure` says so. */
  function refuseCleartext(url: URL, headers: Record<string, string>, method: HttpMethod, shownPath: string): void {
    if (url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return
    const carried = [
      ...(headers.authorization !== undefined ? ['API key'] : []),
      ...(headers['x-auth-token'] !== undefined ? ['auth token'] : []),
    ]
    if (carried.length === 0) return
    const host = url.port === '' ? url.hostname : `${url.hostname}:${url.port}`
    throw new InsecureTransportError({
      method,
      path: shownPath,
      host,
      secrets,
      serverMessage: `refusing to send the ${carried.join(' and the ')} over plain http to ${host}: ${carried.length > 1 ? 'they' : 'it'} would travel in clear. Use an https:// base URL, or pass --insecure (or set MFG_INSECURE=1) to send anyway on a network you trust; nothing was sent`,
    })
  }

  function backoff(retry: number): number {
    const exp = Math.min(maxRetryWaitMs, retryBaseMs * 2 ** (retry - 1))
    return Math.round(exp / 2 + Math.random() * (exp / 2))
  }

  function emit(line: string): void {
    if (log) log(redact(line, secrets))
  }

  function abortError(method: string, path: string, mayHaveBeenSent: boolean): NetworkError {
    return new NetworkError({method, path, serverMessage: 'request aborted', code: 'aborted', mayHaveBeenSent, secrets})
  }

  return {
    baseUrl,
    request,
    close() {
      httpAgent.destroy()
      httpsAgent?.destroy()
    },
  }
}

const LOOPBACK = new BlockList()
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4')
LOOPBACK.addAddress('::1', 'ipv6')

/**
 * Whether a URL's hostname is this machine: `localhost`, 127.0.0.0/8 or ::1
 * (IPv4-mapped forms included). Any other name counts as remote, even one that
 * happens to resolve to a loopback address: the check is made before any lookup.
 */
export function isLoopbackHost(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '')
  if (name === 'localhost') return true
  const bare = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name
  const family = isIP(bare)
  if (family === 4) return LOOPBACK.check(bare, 'ipv4')
  if (family === 6) return LOOPBACK.check(bare, 'ipv6')
  return false
}

/**
 * Whether a body is a FormData, told by its tag: naming the global FormData
 * would load Node's whole fetch implementation (undici, 10 ms or more) in
 * every process that sends a JSON body.
 */
function isFormData(value: unknown): value is FormData {
  return Object.prototype.toString.call(value) === '[object FormData]'
}

/** Strips trailing slashes; throws a client-side ValidationError for a non-http(s) URL. */
export function normaliseBaseUrl(raw: string): string {
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    throw new ValidationError({
      method: '-',
      path: '-',
      serverMessage: `the base URL ${JSON.stringify(redact(raw))} is not a URL`,
      clientSide: true,
    })
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ValidationError({
      method: '-',
      path: '-',
      serverMessage: `the base URL must start with http:// or https://, got ${url.protocol}`,
      clientSide: true,
    })
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`
}

/** `Retry-After` as whole seconds from now (delta-seconds or HTTP date); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value
  if (raw === undefined || raw.trim() === '') return undefined
  const trimmed = raw.trim()
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed))
  const date = Date.parse(trimmed)
  if (Number.isNaN(date)) return undefined
  return Math.max(0, Math.ceil((date - now) / 1000))
}

function parseBody(res: RawResponse): {value: unknown; jsonError?: string} {
  const text = res.body
  const type = String(res.headers['content-type'] ?? '').toLowerCase()
  const isJson = /^application\/([\w.+-]*\+)?json\b/.test(type) || /\+json\b/.test(type)
  if (!isJson) return {value: text}
  if (text.trim() === '') return {value: undefined}
  try {
    return {value: JSON.parse(text) as unknown}
  } catch (error) {
    return {value: text, jsonError: error instanceof Error ? error.message : String(error)}
  }
}

function describeNetworkFailure(
  error: unknown,
  timeoutMs: number,
): {code: string; message: string; mayHaveBeenSent: boolean} {
  const e = error as {code?: unknown; name?: unknown; event?: unknown; message?: unknown; cause?: {code?: unknown}}
  const code = failureCode(e)
  const raw = typeof e.message === 'string' ? e.message : String(error)
  if (e.name === 'TimeoutError' || code === 'ETIMEDOUT') {
    const event = typeof e.event === 'string' ? e.event : 'request'
    return {
      code: 'ETIMEDOUT',
      message: `timed out after ${timeoutMs} ms waiting for ${event}`,
      mayHaveBeenSent: !NOT_SENT_TIMEOUT_EVENTS.has(event),
    }
  }
  const what: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset by the server',
    EPIPE: 'connection closed while sending',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'host name lookup failed temporarily',
    ENETUNREACH: 'network unreachable',
    EHOSTUNREACH: 'host unreachable',
  }
  return {code, message: `${what[code] ?? 'network error'} (${raw})`, mayHaveBeenSent: !NOT_SENT_CODES.has(code)}
}

/**
 * A network failure's code as the direct transport (src/api/direct.ts) and Node report it.
 * got 16 reports an answer cut short by a closed connection as a Content-Length mismatch,
 * where Node and the direct transport say ECONNRESET; and it names any other failure while
 * reading the answer ERR_READING_RESPONSE_STREAM, with Node's error (a zlib code for a body
 * that does not decode, say) as its cause.
 */
function failureCode(e: {code?: unknown; cause?: {code?: unknown}}): string {
  if (typeof e.code !== 'string') return 'ENETWORK'
  if (e.code === 'ERR_HTTP_CONTENT_LENGTH_MISMATCH') return 'ECONNRESET'
  if (e.code === 'ERR_READING_RESPONSE_STREAM' && typeof e.cause?.code === 'string') return e.cause.code
  return e.code
}

/** Waits `ms`, or less when `signal` aborts; never rejects. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal?.aborted) {
      resolve()
      return
    }
    const timer = setTimeout(done, ms)
    function done(): void {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, {once: true})
  })
}
