// `mfg api -F/-f key=value`: the body (or query) the pairs build, as gh api builds it.
import type {Query} from '../../api/types.js'
import {InputError} from '../errors.js'

/** A `key=value`, typed or a string as written: `mfg api -F`/`-f`, `mcp call --arg`/`--raw-arg`. */
export interface FieldPair {
  text: string
  raw: boolean
}

/**
 * The -F/--field and -f/--raw-field pairs of a parse's tokens, in the order typed
 * (oclif keeps each flag's values apart), so that `items[][...]` fields mixing both
 * fill one object as written.
 */
export function fieldPairs(tokens: readonly {type: string; flag?: string; input: string}[]): FieldPair[] {
  return tokens.flatMap((t) =>
    t.type === 'flag' && (t.flag === 'field' || t.flag === 'raw-field')
      ? [{text: t.input, raw: t.flag === 'raw-field'}]
      : [],
  )
}

/**
 * `1` → 1, `true` → true, `null` → null, anything else stays a string. A number
 * JSON cannot carry as written (a 21-digit tracking number, 1e999) stays the
 * string it was: sent as a number it would arrive changed.
 */
export function typedValue(raw: string): unknown {
  if (raw === 'true') return true
  if (raw === 'false') return false
  if (raw === 'null') return null
  return exactNumber(raw) ?? raw
}

/**
 * The number a JSON number literal writes, when a JavaScript number carries it as
 * written; undefined for anything else (not a number literal, a 21-digit integer, 1e999).
 */
export function exactNumber(raw: string): number | undefined {
  if (!/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(raw)) return undefined
  const n = Number(raw)
  const exact = Number.isFinite(n) && (/[.eE]/.test(raw) ? true : Number.isSafeInteger(n))
  return exact ? n : undefined
}

/**
 * `text` with `{businessId}` replaced by the business id (through `encode`);
 * refused when it holds the placeholder and no business id is set.
 */
export function fillBusinessId(
  text: string,
  businessId: string | undefined,
  where: string,
  encode: (id: string) => string = (id) => id,
): string {
  if (!text.includes('{businessId}')) return text
  if (!businessId)
    throw new InputError(
      `${where} uses {businessId} but no business id is set (profile --business-id or MFG_BUSINESS_ID).`,
    )
  return text.replaceAll('{businessId}', encode(businessId))
}

/** The step of a field name that adds an item to a list (`tags[]`); any other step is an object key. */
const ITEM = '[]'

/** Keys that would reach an object's prototype rather than the body. */
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

type Container = Record<string, unknown> | unknown[]

/** What one pair sets, for its messages: the flag, and the name as written. */
interface Site {
  flag: string
  name: string
}

/**
 * `-F a=1 -f b.c=x -f 'd[e]=y' -f 'tags[]=p' -f 'tags[]=q' -F 'none[]'` →
 * {a: 1, b: {c: "x"}, d: {e: "y"}, tags: ["p", "q"], none: []}, as gh api builds
 * it: dots or brackets nest objects, `key[]=value` adds an item to a list,
 * `key[]` alone is an empty list, and `items[][name]=x` starts an object in a list
 * (the next `items[][...]` fills the same object until a key repeats).
 * `{businessId}` in a -F value becomes the business id, as gh fills its
 * placeholders in -F values; -f values are sent as written. A key given twice,
 * or given a value and fields (`-F a=2 -F a.b=1`), is refused rather than one
 * silently replacing the other.
 */
export function parseFields(
  pairs: readonly FieldPair[],
  opts: {businessId?: string | undefined} = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const {text, raw} of pairs) {
    const flag = raw ? '-f/--raw-field' : '-F/--field'
    const eq = text.indexOf('=')
    const emptyList = eq < 0 && text.endsWith(ITEM)
    if (eq <= 0 && !emptyList)
      throw new InputError(`${flag} expects key=value (or key[] for an empty list), got ${JSON.stringify(text)}.`)
    const name = emptyList ? text.slice(0, -ITEM.length) : text.slice(0, eq)
    const site = {flag, name: emptyList ? text : name}
    const steps = nameSteps(name, site)
    if (emptyList) {
      placeEmptyList(out, steps, site)
      continue
    }
    const value = text.slice(eq + 1)
    const typed = raw
      ? value
      : value.includes('{businessId}')
        ? fillBusinessId(value, opts.businessId, `${flag} ${name}`)
        : typedValue(value)
    place(out, steps, typed, site)
  }
  return out
}

/** `a.b[c][]` → ['a', 'b', 'c', '[]']; refused when it is not such a name. */
function nameSteps(name: string, site: Site): string[] {
  const valid = /^[^.[\]]+(?:\.[^.[\]]+|\[[^.[\]]*\])*$/.test(name)
  const steps = valid ? [...name.matchAll(/^[^.[\]]+|\.([^.[\]]+)|\[([^.[\]]*)\]/g)].map(stepOf) : []
  if (!valid || steps.some((s) => UNSAFE_KEYS.has(s)))
    throw new InputError(
      `${site.flag}: ${JSON.stringify(site.name)} is not a field name a body can carry; nest with a.b or a[b], add list items with a[]=value.`,
    )
  if (steps.some((s, i) => s === ITEM && steps[i + 1] === ITEM))
    throw new InputError(
      `${site.flag}: ${site.name} is a list of lists, which fields cannot write; send it with --input.`,
    )
  return steps
}

function stepOf(match: RegExpMatchArray): string {
  const key = match[1] ?? match[2]
  if (key === undefined) return match[0]
  return key === '' ? ITEM : key
}

/** `a.b[]` as written up to step `end` (exclusive), for messages. */
function shown(steps: readonly string[], end: number): string {
  return steps.slice(0, end).reduce((at, s, i) => (i === 0 ? s : s === ITEM ? `${at}[]` : `${at}.${s}`), '')
}

/** Sets `value` at `steps`, making the objects and lists on the way. */
function place(root: Record<string, unknown>, steps: readonly string[], value: unknown, site: Site): void {
  let at: Container = root
  for (let i = 0; i < steps.length - 1; i++) at = child(at, steps, i, site)
  const last = steps.at(-1)!
  if (Array.isArray(at)) {
    at.push(value)
  } else {
    if (Object.hasOwn(at, last))
      throw new InputError(
        `${site.flag}: ${shown(steps, steps.length)} is given more than once; give it once (or send the body with --input).`,
      )
    at[last] = value
  }
}

/** `key[]` alone: an empty list at `steps`, or the list already there. */
function placeEmptyList(root: Record<string, unknown>, steps: readonly string[], site: Site): void {
  let at: Container = root
  for (let i = 0; i < steps.length; i++) at = child(at, [...steps, ITEM], i, site)
}

/**
 * The container step `i` leads to from `at`, made when missing: a list when the
 * next step is `[]`, else an object. In a list, the next object is the last item
 * while that item does not hold the rest of the name yet.
 */
function child(at: Container, steps: readonly string[], i: number, site: Site): Container {
  const wantList = steps[i + 1] === ITEM
  if (Array.isArray(at)) {
    const lastItem = at.at(-1)
    if (isObject(lastItem) && !holds(lastItem, steps.slice(i + 1))) return lastItem
    const made = {}
    at.push(made)
    return made
  }
  const key = steps[i]!
  const existing = at[key]
  if (existing === undefined) return (at[key] = wantList ? [] : {})
  if (wantList ? Array.isArray(existing) : isObject(existing)) return existing as Container
  const what = Array.isArray(existing) ? 'list items' : isObject(existing) ? 'fields' : 'a value'
  throw new InputError(
    `${site.flag}: ${shown(steps, i + 1)} is given ${what} and ${wantList ? 'list items' : 'fields'} (${site.name}); give one.`,
  )
}

/** Whether `obj` already has a value at the keys `rest` starts with (up to a `[]`). */
function holds(obj: Record<string, unknown>, rest: readonly string[]): boolean {
  let at: unknown = obj
  for (const step of rest) {
    if (step === ITEM) return false
    if (!isObject(at)) return true
    if (!Object.hasOwn(at, step)) return false
    at = at[step]
  }
  return true
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The fields as a query string takes them, as gh api sends them: a list as its
 * key with `[]`, once per item (`tags[]=p&tags[]=q`), an object's fields as
 * `key[field]`, null as `null`. An empty list sends nothing.
 */
export function fieldsQuery(fields: Record<string, unknown>): Query {
  const pairs: [string, string][] = []
  const add = (key: string, value: unknown): void => {
    if (Array.isArray(value)) for (const item of value) add(`${key}[]`, item)
    else if (isObject(value)) for (const [k, v] of Object.entries(value)) add(`${key}[${k}]`, v)
    else pairs.push([key, String(value)])
  }
  for (const [key, value] of Object.entries(fields)) add(key, value)
  const query: Record<string, string[]> = {}
  for (const [key, value] of pairs) (query[key] ??= []).push(value)
  return Object.fromEntries(Object.entries(query).map(([k, v]) => [k, v.length === 1 ? v[0]! : v]))
}
