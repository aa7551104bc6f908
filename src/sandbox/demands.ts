import type * as z from 'zod'

import {issuesToDetails, normalizeCurrency, type ErrorDetail} from '../schemas/common.js'
import {
  CreateDemandBody,
  FROZEN_FROM_PRODUCTION,
  MAX_BATCH,
  PRODUCTION_STAGES,
  STAGE_EPOCH_FIELD,
  STAGE_INFO,
  STAGE_MOVES,
  STAGES,
  UpdateDemandBody,
  type CreateDemandItem,
  type Stage,
} from '../schemas/demand.js'
import {badRequest, conflict, forbidden, notFound} from './errors.js'
import {emitCreated, emitUpdated} from './events.js'
import {newId} from './ids.js'
import {
  deriveDemand,
  differs,
  factsOf,
  inputOf,
  isPlainObject,
  mergeInput,
  normalizeQuoteModel,
  type DemandFacts,
  type DemandInput,
} from './records.js'
import type {Business} from './store/businesses.js'
import type {DemandDoc, DemandListFilter} from './store/demands.js'
import type {Store} from './store/index.js'

/** Demand use cases of the sandbox: validation beyond the wire schemas, stage rules, persistence. */

export interface DemandContext {
  store: Store
  business: Business
  now: number
  /** Id generator; the seed passes a deterministic one. */
  newId?: () => string
  /** draftId replay on create (default true); off, a repeated draftId creates another demand. */
  replay?: boolean
}

/** Zod keeps the offending input on issues, so details say "must be a string" rather than "is required". */
export const REPORT_INPUT = {reportInput: true} as const

const isStage = (value: unknown): value is Stage =>
  typeof value === 'string' && (STAGES as readonly string[]).includes(value)

export function checkBusinessField(raw: unknown, business: Business, where: string): void {
  if (isPlainObject(raw) && typeof raw.business === 'string' && raw.business !== business.id) {
    throw forbidden(`${where} names business ${raw.business}, but the API key belongs to business ${business.id}.`)
  }
}

/** Input spellings the contract accepts besides the interface's (`priceToMachineOwner`). */
const INPUT_ALIASES: Record<string, string> = {priceToMachineOwner: 'priceToMachnieOwner'}

/** A copy of a body object with alias keys renamed to the interface's spelling (which wins when both are sent). */
export function withInputAliases(raw: unknown): unknown {
  if (!isPlainObject(raw)) return raw
  if (!Object.keys(INPUT_ALIASES).some((alias) => alias in raw)) return raw
  const out: Record<string, unknown> = {...raw}
  for (const [alias, name] of Object.entries(INPUT_ALIASES)) {
    if (!(alias in out)) continue
    if (out[name] === undefined) out[name] = out[alias]
    delete out[alias]
  }
  return out
}

export interface BatchSpec<T> {
  /** The endpoint's name in messages, e.g. "create-quotes". */
  endpoint: string
  /** What the items are, plural, e.g. "demands". */
  noun: string
  schema: z.ZodType<T[]>
  max: number
  /** Checks beyond the schema, on the raw item. */
  extra?: (raw: unknown, index: number) => ErrorDetail[]
  /** The 400's message for these details and invalid item indexes, instead of the default. */
  summary?: (details: ErrorDetail[], bad: number[]) => string | undefined
}

/** Validates a whole batch body; throws a 400 that lists every invalid item, so nothing is created. */
export function validateBatch<T>(body: unknown, spec: BatchSpec<T>): T[] {
  const {endpoint, noun, max} = spec
  if (!Array.isArray(body)) {
    throw badRequest(`The body must be a JSON array of 1 to ${max} ${noun}.`, [{path: '', message: 'must be an array'}])
  }
  if (body.length === 0 || body.length > max) {
    throw badRequest(`A ${endpoint} body holds 1 to ${max} ${noun}; this one has ${body.length}.`, [
      {path: '', message: body.length === 0 ? 'must have at least 1 item' : `must have at most ${max} items`},
    ])
  }
  const parsed = spec.schema.safeParse(body, REPORT_INPUT)
  const details = parsed.success ? [] : issuesToDetails(parsed.error)
  if (spec.extra) body.forEach((item, i) => details.push(...(spec.extra?.(item, i) ?? [])))
  if (!parsed.success || details.length > 0) {
    const bad = [...new Set(details.map((d) => Number(d.path.split('.')[0])))]
      .filter(Number.isInteger)
      .sort((a, b) => a - b)
    const singular = noun.replace(/s$/, '')
    throw badRequest(
      spec.summary?.(details, bad) ??
        `${bad.length} of ${body.length} ${body.length === 1 ? `${singular} is` : `${noun} are`} invalid (item${bad.length === 1 ? '' : 's'} ${bad.join(', ')}); nothing was created.`,
      details,
    )
  }
  return parsed.data
}

/** Validates a whole create-quotes body; throws a 400 that lists every invalid item. */
export function validateCreateBody(body: unknown, business: Business): CreateDemandItem[] {
  const items = Array.isArray(body) ? body.map(withInputAliases) : body
  if (Array.isArray(items)) items.forEach((item, i) => checkBusinessField(item, business, `Item ${i}`))
  return validateBatch(items, {
    endpoint: 'create-quotes',
    noun: 'demands',
    schema: CreateDemandBody,
    max: MAX_BATCH,
  })
}

/** The input kept for a new demand: the parsed item, normalised. */
export function createInput(item: Record<string, unknown>, business: Business, ids: () => string): DemandInput {
  const input: DemandInput = {}
  for (const [key, value] of Object.entries(item)) if (value !== undefined) input[key] = value
  if (typeof item.currency === 'string') input.currency = normalizeCurrency(item.currency)
  else input.currency = business.currency
  if (item.quoteModel) input.quoteModel = normalizeQuoteModel(item.quoteModel, ids)
  return input
}

export interface CreateOutcome {
  doc: DemandDoc
  /** False when an earlier demand with the same draftId was returned instead. */
  created: boolean
}

/** What a new demand is made of, whichever endpoint created it. */
export interface NewDemand {
  input: DemandInput
  takenAs: 'QUOTE' | 'ORDER'
  /** The customer id sent; a new one is made up when absent. */
  client?: string | null
  /** The product of a by-product order (its creation also emits product_purchased). */
  productId?: string
}

/**
 * Creates demands in one transaction, in order. With replay on (the default) an
 * item whose draftId the business already used returns the stored demand instead.
 */
export function insertDemands<T extends {draftId?: string}>(
  ctx: DemandContext,
  items: readonly T[],
  build: (item: T, ids: () => string) => NewDemand,
): CreateOutcome[] {
  const {store, business, now} = ctx
  const ids = ctx.newId ?? (() => newId(now))
  return store.transaction(() =>
    items.map((item) => {
      if (ctx.replay !== false && item.draftId !== undefined) {
        const existing = store.demands.byDraftId(business.id, item.draftId)
        if (existing) return {doc: existing, created: false}
      }
      const {input, takenAs, client, productId} = build(item, ids)
      const iso = new Date(now).toISOString()
      const facts: DemandFacts = {
        _id: ids(),
        business: business.id,
        orderNumber: store.demands.nextOrderNumber(business.id),
        createdAt: iso,
        updatedAt: iso,
        stage: 'quote_sent',
        takenAs,
        tracking: [{status: STAGE_INFO.quote_sent.tracking, date: now}],
        client: typeof client === 'string' ? client : ids(),
      }
      const doc = deriveDemand(input, facts, business.currency)
      store.demands.insert(doc)
      emitCreated(store, doc, now, takenAs, productId)
      return {doc, created: true}
    }),
  )
}

/** Creates the (already validated) create-quotes items; draftId replays return the stored demand. */
export function createDemands(ctx: DemandContext, items: CreateDemandItem[]): CreateOutcome[] {
  return insertDemands(ctx, items, (item, ids) => ({
    input: createInput(item, ctx.business, ids),
    takenAs: item.jobDetails?.takenAs ?? 'QUOTE',
    client: item.client,
  }))
}

export function getDemand(store: Store, business: Business, id: string): DemandDoc {
  const doc = store.demands.byId(business.id, id)
  if (!doc) throw notFound(`Demand ${id} not found.`)
  return doc
}

/** Keys still editable once a demand is delivered. */
const EDITABLE_WHEN_DELIVERED = new Set([
  'archive',
  'paymentStatus',
  'paymentProvider',
  'invoiceData',
  'remark',
  'messages',
  'demandStatusInfo',
])

export interface UpdateOutcome {
  doc: DemandDoc
  previous: DemandDoc
  /** The stage entered, when the update moved the demand. */
  movedTo?: Stage
  becameOrder: boolean
}

/** Applies a v1 update: validation, stage move rules, frozen fields, derived fields. */
export function updateDemand(ctx: DemandContext, id: string, rawBody: unknown): UpdateOutcome {
  const body = withInputAliases(rawBody)
  checkBusinessField(body, ctx.business, 'The body')
  const parsed = UpdateDemandBody.safeParse(body ?? {}, REPORT_INPUT)
  const details = parsed.success ? [] : issuesToDetails(parsed.error)
  if (!parsed.success || details.length > 0) {
    throw badRequest(`The update is invalid (${details.map((d) => d.path || 'body').join(', ')}).`, details)
  }
  const patch: DemandInput = {}
  for (const [key, value] of Object.entries(parsed.data)) if (value !== undefined) patch[key] = value
  if (typeof patch.currency === 'string') patch.currency = normalizeCurrency(patch.currency)
  return applyUpdate(ctx, id, patch)
}

export const labelOf = (doc: DemandDoc) => `Demand ${doc._id} (#${doc.orderNumber})`

/**
 * The one stage machine of both generations: applies a validated patch in a
 * transaction. A `demandStatusInfo.status` other than the current stage is a
 * move (STAGE_MOVES, else 409 naming both stages); fields frozen from production
 * on and everything but payment and notes once delivered are refused with 409;
 * every move appends a tracking entry and sets its epoch field; a quote becomes
 * an order by takenAs or payment. `guard` may refuse the update first.
 */
export function applyUpdate(
  ctx: DemandContext,
  id: string,
  patch: DemandInput,
  guard?: (previous: DemandDoc) => void,
): UpdateOutcome {
  const {store, business, now} = ctx
  return store.transaction(() => {
    const previous = getDemand(store, business, id)
    guard?.(previous)
    const facts = factsOf(previous)
    const stage = facts.stage
    const label = labelOf(previous)

    const requested = isPlainObject(patch.demandStatusInfo) ? patch.demandStatusInfo.status : undefined
    const target = isStage(requested) && requested !== stage ? requested : undefined
    if (target && !STAGE_MOVES[stage].includes(target)) {
      const allowed = STAGE_MOVES[stage]
      throw conflict(
        `${label} cannot move from ${stage} to ${target}; from ${stage} it can move to ${allowed.length > 0 ? allowed.join(' or ') : 'no other stage'}.`,
      )
    }

    if (stage === 'delivered') {
      const locked = Object.keys(patch).filter(
        (key) => !EDITABLE_WHEN_DELIVERED.has(key) && differs(patch[key], previous[key]),
      )
      if (locked.length > 0) throw conflict(`${label} is delivered; ${locked.join(', ')} can no longer change.`)
    }
    if (PRODUCTION_STAGES.includes(stage)) {
      const frozen = FROZEN_FROM_PRODUCTION.filter((key) => key in patch && differs(patch[key], previous[key]))
      if (frozen.length > 0) {
        throw conflict(`${label} is in production (${stage}); ${frozen.join(', ')} can no longer change.`)
      }
      // Unchanged frozen values (for instance a record sent back as read) keep the stored form.
      for (const key of FROZEN_FROM_PRODUCTION) delete patch[key]
    }

    const previousInput = inputOf(previous)
    if (typeof patch.draftId === 'string' && patch.draftId !== previous.draftId) {
      if (previous.draftId !== undefined)
        throw conflict(`${label} already has draftId ${previous.draftId}; a draftId never changes.`)
      const other = store.demands.byDraftId(business.id, patch.draftId)
      if (other) throw conflict(`draftId ${patch.draftId} already belongs to demand ${other._id}.`)
    }
    const requestedTakenAs = isPlainObject(patch.jobDetails) ? patch.jobDetails.takenAs : undefined
    if (facts.takenAs === 'ORDER' && requestedTakenAs === 'QUOTE') {
      throw conflict(`${label} is an order; an order cannot be taken as a quote again.`)
    }

    if (patch.quoteModel !== undefined) patch.quoteModel = normalizeQuoteModel(patch.quoteModel, () => newId(now))
    if (patch.taxPaid !== undefined && patch.overRideTax === undefined) patch.overRideTax = true
    const input = mergeInput(previousInput, patch)

    const becameOrder = facts.takenAs === 'QUOTE' && (requestedTakenAs === 'ORDER' || input.paymentStatus === 'PAID')
    const tracking = [...facts.tracking]
    if (target) {
      tracking.push({status: STAGE_INFO[target].tracking, date: now})
      const epochField = STAGE_EPOCH_FIELD[target]
      if (epochField) input[epochField] = now
      if (target === 'done' && input.fabricatedDate === undefined)
        input.fabricatedDate = new Date(now).toISOString().slice(0, 10)
    }
    const nextFacts: DemandFacts = {
      ...facts,
      stage: target ?? stage,
      takenAs: becameOrder ? 'ORDER' : facts.takenAs,
      tracking,
      updatedAt: new Date(Math.max(now, Date.parse(previous.updatedAt))).toISOString(),
    }
    const doc = deriveDemand(input, nextFacts, business.currency)
    store.demands.update(doc)
    emitUpdated(store, previous, doc, now, becameOrder, nextFacts.takenAs)
    return {doc, previous, movedTo: target, becameOrder}
  })
}

export interface ListQuery {
  type: 'quotes' | 'orders' | 'all'
  page: number
  pageSize: number
  status?: Stage
  archived: boolean
  draftId?: string
  sort: 'createdAt' | '-createdAt'
}

export function listDemands(store: Store, business: Business, query: ListQuery): {data: DemandDoc[]; total: number} {
  const filter: DemandListFilter = {
    businessId: business.id,
    archived: query.archived,
    sort: query.sort === 'createdAt' ? 'asc' : 'desc',
    limit: query.pageSize,
    offset: (query.page - 1) * query.pageSize,
  }
  if (query.type !== 'all') filter.takenAs = query.type === 'quotes' ? 'QUOTE' : 'ORDER'
  if (query.status) filter.status = query.status
  if (query.draftId !== undefined) filter.draftId = query.draftId
  return store.demands.list(filter)
}
