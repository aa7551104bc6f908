import {iterateDemands, listDemands} from '../../api/v1/demands.js'
import {V1_PAGE_SIZE_MAX, type ListType} from '../../schemas/demand.js'
import {defined, given} from '../../util/fields.js'
import type {ServiceContext} from '../context.js'
import {InputError} from '../errors.js'
import type {DemandRecord} from '../../schemas/read/types.js'

/** The orders the v1 list can sort in itself (contract: `sort`), by `--sort` spec. */
export const DEMAND_SERVICE_SORTS = {createdAt: 'createdAt', '-createdAt': '-createdAt'} as const
export type DemandServiceSort = (typeof DEMAND_SERVICE_SORTS)[keyof typeof DEMAND_SERVICE_SORTS]

export interface ListDemandsInput {
  type: ListType
  status?: string
  archived?: boolean
  /** 1-based page: the one page shown, or where following pages starts. */
  page?: number
  /** Items a request (1 to 100). */
  pageSize?: number
  /** The most items to return. */
  limit?: number
  draftId?: string
  /** An order the service sorts in. */
  sort?: DemandServiceSort
  /** Stops the listing (and the request in flight) when aborted. */
  signal?: AbortSignal
  /** Awaited before each further page (see PaginateOptions.beforePage). */
  beforePage?: () => Promise<void>
}

/** One page; a paging field is absent when the service sent no usable value for it. */
export interface DemandListPage {
  records: DemandRecord[]
  page?: number
  pageSize?: number
  total?: number
  totalPages?: number
}

function query(input: ListDemandsInput) {
  return given({
    status: input.status,
    archived: input.archived || undefined,
    draftId: input.draftId,
    sort: input.sort,
  })
}

function checkSizes(input: ListDemandsInput): void {
  if (input.pageSize !== undefined && (input.pageSize < 1 || input.pageSize > V1_PAGE_SIZE_MAX)) {
    throw new InputError(`--page-size must be from 1 to ${V1_PAGE_SIZE_MAX}, got ${input.pageSize}.`)
  }
  if (input.limit !== undefined && input.limit < 1)
    throw new InputError(`--limit must be at least 1, got ${input.limit}.`)
}

/** One page of demands (`pageSize`, else `limit` when it fits in a page, else the service's default size). */
export async function listDemandPage(ctx: ServiceContext, input: ListDemandsInput): Promise<DemandListPage> {
  checkSizes(input)
  const size =
    input.pageSize ?? (input.limit !== undefined && input.limit <= V1_PAGE_SIZE_MAX ? input.limit : undefined)
  const page = await listDemands(ctx.client, ctx.businessId, input.type, {
    ...query(input),
    ...defined({page: input.page, pageSize: size}),
  })
  const records = input.limit === undefined ? page.data : page.data.slice(0, input.limit)
  return {records, page: page.page, pageSize: page.pageSize, total: page.total, totalPages: page.totalPages}
}

/** Every demand from `page` on, page after page (100 at a time by default), streamed; stops after `limit` items. */
export function streamDemands(ctx: ServiceContext, input: ListDemandsInput): AsyncIterable<DemandRecord> {
  checkSizes(input)
  return iterateDemands(
    ctx.client,
    ctx.businessId,
    input.type,
    {...query(input), pageSize: input.pageSize ?? V1_PAGE_SIZE_MAX, ...defined({page: input.page})},
    defined({limit: input.limit, signal: input.signal, beforePage: input.beforePage}),
  )
}
