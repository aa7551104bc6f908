import type * as z from 'zod'

import {issuesToDetails} from '../schemas/common.js'
import {excerpt, formatNotes, tolerate, valueAt, type ReadNote} from '../schemas/read/core.js'
import {ApiError, ValidationError} from './errors.js'

/**
 * zod compiles a fast parser for an object schema (with `new Function`) the
 * first time it parses with it; that pays off over many answers, not over the
 * one or two a typical command reads. The first answers of a process are
 * parsed without it, later ones (a long `--all` listing) with it.
 */
const COMPILE_AFTER = 4
let parses = 0

/** The leniencies applied to one answer. */
export interface ReadReport {
  method: string
  path: string
  notes: readonly ReadNote[]
  /** The notes as lines, repeated ones folded (see formatNotes). */
  lines: string[]
}

const sinks = new WeakMap<object, (report: ReadReport) => void>()

/**
 * Makes every answer read for `client` report the leniencies applied to it
 * (`--verbose` prints them). One sink per client; a later call replaces it.
 */
export function onLenientRead(client: object, sink: (report: ReadReport) => void): void {
  sinks.set(client, sink)
}

/**
 * Reads a response body with a read schema (src/schemas/read): the small
 * differences of real services are repaired first and reported to the client's
 * sink (onLenientRead). What still does not fit is an ApiError with code
 * `bad_response` naming the first offending field, what was expected, and a
 * short excerpt (secrets masked) of what arrived there.
 */
export function parseResponse<S extends z.ZodType>(
  schema: S,
  body: unknown,
  method: string,
  path: string,
  status?: number,
  client?: object,
): z.output<S> {
  const notes: ReadNote[] = []
  const input = tolerate(schema, body, notes)
  // reportInput: a wrong value is then worded "must be ..." rather than "is required".
  const result = schema.safeParse(input, {reportInput: true, ...(parses++ < COMPILE_AFTER ? {jitless: true} : {})})
  if (result.success) {
    const sink = client && notes.length > 0 ? sinks.get(client) : undefined
    if (sink) sink({method, path, notes, lines: formatNotes(notes)})
    return result.data
  }
  const details = issuesToDetails(result.error)
  const first = details[0]
  const more = details.length > 1 ? ` (and ${details.length - 1} more)` : ''
  const issuePath = result.error.issues[0]?.path ?? []
  // What arrived around the problem: the object holding the field, or the body.
  const around = issuePath.length > 0 ? valueAt(input, issuePath.slice(0, -1)) : input
  const where = issuePath.length > 1 ? ` at ${issuePath.slice(0, -1).map(String).join('.')}` : ''
  const arrived = body === undefined || body === '' ? 'no body' : excerpt(around)
  throw new ApiError({
    status,
    method,
    path,
    code: 'bad_response',
    serverMessage: `unexpected response from the service: ${first ? `${first.path || '(body)'} ${first.message}` : 'wrong shape'}${more}; received${where}: ${arrived}`,
    details,
  })
}

/**
 * Checks a request body before sending; a mismatch is a client-side
 * ValidationError (exit code 2) listing every problem in the words every
 * input check uses (schemas/issue-reason.ts), with the field an unknown one
 * probably is.
 */
export async function checkRequest<S extends z.ZodType>(
  schema: S,
  body: unknown,
  method: string,
  path: string,
  what: string,
): Promise<void> {
  const result = schema.safeParse(body, {reportInput: true})
  if (result.success) return
  // Loaded for a refusal only: most commands read answers here and send nothing wrong.
  const [{hintedProblems}, {fieldTree}] = await Promise.all([
    import('../schemas/field-hints.js'),
    import('../schemas/unknown-fields.js'),
  ])
  const problems = hintedProblems(result.error, fieldTree(schema))
  throw new ValidationError({
    method,
    path,
    clientSide: true,
    serverMessage: `${what} is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'}); nothing was sent`,
    details: problems.map((p) => ({path: p.path, message: p.reason})),
  })
}

/** One URL path segment, encoded; an empty value is refused before sending. */
export function segment(value: string, name: string, method: string, path: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ValidationError({method, path, clientSide: true, serverMessage: `${name} must not be empty`})
  }
  // An id pasted with the spaces or the line break around it is the id.
  return encodeURIComponent(value.trim())
}
