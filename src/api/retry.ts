export const DEFAULT_RETRIES = 3
export const DEFAULT_RETRY_BASE_MS = 500
export const DEFAULT_MAX_RETRY_WAIT_MS = 8_000
/** A retry is not worth starting with less time than this left in the budget. */
export const MIN_ATTEMPT_MS = 1_000

/** What went wrong with one attempt, as far as retrying is concerned. */
export type AttemptFailure =
  /** The service answered with this status. */
  | {kind: 'status'; status: number; retryAfterSeconds?: number}
  /** No (complete) answer; `neverSent` when the failure proves the request never left. */
  | {kind: 'network'; code: string; neverSent: boolean}

export interface RetryQuestion {
  failure: AttemptFailure
  /**
   * Whether sending the request twice does no harm: a GET, PUT or DELETE, or a
   * POST/PATCH with an Idempotency-Key the caller lets the client rely on.
   */
  idempotent: boolean
  /** Retries already made (0 after the first attempt). */
  retries: number
  /**
   * The command's budget after this attempt (CommandBudget.state(), budget.ts): its
   * failing time (this attempt included) and limit, and its wall-clock time left.
   */
  command?: BudgetState
}

/** A command's budget as the policy reads it (CommandBudget.state(), budget.ts). */
export interface BudgetState {
  /** Time spent on failed attempts and waits so far, summed over every request of the command. */
  failingMs: number
  failingLimitMs: number
  /** Wall-clock time left before the whole command's limit; absent when there is none. */
  leftMs?: number
}

export type RetryDecision =
  | {retry: true; waitMs: number}
  | {
      retry: false
      /**
       * `permanent`: retrying cannot help; `unsafe`: the request may have been
       * processed and may not be sent twice; `exhausted`: no retries left;
       * `retry-after`: the service asked for a longer wait than the cap;
       * `command-failing`: the command's time for failures would run out;
       * `command-total`: the command's whole time (`--total-timeout`) would run out.
       */
      why: 'permanent' | 'unsafe' | 'exhausted' | 'retry-after' | 'command-failing' | 'command-total'
    }

export interface RetryPolicyOptions {
  /** Retries after the first attempt. */
  retries?: number
  /** First back-off step; later steps double. */
  baseMs?: number
  /** Longest single wait, back-off or Retry-After. */
  maxWaitMs?: number
  /** A number in [0, 1), for the jitter. */
  random?: () => number
}

/** Network failures that may pass: the connection or the name lookup may work a moment later. */
const TRANSIENT_CODES = new Set([
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

/** Failures where no byte of the request reached the server. */
const NEVER_SENT_CODES = new Set([
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
  // The proxy did not open the tunnel to an https service: nothing went through it.
  'ERR_PROXY_TUNNEL',
])

/** Time-outs in these phases come before the request is written. */
const NEVER_SENT_TIMEOUT_PHASES = new Set(['lookup', 'connect', 'secureConnect'])

/**
 * Whether a network failure proves the request never reached the server: the
 * connection was refused, the name did not resolve, TLS failed, or a time-out
 * struck before the connection was up.
 */
export function neverSent(code: string, timeoutPhase?: string): boolean {
  if (code === 'ETIMEDOUT') return timeoutPhase !== undefined && NEVER_SENT_TIMEOUT_PHASES.has(timeoutPhase)
  return NEVER_SENT_CODES.has(code)
}

/** Statuses worth another try: the service was busy, rate-limited or failed on its side. */
export function transientStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status !== 501 && status !== 505)
}

/**
 * Statuses that say the request was not processed: a rate limit (429) or the
 * service giving up on reading the request (408). Resending after them cannot
 * make a second copy of anything.
 */
export function notProcessedStatus(status: number): boolean {
  return status === 408 || status === 429
}

/**
 * The one set of retry rules, shared by every request of the client, by
 * downloads that resume after a cut, and by batches between their rounds.
 * `decide` is a pure function of its question (and the random source):
 *
 * - only transient statuses and network failures are retried;
 * - a request that is not idempotent (a POST without an Idempotency-Key the client
 *   may rely on) is retried only when the failure proves it was not processed:
 *   never sent (refused connection, failed lookup), or a 408/429 answer;
 * - waits grow exponentially from `baseMs` with equal jitter, capped at `maxWaitMs`;
 * - a Retry-After (seconds or HTTP date) is honoured, plus up to 100 ms of jitter,
 *   unless it asks for more than `maxWaitMs`: then the failure is final;
 * - no retry is scheduled whose wait, with MIN_ATTEMPT_MS for the attempt, would
 *   overrun the command's budget (`command`, budget.ts): its wall-clock time left
 *   (`command-total`), or its time for failures, summed over all its requests
 *   (`command-failing`). The pipeline cuts each attempt's time-out to what is left,
 *   so a command's budget is a hard bound.
 */
export class RetryPolicy {
  readonly retries: number
  readonly baseMs: number
  readonly maxWaitMs: number
  private readonly random: () => number

  constructor(opts: RetryPolicyOptions = {}) {
    this.retries = Math.max(0, opts.retries ?? DEFAULT_RETRIES)
    this.baseMs = opts.baseMs ?? DEFAULT_RETRY_BASE_MS
    this.maxWaitMs = opts.maxWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS
    this.random = opts.random ?? Math.random
  }

  decide(q: RetryQuestion): RetryDecision {
    const {failure} = q
    if (failure.kind === 'status') {
      if (!transientStatus(failure.status)) return {retry: false, why: 'permanent'}
      if (!q.idempotent && !notProcessedStatus(failure.status)) return {retry: false, why: 'unsafe'}
    } else {
      if (!TRANSIENT_CODES.has(failure.code)) return {retry: false, why: 'permanent'}
      if (!q.idempotent && !failure.neverSent) return {retry: false, why: 'unsafe'}
    }
    if (q.retries >= this.retries) return {retry: false, why: 'exhausted'}
    let waitMs: number
    const retryAfter = failure.kind === 'status' ? failure.retryAfterSeconds : undefined
    if (retryAfter !== undefined) {
      if (retryAfter * 1000 > this.maxWaitMs) return {retry: false, why: 'retry-after'}
      waitMs = retryAfter * 1000 + Math.floor(this.random() * 100)
    } else {
      waitMs = this.backoff(q.retries + 1)
    }
    const command = q.command
    if (command?.leftMs !== undefined && waitMs + MIN_ATTEMPT_MS > command.leftMs) {
      return {retry: false, why: 'command-total'}
    }
    if (command && command.failingMs + waitMs + MIN_ATTEMPT_MS > command.failingLimitMs) {
      return {retry: false, why: 'command-failing'}
    }
    return {retry: true, waitMs}
  }

  /** The wait before retry number `retry` (1-based): exponential, equal jitter, capped. */
  backoff(retry: number): number {
    const exp = Math.min(this.maxWaitMs, this.baseMs * 2 ** Math.max(0, retry - 1))
    return Math.round(exp / 2 + this.random() * (exp / 2))
  }
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
