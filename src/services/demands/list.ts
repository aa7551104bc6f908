import {iterateDemands, listDemands} from '../../api/v1/demands.js'
import {V1_PAGE_SIZE_MAX, type ListType} from '../../schemas/demand.js'
import {defined, given} from '../../util/fields.js'
import type {ServiceContext} from '../context.js'
import {InputError} from '../errors.js'
import type {DemandRecord} from '../../schemas/read/types.js'

export interface ListDemandsInput {
  type: ListType
  status?: string
  archived?: boolean
  /** 1-based page (single-page mode). */
  page?: number
  /** Page size, or with `all` the most items to return. */
  limit?: number
  all?: boolean
  draftId?: string
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
  return given({status: input.status, archived: input.archived || undefined, draftId: input.draftId})
}

/** One page of demands. */
export async function listDemandPage(ctx: ServiceContext, input: ListDemandsInput): Promise<DemandListPage> {
  if (input.limit !== undefined && (input.limit < 1 || input.limit > V1_PAGE_SIZE_MAX)) {
    throw new InputError(
      `--limit must be from 1 to ${V1_PAGE_SIZE_MAX} for one page (use --all to fetch more), got ${input.limit}.`,
    )
  }
  const page = await listDemands(ctx.client, ctx.businessId, input.type, {
    ...query(input),
    ...defined({page: input.page, pageSize: input.limit}),
  })
  return {records: page.data, page: page.page, pageSize: page.pageSize, total: page.total, totalPages: page.totalPages}
}

/** Every demand, page after page (100 at a time), streamed; stops after `limit` items when given. */
export function streamDemands(ctx: ServiceContext, input: ListDemandsInput): AsyncIterable<DemandRecord> {
  if (input.limit !== undefined && input.limit < 1)
    throw new InputError(`--limit must be at least 1, got ${input.limit}.`)
  return iterateDemands(
    ctx.client,
    ctx.businessId,
    input.type,
    {...query(input), pageSize: V1_PAGE_SIZE_MAX, ...defined({page: input.page})},
    input.limit === undefined ? {} : {limit: input.limit},
  )
}
