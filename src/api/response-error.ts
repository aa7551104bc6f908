// The one mapping from what went wrong on the wire to the error classes, for every
// transport. Kept apart from errors.ts because it parses with the shared zod schema:
// the error classes are imported by every command, this only by the HTTP client.
import {ErrorBody, type ErrorDetail} from '../schemas/common.js'
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
  isRecord,
  type ApiErrorInit,
} from './errors.js'
import {neverSent} from './retry.js'

/**
 * Builds the error for a non-2xx answer, chosen by status. `body` is the parsed
 * body (the contract's `{statusCode, error, message, details}`) or raw text.
 */
export function errorFromResponse(init: {
  status: number
  method: string
  path: string
  body: unknown
  retryAfterSeconds?: number
  secrets?: readonly (string | undefined)[]
}): ApiError {
  const parsed = ErrorBody.safeParse(init.body)
  let serverMessage: string
  let details: ErrorDetail[] | undefined
  let statusText: string | undefined
  if (parsed.success) {
    serverMessage = parsed.data.message
    statusText = parsed.data.error
    details = parsed.data.details
  } else if (typeof init.body === 'string' && init.body.trim() !== '') {
    const text = init.body.trim().replace(/\s+/g, ' ')
    serverMessage = `HTTP ${init.status}: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`
  } else if (isRecord(init.body) && typeof init.body.message === 'string') {
    serverMessage = init.body.message
  } else {
    serverMessage = `HTTP ${init.status}`
  }
  const base: ApiErrorInit = {
    status: init.status,
    method: init.method,
    path: init.path,
    serverMessage,
    statusText,
    details,
    retryAfterSeconds: init.retryAfterSeconds,
    secrets: init.secrets,
  }
  const s = init.status
  if (s === 401) return new AuthenticationError(base)
  if (s === 403) return new PermissionError(base)
  if (s === 404) return new NotFoundError(base)
  if (s === 400 || s === 413 || s === 422) return new ValidationError(base)
  if (s === 409) return new ConflictError(base)
  if (s === 429) return new RateLimitError(base)
  if (s >= 500) return new ServerError(base)
  return new ApiError(base, 'http_error')
}

/** Where a failure happened, for its message. */
export interface FailureSite {
  method: string
  path: string
  secrets?: readonly (string | undefined)[]
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
}

/** Reads any transport's failure (Node's errors, got's) as one NetworkFailure. */
export function describeNetworkFailure(error: unknown, timeoutMs: number | undefined): NetworkFailure {
  const e = error as {code?: unknown; name?: unknown; event?: unknown; message?: unknown; cause?: {code?: unknown}}
  const code = failureCode(e)
  const raw = typeof e.message === 'string' ? e.message : String(error)
  if (e.name === 'TimeoutError' || code === 'ETIMEDOUT') {
    const event = typeof e.event === 'string' ? e.event : 'request'
    return {
      code: 'ETIMEDOUT',
      message: timeoutMs === undefined ? `timed out (${raw})` : `timed out after ${timeoutMs} ms waiting for ${event}`,
      neverSent: neverSent('ETIMEDOUT', event),
    }
  }
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

export function networkError(failure: NetworkFailure, site: FailureSite, cause?: unknown): NetworkError {
  return new NetworkError({
    method: site.method,
    path: site.path,
    serverMessage: failure.message,
    code: 'network_error',
    mayHaveBeenSent: !failure.neverSent,
    secrets: site.secrets,
    cause,
  })
}

export function abortError(site: FailureSite, mayHaveBeenSent: boolean): NetworkError {
  return new NetworkError({
    method: site.method,
    path: site.path,
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
    code: 'redirect',
    secrets: site.secrets,
    serverMessage: `the service redirected to ${location ?? 'another address'}; set the profile's base URL to the final address`,
  })
}

/** A 2xx whose body claims to be JSON and is not. */
export function badJsonError(status: number, reason: string, site: FailureSite): ApiError {
  return new ApiError({
    status,
    method: site.method,
    path: site.path,
    code: 'bad_response',
    secrets: site.secrets,
    serverMessage: `the response claims JSON but is not valid JSON (${reason})`,
  })
}
