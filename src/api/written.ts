// The answer to a write (a create or an update) that may come without its record:
// 201, 202 or 204 with no body, or with less than the record. The service said the
// write succeeded, so it is a success; what the command can show is another matter.
import type * as z from 'zod'

import {ApiError} from './errors.js'
import type {ApiResponse} from './types.js'
import {parseResponse} from './parse.js'

export interface Written<T> {
  /** The status the service confirmed the write with. */
  status: number
  /** The record, when the answer carried one the reader could use. */
  record?: T
  /** The answer's body when it was JSON but not the record (`{"message": "created"}`, a partial record). */
  partial?: unknown
  /** Why the answer is not the record, in a few words, for the command's note. */
  why?: string
}

/**
 * Reads a 2xx answer to a write with the record's read schema. No body, or a JSON
 * body that is not the record, is still a success: `record` is then absent and
 * `why` says what came instead. A body that is not JSON at all (an HTML page
 * from a proxy answering in the service's place) proves nothing and stays an error.
 */
export function readWritten<S extends z.ZodType>(
  schema: S,
  res: ApiResponse,
  method: string,
  path: string,
  client: object,
): Written<z.output<S>> {
  if (res.body === undefined || (typeof res.body === 'string' && res.body.trim() === '')) {
    return {status: res.status, why: `the service answered ${res.status} without a body`}
  }
  try {
    return {status: res.status, record: parseResponse(schema, res.body, method, path, res.status, client)}
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'bad_response' || typeof res.body !== 'object') throw error
    const first = error.details?.[0]
    const what = first ? `${first.path || '(body)'} ${first.message}` : 'wrong shape'
    return {status: res.status, partial: res.body, why: `the service's answer is not the record (${what})`}
  }
}

/**
 * Whether the service answered a create from what it kept for the same Idempotency-Key
 * (`Idempotent-Replayed: true`): the records are those an earlier request made, not new.
 * A service that does not send the header is never taken as replaying.
 */
export function isReplayed(res: Pick<ApiResponse, 'headers'>): boolean {
  const value = res.headers['idempotent-replayed']
  return (Array.isArray(value) ? value[0] : value)?.trim().toLowerCase() === 'true'
}

/**
 * The service's clock when it answered (its Date header, to the second), to tell
 * records made before a request from those it made; undefined without a readable one.
 */
export function serverTime(res: Pick<ApiResponse, 'headers'>): number | undefined {
  const value = res.headers.date
  const ms = Date.parse((Array.isArray(value) ? value[0] : value) ?? '')
  return Number.isFinite(ms) ? ms : undefined
}
