// Kept apart from errors.ts because it parses with the shared zod schema: the
// error classes are imported by every command, this only by the HTTP client.
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
  isRecord,
  type ApiErrorInit,
} from './errors.js'

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
