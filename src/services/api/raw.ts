import {ApiError} from '../../api/errors.js'
import type {ApiClient, HttpMethod} from '../../api/http.js'
import {paginateV1} from '../../api/paginate.js'
import {InputError} from '../errors.js'

export const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const

export interface RawRequestInput {
  method: HttpMethod
  path: string
  /** `-f key=value` pairs, already typed. */
  fields?: Record<string, unknown>
  /** `--input`: the raw body text. */
  input?: string
  headers?: Record<string, string>
  /** Follow v1 list pages and merge their `data` into one array. */
  paginate?: boolean
  /** Replaces `{businessId}` in the path. */
  businessId?: string
}

export interface RawResponse {
  status: number
  ok: boolean
  headers: Record<string, string | string[] | undefined>
  body: unknown
  /** The mapped error of a non-2xx answer (for the exit code). */
  error?: ApiError
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

/** Keys that would reach an object's prototype rather than the body. */
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

/** A `key=value`, typed or a string as written: `mfg api -F`/`-f`, `mcp call --arg`/`--raw-arg`. */
export interface FieldPair {
  text: string
  raw: boolean
}

/**
 * `-F a=1 -f b.c=x` → {a: 1, b: {c: "x"}}. Dots nest objects. A key given twice,
 * or given both a value and fields (`-F a=2 -F a.b=1`), is refused rather than
 * one silently replacing the other.
 */
export function parseFields(pairs: readonly FieldPair[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const {text: pair, raw} of pairs) {
    const flag = raw ? '-f/--raw-field' : '-F/--field'
    const eq = pair.indexOf('=')
    if (eq <= 0) throw new InputError(`${flag} expects key=value, got ${JSON.stringify(pair)}.`)
    const name = pair.slice(0, eq)
    const keys = name.split('.')
    if (keys.some((k) => k === '' || UNSAFE_KEYS.has(k)))
      throw new InputError(`${flag}: ${JSON.stringify(name)} is not a field name a body can carry.`)
    let target = out
    keys.slice(0, -1).forEach((k, i) => {
      const next = target[k]
      if (next !== undefined && (next === null || typeof next !== 'object'))
        throw new InputError(
          `${flag}: ${keys.slice(0, i + 1).join('.')} is given a value and fields (${name}); give one.`,
        )
      target[k] ??= {}
      target = target[k] as Record<string, unknown>
    })
    const last = keys.at(-1)!
    if (Object.hasOwn(target, last))
      throw new InputError(`${flag}: ${name} is given more than once; give it once (or send the body with --input).`)
    const value = pair.slice(eq + 1)
    target[last] = raw ? value : typedValue(value)
  }
  return out
}

/** `-H 'Name: value'` → {name: value}. */
export function parseHeaders(lines: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    if (colon <= 0) throw new InputError(`-H/--header expects "Name: value", got ${JSON.stringify(line)}.`)
    out[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  return out
}

/**
 * Sends one request as given, with the profile's credentials. A non-2xx
 * answer is returned (ok false) with the service's error body, not thrown,
 * so the caller can print it like any other body.
 */
export async function rawRequest(client: ApiClient, input: RawRequestInput): Promise<RawResponse> {
  let path = input.path.startsWith('/') ? input.path : `/${input.path}`
  if (path.includes('{businessId}')) {
    if (!input.businessId)
      throw new InputError(
        'the path uses {businessId} but no business id is set (profile --business-id or MFG_BUSINESS_ID).',
      )
    path = path.replaceAll('{businessId}', encodeURIComponent(input.businessId))
  }
  const hasBody = input.method !== 'GET' && input.method !== 'DELETE'
  const fields = input.fields ?? {}
  let body: unknown
  if (input.input !== undefined) {
    if (Object.keys(fields).length > 0 && hasBody)
      throw new InputError('use either --input or -f/--field for the body, not both.')
    body = input.input
  } else if (hasBody && Object.keys(fields).length > 0) {
    body = fields
  }
  const query: Record<string, string | number | boolean | undefined> = {}
  if (!hasBody) {
    for (const [k, v] of Object.entries(fields)) {
      query[k] = v === null ? 'null' : typeof v === 'object' ? JSON.stringify(v) : (v as string | number | boolean)
    }
  }
  const headers = {...input.headers}
  if (typeof body === 'string') headers['content-type'] ??= 'application/json'
  try {
    if (input.paginate) {
      if (input.method !== 'GET') throw new InputError('--paginate works with GET on v1 lists only.')
      const items: unknown[] = []
      for await (const item of paginateV1<unknown>(client, path, query, {pageSize: 100})) items.push(item)
      return {status: 200, ok: true, headers: {}, body: items}
    }
    const res = await client.request({
      method: input.method,
      path,
      ...(Object.keys(query).length > 0 ? {query} : {}),
      ...(body === undefined ? {} : {body}),
      ...(Object.keys(headers).length > 0 ? {headers} : {}),
    })
    return {status: res.status, ok: true, headers: res.headers, body: res.body}
  } catch (error) {
    if (error instanceof ApiError && error.status !== undefined) {
      const carried = (error as ApiError & {body?: unknown}).body
      const body = carried ?? {
        statusCode: error.status,
        message: error.serverMessage ?? error.message,
        ...(error.details?.length ? {details: error.details} : {}),
      }
      return {status: error.status, ok: false, headers: {}, body, error}
    }
    throw error
  }
}
