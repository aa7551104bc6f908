import {performance} from 'node:perf_hooks'

import {redact} from '../schemas/secrets.js'
import {decode, receive} from './decode.js'
import {
  abortError,
  badJsonError,
  describeNetworkFailure,
  errorFromResponse,
  networkError,
  redirectError,
  type FailureSite,
} from './response-error.js'
import {isFormData, normaliseBaseUrl, prepareDownload, prepareRequest, type PreparedRequest} from './request.js'
import {parseRetryAfter, RetryPolicy, sleep, transientStatus, type AttemptFailure} from './retry.js'
import {Agents, gotTransport, type SendOptions, type Transport, type TransportResponse} from './transport.js'
import {nodeTransport} from './transport-node.js'
import type {ApiClient, ApiResponse, ClientOptions, RequestOptions, StreamOptions, StreamResponse} from './types.js'

export type * from './types.js'
export {generationOf, isLoopbackHost, normaliseBaseUrl, type Generation} from './request.js'
export {
  DEFAULT_MAX_RETRY_WAIT_MS,
  DEFAULT_RETRIES,
  DEFAULT_RETRY_BASE_MS,
  DEFAULT_RETRY_BUDGET_MS,
  parseRetryAfter,
  RetryPolicy,
  sleep,
} from './retry.js'

export const DEFAULT_TIMEOUT_MS = 30_000
/** A download waits this long for the next bytes before it counts as cut off. */
const DOWNLOAD_IDLE_MS = 30_000
const DOWNLOAD_REDIRECTS = 5
/** Of an error answer to a download, only this much is read for its message. */
const ERROR_BODY_LIMIT = 64 * 1024

/**
 * The one HTTP pipeline, for both API generations, MCP and downloads:
 * build the request (request.ts), send it on a transport (got, or node:http for
 * bulk requests; transport.ts), retry by the one RetryPolicy (retry.ts), decode
 * the body (decode.ts) and map failures to the error classes (response-error.ts).
 */
export function createClient(opts: ClientOptions): ApiClient {
  return new Pipeline(opts).client()
}

/** What one exchange (all its attempts) ends with. */
interface Exchanged {
  res: TransportResponse
  /** The body, read and decoded from its content coding; absent when the stream is handed out. */
  bytes?: Buffer
  durationMs: number
}

class Pipeline {
  private readonly baseUrl: string
  private readonly secrets: readonly (string | undefined)[]
  private readonly userAgent: string
  private readonly timeoutMs: number
  private readonly policy: RetryPolicy
  private readonly agents = new Agents()
  private readonly viaGot: Transport
  private readonly viaNode: Transport

  constructor(private readonly opts: ClientOptions) {
    this.baseUrl = normaliseBaseUrl(opts.baseUrl)
    this.secrets = [opts.apiKey, opts.authToken]
    this.userAgent = opts.userAgent ?? `mfg node/${process.versions.node}`
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS
    this.policy = new RetryPolicy({
      ...(opts.retries === undefined ? {} : {retries: opts.retries}),
      ...(opts.retryBaseMs === undefined ? {} : {baseMs: opts.retryBaseMs}),
      ...(opts.maxRetryWaitMs === undefined ? {} : {maxWaitMs: opts.maxRetryWaitMs}),
      ...(opts.retryBudgetMs === undefined ? {} : {budgetMs: opts.retryBudgetMs}),
    })
    this.viaGot = gotTransport(this.agents)
    this.viaNode = nodeTransport(this.agents)
  }

  client(): ApiClient {
    return {
      baseUrl: this.baseUrl,
      retryPolicy: this.policy,
      request: (req) => this.request(req),
      stream: (req) => this.stream(req),
      close: () => this.agents.destroy(),
    }
  }

  async request<T>(req: RequestOptions): Promise<ApiResponse<T>> {
    const prepared = prepareRequest(
      {
        baseUrl: this.baseUrl,
        userAgent: this.userAgent,
        insecure: this.opts.insecure === true,
        secrets: this.secrets,
        ...(this.opts.apiKey ? {apiKey: this.opts.apiKey} : {}),
        ...(this.opts.authToken ? {authToken: this.opts.authToken} : {}),
      },
      req,
    )
    const bulk = req.bulk === true && !isFormData(prepared.body) && req.onUploadProgress === undefined
    const {res, bytes, durationMs} = await this.exchange(
      prepared,
      bulk ? this.viaNode : this.viaGot,
      {
        timeoutMs: this.timeoutMs,
        ...(req.signal ? {signal: req.signal} : {}),
        ...(req.onUploadProgress ? {onUploadProgress: req.onUploadProgress} : {}),
      },
      false,
      req.retries,
    )
    const site = this.site(prepared)
    const decoded = decode(bytes!, res.status, res.headers, req.responseType)
    if (res.status >= 200 && res.status < 300) {
      if (decoded.jsonError !== undefined) throw badJsonError(res.status, decoded.jsonError, site)
      return {status: res.status, headers: {...res.headers}, body: decoded.value as T, durationMs}
    }
    if (res.status >= 300 && res.status < 400) throw redirectError(res.status, res.headers.location, site)
    // An error answer is read for its message whatever the caller asked the body as.
    const raw = req.responseType !== undefined && req.responseType !== 'json'
    throw errorFromResponse({
      ...site,
      status: res.status,
      body: raw ? decode(bytes!, res.status, res.headers).value : decoded.value,
      retryAfterSeconds: parseRetryAfter(res.headers['retry-after']),
    })
  }

  async stream(req: StreamOptions): Promise<StreamResponse> {
    const prepared = prepareDownload({userAgent: this.userAgent}, req.url, req.headers)
    const {res} = await this.exchange(
      prepared,
      this.viaGot,
      {idleTimeoutMs: DOWNLOAD_IDLE_MS, maxRedirects: DOWNLOAD_REDIRECTS, ...(req.signal ? {signal: req.signal} : {})},
      true,
    )
    if (res.status >= 200 && res.status < 300) return {status: res.status, headers: {...res.headers}, body: res.body}
    const site = this.site(prepared)
    if (res.status >= 300 && res.status < 400) {
      res.body.destroy()
      throw redirectError(res.status, res.headers.location, site)
    }
    let body: unknown
    try {
      body = decode(await receive(res.body, res.headers, ERROR_BODY_LIMIT), res.status, res.headers).value
    } catch {
      // A broken error body: the status says enough.
    }
    throw errorFromResponse({...site, status: res.status, body})
  }

  /**
   * Sends a request until an answer comes that is not retried, retrying failures
   * as the policy says, with one log line per attempt. The body is read here (so
   * an answer cut short is retried like a failed connection) unless `keepStream`:
   * then it is the caller's to read.
   */
  private async exchange(
    req: PreparedRequest,
    transport: Transport,
    options: SendOptions,
    keepStream = false,
    maxRetries?: number,
  ): Promise<Exchanged> {
    const site = this.site(req)
    const first = performance.now()
    for (let retries = 0; ; retries++) {
      if (options.signal?.aborted) throw abortError(site, retries > 0)
      const started = performance.now()
      let failure: AttemptFailure
      let thrown: Error | undefined
      try {
        const res = await transport.send(req, options)
        const retryAfterSeconds = parseRetryAfter(res.headers['retry-after'])
        if (!transientStatus(res.status)) {
          const bytes = keepStream ? undefined : await receive(res.body, res.headers)
          const durationMs = Math.round(performance.now() - started)
          this.emit(`→ ${req.method} ${req.shownPath} ${res.status} ${durationMs}ms`)
          return {res, durationMs, ...(bytes === undefined ? {} : {bytes})}
        }
        failure = {kind: 'status', status: res.status, ...(retryAfterSeconds === undefined ? {} : {retryAfterSeconds})}
        const decision = this.policy.decide({
          failure,
          idempotent: req.idempotent,
          retries,
          elapsedMs: performance.now() - first,
        })
        if (!decision.retry || retries >= (maxRetries ?? Infinity)) {
          const bytes = keepStream ? undefined : await receive(res.body, res.headers)
          const durationMs = Math.round(performance.now() - started)
          this.emit(`→ ${req.method} ${req.shownPath} ${res.status} ${durationMs}ms`)
          return {res, durationMs, ...(bytes === undefined ? {} : {bytes})}
        }
        res.body.resume()
        this.emitRetry(req, String(res.status), started, retries, decision.waitMs)
        await sleep(decision.waitMs, options.signal)
        continue
      } catch (error) {
        thrown = error as Error
      }
      if (options.signal?.aborted) {
        this.emit(`→ ${req.method} ${req.shownPath} aborted ${Math.round(performance.now() - started)}ms`)
        throw abortError(site, true)
      }
      const network = describeNetworkFailure(thrown, options.timeoutMs)
      const decision = this.policy.decide({
        failure: {kind: 'network', code: network.code, neverSent: network.neverSent},
        idempotent: req.idempotent,
        retries,
        elapsedMs: performance.now() - first,
      })
      if (!decision.retry || retries >= (maxRetries ?? Infinity)) {
        this.emit(`→ ${req.method} ${req.shownPath} ${network.code} ${Math.round(performance.now() - started)}ms`)
        throw networkError(network, site, thrown)
      }
      this.emitRetry(req, network.code, started, retries, decision.waitMs)
      await sleep(decision.waitMs, options.signal)
    }
  }

  private site(req: PreparedRequest): FailureSite {
    return {method: req.method, path: req.shownPath, secrets: this.secrets}
  }

  private emitRetry(req: PreparedRequest, what: string, started: number, retries: number, waitMs: number): void {
    const ms = Math.round(performance.now() - started)
    this.emit(
      `→ ${req.method} ${req.shownPath} ${what} ${ms}ms (retry ${retries + 1}/${this.policy.retries} in ${waitMs}ms)`,
    )
  }

  private emit(line: string): void {
    if (this.opts.log) this.opts.log(redact(line, this.secrets))
  }
}
