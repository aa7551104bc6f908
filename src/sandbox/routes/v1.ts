import type {FastifyInstance} from 'fastify'
import * as z from 'zod'

import {issuesToDetails} from '../../schemas/common.js'
import {STAGES, V1_PAGE_SIZE_DEFAULT, V1_PAGE_SIZE_MAX} from '../../schemas/demand.js'
import {businessOf, ownBusiness, v1Auth} from '../auth.js'
import {createDemands, getDemand, listDemands, updateDemand, validateCreateBody, type ListQuery} from '../demands.js'
import {badRequest} from '../errors.js'
import {paymentAuthToken} from '../ids.js'
import {createIdempotently} from '../replay.js'
import {v1Record} from '../records.js'
import type {SandboxContext} from '../context.js'

const wholeNumber = (min: number, max?: number) => {
  const n = max === undefined ? z.number().int().min(min) : z.number().int().min(min).max(max)
  return z.string().regex(/^\d+$/, 'must be a whole number').transform(Number).pipe(n)
}

const ListQuerySchema = z.object({
  page: wholeNumber(1).optional(),
  pageSize: wholeNumber(1, V1_PAGE_SIZE_MAX).optional(),
  status: z.enum(STAGES).optional(),
  archived: z.enum(['true', 'false']).optional(),
  draftId: z.string().min(1).optional(),
  sort: z.enum(['createdAt', '-createdAt']).optional(),
})

const LIST_TYPE_ALIASES: Record<string, ListQuery['type']> = {
  quotes: 'quotes',
  quote: 'quotes',
  orders: 'orders',
  order: 'orders',
  all: 'all',
}

function parseListQuery(type: string, query: unknown): ListQuery {
  const listType = LIST_TYPE_ALIASES[type.toLowerCase()]
  const parsed = ListQuerySchema.safeParse(query ?? {})
  const details = parsed.success ? [] : issuesToDetails(parsed.error)
  if (!listType)
    details.unshift({path: 'type', message: 'must be one of "quotes", "orders", "all" (QUOTE and ORDER also accepted)'})
  if (!parsed.success || !listType || details.length > 0) {
    throw badRequest(`Invalid list request: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}.`, details)
  }
  const q = parsed.data
  return {
    type: listType,
    page: q.page ?? 1,
    pageSize: q.pageSize ?? V1_PAGE_SIZE_DEFAULT,
    status: q.status,
    archived: q.archived === 'true',
    draftId: q.draftId,
    sort: q.sort ?? '-createdAt',
  }
}

/** Public v1 routes (prefix /api/public/v1). */
export async function v1Routes(app: FastifyInstance, ctx: SandboxContext): Promise<void> {
  const {store} = ctx
  app.addHook('onRequest', v1Auth(store))

  app.post<{Params: {businessId: string}}>('/demand/create-quotes/:businessId', async (request, reply) => {
    const business = ownBusiness(request, request.params.businessId)
    const now = ctx.clock()
    return createIdempotently(ctx, request, reply, business, now, () => {
      const items = validateCreateBody(request.body, business)
      const outcomes = createDemands({store, business, now, replay: ctx.replay}, items)
      return JSON.stringify(
        outcomes.map(({doc}) => ({
          ...v1Record(doc),
          paymentAuthToken: paymentAuthToken(ctx.signingSecret, business.id, doc._id, doc.orderNumber),
        })),
      )
    })
  })

  app.get<{Params: {businessId: string; type: string}}>('/demand/:businessId/:type', async (request) => {
    const business = ownBusiness(request, request.params.businessId)
    const query = parseListQuery(request.params.type, request.query)
    const {data, total} = listDemands(store, business, query)
    return {
      data: data.map(v1Record),
      page: query.page,
      pageSize: query.pageSize,
      total,
      totalPages: Math.ceil(total / query.pageSize),
    }
  })

  app.get<{Params: {demandId: string}}>('/demand/:demandId', async (request) => {
    return v1Record(getDemand(store, businessOf(request), request.params.demandId))
  })

  app.put<{Params: {demandId: string}}>('/demand/:demandId', async (request) => {
    const {doc} = updateDemand(
      {store, business: businessOf(request), now: ctx.clock()},
      request.params.demandId,
      request.body,
    )
    return v1Record(doc)
  })
}
