import type {ErrorDetail} from '../schemas/common.js'
import {redact} from '../schemas/secrets.js'
import {operationOf} from './operations.js'

export interface ApiErrorInit {
  status?: number
  method: string
  path: string
  serverMessage?: string
  details?: ErrorDetail[]
  code?: string
  retryAfterSeconds?: number
  /** The error body's `error` (status text), shown after the status. */
  statusText?: string
  /** Secrets to mask in the message and path (the path may carry query values). */
  secrets?: readonly (string | undefined)[]
  cause?: unknown
  /**
   * What the user asked for, in words ("listing demands"), put before the message.
   * Named from the method and path when not given (operations.ts); '' for none.
   */
  operation?: string
  /** The answer's body as it came (parsed JSON or text), for `mfg api` and `--debug`. */
  body?: unknown
  /** The answer's headers, for `mfg api --include`. */
  headers?: Record<string, string | string[] | undefined>
  /**
   * How an earlier attempt of the same request ended when it may have been carried
   * out (`502`, `ECONNRESET`): this answer is then to a retry, and may be the earlier
   * attempt's doing (a 404 to a DELETE that was done, a 409 to a move already made).
   */
  lostAnswer?: string
}

/**
 * Base class of every failure of the HTTP client. `message` holds the server's
 * message plus method and path, with every known secret masked.
 */
export class ApiError extends Error {
  readonly status?: number
  readonly method: string
  readonly path: string
  readonly serverMessage?: string
  readonly details?: ErrorDetail[]
  readonly code: string
  readonly retryAfterSeconds?: number
  /** What the user asked for ("listing demands"), when known. */
  readonly operation?: string
  /** The answer's body as it came (parsed JSON or text; secrets are masked where it is shown). */
  readonly body?: unknown
  /** The answer's headers, when there was an answer. */
  readonly headers?: Record<string, string | string[] | undefined>
  /** ApiErrorInit.lostAnswer: an earlier attempt, ended so, may have done what this answer refuses. */
  readonly lostAnswer?: string

  constructor(init: ApiErrorInit, defaultCode = 'api_error') {
    const secrets = init.secrets ?? []
    const path = redact(init.path, secrets)
    const serverMessage = init.serverMessage === undefined ? undefined : redact(init.serverMessage, secrets)
    const details = init.details?.map((d) => ({path: d.path, message: redact(d.message, secrets)}))
    const operation = init.operation ?? operationOf(init.method, init.path)
    super(
      composeMessage({...init, path, serverMessage, details, operation}),
      init.cause === undefined ? undefined : {cause: init.cause},
    )
    this.name = new.target.name
    this.status = init.status
    this.method = init.method
    this.path = path
    this.serverMessage = serverMessage
    this.details = details
    this.code = init.code ?? defaultCode
    this.retryAfterSeconds = init.retryAfterSeconds
    if (operation) this.operation = operation
    if (init.body !== undefined) this.body = init.body
    if (init.headers !== undefined) this.headers = init.headers
    if (init.lostAnswer !== undefined) this.lostAnswer = init.lostAnswer
  }

  /** The same error with a line added below its message: what to do next, in the command's words. */
  withHint(hint: string): this {
    this.message = `${this.message}\n${hint}`
    return this
  }
}

/**
 * `operation: message (METHOD path → status text)` and the details below, one a
 * line. A message that already gives the status (`HTTP 502 Bad Gateway`,
 * made from an answer without one) is not followed by it again.
 */
function composeMessage(e: {
  status?: number
  statusText?: string
  method: string
  path: string
  serverMessage?: string
  details?: ErrorDetail[]
  operation?: string
  lostAnswer?: string
}): string {
  const {status, statusText, details} = e
  const said = status !== undefined && e.serverMessage?.includes(`HTTP ${status}`) === true
  // A part not known (a base URL refused before any request) is left out, not shown as "-".
  const request = [e.method, e.path].filter((part) => part !== '' && part !== '-').join(' ')
  const where =
    status === undefined || said ? request : `${request} → ${status}${statusText ? ` ${statusText}` : ''}`.trim()
  let text = `${e.operation ? `${e.operation}: ` : ''}${e.serverMessage ?? 'request failed'}${where ? ` (${where})` : ''}`
  if (e.lostAnswer !== undefined && status !== undefined && status < 500) {
    text += `\nThis answered a retry: an earlier attempt (${e.lostAnswer}) may have been carried out before its answer was lost.`
  }
  if (details && details.length > 0) {
    const shown = details.slice(0, 20).map((d) => `  - ${d.path || '(body)'}: ${d.message}`)
    if (details.length > shown.length) shown.push(`  … and ${details.length - shown.length} more`)
    text += `\n${shown.join('\n')}`
  }
  return text
}

/** 401, or credentials missing before sending (then `status` is undefined and code `missing_credentials`). */
export class AuthenticationError extends ApiError {
  constructor(init: ApiErrorInit) {
    super(init, 'unauthenticated')
  }
}

/** 403. */
export class PermissionError extends ApiError {
  constructor(init: ApiErrorInit) {
    super(init, 'forbidden')
  }
}

/** 404. */
export class NotFoundError extends ApiError {
  constructor(init: ApiErrorInit) {
    super(init, 'not_found')
  }
}

/**
 * 400, 413, 422, keeping the server's per-field `details`; or invalid input
 * found before sending (`clientSide` true, `status` undefined).
 */
export class ValidationError extends ApiError {
  readonly clientSide: boolean
  constructor(init: ApiErrorInit & {clientSide?: boolean}) {
    super(init, init.status === 413 ? 'payload_too_large' : 'validation_failed')
    this.clientSide = init.clientSide ?? false
  }
}

/** 409: the demand's stage forbids the change. */
export class ConflictError extends ApiError {
  constructor(init: ApiErrorInit) {
    super(init, 'conflict')
  }
}

/** 429, with the server's `Retry-After` in `retryAfterSeconds` when it sent one. */
export class RateLimitError extends ApiError {
  constructor(init: ApiErrorInit) {
    super(init, 'rate_limited')
  }
}

/**
 * 5xx. `mayHaveActed` for a write (a POST that is not a read): a service may fail
 * after doing the work (a proxy's 502 after the order was stored), so the answer
 * does not show that nothing happened, and the message says so.
 */
export class ServerError extends ApiError {
  readonly mayHaveActed: boolean
  constructor(init: ApiErrorInit & {mayHaveActed?: boolean}) {
    const acted = init.mayHaveActed === true
    super(
      acted
        ? {
            ...init,
            serverMessage: `${init.serverMessage ?? 'server error'}; it may have been carried out before the error`,
          }
        : init,
      'server_error',
    )
    this.mayHaveActed = acted
  }
}

/**
 * A request refused before anything was sent because it would carry the API key
 * (and the v2 auth token) over plain http to a host that is not this machine.
 * A usage problem (exit 2): the fix is an https:// base URL, or an explicit opt-in.
 */
export class InsecureTransportError extends ApiError {
  readonly host: string
  constructor(init: ApiErrorInit & {host: string}) {
    super(init, 'insecure_transport')
    this.host = init.host
  }
}

/**
 * No response: connection refused or reset, DNS failure, time-out, abort.
 * `mayHaveBeenSent` tells whether the server may have received (and acted on) the request.
 */
export class NetworkError extends ApiError {
  readonly mayHaveBeenSent: boolean
  constructor(init: ApiErrorInit & {mayHaveBeenSent: boolean}) {
    super(
      {
        ...init,
        serverMessage: `${init.serverMessage ?? 'network error'}; ${
          init.mayHaveBeenSent ? 'the request may have been sent' : 'the request was not sent'
        }`,
      },
      'network_error',
    )
    this.mayHaveBeenSent = init.mayHaveBeenSent
  }
}

/**
 * Process exit code for an error: 3 for authentication, 2 for invalid input
 * found before sending or a request refused as insecure, 1 for any other API
 * or network failure. Errors that carry their own numeric `exitCode` (for
 * example a profile error) keep it.
 */
export function exitCodeFor(err: unknown): number {
  if (err instanceof AuthenticationError) return 3
  if (err instanceof InsecureTransportError) return 2
  if (err instanceof ValidationError) return err.clientSide ? 2 : 1
  if (err instanceof ApiError) return 1
  if (isRecord(err) && typeof err.exitCode === 'number' && Number.isInteger(err.exitCode) && err.exitCode > 0) {
    return err.exitCode
  }
  return 1
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null
}
