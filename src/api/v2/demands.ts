import * as z from 'zod'

import {
  CreateLegacyDemandBody,
  LegacyListBody,
  LegacyUpdateBody,
  ProductOrderBody,
  type Lang,
} from '../../schemas/legacy-demand.js'
import {CreatedSummariesRead, LegacyDemandRecordRead, LegacyDemandsRead} from '../../schemas/read/demand.js'
import type {ApiClient} from '../http.js'
import {checkRequest, parseResponse, segment} from '../parse.js'
import {isReplayed, serverTime, readWritten, type Written} from '../written.js'
import type {LegacyDemandRecord} from '../../schemas/read/types.js'

export type {LegacyDemandRecord}

const BASE = '/api/v2/ms-machine-owner/demand'

export interface LegacyWriteOptions {
  /** Sent as Idempotency-Key; also lets the client retry the POST (unless `autoRetry` is false). */
  idempotencyKey?: string
  /** False: the key is sent as a header only and the client never resends the POST itself. Default true. */
  autoRetry?: boolean
  /** Check the body with the shared schema before sending (default true). */
  validate?: boolean
  /** Parse only `_id`, `orderNumber`, `draftId` and `status` of each answer (big batches). */
  summary?: boolean
  /** One request of many (a batch): see RequestOptions.bulk. */
  bulk?: boolean
  signal?: AbortSignal
  /** Called when the answer says it was replayed from an earlier request with the same key (see isReplayed). */
  onReplayed?: () => void
  /** Called with the service's clock when it answered (see serverTime), when its answer says. */
  onServerTime?: (ms: number) => void
}

function writeExtras(opts: LegacyWriteOptions) {
  return {
    ...(opts.idempotencyKey === undefined
      ? {}
      : opts.autoRetry === false
        ? {headers: {'idempotency-key': opts.idempotencyKey}}
        : {idempotencyKey: opts.idempotencyKey}),
    ...(opts.signal ? {signal: opts.signal} : {}),
    ...(opts.bulk ? {bulk: true} : {}),
  }
}

/**
 * POST /api/v2/ms-machine-owner/demand/create-demands: answers the created demands in input order
 * (any common form); none for a 2xx without a body.
 */
export async function createLegacyDemands(
  client: ApiClient,
  items: unknown[],
  opts: LegacyWriteOptions = {},
): Promise<LegacyDemandRecord[]> {
  const path = `${BASE}/create-demands`
  if (opts.validate ?? true) await checkRequest(CreateLegacyDemandBody, items, 'POST', path, 'the create-demands body')
  const res = await client.request({method: 'POST', path, body: items, ...writeExtras(opts)})
  if (isReplayed(res)) opts.onReplayed?.()
  const at = opts.onServerTime ? serverTime(res) : undefined
  if (at !== undefined) opts.onServerTime?.(at)
  if (res.body === undefined) return []
  const schema = opts.summary ? CreatedSummariesRead : LegacyDemandsRead
  return parseResponse(schema, res.body, 'POST', path, res.status, client) as LegacyDemandRecord[]
}

/** POST /api/v2/ms-machine-owner/demand/products?lang=: by-product orders, answered in input order. */
export async function orderProducts(
  client: ApiClient,
  items: unknown[],
  lang: Lang,
  opts: LegacyWriteOptions = {},
): Promise<LegacyDemandRecord[]> {
  const path = `${BASE}/products`
  if (opts.validate ?? true) await checkRequest(ProductOrderBody, items, 'POST', path, 'the by-product order body')
  const res = await client.request({method: 'POST', path, query: {lang}, body: items, ...writeExtras(opts)})
  return parseResponse(LegacyDemandsRead, res.body, 'POST', `${path}?lang=${lang}`, res.status, client)
}

/**
 * POST /api/v2/ms-machine-owner/demand/list with at most 500 ids. The service
 * answers the demands it found (unknown ids are left out); order is not promised.
 */
export async function listLegacyDemands(
  client: ApiClient,
  ids: string[],
  opts: {signal?: AbortSignal} = {},
): Promise<LegacyDemandRecord[]> {
  const path = `${BASE}/list`
  const body = {demands: ids}
  await checkRequest(LegacyListBody, body, 'POST', path, 'the list body')
  // A read sent as POST: safe to send again.
  const res = await client.request({
    method: 'POST',
    path,
    body,
    retry: 'safe',
    ...(opts.signal ? {signal: opts.signal} : {}),
  })
  return parseResponse(LegacyDemandsRead, res.body, 'POST', path, res.status, client)
}

/** GET /api/v2/ms-machine-owner/demand/{id}. */
export async function getLegacyDemand(
  client: ApiClient,
  id: string,
  opts: {signal?: AbortSignal} = {},
): Promise<LegacyDemandRecord> {
  const path = `${BASE}/${segment(id, 'demand id', 'GET', `${BASE}/{id}`)}`
  const res = await client.request({method: 'GET', path, ...(opts.signal ? {signal: opts.signal} : {})})
  return parseResponse(LegacyDemandRecordRead, res.body, 'GET', path, res.status, client)
}

/** The legacy update answer: the changed fields with `_id`. */
export const LegacyUpdateAnswer = z.looseObject({_id: z.string()})
export type LegacyUpdateAnswer = z.infer<typeof LegacyUpdateAnswer>

/**
 * PUT /api/v2/ms-machine-owner/demand/{id}: only material, resolution, filling,
 * quantity, color, thickness, tolerance, shippingAddress. Answers the changed
 * fields with `_id`, or nothing (readWritten).
 */
export async function updateLegacyDemand(
  client: ApiClient,
  id: string,
  body: LegacyUpdateBody,
  opts: {validate?: boolean; signal?: AbortSignal} = {},
): Promise<Written<LegacyUpdateAnswer>> {
  const path = `${BASE}/${segment(id, 'demand id', 'PUT', `${BASE}/{id}`)}`
  if (opts.validate ?? true) await checkRequest(LegacyUpdateBody, body, 'PUT', path, 'the legacy update body')
  const res = await client.request({method: 'PUT', path, body, ...(opts.signal ? {signal: opts.signal} : {})})
  return readWritten(LegacyUpdateAnswer, res, 'PUT', path, client)
}

/** DELETE /api/v2/ms-machine-owner/demand/{id}: cancels and archives; answers the record. */
export async function deleteLegacyDemand(
  client: ApiClient,
  id: string,
  opts: {signal?: AbortSignal} = {},
): Promise<LegacyDemandRecord> {
  const path = `${BASE}/${segment(id, 'demand id', 'DELETE', `${BASE}/{id}`)}`
  const res = await client.request({method: 'DELETE', path, ...(opts.signal ? {signal: opts.signal} : {})})
  return parseResponse(LegacyDemandRecordRead, res.body, 'DELETE', path, res.status, client)
}
