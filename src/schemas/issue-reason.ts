import type * as z from 'zod'

import {closest} from '../util/closest.js'
import {describeIssue} from './common.js'

/** A problem with one field of an input; path "" is the whole of it. */
export interface IssueProblem {
  /** Dotted field path inside the row or body; "" for the whole of it. */
  path: string
  reason: string
}

/** A zod error's issues as field problems, each worded by `issueReason`. */
export function issueProblems(error: z.ZodError): IssueProblem[] {
  return userIssues(error).map(issueProblem)
}

/** One issue as a field problem: its dotted path and its reason in `issueReason`'s words. */
export const issueProblem = (issue: z.core.$ZodIssue): IssueProblem => ({
  path: issue.path.map(String).join('.'),
  reason: issueReason(issue),
})

/**
 * A zod error's issues as a user reads them: a union that refused a value of
 * the type one of its alternatives takes (an object where an object or an
 * array of them is allowed) gives that alternative's own issues, each at its
 * whole path, rather than one "invalid input".
 */
export function userIssues(error: z.ZodError): z.core.$ZodIssue[] {
  return error.issues.flatMap(function open(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
    const inside = issue.code === 'invalid_union' ? alternativesOfType(issue) : []
    if (inside.length !== 1) return [issue]
    return inside[0]!.flatMap((sub) => open({...sub, path: [...issue.path, ...sub.path]}))
  })
}

/** A union's alternatives whose refusal is not of the value's type: those that took its type and found a problem inside. */
function alternativesOfType(issue: z.core.$ZodIssueInvalidUnion): z.core.$ZodIssue[][] {
  return issue.errors.filter(
    (issues) => !(issues.length === 1 && issues[0]!.code === 'invalid_type' && issues[0]!.path.length === 0),
  )
}

/**
 * One zod issue as a reason a user can act on: what is allowed and what was
 * given. Every check of the user's input words its problems through this
 * function (the rows of `demand create`, update bodies, and every request body
 * the client checks before sending), so one mistake reads the same wherever it
 * was found. Parse with `{reportInput: true}` so the given value can be shown.
 * The sandbox answers in the service's own wording (`describeIssue`).
 */
export function issueReason(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_value': {
      const input = (issue as {input?: unknown}).input
      return input === undefined
        ? `is required (allowed: ${issue.values.map(String).join(', ')})`
        : notAllowed(input, issue.values)
    }
    case 'too_big':
    case 'too_small':
      return issue.origin === 'string' ? lengthReason(issue) : describeIssue(issue)
    case 'invalid_type': {
      const input = (issue as {input?: unknown}).input
      const expected = EXPECTED[issue.expected] ?? issue.expected
      if (input === undefined) return `is required (${expected})`
      return `expected ${expected}, got ${shown(input)}`
    }
    case 'invalid_union':
      return unionReason(issue) ?? describeIssue(issue)
    default:
      // The other codes read the same on both sides of the wire.
      return describeIssue(issue)
  }
}

/** A text of the wrong length, with the unit: `must be at most 512 characters`. */
function lengthReason(issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall): string {
  const [bound, n] = issue.code === 'too_big' ? ['at most', issue.maximum] : ['at least', issue.minimum]
  // A custom message (`must not be empty`) says it better than a count.
  if (issue.message && !issue.message.startsWith('Too ')) return issue.message
  return `must be ${bound} ${n} character${Number(n) === 1 ? '' : 's'}`
}

/**
 * A value outside its list, with the one probably meant when one is close:
 * `"CNC_MACHINNG" is not allowed (allowed: …); did you mean CNC_MACHINING?`.
 * A field's value (issueReason) and a flag's (cli/flag-hints.ts) read the same.
 */
export function notAllowed(input: unknown, values: readonly unknown[]): string {
  const allowed = values.map(String)
  const meant = typeof input === 'string' ? closest(input, allowed, 1)[0] : undefined
  return `${JSON.stringify(input)} is not allowed (allowed: ${allowed.join(', ')})${meant === undefined ? '' : `; did you mean ${meant}?`}`
}

/**
 * A value that matched none of a union's alternatives (zod's own word is
 * "Invalid input"). When no alternative has the value's type: what types
 * are allowed (`is required (a string or a number)`, `expected a string or a
 * number, got true`). When several of its type refused it (userIssues opens
 * a union with one): the first one's reason, with the field inside it.
 */
function unionReason(issue: z.core.$ZodIssueInvalidUnion): string | undefined {
  if (issue.errors.length === 0) return undefined
  const ofType = alternativesOfType(issue)[0]
  if (ofType === undefined) {
    const types = [...new Set(issue.errors.map((issues) => (issues[0] as z.core.$ZodIssueInvalidType).expected))]
    const expected = types.map((t) => EXPECTED[t] ?? t).join(' or ')
    const input = (issue as {input?: unknown}).input
    return input === undefined ? `is required (${expected})` : `expected ${expected}, got ${shown(input)}`
  }
  const first = ofType[0]
  if (first === undefined) return undefined
  const inside = first.path.map(String).join('.')
  return inside ? `${inside}: ${issueReason(first)}` : issueReason(first)
}

/** What a type is called in a message; a CSV cell and a JSON value given for a number read alike. */
const EXPECTED: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  string: 'a string',
  object: 'an object',
  array: 'an array',
  null: 'null',
}

/** A given value as JSON, cut at 40 characters. */
function shown(value: unknown): string {
  let text: string
  try {
    text = JSON.stringify(value) ?? String(value)
  } catch {
    text = String(value)
  }
  return text.length > 40 ? `${text.slice(0, 40)}…` : text
}
