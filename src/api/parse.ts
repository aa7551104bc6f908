import type * as z from 'zod'

import {issuesToDetails} from '../schemas/common.js'
import {ApiError, ValidationError} from './errors.js'

/**
 * zod compiles a fast parser for an object schema (with `new Function`) the
 * first time it parses with it; that pays off over many answers, not over the
 * one or two a typical command reads. The first answers of a process are
 * parsed without it, later ones (a long `--all` listing) with it.
 */
const COMPILE_AFTER = 4
let parses = 0

/**
 * Parses a response body with a shared schema. A mismatch is an ApiError with
 * code `bad_response` whose message names the first offending field.
 */
export function parseResponse<S extends z.ZodType>(
  schema: S,
  body: unknown,
  method: string,
  path: string,
  status?: number,
): z.output<S> {
  const result = schema.safeParse(body, parses++ < COMPILE_AFTER ? {jitless: true} : undefined)
  if (result.success) return result.data
  const details = issuesToDetails(result.error)
  const first = details[0]
  const more = details.length > 1 ? ` (and ${details.length - 1} more)` : ''
  throw new ApiError({
    status,
    method,
    path,
    code: 'bad_response',
    serverMessage: `unexpected response from the service: ${first ? `${first.path || '(body)'} ${first.message}` : 'wrong shape'}${more}`,
    details,
  })
}

/** Checks a request body before sending; a mismatch is a client-side ValidationError (exit code 2). */
export function checkRequest<S extends z.ZodType>(
  schema: S,
  body: unknown,
  method: string,
  path: string,
  what: string,
): void {
  const result = schema.safeParse(body)
  if (result.success) return
  const details = issuesToDetails(result.error)
  throw new ValidationError({
    method,
    path,
    clientSide: true,
    serverMessage: `${what} is invalid (${details.length} problem${details.length === 1 ? '' : 's'}); nothing was sent`,
    details,
  })
}

/** One URL path segment, encoded; an empty value is refused before sending. */
export function segment(value: string, name: string, method: string, path: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ValidationError({method, path, clientSide: true, serverMessage: `${name} must not be empty`})
  }
  return encodeURIComponent(value)
}
