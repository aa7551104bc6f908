import type * as z from 'zod'

import {describeIssue, type ErrorDetail} from '../schemas/common.js'
import {InputError} from './errors.js'

/** At most this many problems are listed; the rest are counted. */
const MAX_LISTED = 25

export interface RowProblem {
  /** 1-based row number in the input. */
  row: number
  /** Dotted path inside the row. */
  path: string
  reason: string
}

/**
 * Validates every row against a schema and returns the parsed rows, or throws
 * one InputError listing each problem as `row N: field.path: reason (allowed: ...)`.
 * `rowLabel` turns an index into what the user sees (a line number for NDJSON).
 */
export function validateRows<S extends z.ZodType>(
  rows: readonly unknown[],
  schema: S,
  opts: {what?: string; rowLabel?: (index: number) => string} = {},
): z.infer<S>[] {
  const label = opts.rowLabel ?? ((i: number) => `row ${i + 1}`)
  const out: z.infer<S>[] = []
  const problems: {label: string; detail: ErrorDetail; text: string}[] = []
  rows.forEach((row, i) => {
    const result = schema.safeParse(row, {reportInput: true})
    if (result.success) {
      out.push(result.data)
      return
    }
    for (const issue of result.error.issues) {
      const path = issue.path.map(String).join('.')
      const reason = describe(issue)
      problems.push({
        label: label(i),
        detail: {path: [String(i), ...issue.path.map(String)].join('.'), message: reason},
        text: `${label(i)}: ${path || '(row)'}: ${reason}`,
      })
    }
  })
  if (problems.length > 0) {
    const invalidRows = new Set(problems.map((p) => p.label)).size
    const shown = problems.slice(0, MAX_LISTED).map((p) => `  ${p.text}`)
    if (problems.length > MAX_LISTED) shown.push(`  … and ${problems.length - MAX_LISTED} more`)
    const what = opts.what ?? 'row'
    throw new InputError(
      `${invalidRows} of ${rows.length} ${what}${rows.length === 1 ? '' : 's'} invalid; nothing was sent:\n${shown.join('\n')}`,
      problems.map((p) => p.detail),
    )
  }
  return out
}

/** Validates one object (an update body); problems are listed by field path. */
export function validateObject<S extends z.ZodType>(value: unknown, schema: S, what: string): z.infer<S> {
  const result = schema.safeParse(value, {reportInput: true})
  if (result.success) return result.data
  const lines = result.error.issues.map(
    (issue) => `  ${issue.path.map(String).join('.') || '(body)'}: ${describe(issue)}`,
  )
  throw new InputError(
    `invalid ${what}; nothing was sent:\n${lines.join('\n')}`,
    result.error.issues.map((issue) => ({path: issue.path.map(String).join('.'), message: describe(issue)})),
  )
}

/** One zod issue as a reason a user can act on (what is allowed, what was given). */
export function describe(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_value': {
      const got =
        'input' in issue && issue.input !== undefined
          ? `${JSON.stringify(issue.input)} is not allowed`
          : 'invalid value'
      return `${got} (allowed: ${issue.values.map(String).join(', ')})`
    }
    case 'invalid_type': {
      const input = (issue as {input?: unknown}).input
      if (input === undefined) return `is required (${issue.expected})`
      return `expected ${issue.expected}, got ${typeName(input)} ${truncate(JSON.stringify(input))}`
    }
    default:
      // The other codes read the same on both sides of the wire.
      return describeIssue(issue)
  }
}

function typeName(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  return typeof v
}

function truncate(s: string | undefined): string {
  if (s === undefined) return ''
  return s.length > 40 ? `${s.slice(0, 40)}…` : s
}
