import {STATUS_CODES} from 'node:http'

import type {FastifyInstance, FastifyReply, FastifyRequest} from 'fastify'

import {QUIRK_FAULT_RATE, QUIRK_SLOW_MS, groupOf, type QuirkName} from '../schemas/quirks.js'
import {FaultInjector, type FaultKind} from './faults.js'

/**
 * Quirks: the sandbox answering the way real services do when they drift from the
 * interface (the closed set is in src/schemas/quirks.ts; docs/sandbox.md, "Quirks").
 * A layer of hooks around the faithful routes: onSend reshapes what a route answered
 * (records, lists, creates, errors), `slow` delays it, and `rate-limit`/`unavailable`
 * are a FaultInjector (faults.ts) drawing on other requests than `--faults` does.
 * Nothing here changes what is stored; `draft-filter-ignored` alone changes what a
 * route does, by dropping the list's draftId filter before the handler runs. With no
 * quirk on, no hook is added and the sandbox answers exactly as before.
 */

export interface QuirkOptions {
  /** The quirks on, as parseQuirkList answers them (known names, one per group). */
  names: readonly QuirkName[]
  /** Seed of the rate-limit and unavailable draws (default QUIRK_SEED). */
  seed?: number
  /** The pause under `slow` (default QUIRK_SLOW_MS); tests shorten it. */
  slowMs?: number
}

export interface QuirkStats {
  names: QuirkName[]
  /** Answers under /api the quirks applied to (MCP and sandbox-only routes are left alone). */
  answers: number
  /** Answers whose body, status or Content-Type a quirk changed. */
  reshaped: number
  /** Requests refused with 429 (`rate-limit`) and 503 (`unavailable`), before any work. */
  rateLimited: number
  unavailable: number
  /** Answers delayed by `slow`. */
  slowed: number
}

/** The seed of the rate-limit draws (unavailable uses the next one), so that runs repeat. */
export const QUIRK_SEED = 16

type Json = unknown
type JsonObject = Record<string, Json>

const isObject = (v: Json): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v)

// ---------------------------------------------------------------- which answers

/** The MCP endpoint speaks JSON-RPC; its answers are the MCP SDK's, not the service's records. */
const MCP_PREFIX = '/api/v2/ms-integrations/'
/** Sandbox-only routes [ext]: the real service has none, so no real service drifts on them. */
const EXT_ROUTES = new Set([
  '/api/v2/integrations_ms/webhooks/:businessId/:webhookId/deliveries',
  '/api/v2/integrations_ms/webhooks/:businessId/trigger',
])
const DEMAND_CREATES = new Set([
  '/api/public/v1/demand/create-quotes/:businessId',
  '/api/v2/ms-machine-owner/demand/create-demands',
  '/api/v2/ms-machine-owner/demand/products',
])
const OTHER_CREATES = new Set(['/api/v2/ms-post/post/:userId', '/api/v2/integrations_ms/webhooks'])
/** The lists with an envelope: the key of their records and their paging fields. */
const LISTS: Record<string, {key: string; paging: string[]}> = {
  '/api/public/v1/demand/:businessId/:type': {key: 'data', paging: ['page', 'pageSize', 'total', 'totalPages']},
  '/api/v2/ms-post/post/user-posts/:userId': {key: 'posts', paging: ['currentPage', 'pageSize', 'total', 'totalPages']},
  '/api/v2/integrations_ms/webhooks/:businessId': {key: 'data', paging: []},
}
const V1_LIST = '/api/public/v1/demand/:businessId/:type'

const pathOf = (request: FastifyRequest) => request.url.split('?')[0] ?? request.url

/** Whether quirks apply to this request: the service's own routes under /api. */
function inScope(request: FastifyRequest): boolean {
  const path = pathOf(request)
  if (!path.startsWith('/api/') || path.startsWith(MCP_PREFIX)) return false
  return !EXT_ROUTES.has(request.routeOptions.url ?? '')
}

// ---------------------------------------------------------------- records

const MONEY_KEYS = new Set([
  'total',
  'subtotal',
  'taxPaid',
  'taxPercentage',
  'platformFee',
  'feesTotalAmount',
  'startupCost',
  'discount',
  'discountAmount',
  'processorExtraFees',
  'unitPrice',
])
const COUNT_KEYS = new Set(['orderNumber', 'quantity', 'uniqueItems', 'leadTime', 'shippingDuration', 'views', 'likes'])

/** Amounts with two decimals ("12.50"), counts as they are ("41"). */
function numericStrings(value: Json, key = ''): Json {
  if (typeof value === 'number' && Number.isFinite(value)) {
    if (key.startsWith('price') || MONEY_KEYS.has(key))
      return Number.isInteger(value * 100) ? value.toFixed(2) : String(value)
    return COUNT_KEYS.has(key) ? String(value) : value
  }
  if (Array.isArray(value)) return value.map((v) => numericStrings(v, key))
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, numericStrings(v, k)]))
  return value
}

/** Fields a demand record leaves out until they are set, answered as null instead. */
const DEMAND_UNSET = ['draftId', 'dateAccepted', 'producedAt', 'startedShippingAt', 'deliveredAt', 'trackId']

/** "" and [] become null, and so does an object all of whose values are then null (an empty address). */
function nulls(value: Json): Json {
  if (value === '') return null
  if (Array.isArray(value)) return value.length === 0 ? null : value.map(nulls)
  if (!isObject(value)) return value
  const entries = Object.entries(value).map(([k, v]) => [k, nulls(v)] as const)
  return entries.length > 0 && entries.every(([, v]) => v === null) ? null : Object.fromEntries(entries)
}

const ENUM_VALUES: Record<string, Record<string, string>> = {
  paymentStatus: {PENDING_PAYMENT: 'AWAITING_PAYMENT', PAID: 'PAID_IN_FULL'},
  type: {NORMAL: 'STANDARD', normal: 'standard', EXPRESS: 'EXPRESS_48H', express: 'express_48h', PRODUCT: 'LISTING'},
  typeDelivery: {'home delivery': 'home delivery (tracked)', 'pickup directly': 'pickup point'},
}

function unknownEnums(value: Json, key = ''): Json {
  if (typeof value === 'string') return ENUM_VALUES[key]?.[value] ?? value
  if (Array.isArray(value)) {
    const out = value.map((v) => unknownEnums(v))
    return key === 'events' && out.every((v) => typeof v === 'string') ? [...out, 'invoice_paid'] : out
  }
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unknownEnums(v, k)]))
  return value
}

const ISO_UTC = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.(\d{3})Z$/
const DAY_MONTH_YEAR = /^(\d{2})\/(\d{2})\/(\d{4})$/

/** One ISO 8601 form per record (by its id), so a record always reads the same way. */
function isoForm(iso: string, form: number): string {
  const m = ISO_UTC.exec(iso)
  if (!m) return iso
  const [, base, ms] = m
  switch (form % 4) {
    case 0:
      return `${base}+00:00`
    case 1:
      return `${base}.${ms}417Z`
    case 2:
      return `${base}Z`
    default:
      return `${new Date(Date.parse(iso) + 2 * 3_600_000).toISOString().slice(0, 23)}+02:00`
  }
}

function dateForms(value: Json, form: number, key = ''): Json {
  if (typeof value === 'string') {
    if (key === 'fabricatedDate' && /^\d{4}-\d{2}-\d{2}$/.test(value)) return `${value}T00:00:00Z`
    const dmy = DAY_MONTH_YEAR.exec(value)
    if (dmy && (key === 'createdAt' || key === 'updatedAt'))
      return isoForm(`${dmy[3]}-${dmy[2]}-${dmy[1]}T00:00:00.000Z`, form)
    return isoForm(value, form)
  }
  if (Array.isArray(value)) return value.map((v) => dateForms(v, form))
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, dateForms(v, form, k)]))
  return value
}

const formOf = (record: JsonObject) => [...String(record._id ?? '')].reduce((sum, c) => sum + c.charCodeAt(0), 0)

const RECORD_EXTRAS = {__v: 0, tenant: {region: 'eu-west-1', shard: 3}, labels: ['sandbox-quirk']}
const ENVELOPE_EXTRAS = {took: 3, region: 'eu-west-1'}

// ---------------------------------------------------------------- errors

function errorHtml(status: number, message: string): string {
  const reason = STATUS_CODES[status] ?? 'Error'
  const text = message.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`)
  return `<!DOCTYPE html>\n<html>\n<head><title>${status} ${reason}</title></head>\n<body>\n<center><h1>${status} ${reason}</h1></center>\n<p>${text}</p>\n<hr><center>nginx</center>\n</body>\n</html>\n`
}

// ---------------------------------------------------------------- the layer

/** Applies a set of quirks to an app through hooks, and counts what it did. */
export class QuirkLayer {
  private readonly on: Set<QuirkName>
  private readonly slowMs: number
  private readonly rateLimits: FaultInjector | undefined
  private readonly outages: FaultInjector | undefined
  private counts = {answers: 0, reshaped: 0, slowed: 0}

  constructor(opts: QuirkOptions) {
    this.on = new Set(opts.names)
    this.slowMs = opts.slowMs ?? QUIRK_SLOW_MS
    const seed = opts.seed ?? QUIRK_SEED
    const injector = (kind: FaultKind, offset: number, draws: (r: FastifyRequest) => boolean, quirk: QuirkName) =>
      new FaultInjector(
        {rate: QUIRK_FAULT_RATE, seed: seed + offset, kinds: [kind]},
        {draws, cause: `sandbox quirk ${quirk}`},
      )
    this.rateLimits = this.on.has('rate-limit') ? injector('rate_limited', 0, inScope, 'rate-limit') : undefined
    this.outages = this.on.has('unavailable')
      ? injector('unavailable', 1, (r) => r.method === 'GET' && inScope(r), 'unavailable')
      : undefined
  }

  /** The quirk of a group that is on, if any. */
  private chosen(group: 'create' | 'list' | 'error'): QuirkName | undefined {
    return [...this.on].find((name) => groupOf(name) === group)
  }

  stats(): QuirkStats {
    return {
      names: [...this.on],
      ...this.counts,
      rateLimited: this.rateLimits?.stats().injected.rate_limited ?? 0,
      unavailable: this.outages?.stats().injected.unavailable ?? 0,
    }
  }

  /** Adds the hooks to the root app, after the fault injector of `--faults`. */
  register(app: FastifyInstance): void {
    if (this.on.size === 0) return
    this.rateLimits?.register(app)
    this.outages?.register(app)
    if (this.on.has('draft-filter-ignored')) {
      app.addHook('preHandler', async (request) => {
        if (request.method === 'GET' && request.routeOptions.url === V1_LIST && isObject(request.query)) {
          delete request.query.draftId
        }
      })
    }
    app.addHook('onSend', async (request, reply, payload) => {
      if (!inScope(request)) return payload
      this.counts.answers++
      const out = typeof payload === 'string' && isJsonAnswer(reply) ? this.reshape(request, reply, payload) : payload
      if (out !== payload) this.counts.reshaped++
      if (this.on.has('slow')) {
        this.counts.slowed++
        await new Promise((resolve) => setTimeout(resolve, this.slowMs))
      }
      return out
    })
  }

  /** The answer as the quirks have it: a JSON string, or '' for no body (status and headers set on reply). */
  private reshape(request: FastifyRequest, reply: FastifyReply, payload: string): string {
    let body: Json
    try {
      body = JSON.parse(payload)
    } catch {
      return payload
    }
    if (reply.statusCode >= 400) return this.error(request, reply, body) ?? payload
    const route = request.routeOptions.url ?? ''
    let out: Json
    if (request.method === 'POST' && DEMAND_CREATES.has(route) && Array.isArray(body)) {
      out = this.createdDemands(body.map((r) => this.record(r)))
    } else if (request.method === 'POST' && OTHER_CREATES.has(route)) {
      out = this.record(body)
    } else if (request.method === 'GET' && LISTS[route] && isObject(body)) {
      out = this.list(body, LISTS[route])
    } else {
      out = Array.isArray(body) ? body.map((r) => this.record(r)) : this.record(body)
    }
    const create = this.chosen('create')
    const creates = request.method === 'POST' && (DEMAND_CREATES.has(route) || OTHER_CREATES.has(route))
    if (
      creates &&
      reply.statusCode === 201 &&
      create &&
      ['create-empty', 'create-accepted', 'create-no-content'].includes(create)
    ) {
      reply.code(create === 'create-empty' ? 201 : create === 'create-accepted' ? 202 : 204)
      reply.removeHeader('content-type')
      return ''
    }
    const text = JSON.stringify(out)
    return text === JSON.stringify(body) ? payload : text
  }

  /** One record (or any other JSON answer) with the record quirks applied. */
  private record(value: Json): Json {
    if (!isObject(value)) return value
    let r: JsonObject = {...value}
    const demand = typeof r._id === 'string' && 'orderNumber' in r
    if (this.on.has('no-draft-echo') && demand) delete r.draftId
    if (this.on.has('unknown-enums')) r = unknownEnums(r) as JsonObject
    if (this.on.has('date-forms')) r = dateForms(r, formOf(value)) as JsonObject
    if (this.on.has('numeric-strings')) r = numericStrings(r) as JsonObject
    if (this.on.has('nulls')) {
      // A draftId left out by no-draft-echo stays out: null would still be an answer about it.
      const unset = this.on.has('no-draft-echo') ? DEMAND_UNSET.filter((k) => k !== 'draftId') : DEMAND_UNSET
      if (demand) for (const key of unset) if (!(key in r)) r[key] = null
      r = Object.fromEntries(Object.entries(r).map(([k, v]) => [k, nulls(v)]))
    }
    if (this.on.has('unknown-fields')) r = {...r, ...RECORD_EXTRAS}
    return r
  }

  private createdDemands(records: Json[]): Json {
    switch (this.chosen('create')) {
      case 'create-object':
        return records.length === 1 ? records[0] : records
      case 'create-data':
        return {data: records}
      case 'create-ids':
        return records.map((r) => (isObject(r) ? {_id: r._id} : r))
      default:
        return records
    }
  }

  private list(body: JsonObject, spec: {key: string; paging: string[]}): Json {
    const items = Array.isArray(body[spec.key]) ? (body[spec.key] as Json[]).map((r) => this.record(r)) : body[spec.key]
    switch (this.chosen('list')) {
      case 'list-bare':
        return items
      case 'list-data':
        return {data: items}
      case 'list-no-paging':
        return Object.fromEntries(
          Object.entries({...body, [spec.key]: items}).filter(([k]) => !spec.paging.includes(k)),
        )
      default: {
        const envelope: JsonObject = {...body, [spec.key]: items}
        if (this.on.has('numeric-strings')) {
          for (const k of spec.paging) if (typeof envelope[k] === 'number') envelope[k] = String(envelope[k])
        }
        return this.on.has('unknown-fields') ? {...envelope, ...ENVELOPE_EXTRAS} : envelope
      }
    }
  }

  /** The contract's error body in another common shape; undefined keeps it. */
  private error(request: FastifyRequest, reply: FastifyReply, body: Json): string | undefined {
    const quirk = this.chosen('error')
    if (!quirk || !isObject(body)) return undefined
    const status = reply.statusCode
    const reason = STATUS_CODES[status] ?? 'Error'
    const message = typeof body.message === 'string' ? body.message : reason
    const details = Array.isArray(body.details) ? (body.details as {path: string; message: string}[]) : []
    switch (quirk) {
      case 'error-nested': {
        const code = reason.toUpperCase().replace(/[^A-Z0-9]+/g, '_')
        return JSON.stringify({error: {message, code, ...(details.length > 0 ? {details} : {})}})
      }
      case 'error-array':
        return JSON.stringify({errors: [{message}, ...details.map((d) => ({message: d.message, field: d.path}))]})
      case 'error-problem':
        reply.type('application/problem+json; charset=utf-8')
        return JSON.stringify({
          type: 'about:blank',
          title: reason,
          status,
          detail: message,
          instance: pathOf(request),
          ...(details.length > 0
            ? {errors: details.map((d) => ({detail: d.message, pointer: `/${d.path.replace(/\./g, '/')}`}))}
            : {}),
        })
      default:
        reply.type('text/html; charset=utf-8')
        return errorHtml(status, message)
    }
  }
}

function isJsonAnswer(reply: FastifyReply): boolean {
  const type = reply.getHeader('content-type')
  return typeof type === 'string' && type.startsWith('application/json')
}
