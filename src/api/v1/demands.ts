import {CreateDemandBody, ListType, UpdateDemandBody, V1_PAGE_SIZE_MAX} from '../../schemas/demand.js'
import {CreatedDemandsRead, CreatedSummariesRead, DemandPageRead, DemandRecordRead} from '../../schemas/read/demand.js'
import {ValidationError} from '../errors.js'
import type {ApiClient} from '../http.js'
import {paginateV1} from '../paginate.js'
import {checkRequest, parseResponse, segment} from '../parse.js'
import {isReplayed, serverTime, readWritten, type Written} from '../written.js'
import type {DemandPage, DemandRecord} from '../../schemas/read/types.js'

const BASE = '/api/public/v1/demand'

export interface ListDemandsQuery {
  page?: number
  pageSize?: number
  /** A status id such as quote_sent. */
  status?: string
  archived?: boolean
  /** Sandbox extension; the real service may ignore it. */
  draftId?: string
  sort?: 'createdAt' | '-createdAt'
}

export interface CreateQuotesOptions {
  /** Sent as Idempotency-Key; also lets the client retry the POST (unless `autoRetry` is false). */
  idempotencyKey?: string
  /**
   * False: the key is sent as a header only and the client never resends the
   * POST itself, for callers that settle unknown outcomes on their own. Default true.
   */
  autoRetry?: boolean
  /** Check the items with the shared schema before sending (default true). */
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

/**
 * POST /api/public/v1/demand/create-quotes/{businessId}. The items are checked
 * first (a client-side ValidationError lists every problem, nothing is sent),
 * then sent as given; answers the created records in input order, read from any
 * common form (an array, one object, `{data}`, ids alone). A 2xx without a body
 * (201, 202, 204) answers no records: the service confirmed without details.
 */
export async function createQuotes(
  client: ApiClient,
  businessId: string,
  items: unknown[],
  opts: CreateQuotesOptions = {},
): Promise<DemandRecord[]> {
  const template = `${BASE}/create-quotes/{businessId}`
  const path = `${BASE}/create-quotes/${segment(businessId, 'businessId', 'POST', template)}`
  if (opts.validate ?? true) await checkRequest(CreateDemandBody, items, 'POST', path, 'the create-quotes body')
  const res = await client.request({
    method: 'POST',
    path,
    body: items,
    ...(opts.idempotencyKey === undefined
      ? {}
      : opts.autoRetry === false
        ? {headers: {'idempotency-key': opts.idempotencyKey}}
        : {idempotencyKey: opts.idempotencyKey}),
    ...(opts.signal ? {signal: opts.signal} : {}),
    ...(opts.bulk ? {bulk: true} : {}),
  })
  if (isReplayed(res)) opts.onReplayed?.()
  const at = opts.onServerTime ? serverTime(res) : undefined
  if (at !== undefined) opts.onServerTime?.(at)
  if (res.body === undefined) return []
  const schema = opts.summary ? CreatedSummariesRead : CreatedDemandsRead
  return parseResponse(schema, res.body, 'POST', path, res.status, client) as DemandRecord[]
}

function listPath(businessId: string, type: ListType): string {
  const template = `${BASE}/{businessId}/{type}`
  return `${BASE}/${segment(businessId, 'businessId', 'GET', template)}/${segment(type, 'type', 'GET', template)}`
}

function listQuery(q: ListDemandsQuery, path: string): Record<string, string | number | boolean | undefined> {
  if (q.pageSize !== undefined && (!Number.isInteger(q.pageSize) || q.pageSize < 1 || q.pageSize > V1_PAGE_SIZE_MAX)) {
    throw new ValidationError({
      method: 'GET',
      path,
      clientSide: true,
      serverMessage: `pageSize must be a whole number from 1 to ${V1_PAGE_SIZE_MAX}, got ${q.pageSize}`,
    })
  }
  if (q.page !== undefined && (!Number.isInteger(q.page) || q.page < 1)) {
    throw new ValidationError({
      method: 'GET',
      path,
      clientSide: true,
      serverMessage: `page must be a whole number from 1, got ${q.page}`,
    })
  }
  return {page: q.page, pageSize: q.pageSize, status: q.status, archived: q.archived, draftId: q.draftId, sort: q.sort}
}

/** GET /api/public/v1/demand/{businessId}/{type}: one page. */
export async function listDemands(
  client: ApiClient,
  businessId: string,
  type: ListType,
  q: ListDemandsQuery = {},
  opts: {signal?: AbortSignal; retries?: number; operation?: string} = {},
): Promise<DemandPage> {
  const path = listPath(businessId, type)
  const res = await client.request({
    method: 'GET',
    path,
    query: listQuery(q, path),
    ...(opts.signal ? {signal: opts.signal} : {}),
    ...(opts.retries === undefined ? {} : {retries: opts.retries}),
    ...(opts.operation === undefined ? {} : {operation: opts.operation}),
  })
  return parseResponse(DemandPageRead, res.body, 'GET', path, res.status, client)
}

/** Every demand of the list, page by page (starting at `q.page`, default 1), up to `limit`. */
export function iterateDemands(
  client: ApiClient,
  businessId: string,
  type: ListType,
  q: ListDemandsQuery = {},
  opts: {limit?: number; signal?: AbortSignal; beforePage?: () => Promise<void>; narrow?: string | null} = {},
): AsyncIterable<DemandRecord> {
  const path = listPath(businessId, type)
  const {pageSize, ...query} = listQuery(q, path)
  return paginateV1<DemandRecord>(client, path, query, {
    ...(typeof pageSize === 'number' ? {pageSize} : {}),
    ...(opts.limit === undefined ? {} : {limit: opts.limit}),
    ...(opts.signal ? {signal: opts.signal} : {}),
    ...(opts.beforePage ? {beforePage: opts.beforePage} : {}),
    ...(opts.narrow === undefined ? {} : {narrow: opts.narrow}),
    parsePage: (body) => parseResponse(DemandPageRead, body, 'GET', path, undefined, client),
  })
}

/** GET /api/public/v1/demand/{demandId}. */
export async function getDemand(
  client: ApiClient,
  id: string,
  opts: {signal?: AbortSignal} = {},
): Promise<DemandRecord> {
  const path = `${BASE}/${segment(id, 'demand id', 'GET', `${BASE}/{demandId}`)}`
  const res = await client.request({method: 'GET', path, ...(opts.signal ? {signal: opts.signal} : {})})
  return parseResponse(DemandRecordRead, res.body, 'GET', path, res.status, client)
}

/**
 * PUT /api/public/v1/demand/{demandId}. The contract answers the full updated
 * record; a service may answer 204, or only `_id` and what changed (readWritten).
 */
export async function updateDemand(
  client: ApiClient,
  id: string,
  body: UpdateDemandBody | Record<string, unknown>,
  opts: {validate?: boolean; signal?: AbortSignal} = {},
): Promise<Written<DemandRecord>> {
  const path = `${BASE}/${segment(id, 'demand id', 'PUT', `${BASE}/{demandId}`)}`
  if (opts.validate ?? true) await checkRequest(UpdateDemandBody, body, 'PUT', path, 'the update body')
  const res = await client.request({method: 'PUT', path, body, ...(opts.signal ? {signal: opts.signal} : {})})
  return readWritten(DemandRecordRead, res, 'PUT', path, client)
}
