import {createHash} from 'node:crypto'

import type {FastifyInstance, FastifyReply, FastifyRequest} from 'fastify'
import {z} from 'zod'

import {issuesToDetails} from '../../schemas/common.js'
import {STAGES, V1_PAGE_SIZE_DEFAULT, V1_PAGE_SIZE_MAX} from '../../schemas/demand.js'
import {businessOf, ownBusiness, v1Auth} from '../auth.js'
import {createDemands, getDemand, listDemands, updateDemand, validateCreateBody, type ListQuery} from '../demands.js'
import {badRequest} from '../errors.js'
import {paymentAuthToken} from '../ids.js'
import {v1Record} from '../records.js'
import type {SandboxContext} from '../app.js'

const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000

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

function idempotencyKey(request: FastifyRequest): string | undefined {
  const raw = request.headers['idempotency-key']
  if (raw === undefined) return undefined
  const key = Array.isArray(raw) ? (raw[0] ?? '') : raw
  if (key.length === 0 || key.length > 255) {
    throw badRequest('The Idempotency-Key header must be 1 to 255 characters long.', [
      {path: 'Idempotency-Key', message: 'must be 1 to 255 characters'},
    ])
  }
  return key
}

function sendJson(reply: FastifyReply, statusCode: number, body: string): FastifyReply {
  return reply.code(statusCode).type('application/json; charset=utf-8').send(body)
}

/** Public v1 routes (prefix /api/public/v1). */
export async function v1Routes(app: FastifyInstance, ctx: SandboxContext): Promise<void> {
  const {store} = ctx
  app.addHook('onRequest', v1Auth(store))

  app.post<{Params: {businessId: string}}>('/demand/create-quotes/:businessId', async (request, reply) => {
    const business = ownBusiness(request, request.params.businessId)
    const now = ctx.clock()
    const key = idempotencyKey(request)
    const fingerprint = createHash('sha256')
      .update(`POST ${request.routeOptions.url}\n${JSON.stringify(request.body ?? null)}`)
      .digest('hex')
    if (key !== undefined) {
      const first = store.idempotency.find(business.id, key, now - IDEMPOTENCY_WINDOW_MS)
      if (first) {
        if (first.fingerprint !== fingerprint) {
          throw badRequest(
            `Idempotency-Key ${key} was used in the last 24 hours with a different request; use a new key for a new request.`,
          )
        }
        reply.header('idempotent-replayed', 'true')
        return sendJson(reply, first.statusCode, first.body)
      }
    }
    const items = validateCreateBody(request.body, business)
    const outcomes = createDemands({store, business, now}, items)
    const body = JSON.stringify(
      outcomes.map(({doc}) => ({
        ...v1Record(doc),
        paymentAuthToken: paymentAuthToken(ctx.signingSecret, business.id, doc._id, doc.orderNumber),
      })),
    )
    if (key !== undefined) {
      store.transaction(() => {
        store.idempotency.purgeBefore(now - IDEMPOTENCY_WINDOW_MS)
        store.idempotency.save({businessId: business.id, key, fingerprint, statusCode: 201, body, createdAt: now})
      })
    }
    return sendJson(reply, 201, body)
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
