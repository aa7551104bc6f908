import * as z from 'zod'

import {redactJson} from '../secrets.js'

/**
 * The tolerant reader: how the CLI reads what a service answers. Requests are
 * checked with the strict schemas beside this folder; answers are read with the
 * schemas built here, which require only what a command needs and accept the
 * small differences real services show. Before zod checks an answer, `tolerate`
 * walks it along its read schema and brings it into the one form the rest of
 * the code sees, writing down each change it made (a ReadNote) so that
 * `--verbose` can list them:
 *
 * - unknown fields are kept (every object is loose);
 * - `null` where a value may be absent is read as absent (the key is removed),
 *   and a `null` item of a list is left out;
 * - a numeric string where a number is expected is read as a number, a number or
 *   boolean where text is expected as text, "true"/"false" and 1/0 (number or
 *   text, a database flag) as booleans;
 * - a value of an open enum that is not one the interface lists is kept as it is;
 * - an ISO 8601 field keeps the text it was sent in (any form: date only, with an
 *   offset, without Z, fractional seconds); an epoch number there is read as ISO
 *   text. An epoch-milliseconds field reads ISO text (a date-time without an
 *   offset counts as UTC) and numeric strings as milliseconds;
 * - a list is read from a bare array, from `{data: [...]}` and, where the answer
 *   is one object, from that object (a list of one); a list of text from one text;
 * - a page (`{data, page, pageSize, total, totalPages}` and the posts' form) is
 *   read from a bare array too, and its items key holding one record (with an id)
 *   as a page of that one; paging fields that are missing stay absent, ones
 *   that are not whole numbers of at least 0 (1 for pages) are ignored;
 * - an optional field whose value cannot be read as its type is left out.
 * What stays required (a demand's `_id`, an estimate's `data.price`, a file
 * link's `url`) fails the read with the path and what was expected.
 */

/**
 * An id, when an answer gives ids where records were expected: one token, no
 * spaces, quotes or brackets. Anything else (a whole answer left as text, say)
 * is not taken for an id.
 */
const LOOKS_LIKE_ID = /^[\w.:-]{1,200}$/

/** One leniency applied while reading an answer. */
export interface ReadNote {
  /** Where in the answer: `data[3].priceTotal`, `(answer)` for the whole body. */
  path: string
  /** What was done: `null read as absent`, `"41" read as number`. */
  text: string
}

interface Hint {
  /** The values the interface lists; others are kept and noted. */
  enum?: readonly string[]
  /** ISO 8601 text. */
  iso?: boolean
  /** Epoch milliseconds. */
  epoch?: boolean
  /** A whole number from `min` (page numbers, counts). */
  count?: {min: number}
  /** A list: also read from `{data: [...]}` or, for lists of objects, one object. */
  list?: boolean
  /** Items of this list that cannot be read are left out instead of failing the answer. */
  dropUnreadable?: boolean
  /** A page whose items are under `key`; also read from a bare array, from one of `aliases` or without items. */
  page?: {key: string; aliases: readonly string[]}
  /** A record that may arrive as its id alone (a string). */
  fromId?: boolean
  /**
   * Repairs of one object before its fields are read: `set` changes a field (on a
   * copy; the answer is never modified) and notes why, relative to the object.
   */
  fix?: (obj: Readonly<Record<string, unknown>>, set: FieldSetter) => void
}

/** Sets `field` to `value` in the object being read, noting `text` for it. */
export type FieldSetter = (field: string, value: unknown, text: string) => void

const hints = z.registry<Hint>()

type Shape = Record<string, z.ZodType>

/** Text. */
export const text = () => z.string()
/** A number (a numeric string is read as one). */
export const num = () => z.number()
/** A boolean ("true"/"false" and 1/0 read as one). */
export const bool = () => z.boolean()
/** Text that the interface says is one of `values`; any other value is kept as it is. */
export const openEnum = (values: readonly string[]) => z.string().register(hints, {enum: values})
/** ISO 8601 text, kept as sent; an epoch number is read as ISO text. */
export const isoDate = () => z.string().register(hints, {iso: true})
/** Epoch milliseconds; ISO text and numeric strings are read as milliseconds. */
export const epochMs = () => z.number().register(hints, {epoch: true})
/** A whole number of at least `min` (paging fields). */
export const count = (min = 0) => z.number().register(hints, {count: {min}})

/** An object that keeps unknown fields. */
export function record<S extends Shape>(shape: S, extra: Pick<Hint, 'fix' | 'fromId'> = {}) {
  const schema = z.looseObject(shape)
  if (extra.fix || extra.fromId) schema.register(hints, extra)
  return schema
}

/**
 * An object read for the few fields a caller uses itself and never shows (the
 * answers a batch reads by the hundred): read as `record` reads it, but the
 * fields the shape does not name are left out, so zod neither walks nor copies
 * them (a create answer's records have dozens).
 */
export function summary<S extends Shape>(shape: S, extra: Pick<Hint, 'fix' | 'fromId'> = {}) {
  const schema = z.object(shape)
  if (extra.fix || extra.fromId) schema.register(hints, extra)
  return schema
}

/** A list of `item`, also read from `{data: [...]}` and (for object items) from one object. */
export function list<T extends z.ZodType>(item: T, opts: {dropUnreadable?: boolean} = {}) {
  return z.array(item).register(hints, {list: true, ...(opts.dropUnreadable ? {dropUnreadable: true} : {})})
}

/** A page of items under `key`, with optional paging fields; also read from a bare array. */
export function page<K extends string, T extends z.ZodType, P extends Shape>(
  key: K,
  item: T,
  paging: P,
  opts: {aliases?: readonly string[]; fix?: Hint['fix']} = {},
) {
  const schema = z.looseObject({[key]: z.array(item), ...paging} as {[k in K]: z.ZodArray<T>} & P)
  const aliases = (opts.aliases ?? ['data', 'items', 'results']).filter((a) => a !== key)
  schema.register(hints, {page: {key, aliases}, ...(opts.fix ? {fix: opts.fix} : {})})
  return schema
}

const DROP = Symbol('drop')

type Kind = 'object' | 'array' | 'number' | 'string' | 'boolean' | 'union' | 'other'

/**
 * What the walk needs to know of one schema, worked out once per schema (the
 * walk runs over every field of every record of a long listing, so it must not
 * ask zod's classes or the registry again each time).
 */
interface Plan {
  kind: Kind
  /** The schema with its optional and default wrappers taken off. */
  schema: z.ZodType
  optional: boolean
  /** The default wrapper, whose value is noted when the field is absent. */
  fallback?: z.ZodType
  hint?: Hint
  enumValues?: ReadonlySet<string>
  fields?: {key: string; plan: Plan}[]
  element?: Plan
  /**
   * For a text, number or boolean field: whether a value is read as it is, with
   * nothing to repair or note. Most fields of most answers are, and the walk then
   * passes them by without stepping in (the walk's cost is per field: a listing
   * of 100,000 demands has millions).
   */
  asIs?: (value: unknown) => boolean
}

const plans = new WeakMap<z.ZodType, Plan>()

function planOf(wrapped: z.ZodType): Plan {
  const cached = plans.get(wrapped)
  if (cached) return cached
  let schema = wrapped
  let optional = false
  let fallback: z.ZodType | undefined
  for (;;) {
    if (schema instanceof z.ZodOptional) {
      optional = true
      schema = schema.unwrap() as z.ZodType
    } else if (schema instanceof z.ZodDefault) {
      optional = true
      fallback = schema
      schema = schema.unwrap() as z.ZodType
    } else break
  }
  const kind: Kind =
    schema instanceof z.ZodObject
      ? 'object'
      : schema instanceof z.ZodArray
        ? 'array'
        : schema instanceof z.ZodNumber
          ? 'number'
          : schema instanceof z.ZodString
            ? 'string'
            : schema instanceof z.ZodBoolean
              ? 'boolean'
              : schema instanceof z.ZodUnion
                ? 'union'
                : 'other'
  const hint = hints.get(schema)
  const plan: Plan = {kind, schema, optional}
  if (fallback) plan.fallback = fallback
  if (hint) plan.hint = hint
  if (hint?.enum) plan.enumValues = new Set(hint.enum)
  const asIs = asIsTest(plan)
  if (asIs) plan.asIs = asIs
  // Cached before its parts, so a schema that contains itself ends.
  plans.set(wrapped, plan)
  if (schema instanceof z.ZodObject) {
    plan.fields = Object.entries(schema.shape as Shape).map(([key, field]) => ({key, plan: planOf(field)}))
  } else if (schema instanceof z.ZodArray) {
    plan.element = planOf(schema.element as z.ZodType)
  }
  return plan
}

/**
 * The values `walk` returns unchanged and without a note, for a leaf plan
 * (mirrors the first case of each kind in `walk`); undefined for other plans.
 */
function asIsTest(plan: Plan): ((value: unknown) => boolean) | undefined {
  const {hint, enumValues} = plan
  switch (plan.kind) {
    case 'string':
      return enumValues ? (v) => typeof v === 'string' && enumValues.has(v) : (v) => typeof v === 'string'
    case 'number': {
      const min = hint?.count?.min
      if (min !== undefined) return (v) => typeof v === 'number' && Number.isInteger(v) && v >= min
      return (v) => typeof v === 'number' && Number.isFinite(v)
    }
    case 'boolean':
      return (v) => typeof v === 'boolean'
    default:
      return undefined
  }
}

/** Where the walk is, and the notes so far. */
interface Walk {
  path: (string | number)[]
  notes: ReadNote[]
}

function note(w: Walk, text: string): void {
  w.notes.push({path: pathText(w.path), text})
}

function noteAt(w: Walk, key: string | number, text: string): void {
  w.path.push(key)
  note(w, text)
  w.path.pop()
}

/**
 * Brings `value` into the form `schema` reads, noting every change. Returns the
 * repaired value (objects and arrays are copied where something changed; the
 * input is never modified). What cannot be repaired is left for zod to report.
 */
export function tolerate(schema: z.ZodType, value: unknown, notes: ReadNote[]): unknown {
  const out = walk(planOf(schema), value, {path: [], notes}, false)
  return out === DROP ? undefined : out
}

function walk(plan: Plan, value: unknown, w: Walk, forceOptional: boolean): unknown {
  const optional = forceOptional || plan.optional
  if (value === undefined) {
    if (plan.fallback) note(w, `absent, read as ${JSON.stringify(plan.fallback.parse(undefined))}`)
    // An answer with no body at all (a 204) where a list or a page was asked for: nothing listed.
    if (w.path.length === 0 && (plan.hint?.page || plan.hint?.list)) {
      note(w, 'no body, read as an empty list')
      return plan.hint.page ? {[plan.hint.page.key]: []} : []
    }
    return value
  }
  if (value === null) {
    if (!optional) return value
    note(w, 'null read as absent')
    return DROP
  }
  const hint = plan.hint
  switch (plan.kind) {
    case 'string': {
      if (typeof value === 'string') {
        if (plan.enumValues && !plan.enumValues.has(value)) {
          note(w, `${show(value)} is not a value the interface lists, kept as it is`)
        }
        return value
      }
      if (typeof value === 'number' && hint?.iso) {
        const iso = isoFromEpoch(value)
        note(w, `${show(value)} read as ${iso}`)
        return iso
      }
      if (typeof value === 'number' || typeof value === 'boolean') {
        const text = String(value)
        note(w, `${show(value)} read as text`)
        if (plan.enumValues && !plan.enumValues.has(text)) {
          note(w, `${show(text)} is not a value the interface lists, kept as it is`)
        }
        return text
      }
      return unreadable(w, value, optional, 'text')
    }
    case 'number': {
      if (hint?.epoch) return readEpoch(value, w, optional)
      let n = value
      if (typeof n === 'string' && NUMERIC.test(n)) {
        n = Number(n)
        note(w, `${show(value)} read as number`)
      }
      if (typeof n !== 'number' || !Number.isFinite(n)) return unreadable(w, value, optional, 'a number')
      if (hint?.count && (!Number.isInteger(n) || n < hint.count.min)) {
        note(w, `${show(value)} is not a ${hint.count.min === 1 ? 'page number' : 'count'}, ignored`)
        return DROP
      }
      return n
    }
    case 'boolean': {
      if (typeof value === 'boolean') return value
      const text = typeof value === 'string' || typeof value === 'number' ? String(value).trim().toLowerCase() : ''
      const flag = text === 'true' || text === '1' ? true : text === 'false' || text === '0' ? false : undefined
      if (flag !== undefined) {
        note(w, `${show(value)} read as ${flag}`)
        return flag
      }
      return unreadable(w, value, optional, 'true or false')
    }
    case 'object': {
      if (hint?.page) return readPage(plan, hint.page, value, w, optional)
      if (isPlainObject(value)) return walkObject(plan, value, w)
      if (typeof value === 'string' && hint?.fromId && LOOKS_LIKE_ID.test(value)) {
        note(w, `the id ${show(value)} read as a record with that _id`)
        return walkObject(plan, {_id: value}, w)
      }
      return unreadable(w, value, optional, 'an object')
    }
    case 'array': {
      const items = Array.isArray(value)
        ? value
        : hint?.list
          ? typeof value === 'string'
            ? textListFrom(plan, value, w)
            : listFrom(plan, value, w)
          : value
      if (!Array.isArray(items)) return unreadable(w, value, optional, 'a list')
      return walkArray(plan, items, w)
    }
    case 'union':
      return plan.schema.safeParse(value).success ? value : unreadable(w, value, optional, 'one of the accepted forms')
    default:
      return value
  }
}

/** An optional value that cannot be read is left out (and noted); a required one is left for zod to report. */
function unreadable(w: Walk, value: unknown, optional: boolean, expected: string): unknown {
  if (!optional) return value
  note(w, `${show(value)} is not ${expected}, left out`)
  return DROP
}

function walkObject(plan: Plan, value: Record<string, unknown>, w: Walk): Record<string, unknown> {
  let out: Record<string, unknown> | undefined
  plan.hint?.fix?.(value, (field, next, text) => {
    out ??= {...value}
    out[field] = next
    noteAt(w, field, text)
  })
  for (const {key, plan: field} of plan.fields ?? []) {
    const current = (out ?? value)[key]
    if (field.asIs?.(current)) continue
    if (current === undefined) {
      if (field.fallback) noteAt(w, key, `absent, read as ${JSON.stringify(field.fallback.parse(undefined))}`)
      continue
    }
    w.path.push(key)
    const next = walk(field, current, w, false)
    w.path.pop()
    if (next === current) continue
    out ??= {...value}
    if (next === DROP) delete out[key]
    else out[key] = next
  }
  return out ?? value
}

function walkArray(plan: Plan, items: unknown[], w: Walk): unknown[] {
  const element = plan.element!
  const dropUnreadable = plan.hint?.dropUnreadable === true
  let out: unknown[] | undefined
  for (let i = 0; i < items.length; i++) {
    const item = items[i]
    w.path.push(i)
    let next: unknown
    if (item === null) {
      note(w, 'null item left out')
      next = DROP
    } else {
      next = walk(element, item, w, dropUnreadable)
      if (next !== DROP && dropUnreadable && !readable(element, next)) {
        note(w, `${show(item)} cannot be read, left out`)
        next = DROP
      }
    }
    w.path.pop()
    if (next === item && !out) continue
    out ??= items.slice(0, i)
    if (next !== DROP) out.push(next)
  }
  return out ?? items
}

/** Whether a walked value has what its schema requires (the walk has done every repair it could). */
function readable(plan: Plan, value: unknown): boolean {
  if (value === undefined) return plan.optional
  switch (plan.kind) {
    case 'object':
      return (
        isPlainObject(value) &&
        (plan.fields ?? []).every(({key, plan: field}) => field.optional || readable(field, value[key]))
      )
    case 'array':
      return Array.isArray(value)
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
    case 'string':
      return typeof value === 'string'
    case 'boolean':
      return typeof value === 'boolean'
    case 'union':
      return plan.schema.safeParse(value).success
    default:
      return true
  }
}

function readPage(
  plan: Plan,
  pageHint: NonNullable<Hint['page']>,
  value: unknown,
  w: Walk,
  optional: boolean,
): unknown {
  const {key, aliases} = pageHint
  let obj: Record<string, unknown>
  if (Array.isArray(value)) {
    note(w, `a bare list read as a page (${key}) without paging fields`)
    obj = {[key]: value}
  } else if (isPlainObject(value)) {
    obj = value
    const one = obj[key]
    if (!Array.isArray(one)) {
      const alias = aliases.find((a) => Array.isArray(obj[a]))
      if (alias !== undefined) {
        noteAt(w, key, `read from ${alias}`)
        const {[alias]: items, ...rest} = obj
        obj = {...rest, [key]: items}
      } else if (isPlainObject(one) && looksLikeRecord(one)) {
        noteAt(w, key, 'one record read as a list of one')
        obj = {...obj, [key]: [one]}
      } else if (obj[key] === undefined && looksLikeRecord(obj)) {
        note(w, `one record read as a page of one (${key})`)
        obj = {[key]: [obj]}
      } else if (obj[key] === null || obj[key] === undefined) {
        noteAt(w, key, `${obj[key] === null ? 'null' : 'absent'}, read as an empty list`)
        obj = {...obj, [key]: []}
      }
    }
  } else {
    return unreadable(w, value, optional, 'a list')
  }
  return walkObject(plan, obj, w)
}

/** Whether an object is a record (it has an id), not an envelope or an error. */
function looksLikeRecord(obj: Record<string, unknown>): boolean {
  return typeof obj._id === 'string' || typeof obj.id === 'string'
}

/** Lists also arrive as `{data: [...]}`, or as one object when a single item is answered. */
function listFrom(plan: Plan, value: unknown, w: Walk): unknown {
  if (!isPlainObject(value)) return value
  for (const key of ['data', 'items', 'results']) {
    if (Array.isArray(value[key])) {
      note(w, `the list read from ${key}`)
      return value[key]
    }
  }
  if ('data' in value && (value.data === null || value.data === undefined)) {
    note(w, `data ${value.data === null ? 'null' : 'absent'}, read as an empty list`)
    return []
  }
  if (plan.element?.kind === 'object') {
    note(w, 'one object read as a list of one')
    return [value]
  }
  return value
}

/** A list of text that arrives as one text (`"events": "order_placed"`): a list of that one. */
function textListFrom(plan: Plan, value: unknown, w: Walk): unknown {
  if (plan.element?.kind !== 'string' || typeof value !== 'string' || value.trim() === '') return value
  note(w, `${show(value)} read as a list of one`)
  return [value]
}

function readEpoch(value: unknown, w: Walk, optional: boolean): unknown {
  if (typeof value === 'number' && Number.isFinite(value)) return value
  if (typeof value === 'string') {
    if (NUMERIC.test(value)) {
      note(w, `${show(value)} read as number`)
      return Number(value)
    }
    const ms = parseIsoMs(value)
    if (ms !== undefined) {
      note(w, `${show(value)} read as epoch ms ${ms}`)
      return ms
    }
  }
  return unreadable(w, value, optional, 'an epoch time in milliseconds or an ISO 8601 time')
}

const NUMERIC = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i

/**
 * Epoch milliseconds of an ISO 8601 date or date-time: date only (midnight UTC),
 * minutes or seconds, any number of fractional digits, `Z`, `±HH`, `±HHMM`,
 * `±HH:MM`, or no offset (read as UTC). Undefined when it is not such a time.
 */
export function parseIsoMs(text: string): number | undefined {
  const m = ISO.exec(text.trim())
  if (!m) return undefined
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m
  const ms = Number(frac.padEnd(3, '0').slice(0, 3))
  const utc = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms)
  const check = new Date(utc)
  if (Number.isNaN(utc) || check.getUTCDate() !== Number(d) || check.getUTCMonth() !== Number(mo) - 1) return undefined
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 60) return undefined
  let offsetMin = 0
  if (zone && zone.toUpperCase() !== 'Z') {
    const digits = zone.slice(1).replace(':', '')
    offsetMin = (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0')) * (zone.startsWith('-') ? -1 : 1)
  }
  return utc - offsetMin * 60_000
}

/** An epoch number as ISO text: milliseconds from 1e11 on, seconds below (a 1973 date in ms is unlikely). */
function isoFromEpoch(n: number): string {
  const ms = Math.abs(n) >= 1e11 ? n : n * 1000
  const d = new Date(ms)
  return Number.isNaN(d.getTime()) ? String(n) : d.toISOString()
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** `data[3].priceTotal`; `(answer)` for the whole body. */
function pathText(path: readonly (string | number)[]): string {
  let out = ''
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`
    else if (/^[A-Za-z_$][\w$]*$/.test(key)) out += out ? `.${key}` : key
    else out += `[${JSON.stringify(key)}]`
  }
  return out || '(answer)'
}

/** A value as it arrived, short, for notes. */
function show(value: unknown): string {
  return excerpt(value, 40)
}

/**
 * At most `max` characters of a value as JSON, for messages: secrets masked
 * (`secret`, token and key fields, API keys and link signatures anywhere).
 */
export function excerpt(value: unknown, max = 120): string {
  if (value === undefined) return 'nothing'
  const masked = redactJson(shortened(value))
  let out: string
  try {
    out = JSON.stringify(masked) ?? String(masked)
  } catch {
    out = String(masked)
  }
  out = out.replace(/\s+/g, ' ')
  return out.length > max ? `${out.slice(0, max - 1)}…` : out
}

/** A value with lists cut to their first 10 items and nothing below 20 levels walked, for an excerpt. */
function shortened(value: unknown, depth = 0): unknown {
  if (depth > 20 || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.slice(0, 10).map((v) => shortened(v, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value)) out[key] = shortened(v, depth + 1)
  return out
}

/** The value at a zod issue path, for showing what arrived around a problem. */
export function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let cur = value
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined
    cur = (cur as Record<PropertyKey, unknown>)[key]
  }
  return cur
}

/**
 * Notes as lines for `--verbose`: each note once, and notes that differ only in
 * a list index folded into one line with a count (`data[*].priceTotal: null
 * read as absent (×40: data[0], data[3], …)`).
 */
export function formatNotes(notes: readonly ReadNote[]): string[] {
  const groups = new Map<string, ReadNote[]>()
  for (const n of notes) {
    const key = `${n.path.replace(/\[\d+\]/g, '[*]')}\u0000${n.text.replace(/\d+/g, '#')}`
    const group = groups.get(key)
    if (group) group.push(n)
    else groups.set(key, [n])
  }
  const lines: string[] = []
  for (const group of groups.values()) {
    const first = group[0]!
    if (group.length === 1) {
      lines.push(`${first.path}: ${first.text}`)
      continue
    }
    const where = group.slice(0, 3).map((n) => n.path)
    const alike = group.every((n) => n.text === first.text) ? '' : ', and alike'
    lines.push(
      `${first.path.replace(/\[\d+\]/g, '[*]')}: ${first.text}${alike} (×${group.length}: ${where.join(', ')}${group.length > 3 ? ', …' : ''})`,
    )
  }
  return lines
}
