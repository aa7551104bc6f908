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

/** What a fast parser answers when it does not vouch for a value: zod then decides. */
export const NOT_VOUCHED: unique symbol = Symbol('not vouched')

/**
 * A parser that answers what `schema.safeParse(value)` would answer for the
 * values it accepts (the same output: unknown keys stripped or kept as zod
 * would), and NOT_VOUCHED for anything else, including every invalid value:
 * the caller then runs zod, whose issues make the error messages. Undefined when
 * the schema uses something the fast path does not cover (a transform, a
 * default, a pipe, a mutating check...), so zod keeps doing all the work.
 */
export type FastParser = (value: unknown) => unknown

const fastParsers = new WeakMap<object, FastParser | null>()
const fastCheckers = new WeakMap<object, FastParser | null>()

/** The fast parser of a schema, compiled once; undefined when the schema is beyond it. */
export function fastParser(schema: z.ZodType): FastParser | undefined {
  return compiled(fastParsers, schema, true)
}

/**
 * The fast parser's verdict without its output: the value itself where the
 * parser would vouch for it, NOT_VOUCHED where it would not. For callers that
 * send what they read (the batch's first pass), so nothing is copied, except
 * the level of a node that has a refinement: the refinement sees that level
 * parsed (unknown keys dropped, as zod gives it) and the values inside as read.
 * The create schemas' refinements read top-level fields only; the tests hold
 * the checker to the parser's verdict on both.
 */
export function fastChecker(schema: z.ZodType): FastParser | undefined {
  return compiled(fastCheckers, schema, false)
}

function compiled(cache: WeakMap<object, FastParser | null>, schema: z.ZodType, build: boolean) {
  let parser = cache.get(schema)
  if (parser === undefined) {
    parser = compileNode(schema as unknown as ZodNode, build) ?? null
    cache.set(schema, parser)
  }
  return parser ?? undefined
}

/** The parts of a zod 4 schema instance the compiler reads. */
interface ZodNode {
  _zod: {
    def: {
      type: string
      checks?: ZodCheckNode[]
      coerce?: boolean
      innerType?: ZodNode
      element?: ZodNode
      options?: ZodNode[]
      shape?: Record<string, ZodNode>
      catchall?: ZodNode
      keyType?: ZodNode
      valueType?: ZodNode
      discriminator?: string
      inclusive?: boolean
    }
    traits: Set<string>
    optin?: string
    optout?: string
    values?: Set<unknown>
  }
}

interface ZodCheckNode {
  _zod: {
    def: {check: string; when?: (payload: CheckPayload) => boolean}
    check: (payload: CheckPayload) => unknown
  }
}

interface CheckPayload {
  value: unknown
  issues: unknown[]
}

/** Checks that only look at the value (none rewrites it); they are run as zod runs them. */
const PURE_CHECKS = new Set([
  'less_than',
  'greater_than',
  'multiple_of',
  'number_format',
  'max_length',
  'min_length',
  'length_equals',
  'string_format',
  'custom',
  'describe',
  'meta',
])

/** Types whose output is the input itself, so a union of them answers the same whichever option matches. */
const SAME_OUTPUT = new Set(['string', 'number', 'boolean', 'enum', 'literal', 'null'])

const NV = NOT_VOUCHED

/** `build` false: the parser answers the input itself instead of a copy (see fastChecker). */
function compileNode(node: ZodNode, build: boolean): FastParser | undefined {
  const def = node._zod.def
  const checks = [
    ...(node._zod.traits.has('$ZodCheck') ? [node as unknown as ZodCheckNode] : []),
    ...(def.checks ?? []),
  ]
  if (checks.some((c) => !PURE_CHECKS.has(c._zod.def.check))) return undefined
  // A check sees the parsed value, so a checked node builds its own level even for fastChecker.
  const base = compileType(node, build || checks.length > 0, build)
  if (!base || checks.length === 0) return base
  return (value) => {
    const out = base(value)
    if (out === NV) return NV
    // As zod's runChecks: each check sees the parsed value; any issue means zod must speak.
    const payload: CheckPayload = {value: out, issues: []}
    for (const check of checks) {
      const when = check._zod.def.when
      if (when && !when(payload)) continue
      const result = check._zod.check(payload)
      if (result instanceof Promise || payload.issues.length > 0) return NV
    }
    return build ? payload.value : value
  }
}

/** `self`: build this level's output; `build`: build the levels inside it. */
function compileType(node: ZodNode, self: boolean, build: boolean): FastParser | undefined {
  const def = node._zod.def
  switch (def.type) {
    case 'string':
      if (def.coerce) return undefined
      return (v) => (typeof v === 'string' ? v : NV)
    case 'number':
      if (def.coerce) return undefined
      return (v) => (typeof v === 'number' && Number.isFinite(v) ? v : NV)
    case 'boolean':
      if (def.coerce) return undefined
      return (v) => (typeof v === 'boolean' ? v : NV)
    case 'null':
      return (v) => (v === null ? v : NV)
    case 'enum':
    case 'literal': {
      const values = node._zod.values
      if (!values) return undefined
      return (v) => (values.has(v) ? v : NV)
    }
    case 'unknown':
    case 'any':
      return (v) => v
    case 'optional': {
      const inner = def.innerType && compileNode(def.innerType, self)
      // A default inside would put a value in place of undefined.
      if (!inner || def.innerType!._zod.optin === 'defaulted') return undefined
      return (v) => (v === undefined ? undefined : inner(v))
    }
    case 'nullable': {
      const inner = def.innerType && compileNode(def.innerType, self)
      if (!inner) return undefined
      return (v) => (v === null ? null : inner(v))
    }
    case 'array': {
      const element = def.element && compileNode(def.element, build)
      if (!element) return undefined
      if (!self) {
        return (v) => {
          if (!Array.isArray(v)) return NV
          for (let i = 0; i < v.length; i++) if (element((v as unknown[])[i]) === NV) return NV
          return v
        }
      }
      return (v) => {
        if (!Array.isArray(v)) return NV
        const out: unknown[] = new Array(v.length)
        for (let i = 0; i < v.length; i++) {
          const r = element((v as unknown[])[i])
          if (r === NV) return NV
          out[i] = r
        }
        return out
      }
    }
    case 'union': {
      if (def.discriminator !== undefined || def.inclusive === false || !def.options) return undefined
      if (!def.options.every((o) => SAME_OUTPUT.has(o._zod.def.type))) return undefined
      const options = def.options.map((o) => compileNode(o, build))
      if (options.some((o) => !o)) return undefined
      const compiled = options as FastParser[]
      return (v) => {
        for (const option of compiled) if (option(v) !== NV) return v
        return NV
      }
    }
    case 'record': {
      const key = def.keyType?._zod.def
      // String keys, unchecked: every own key is one.
      if (!key || key.type !== 'string' || key.coerce || (key.checks?.length ?? 0) > 0) return undefined
      if (def.keyType!._zod.traits.has('$ZodCheck')) return undefined
      const valueParser = def.valueType && compileNode(def.valueType, build)
      if (!valueParser) return undefined
      return (v) => {
        if (!isJsonObject(v) || Object.hasOwn(v, 'constructor')) return NV
        if (Object.getOwnPropertySymbols(v).length > 0) return NV
        const out: Record<string, unknown> | undefined = self ? {} : undefined
        for (const k of Object.keys(v)) {
          if (k === '__proto__') return NV
          const r = valueParser(v[k])
          if (r === NV) return NV
          if (out) out[k] = r
        }
        return out ?? v
      }
    }
    case 'object':
      return compileObject(node, self, build)
    default:
      return undefined
  }
}

function isJsonObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false
  const proto = Object.getPrototypeOf(v) as unknown
  return proto === Object.prototype || proto === null
}

/**
 * An object: the input's own keys are walked (a row has a dozen of the
 * schema's ninety), known ones parsed, unknown ones dropped (strip), kept
 * (loose) or refused (strict); the output lists the keys in the schema's order,
 * then the kept unknown ones, as zod builds it.
 */
function compileObject(node: ZodNode, self: boolean, build: boolean): FastParser | undefined {
  const def = node._zod.def
  const shape = def.shape
  if (!shape || Object.getOwnPropertySymbols(shape).length > 0) return undefined
  const keys = Object.keys(shape)
  const index = new Map<string, number>()
  const parsers: FastParser[] = []
  const required: boolean[] = []
  for (const [i, key] of keys.entries()) {
    // A key Object.prototype has would be "present" on every input for zod's `in`.
    if (key === '__proto__' || key in Object.prototype) return undefined
    const field = shape[key]!
    const {optin, optout} = field._zod
    const optional = optin === 'optional' && optout === 'optional'
    if (!optional && (optin !== undefined || optout !== undefined)) return undefined
    const parser = compileNode(field, build)
    if (!parser) return undefined
    index.set(key, i)
    parsers.push(parser)
    required.push(!optional)
  }
  const requiredCount = required.filter(Boolean).length
  let mode: 'strip' | 'loose' | 'strict' = 'strip'
  if (def.catchall) {
    const t = def.catchall._zod.def.type
    if ((t === 'unknown' || t === 'any') && (def.catchall._zod.def.checks?.length ?? 0) === 0) mode = 'loose'
    else if (t === 'never') mode = 'strict'
    else return undefined
  }
  if (!self) {
    return (v) => {
      if (!isJsonObject(v)) return NV
      let requiredSeen = 0
      for (const key in v) {
        if (key === '__proto__') return NV
        const i = index.get(key)
        if (i === undefined) {
          if (mode === 'strict') return NV
          continue
        }
        if (parsers[i]!(v[key]) === NV) return NV
        if (required[i]) requiredSeen++
      }
      return requiredSeen === requiredCount ? v : NV
    }
  }
  return (v) => {
    if (!isJsonObject(v)) return NV
    // The shape indexes and parsed values of the keys present, in input order.
    const at: number[] = []
    const parsed: unknown[] = []
    let extra: string[] | undefined
    let requiredSeen = 0
    let sorted = true
    for (const key in v) {
      if (key === '__proto__') return NV
      const i = index.get(key)
      if (i === undefined) {
        if (mode === 'strict') return NV
        if (mode === 'loose') (extra ??= []).push(key)
        continue
      }
      const r = parsers[i]!(v[key])
      if (r === NV) return NV
      if (required[i]) requiredSeen++
      if (at.length > 0 && at[at.length - 1]! > i) sorted = false
      at.push(i)
      parsed.push(r)
    }
    if (requiredSeen !== requiredCount) return NV
    // zod lists the keys in the schema's order: an insertion sort of the handful present.
    if (!sorted) {
      for (let j = 1; j < at.length; j++) {
        const i = at[j]!
        const r = parsed[j]
        let k = j - 1
        for (; k >= 0 && at[k]! > i; k--) {
          at[k + 1] = at[k]!
          parsed[k + 1] = parsed[k]
        }
        at[k + 1] = i
        parsed[k + 1] = r
      }
    }
    const out: Record<string, unknown> = {}
    for (let j = 0; j < at.length; j++) out[keys[at[j]!]!] = parsed[j]
    if (extra) for (const key of extra) out[key] = v[key]
    return out
  }
}
