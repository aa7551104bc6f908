import * as z from 'zod'

import type {ErrorDetail} from '../schemas/common.js'
import type {IssueProblem} from '../schemas/issue-reason.js'
import {InputError} from './errors.js'
import {catchallMode, type Def, defOf} from '../schemas/schema-def.js'
import {droppedFields, fieldTree} from '../schemas/unknown-fields.js'

/** A problem with one field of an input (a row, a body); path "" is the whole of it. */
export type FieldProblem = IssueProblem

/** A problem and where it is: the row (1-based) and, when known, the line it starts on. */
export interface LocatedProblem extends FieldProblem {
  row?: number
  line?: number
}

/** `row N`, or `row N (line L)` when the row does not start on line N. */
export const rowLabel = (r: {row: number; line?: number}): string =>
  r.line !== undefined && r.line !== r.row ? `row ${r.row} (line ${r.line})` : `row ${r.row}`

/**
 * The one line every input path prints for a problem:
 * `row 3 (line 5): quantity: expected a number, got "abc"`; without a row
 * (an update body) `quantity: ...`, and `(body): ...` for the body as a whole.
 */
export function problemLine(p: LocatedProblem): string {
  const parts: string[] = []
  if (p.row !== undefined) parts.push(rowLabel(p as {row: number; line?: number}))
  if (p.path) parts.push(p.path)
  else if (p.row === undefined) parts.push('(body)')
  parts.push(p.reason)
  return parts.join(': ')
}

/**
 * Validates one object (an update body); problems are listed by field path. A
 * field the schema does not name is refused at any depth, with the field it
 * probably is: dropped without a word, a typo would look like a change made.
 */
export async function validateObject<S extends z.ZodType>(
  value: unknown,
  schema: S,
  what: string,
): Promise<z.infer<S>> {
  const result = schema.safeParse(value, {reportInput: true})
  const tree = fieldTree(schema)
  const dropped = droppedFields(value, tree)
  if (result.success && dropped.length === 0) return result.data
  // Loaded for a refusal only.
  const {droppedProblems, hintedProblems} = await import('../schemas/field-hints.js')
  const problems = [...(result.success ? [] : hintedProblems(result.error, tree)), ...droppedProblems(dropped, tree)]
  throw new InputError(
    `invalid ${what}; nothing was sent:\n${problems.map((p) => `  ${problemLine(p)}`).join('\n')}`,
    problems.map((p): ErrorDetail => ({path: p.path, message: p.reason})),
  )
}

/**
 * A quick verdict on a value: true only where `schema.safeParse(value)` would
 * succeed; false means "ask zod", whose issues then make the messages. Parsing
 * a create row with zod walks all of the schema's ninety fields (and those of
 * its nested objects) for the dozen a row has; this walks the row's own keys.
 */
export type QuickCheck = (value: unknown) => boolean

const compiled = new WeakMap<z.ZodType, QuickCheck>()

/**
 * The quick check of a schema, built once from its public definition (`def`,
 * the object shapes) and calling zod itself for every value check: only the
 * walk is ours. A node it does not know is handed to zod whole.
 */
export function quickCheck(schema: z.ZodType): QuickCheck {
  let check = compiled.get(schema)
  if (check === undefined) {
    const walk = compileNode(schema)
    check = (v) => {
      metUnknown = false
      return walk(v)
    }
    compiled.set(schema, check)
  }
  return check
}

/** Whether the last quick check met a field that an object of its schema drops or keeps without naming it. */
let metUnknown = false

/**
 * True when the last quick check that vouched for a value walked past a field
 * its schema does not name, which zod would drop (a plain object) or keep (a
 * loose one), at any depth; which ones is for unknownFields (unknown-fields.ts)
 * to say. A value vouched for with false here has none, and is not walked a second time.
 */
export const quickCheckMetUnknown = (): boolean => metUnknown

/** The definition fields each walked type may have; a field beyond these (a format, a pattern, a discriminator) means zod decides. */
const KNOWN_FIELDS: Record<string, Set<string>> = {
  string: new Set(['type', 'checks', 'coerce']),
  number: new Set(['type', 'checks', 'coerce']),
  boolean: new Set(['type', 'checks', 'coerce']),
  null: new Set(['type', 'checks']),
  unknown: new Set(['type', 'checks']),
  any: new Set(['type', 'checks']),
  enum: new Set(['type', 'checks', 'entries']),
  literal: new Set(['type', 'checks', 'values']),
  optional: new Set(['type', 'checks', 'innerType']),
  nullable: new Set(['type', 'checks', 'innerType']),
  array: new Set(['type', 'checks', 'element']),
  union: new Set(['type', 'checks', 'options', 'inclusive']),
  record: new Set(['type', 'checks', 'keyType', 'valueType', 'mode']),
  object: new Set(['type', 'checks', 'shape', 'catchall']),
}

/** Verdicts kept per node: a column's values repeat from row to row (quantities, countries, units). */
const REMEMBERED = 512

/**
 * zod's own verdict on a value at this node, vouched for only when its output
 * is the value itself (so nothing above sees a rewritten value): primitives only.
 */
function byZod(node: z.ZodType): QuickCheck {
  const verdicts = new Map<unknown, boolean>()
  return (v) => {
    if (typeof v === 'object' && v !== null) return false
    let ok = verdicts.get(v)
    if (ok === undefined) {
      const r = node.safeParse(v)
      ok = r.success && Object.is(r.data, v)
      if (verdicts.size < REMEMBERED && rememberable(v)) verdicts.set(v, ok)
    }
    return ok
  }
}

/** Short text and numbers but -0 (a Map takes it for 0), so the verdicts kept stay small and exact. */
const rememberable = (v: unknown): boolean => (typeof v === 'string' ? v.length <= 64 : !(v === 0 && Object.is(v, -0)))

function compileNode(node: z.ZodType): QuickCheck {
  const def = defOf(node)
  const known = KNOWN_FIELDS[def.type]
  if (!known || Object.keys(def).some((k) => !known.has(k))) return byZod(node)
  const checks = def.checks ?? []
  if (def.coerce || (checks.length > 0 && isLeaf(def.type))) return byZod(node)
  // Checks on a container (array length, an object's refinement) run through zod, on the value as zod hands it to them.
  const level = checks.length > 0 ? z.any().check(...checks) : undefined
  if (def.type === 'object') return compileObject(def, level) ?? byZod(node)
  const base = compileType(node, def) ?? byZod(node)
  if (!level) return base
  return (v) => base(v) && level.safeParse(v).success
}

const isLeaf = (type: string): boolean => !['optional', 'nullable', 'array', 'union', 'record', 'object'].includes(type)

function compileType(node: z.ZodType, def: Def): QuickCheck | undefined {
  switch (def.type) {
    case 'string':
      return (v) => typeof v === 'string'
    case 'number':
      return (v) => typeof v === 'number' && Number.isFinite(v)
    case 'boolean':
      return (v) => typeof v === 'boolean'
    case 'null':
      return (v) => v === null
    case 'unknown':
    case 'any':
      return () => true
    case 'enum':
    case 'literal': {
      const values = new Set(def.type === 'enum' ? Object.values(def.entries ?? {}) : (def.values ?? []))
      return (v) => values.has(v)
    }
    case 'optional':
    case 'nullable': {
      if (!def.innerType) return undefined
      const inner = compileNode(def.innerType)
      const empty = def.type === 'optional' ? undefined : null
      return (v) => v === empty || inner(v)
    }
    case 'array': {
      if (!def.element) return undefined
      const element = compileNode(def.element)
      return (v) => {
        if (!Array.isArray(v)) return false
        // An index loop, not every(): a hole is an undefined element to zod.
        for (let i = 0; i < v.length; i++) if (!element((v as unknown[])[i])) return false
        return true
      }
    }
    case 'union':
      return compileUnion(def)
    case 'record':
      return compileRecord(def)
    default:
      return byZod(node)
  }
}

function compileUnion(def: Def): QuickCheck | undefined {
  // An exclusive union (exactly one option) is zod's to decide.
  if (def.inclusive === false || !def.options) return undefined
  const options = def.options.map((o) => compileNode(o))
  return (v) => options.some((option) => option(v))
}

function compileRecord(def: Def): QuickCheck | undefined {
  const key = def.keyType && defOf(def.keyType)
  // String keys without checks: every own key of a JSON object is one.
  if (!key || key.type !== 'string' || key.coerce || (key.checks?.length ?? 0) > 0) return undefined
  if (Object.keys(key).some((k) => !KNOWN_FIELDS.string!.has(k))) return undefined
  if (!def.valueType) return undefined
  const value = compileNode(def.valueType)
  return (v) => {
    if (!isJsonObject(v) || Object.hasOwn(v, 'constructor') || Object.getOwnPropertySymbols(v).length > 0) return false
    for (const k of Object.keys(v)) if (k === '__proto__' || !value(v[k])) return false
    return true
  }
}

function isJsonObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false
  const proto = Object.getPrototypeOf(v) as unknown
  return proto === Object.prototype || proto === null
}

/**
 * An object: the value's own keys are walked (a row has a dozen of the
 * schema's ninety); unknown ones are ignored (zod strips or keeps them) or,
 * for a strict object, refused. A key is required when its schema refuses
 * undefined (zod would report it missing) or puts a default in its place.
 * The object's own checks see it as zod hands it to them: without the keys
 * zod strips, the values inside as read (the create schemas' refinements read
 * top-level fields only).
 */
function compileObject(def: Def, level: z.ZodType | undefined): QuickCheck | undefined {
  const shape = def.shape
  if (!shape || Object.getOwnPropertySymbols(shape).length > 0) return undefined
  const fields = new Map<string, Field>()
  for (const [key, node] of Object.entries(shape)) {
    // A key Object.prototype has would be "present" on every input for zod's `in`.
    if (key === '__proto__' || key in Object.prototype) return undefined
    // Absent is fine where zod takes undefined and gives it back; a default put in its place is zod's to add.
    const absent = node.safeParse(undefined)
    fields.set(key, {node, check: undefined, required: !(absent.success && absent.data === undefined)})
  }
  const requiredCount = [...fields.values()].filter((f) => f.required).length
  const mode = catchallMode(def.catchall)
  if (mode === undefined) return undefined
  return (v) => {
    if (!isJsonObject(v)) return false
    let requiredSeen = 0
    let unknown = false
    for (const key in v) {
      if (key === '__proto__') return false
      const field = fields.get(key)
      if (field === undefined) {
        if (mode === 'strict') return false
        unknown = true
        metUnknown = true
        continue
      }
      // Compiled when a value first has the field: a row holds a dozen of the create schemas' ninety.
      if (!(field.check ??= compileNode(field.node))(v[key])) return false
      if (field.required) requiredSeen++
    }
    if (requiredSeen !== requiredCount) return false
    if (!level) return true
    return level.safeParse(unknown && mode === 'strip' ? knownKeys(v, fields) : v).success
  }
}

/** A field of a walked object: its schema, its check once a value has needed it, and whether it must be there. */
interface Field {
  node: z.ZodType
  check: QuickCheck | undefined
  required: boolean
}

function knownKeys(v: Record<string, unknown>, fields: Map<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const key in v) if (fields.has(key)) out[key] = v[key]
  return out
}
