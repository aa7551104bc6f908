import * as z from 'zod'

import {closest} from '../util/closest.js'
import {UsageError} from './errors.js'

/**
 * Which dotted paths a command's records have (`shippingAddress.city`,
 * `quoteModel.0.fileName`), for checking the paths a user names in `--columns`,
 * `--json FIELDS` and `--sort`. The paths are read from the command's read schema
 * (src/schemas/read), or from a plain list of names for output the CLI builds
 * itself. Loaded (with zod) only when such a flag is given; select.ts does the rest.
 */

/** What a command's records hold: a read schema, or the top-level names of a record the CLI builds. */
export type FieldSource = z.ZodType | readonly string[]

function asSchema(source: FieldSource): z.ZodType {
  if (source instanceof z.ZodType) return source
  return z.looseObject(Object.fromEntries(source.map((name) => [name, z.unknown()])))
}

/** The schema under wrappers that do not change a value's shape (optional, nullable, default). */
function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema
  for (;;) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.unwrap() as z.ZodType
    else if (s instanceof z.ZodDefault) s = s.unwrap() as z.ZodType
    else return s
  }
}

/** The schemas a value at `schema` may have one step further along `segment`, or the reason there is none. */
function step(schema: z.ZodType, segment: string): z.ZodType[] | string {
  const s = unwrap(schema)
  if (s instanceof z.ZodUnion) {
    const found = (s.options as z.ZodType[]).flatMap((o) => {
      const next = step(o, segment)
      return typeof next === 'string' ? [] : next
    })
    return found.length > 0 ? found : 'has no such field'
  }
  if (s instanceof z.ZodObject) {
    const shape = s.shape as Record<string, z.ZodType>
    if (Object.keys(shape).length === 0) return [z.unknown()]
    const next = Object.hasOwn(shape, segment) ? shape[segment] : undefined
    return next ? [next] : 'has no such field'
  }
  if (s instanceof z.ZodArray) {
    return /^\d+$/.test(segment) ? [s.element as z.ZodType] : 'is a list: name an item by its index (0, 1, …)'
  }
  if (s instanceof z.ZodUnknown || s instanceof z.ZodAny) return [s]
  return 'is a single value with no fields'
}

/**
 * Why `path` is not a field of `source`, or undefined when it is. Each segment
 * must be a field the schema names; a list takes an item's index (any whole
 * number: how many items a record has is only known when it is read).
 */
export function pathProblem(source: FieldSource, path: string): string | undefined {
  let at: z.ZodType[] = [asSchema(source)]
  const segments = path.split('.')
  for (const [i, segment] of segments.entries()) {
    const next: z.ZodType[] = []
    let reason = ''
    for (const s of at) {
      const r = step(s, segment)
      if (typeof r === 'string') reason = r
      else next.push(...r)
    }
    if (next.length === 0) {
      const where = segments.slice(0, i).join('.')
      return where === ''
        ? `"${segment}" is not a field`
        : `${where} ${reason === 'has no such field' ? `has no field "${segment}"` : reason}`
    }
    at = next
  }
  return undefined
}

/** The field paths below `schema` (lists as `name.N`), for messages; objects without named fields end a path. */
export function fieldPaths(source: FieldSource, depth = 3): string[] {
  const out: string[] = []
  const walk = (schema: z.ZodType, prefix: string, left: number): void => {
    const s = unwrap(schema)
    if (s instanceof z.ZodUnion) {
      for (const o of s.options as z.ZodType[]) walk(o, prefix, left)
    } else if (s instanceof z.ZodObject && Object.keys(s.shape).length > 0 && left > 0) {
      for (const [k, v] of Object.entries(s.shape as Record<string, z.ZodType>))
        walk(v, prefix ? `${prefix}.${k}` : k, left - 1)
    } else if (s instanceof z.ZodArray && left > 0 && unwrap(s.element as z.ZodType) instanceof z.ZodObject) {
      walk(s.element as z.ZodType, `${prefix}.N`, left)
    } else if (prefix) out.push(prefix)
  }
  walk(asSchema(source), '', depth)
  return [...new Set(out)]
}

/** The top-level names of a source's records. */
export function topFields(source: FieldSource): string[] {
  const s = unwrap(asSchema(source))
  if (s instanceof z.ZodUnion) return [...new Set((s.options as z.ZodType[]).flatMap((o) => topFields(o)))]
  return s instanceof z.ZodObject ? Object.keys(s.shape) : []
}

/**
 * Checks each path a flag names; a usage error (exit 2) names the first unknown
 * one, why, the valid name it probably is, and the valid names (the sub-fields
 * when the path went wrong below a known field).
 */
export function checkPaths(source: FieldSource, paths: readonly string[], flag: string): void {
  for (const path of paths) {
    const problem = pathProblem(source, path)
    if (problem === undefined) continue
    const top = path.split('.')[0] ?? path
    const below = fieldPaths(source).filter((p) => p.startsWith(`${top}.`))
    const valid = below.length > 0 && topFields(source).includes(top) ? below : topFields(source)
    const [meant] = closest(path, valid, 1)
    const hint = meant === undefined ? '' : ` Did you mean ${JSON.stringify(meant)}?`
    throw new UsageError(
      `${flag}: unknown field ${JSON.stringify(path)} (${problem}).${hint} Valid fields: ${valid.join(', ')}. Nested fields by dotted path (a.b), list items by index (a.0.b).`,
    )
  }
}
