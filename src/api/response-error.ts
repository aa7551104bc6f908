// The one mapping from what went wrong on the wire to the error classes, for every
// transport. What an error answer says is read by error-body.ts; this file picks
// the class by status and words network failures, redirects and bad bodies.
import {
  ApiError,
  AuthenticationError,
  ConflictError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServerError,
  ValidationError,
  NetworkError,
  type ApiErrorInit,
} from './errors.js'
import {markupOf, readErrorBody} from './error-body.js'
import {reasonPhrase} from './status.js'
import {neverSent} from './retry.js'
import {tlsFailure, tlsFailureText} from './tls-failure.js'

/** How many attempts a failed request took and how long, when it was tried more than once or ran out of time. */
export interface GaveUp {
  attempts: number
  ms: number
  /** The command's budget that ran out, when that is why it stopped (CommandBudget.describe). */
  budget?: string
}

/** A duration for people: `200 ms`, `2.5 s`, `30 s`. */
export function seconds(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  const s = ms / 1000
  return `${s < 10 ? Math.round(s * 10) / 10 : Math.round(s)} s`
}

/** `gave up after 61 s and 2 attempts: ` before the last failure, when there was more than one try or time ran out. */
function gaveUpPrefix(gaveUp: GaveUp | undefined): string {
  if (!gaveUp) return ''
  const why = gaveUp.budget === undefined ? '' : ` (${gaveUp.budget})`
  return `gave up after ${seconds(gaveUp.ms)} and ${gaveUp.attempts} attempt${gaveUp.attempts === 1 ? '' : 's'}${why}: `
}

/**
 * Builds the error for a non-2xx answer, chosen by status. `body` is the decoded
 * body (parsed JSON or text); its message is read whatever its shape (the
 * contract's `{statusCode, error, message, details}`, other JSON shapes, problem
 * details, an HTML page, text) and the body itself is kept on the error.
 */
export function errorFromResponse(init: {
  status: number
  method: string
  path: string
  body: unknown
  retryAfterSeconds?: number
  secrets?: readonly (string | undefined)[]
  operation?: string
  /** Why the body could not be read at all (decode.ts), in place of its message. */
  unreadable?: string
  gaveUp?: GaveUp
  /** How an earlier attempt that may have been carried out ended (ApiErrorInit.lostAnswer). */
  lostAnswer?: string
  /** The request was a write: a 5xx does not show it was not carried out. */
  writes?: boolean
  headers?: Record<string, string | string[] | undefined>
}): ApiError {
  const reading =
    init.unreadable === undefined
      ? readErrorBody(init.body, init.status)
      : {message: `${readErrorBody(undefined, init.status).message}; ${init.unreadable}`}
  const base: ApiErrorInit = {
    status: init.status,
    method: init.method,
    path: init.path,
    serverMessage: gaveUpPrefix(init.gaveUp) + reading.message,
    ...(reading.statusText === undefined ? {} : {statusText: reading.statusText}),
    ...(reading.details === undefined ? {} : {details: reading.details}),
    ...(init.retryAfterSeconds === undefined ? {} : {retryAfterSeconds: init.retryAfterSeconds}),
    ...(init.secrets === undefined ? {} : {secrets: init.secrets}),
    ...(init.operation === undefined ? {} : {operation: init.operation}),
    ...(init.body === undefined ? {} : {body: init.body}),
    ...(init.headers === undefined ? {} : {headers: init.headers}),
    ...(init.lostAnswer === undefined ? {} : {lostAnswer: init.lostAnswer}),
  }
  const s = init.status
  if (s === 401) return new AuthenticationError(base)
  if (s === 403) return new PermissionError(base)
  if (s === 404) return new NotFoundError(base)
  if (s === 400 || s === 413 || s === 422) return new ValidationError(base)
  if (s === 409) return new ConflictError(base)
  if (s === 429) return new RateLimitError(base)
  if (s >= 500) return new ServerError({...base, mayHaveActed: init.writes === true})
  return new ApiError(base, 'http_error')
}

/** Where a failure happened, for its message. */
export interface FailureSite {
  method: string
  path: string
  secrets?: readonly (string | undefined)[]
  /** What the request does, when its caller named it (RequestOptions.operation). */
  operation?: string
}

/** A network failure as the pipeline logs it, retries it and reports it. */
export interface NetworkFailure {
  /** Node's code (ECONNRESET, ECONNREFUSED, ETIMEDOUT, Z_DATA_ERROR...), or ENETWORK. */
  code: string
  message: string
  /** Whether the failure proves that the request never reached the server. */
  neverSent: boolean
}

const WHAT: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the server',
  EPIPE: 'connection closed while sending',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed temporarily',
  ENETUNREACH: 'network unreachable',
  EHOSTUNREACH: 'host unreachable',
  ERR_PROXY_TUNNEL: 'the proxy did not open a tunnel to the service',
}

/** What a time-out was waiting for, by got's name of the phase. */
const PHASES: Record<string, string> = {
  lookup: 'the host name lookup',
  connect: 'the connection',
  secureConnect: 'the TLS handshake',
  socket: 'data',
  send: 'the request to be sent',
  response: 'the answer',
  request: 'the answer',
  read: 'the rest of the answer',
}

/**
 * Reads any transport's failure (Node's errors, got's) as one NetworkFailure.
 * `timeoutHint` follows a time-out's message (how to allow more time).
 */
export function describeNetworkFailure(
  error: unknown,
  timeoutMs: number | undefined,
  timeoutHint?: string,
): NetworkFailure {
  const e = error as {code?: unknown; name?: unknown; event?: unknown; message?: unknown; cause?: {code?: unknown}}
  const code = failureCode(e)
  const raw = typeof e.message === 'string' ? e.message : String(error)
  if (e.name === 'TimeoutError' || code === 'ETIMEDOUT') {
    const event = typeof e.event === 'string' ? e.event : 'request'
    const hint = timeoutHint ? ` (${timeoutHint})` : ''
    return {
      code: 'ETIMEDOUT',
      message:
        timeoutMs === undefined
          ? `timed out (${raw})${hint}`
          : `timed out after ${seconds(timeoutMs)} waiting for ${PHASES[event] ?? event}${hint}`,
      neverSent: neverSent('ETIMEDOUT', event),
    }
  }
  const tls = tlsFailure(e)
  if (tls) return {code, message: tlsFailureText(tls), neverSent: tls.notTls || neverSent(code)}
  return {code, message: `${WHAT[code] ?? 'network error'} (${raw})`, neverSent: neverSent(code)}
}

/**
 * A failure's code as Node reports it. got 16 reports an answer cut short by a
 * closed connection as a Content-Length mismatch, where Node says ECONNRESET;
 * and it names any other failure while reading the answer ERR_READING_RESPONSE_STREAM
 * (or a ReadError), with Node's error (a zlib code, say) as its cause.
 */
function failureCode(e: {code?: unknown; cause?: {code?: unknown}}): string {
  if (typeof e.code !== 'string') return 'ENETWORK'
  if (e.code === 'ERR_HTTP_CONTENT_LENGTH_MISMATCH') return 'ECONNRESET'
  if (e.code === 'ERR_STREAM_PREMATURE_CLOSE') return 'ECONNRESET'
  if (e.code === 'ERR_READING_RESPONSE_STREAM' && typeof e.cause?.code === 'string') return e.cause.code
  return e.code
}

export function networkError(
  failure: NetworkFailure,
  site: FailureSite,
  cause?: unknown,
  gaveUp?: GaveUp,
): NetworkError {
  return new NetworkError({
    method: site.method,
    path: site.path,
    ...(site.operation === undefined ? {} : {operation: site.operation}),
    serverMessage: gaveUpPrefix(gaveUp) + failure.message,
    code: 'network_error',
    mayHaveBeenSent: !failure.neverSent,
    secrets: site.secrets,
    cause,
  })
}

/** A request not started because the command's budget is spent (`why`: CommandBudget.describe). */
export function budgetError(site: FailureSite, why: string, mayHaveBeenSent = false): NetworkError {
  return new NetworkError({
    method: site.method,
    path: site.path,
    ...(site.operation === undefined ? {} : {operation: site.operation}),
    serverMessage: why,
    code: 'network_error',
    mayHaveBeenSent,
    secrets: site.secrets,
  })
}

export function abortError(site: FailureSite, mayHaveBeenSent: boolean): NetworkError {
  return new NetworkError({
    method: site.method,
    path: site.path,
    ...(site.operation === undefined ? {} : {operation: site.operation}),
    serverMessage: 'request aborted',
    code: 'aborted',
    mayHaveBeenSent,
    secrets: site.secrets,
  })
}

/** A 3xx: never followed with the credentials, reported instead. */
export function redirectError(status: number, location: string | undefined, site: FailureSite): ApiError {
  return new ApiError({
    status,
    method: site.method,
    path: site.path,
    ...(site.operation === undefined ? {} : {operation: site.operation}),
    code: 'redirect',
    secrets: site.secrets,
    serverMessage: `the service redirected to ${location ?? 'another address'}; set the profile's base URL to the final address`,
  })
}

/** A 2xx whose body claims to be JSON and is not: what it is instead, in a few words. */
export function badJsonError(status: number, reason: string, site: FailureSite, text?: unknown): ApiError {
  const markup = typeof text === 'string' ? markupOf(text) : undefined
  const said = markup
    ? `the response claims JSON but is ${markup === 'html' ? 'an HTML page' : 'an XML document'}`
    : `the response claims JSON but is not valid JSON (${reason})`
  return new ApiError({
    status,
    method: site.method,
    path: site.path,
    ...(site.operation === undefined ? {} : {operation: site.operation}),
    code: 'bad_response',
    secrets: site.secrets,
    serverMessage: said,
    ...(text === undefined ? {} : {body: text}),
  })
}

/** A 2xx whose body cannot be read at all (decode.ts `unreadable`). */
export function badBodyError(status: number, why: string, site: FailureSite): ApiError {
  return new ApiError({
    status,
    statusText: reasonPhrase(status),
    method: site.method,
    path: site.path,
    ...(site.operation === undefined ? {} : {operation: site.operation}),
    code: 'bad_response',
    secrets: site.secrets,
    serverMessage: why,
  })
}
