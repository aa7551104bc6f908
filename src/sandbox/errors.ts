import {STATUS_CODES} from 'node:http'

import type {FastifyError, FastifyReply, FastifyRequest} from 'fastify'

import type {ErrorBody, ErrorDetail} from '../schemas/common.js'

/** An error that becomes a contract error answer. Routes throw it; the error handler replies. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message)
    this.name = 'ApiError'
  }
}

export const badRequest = (message: string, details?: ErrorDetail[]) => new ApiError(400, message, details)
export const unauthorized = (message: string) => new ApiError(401, message)
export const forbidden = (message: string) => new ApiError(403, message)
export const notFound = (message: string) => new ApiError(404, message)
export const conflict = (message: string) => new ApiError(409, message)

/** The contract's error body for a status. */
export function errorBody(statusCode: number, message: string, details?: ErrorDetail[]): ErrorBody {
  const body: ErrorBody = {statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message}
  if (details && details.length > 0) body.details = details
  return body
}

/** The one place that writes an error answer. */
export function sendError(
  reply: FastifyReply,
  statusCode: number,
  message: string,
  details?: ErrorDetail[],
  headers?: Record<string, string>,
): FastifyReply {
  if (headers) reply.headers(headers)
  return reply
    .code(statusCode)
    .type('application/json; charset=utf-8')
    .send(errorBody(statusCode, message, details))
}

const MIB = 1024 * 1024

/** Maps fastify's own errors (body parsing, limits) to contract answers; bad input is never a 5xx. */
function describeFastifyError(
  error: FastifyError,
  bodyLimit: number,
): {statusCode: number; message: string} | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {statusCode: 413, message: `The request body is larger than the limit of ${bodyLimit / MIB} MiB.`}
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {statusCode: 415, message: 'Unsupported Content-Type: send the body as application/json.'}
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return {statusCode: 400, message: 'The body is empty but Content-Type is application/json: send a JSON body.'}
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return {statusCode: 400, message: 'The body is not valid JSON (Content-Type is application/json).'}
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return {statusCode: 400, message: 'The Content-Length header does not match the body.'}
    default:
      break
  }
  if (error instanceof SyntaxError || error.name === 'SyntaxError') {
    return {statusCode: 400, message: `The body is not valid JSON: ${error.message}.`}
  }
  const status = error.statusCode
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return {statusCode: status, message: error.message}
  }
  return undefined
}

/** The app's error handler: contract bodies for every error, 500 only for the sandbox's own bugs. */
export function errorHandler(bodyLimit: number) {
  return function handle(error: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    if (error instanceof ApiError)
      return sendError(reply, error.statusCode, error.message, error.details, error.headers)
    const known = describeFastifyError(error, bodyLimit)
    if (known) return sendError(reply, known.statusCode, known.message)
    request.log.error({err: error}, 'sandbox error')
    return sendError(reply, 500, 'The sandbox failed to handle this request; this is a bug in the sandbox.')
  }
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = request.url.split('?')[0] ?? request.url
  return sendError(reply, 404, `No such endpoint: ${request.method} ${path}.`)
}
