import {performance} from 'node:perf_hooks'

import {redact} from '../schemas/secrets.js'
import {CommandBudget, type BudgetKind} from './budget.js'
import {decode, decodedStream, receive} from './decode.js'
import {operationOf} from './operations.js'
import {
  abortError,
  badBodyError,
  badJsonError,
  budgetError,
  describeNetworkFailure,
  errorFromResponse,
  networkError,
  redirectError,
  seconds,
  type FailureSite,
  type GaveUp,
} from './response-error.js'
import {isMultipart, normaliseBaseUrl, prepareDownload, prepareRequest, type PreparedRequest} from './request.js'
import {
  notProcessedStatus,
  parseRetryAfter,
  RetryPolicy,
  sleep,
  transientStatus,
  type AttemptFailure,
  type RetryDecision,
} from './retry.js'
import {Agents, gotTransport, type SendOptions, type Transport, type TransportResponse} from './transport.js'
import {PROXY_AUTH_HINT, proxyEnv, proxyNote, proxySecrets} from './proxy.js'
import {nodeTransport} from './transport-node.js'
import type {ApiClient, ApiResponse, ClientOptions, RequestOptions, StreamOptions, StreamResponse} from './types.js'

export type * from './types.js'
export {generationOf, isLoopbackHost, normaliseBaseUrl, type Generation} from './request.js'
export {CommandBudget, DEFAULT_FAILING_BUDGET_MS, type BudgetKind} from './budget.js'
export {
  DEFAULT_MAX_RETRY_WAIT_MS,
  DEFAULT_RETRIES,
  DEFAULT_RETRY_BASE_MS,
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
/** An attempt still unanswered after this long gets a note (ClientOptions.onWait). */
const SLOW_NOTE_MS = 5_000

/**
 * The one HTTP pipeline, for both API generations, MCP and downloads:
 * build the request (request.ts), send it on a transport (got, or node:http for
 * bulk requests; transport.ts), retry by the one RetryPolicy (retry.ts), decode
 * the body (decode.ts) and map failures to the error classes (response-error.ts).
 */
export function createClient(opts: ClientOptions): ApiClient {
  return new Pipeline(opts).client()
}

/**
 * The error of a request body's own source (a file part that changed while it was
 * sent, say), which got reports wrapped as an UploadError: the body's failure, not
 * the network's, so it is thrown as its source threw it and never retried (a
 * retry would send whatever the source holds now).
 */
function bodySourceFailure(error: Error): Error | undefined {
  return error.name === 'UploadError' && error.cause instanceof Error ? error.cause : undefined
}

/** What one exchange (all its attempts) ends with. */
interface Exchanged {
  res: TransportResponse
  /** The body, read and decoded from its content coding; absent when the stream is handed out. */
  bytes?: Buffer
  durationMs: number
  /** Set when the answer is a failure the policy would not try again after more than one attempt. */
  gaveUp?: GaveUp
  /**
   * How an earlier attempt that may have been carried out ended (`502`, `ECONNRESET`):
   * set on an answer to a retry, whose refusal (a 404 to a DELETE, a 409 to a stage
   * move) may then be the earlier attempt's own doing.
   */
  lostAnswer?: string
}

/** Methods that change nothing: an earlier attempt of one cannot explain a refusal. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS'])

class Pipeline {
  private readonly baseUrl: string
  private readonly secrets: readonly (string | undefined)[]
  private readonly userAgent: string
  private readonly timeoutMs: number
  private readonly policy: RetryPolicy
  /** The command's time budget, shared by every request of this client (one client per command). */
  private readonly budget: CommandBudget
  /** HTTPS_PROXY, HTTP_PROXY and NO_PROXY as read when the client was made (proxy.ts). */
  private readonly proxy = proxyEnv()
  private readonly agents = new Agents(32, this.proxy)
  private readonly viaGot: Transport
  private readonly viaNode: Transport
  /** When the last wait note was given: one every SLOW_NOTE_MS at most, however many requests run. */
  private lastNote = -Infinity

  constructor(private readonly opts: ClientOptions) {
    this.baseUrl = normaliseBaseUrl(opts.baseUrl)
    this.secrets = [opts.apiKey, opts.authToken, ...proxySecrets(this.proxy)]
    this.userAgent = opts.userAgent ?? `mfg node/${process.versions.node}`
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS
    this.policy = new RetryPolicy({
      ...(opts.retries === undefined ? {} : {retries: opts.retries}),
      ...(opts.retryBaseMs === undefined ? {} : {baseMs: opts.retryBaseMs}),
      ...(opts.maxRetryWaitMs === undefined ? {} : {maxWaitMs: opts.maxRetryWaitMs}),
    })
    this.budget = new CommandBudget({
      ...(opts.totalTimeoutMs === undefined ? {} : {totalMs: opts.totalTimeoutMs}),
      ...(opts.failingBudgetMs === undefined ? {} : {failingMs: opts.failingBudgetMs}),
      ...(opts.budgetHint === undefined ? {} : {hint: opts.budgetHint}),
    })
    this.viaGot = gotTransport(this.agents)
    this.viaNode = nodeTransport(this.agents)
  }

  client(): ApiClient {
    return {
      baseUrl: this.baseUrl,
      retryPolicy: this.policy,
      budget: this.budget,
      request: (req) => this.request(req),
      stream: (req) => this.stream(req),
      open: (req) => this.open(req),
      close: () => this.agents.destroy(),
    }
  }

  /** An API request built with the client's credentials, and where its failures are said to happen. */
  private prepare(req: RequestOptions): {prepared: PreparedRequest; site: FailureSite} {
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
    return {prepared, site: this.site(prepared, req.operation)}
  }

  async request<T>(req: RequestOptions): Promise<ApiResponse<T>> {
    const {prepared, site} = this.prepare(req)
    const bulk = req.bulk === true && !isMultipart(prepared.body) && req.onUploadProgress === undefined
    const {res, bytes, durationMs, gaveUp, lostAnswer} = await this.exchange(
      prepared,
      site,
      bulk ? this.viaNode : this.viaGot,
      {
        timeoutMs: this.timeoutMs,
        // Files: the time-out is the wait for the answer, not the transfer (which takes what the line allows).
        ...(isMultipart(prepared.body) || req.onUploadProgress ? {upload: true} : {}),
        ...(req.signal ? {signal: req.signal} : {}),
        ...(req.onUploadProgress ? {onUploadProgress: req.onUploadProgress} : {}),
      },
      false,
      req.retries,
    )
    const decoded = decode(bytes!, res.status, res.headers, req.responseType)
    for (const note of decoded.notes ?? []) this.emit(`↳ read ${prepared.method} ${prepared.shownPath}: ${note}`)
    if (res.status >= 200 && res.status < 300) {
      if (decoded.unreadable !== undefined) throw badBodyError(res.status, decoded.unreadable, site)
      if (decoded.jsonError !== undefined) throw badJsonError(res.status, decoded.jsonError, site, decoded.value)
      return {status: res.status, headers: {...res.headers}, body: decoded.value as T, durationMs}
    }
    // An error answer is read for its message whatever the caller asked the body as.
    const raw = req.responseType !== undefined && req.responseType !== 'json'
    const body = raw ? decode(bytes!, res.status, res.headers) : decoded
    throw this.refusal(res, body, prepared, site, gaveUp, lostAnswer)
  }

  /** The error of an answer that is not 2xx: a redirect (never followed), or the service's refusal. */
  private refusal(
    res: TransportResponse,
    body: ReturnType<typeof decode>,
    prepared: PreparedRequest,
    site: FailureSite,
    gaveUp: GaveUp | undefined,
    lostAnswer?: string,
  ): Error {
    if (res.status >= 300 && res.status < 400) return redirectError(res.status, res.headers.location, site)
    const error = errorFromResponse({
      ...site,
      status: res.status,
      body: body.value,
      ...(body.unreadable === undefined ? {} : {unreadable: body.unreadable}),
      ...(gaveUp ? {gaveUp} : {}),
      // A read does nothing an earlier attempt could have done: its refusal is its own.
      ...(lostAnswer === undefined || READS.has(prepared.method) ? {} : {lostAnswer}),
      retryAfterSeconds: parseRetryAfter(res.headers['retry-after']),
      ...(prepared.writes ? {writes: true} : {}),
      headers: {...res.headers},
    })
    // A proxy on the way (HTTP_PROXY) that wants credentials answers for the service.
    return res.status === 407 && proxyNote(this.proxy, prepared.url) !== undefined
      ? error.withHint(PROXY_AUTH_HINT)
      : error
  }

  /**
   * An API request whose 2xx answer the caller reads as it arrives (an MCP answer in an
   * event stream): built, sent and retried as `request` does until an answer comes. The
   * time-out bounds the wait for the answer to start and then each silence within it,
   * so an answer that keeps coming may take longer. Any other answer is read and thrown
   * as `request` throws it.
   */
  async open(req: RequestOptions): Promise<StreamResponse> {
    const {prepared, site} = this.prepare(req)
    const {res, gaveUp} = await this.exchange(
      prepared,
      site,
      this.viaGot,
      {timeoutMs: this.timeoutMs, streamed: true, ...(req.signal ? {signal: req.signal} : {})},
      true,
      req.retries,
    )
    if (res.status >= 200 && res.status < 300)
      return {status: res.status, headers: {...res.headers}, body: decodedStream(res.body, res.headers)}
    throw await this.readRefusal(res, prepared, site, gaveUp)
  }

  /** The refusal of an answer whose body was handed out unread: its first ERROR_BODY_LIMIT bytes read for the message. */
  private async readRefusal(
    res: TransportResponse,
    prepared: PreparedRequest,
    site: FailureSite,
    gaveUp?: GaveUp,
  ): Promise<Error> {
    const redirect = res.status >= 300 && res.status < 400
    if (redirect) res.body.destroy()
    // A broken error body: the status says enough.
    const bytes = redirect
      ? Buffer.alloc(0)
      : await receive(res.body, res.headers, ERROR_BODY_LIMIT).catch(() => Buffer.alloc(0))
    return this.refusal(res, decode(bytes, res.status, res.headers), prepared, site, gaveUp)
  }

  async stream(req: StreamOptions): Promise<StreamResponse> {
    const prepared = prepareDownload({userAgent: this.userAgent}, req.url, req.headers)
    const site = this.site(prepared)
    const {res} = await this.exchange(
      prepared,
      site,
      this.viaGot,
      {idleTimeoutMs: DOWNLOAD_IDLE_MS, maxRedirects: DOWNLOAD_REDIRECTS, ...(req.signal ? {signal: req.signal} : {})},
      true,
    )
    if (res.status >= 200 && res.status < 300) return {status: res.status, headers: {...res.headers}, body: res.body}
    throw await this.readRefusal(res, prepared, site)
  }

  /**
   * Sends a request until an answer comes that is not retried, retrying failures
   * as the policy says, with one log line per attempt. The command's budget
   * (budget.ts) is asked before every attempt and told every failed attempt's time
   * and every wait; each attempt's time-out is cut to the command's time left (and
   * a retry's to its time for failures left). The body is read here (so an answer
   * cut short is retried like a failed connection) unless `keepStream`: then it is
   * the caller's to read.
   */
  private async exchange(
    req: PreparedRequest,
    site: FailureSite,
    transport: Transport,
    options: SendOptions,
    keepStream = false,
    maxRetries?: number,
  ): Promise<Exchanged> {
    const first = performance.now()
    const budget = this.budget
    /** Whether an attempt so far may have been processed (for the error when the budget stops a retry). */
    let maybeSent = false
    /** How the first attempt that may have been processed ended, for the final answer's error. */
    let lostAnswer: string | undefined
    for (let retries = 0; ; retries++) {
      if (options.signal?.aborted) throw abortError(site, retries > 0)
      const spent = budget.spent()
      if (spent !== undefined) {
        this.emit(
          `→ ${req.method} ${req.shownPath} not sent: the command's ${spent === 'total' ? 'time' : 'time for failures'} ran out`,
        )
        throw budgetError(site, budget.stoppedBy(spent), maybeSent)
      }
      const started = performance.now()
      const {options: attempt, cutBy} = this.attemptOptions(options, retries)
      const slow = this.noteWhenSlow(req, site, attempt.timeoutMs)
      // While a body is being sent, the service is not yet being waited for: each step of it starts the wait anew.
      const onUpload = attempt.onUploadProgress
      const sending: SendOptions = onUpload
        ? {
            ...attempt,
            onUploadProgress: (progress) => {
              slow?.refresh()
              onUpload(progress)
            },
          }
        : attempt
      let thrown: Error | undefined
      try {
        const res = await transport.send(req, sending)
        const retryAfterSeconds = parseRetryAfter(res.headers['retry-after'])
        const failure: AttemptFailure = {
          kind: 'status',
          status: res.status,
          ...(retryAfterSeconds === undefined ? {} : {retryAfterSeconds}),
        }
        let decision: RetryDecision | undefined
        if (transientStatus(res.status)) {
          budget.addFailing(performance.now() - started)
          decision = this.policy.decide({
            failure,
            idempotent: req.idempotent,
            retries,
            command: budget.state(),
          })
        }
        if (!decision?.retry || retries >= (maxRetries ?? Infinity)) {
          const bytes = keepStream ? undefined : await receive(res.body, res.headers)
          const durationMs = Math.round(performance.now() - started)
          this.emit(`→ ${req.method} ${req.shownPath} ${res.status} ${durationMs}ms`)
          const why = decision && !decision.retry ? this.budgetOut(decision) : undefined
          const gaveUp = decision && (retries > 0 || why) ? this.gaveUp(retries, first, why) : undefined
          return {
            res,
            durationMs,
            ...(bytes === undefined ? {} : {bytes}),
            ...(gaveUp ? {gaveUp} : {}),
            ...(lostAnswer === undefined ? {} : {lostAnswer}),
          }
        }
        if (!notProcessedStatus(res.status)) {
          maybeSent = true
          lostAnswer ??= String(res.status)
        }
        res.body.resume()
        budget.addFailing(decision.waitMs)
        this.emitRetry(req, site, String(res.status), started, retries, decision.waitMs)
        await sleep(decision.waitMs, options.signal)
        continue
      } catch (error) {
        thrown = error as Error
      } finally {
        clearTimeout(slow)
      }
      if (options.signal?.aborted) {
        this.emit(`→ ${req.method} ${req.shownPath} aborted ${Math.round(performance.now() - started)}ms`)
        throw abortError(site, true)
      }
      const source = bodySourceFailure(thrown)
      if (source) {
        this.emit(`→ ${req.method} ${req.shownPath} not sent whole: its body could not be read`)
        throw source
      }
      budget.addFailing(performance.now() - started)
      const network = describeNetworkFailure(thrown, attempt.timeoutMs, cutBy ? undefined : this.opts.timeoutHint)
      const via = proxyNote(this.proxy, req.url)
      if (via !== undefined)
        network.message += ` (${via}${/\b407\b/.test(network.message) ? `; ${PROXY_AUTH_HINT}` : ''})`
      if (!network.neverSent) {
        maybeSent = true
        lostAnswer ??= network.code
      }
      const decision = this.policy.decide({
        failure: {kind: 'network', code: network.code, neverSent: network.neverSent},
        idempotent: req.idempotent,
        retries,
        command: budget.state(),
      })
      if (!decision.retry || retries >= (maxRetries ?? Infinity)) {
        this.emit(`→ ${req.method} ${req.shownPath} ${network.code} ${Math.round(performance.now() - started)}ms`)
        // A time-out cut short by the budget is the budget's doing, whatever the policy says next.
        const timedOutByBudget =
          cutBy !== undefined && network.code === 'ETIMEDOUT' ? budget.stoppedBy(cutBy) : undefined
        const why = timedOutByBudget ?? (decision.retry ? undefined : this.budgetOut(decision))
        const gaveUp = retries > 0 || why ? this.gaveUp(retries, first, why) : undefined
        throw networkError(network, site, thrown, gaveUp)
      }
      budget.addFailing(decision.waitMs)
      this.emitRetry(req, site, network.code, started, retries, decision.waitMs)
      await sleep(decision.waitMs, options.signal)
    }
  }

  /**
   * One attempt's options: its time-out cut to the command's time left, and a
   * retry's also to the command's time for failures left; `cutBy` names the budget
   * that cut it. A first attempt is never cut by the time for failures, so a
   * healthy request after a few failures gets its whole time-out.
   */
  private attemptOptions(options: SendOptions, retries: number): {options: SendOptions; cutBy?: BudgetKind} {
    if (options.timeoutMs === undefined) return {options}
    let ms = options.timeoutMs
    let cutBy: BudgetKind | undefined
    const failingLeft = retries > 0 ? this.budget.failingLeftMs() : Number.POSITIVE_INFINITY
    if (failingLeft < ms) [ms, cutBy] = [failingLeft, 'failing']
    const left = this.budget.leftMs()
    if (left < ms) [ms, cutBy] = [left, 'total']
    return {options: {...options, timeoutMs: Math.max(1, Math.round(ms))}, ...(cutBy ? {cutBy} : {})}
  }

  /** What ran out, when the command's budget is why a retry was refused. */
  private budgetOut(decision: Extract<RetryDecision, {retry: false}>): string | undefined {
    if (decision.why === 'command-total') return this.budget.stoppedBy('total', true)
    if (decision.why === 'command-failing') return this.budget.stoppedBy('failing', true)
    return undefined
  }

  private gaveUp(retries: number, first: number, budget?: string): GaveUp {
    return {attempts: retries + 1, ms: Math.round(performance.now() - first), ...(budget ? {budget} : {})}
  }

  /** A note when an attempt is still unanswered after SLOW_NOTE_MS, so that a long wait is not silent. */
  private noteWhenSlow(req: PreparedRequest, site: FailureSite, timeoutMs?: number): NodeJS.Timeout | undefined {
    const onWait = this.opts.onWait
    if (!onWait) return undefined
    const timer = setTimeout(() => {
      const now = performance.now()
      if (now - this.lastNote < SLOW_NOTE_MS) return
      this.lastNote = now
      const what = site.operation ?? operationOf(req.method, req.shownPath) ?? `${req.method} ${req.shownPath}`
      const limit = timeoutMs === undefined ? '' : `; giving up after ${seconds(timeoutMs)}`
      onWait(redact(`Still waiting for the service (${what}, ${seconds(SLOW_NOTE_MS)} so far${limit})…`, this.secrets))
    }, SLOW_NOTE_MS)
    timer.unref()
    return timer
  }

  private site(req: PreparedRequest, operation?: string): FailureSite {
    return {method: req.method, path: req.shownPath, secrets: this.secrets, ...(operation ? {operation} : {})}
  }

  private emitRetry(
    req: PreparedRequest,
    site: FailureSite,
    what: string,
    started: number,
    retries: number,
    waitMs: number,
  ): void {
    const ms = Math.round(performance.now() - started)
    this.emit(
      `→ ${req.method} ${req.shownPath} ${what} ${ms}ms (retry ${retries + 1}/${this.policy.retries} in ${waitMs}ms)`,
    )
    if (this.opts.onWait && !this.opts.log) {
      const op = site.operation ?? operationOf(req.method, req.shownPath) ?? `${req.method} ${req.shownPath}`
      const failed = /^\d+$/.test(what) ? `HTTP ${what}` : what
      this.opts.onWait(
        redact(
          `${op}: ${failed}; trying again in ${seconds(waitMs)} (attempt ${retries + 2} of ${this.policy.retries + 1})`,
          this.secrets,
        ),
      )
    }
  }

  private emit(line: string): void {
    if (this.opts.log) this.opts.log(redact(line, this.secrets))
  }
}
