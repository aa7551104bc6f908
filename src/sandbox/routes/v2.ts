import type {FastifyInstance} from 'fastify'

import {LANGS, Lang} from '../../schemas/legacy-demand.js'
import {businessOf, v2Auth} from '../auth.js'
import {getDemand} from '../demands.js'
import {badRequest} from '../errors.js'
import {
  cancelLegacyDemand,
  createLegacyDemands,
  createProductOrders,
  listLegacyDemands,
  orderMessage,
  updateLegacyDemand,
  validateLegacyCreateBody,
  validateProductOrders,
} from '../legacy-demands.js'
import {legacyCreateRecord, legacyRecord} from '../records.js'
import {createIdempotently} from '../replay.js'
import type {SandboxContext} from '../context.js'

/** Legacy v2 routes (prefix /api/v2): API key and X-Auth-Token on every one. */
export async function v2Routes(app: FastifyInstance, ctx: SandboxContext): Promise<void> {
  const {store} = ctx
  app.addHook('onRequest', v2Auth(store))

  const demandContext = (request: Parameters<typeof businessOf>[0]) => ({
    store,
    business: businessOf(request),
    now: ctx.clock(),
    replay: ctx.replay,
  })

  app.post('/ms-machine-owner/demand/create-demands', async (request, reply) => {
    const dc = demandContext(request)
    return createIdempotently(ctx, request, reply, dc.business, dc.now, () => {
      const items = validateLegacyCreateBody(request.body, dc.business)
      return JSON.stringify(createLegacyDemands(dc, items).map(({doc}) => legacyCreateRecord(doc)))
    })
  })

  app.post<{Querystring: {lang?: unknown}}>('/ms-machine-owner/demand/products', async (request, reply) => {
    const lang = parseLang(request.query.lang)
    const dc = demandContext(request)
    reply.header('content-language', lang)
    return createIdempotently(ctx, request, reply, dc.business, dc.now, () => {
      const orders = validateProductOrders(store, dc.business, request.body)
      const outcomes = createProductOrders(dc, orders, lang)
      return JSON.stringify(
        outcomes.map(({doc}, i) => ({
          ...legacyCreateRecord(doc),
          productId: orders[i]?.product._id,
          message: orderMessage(lang, doc.orderNumber, orders[i]?.product.title ?? ''),
        })),
      )
    })
  })

  app.post('/ms-machine-owner/demand/list', async (request) => {
    return listLegacyDemands(store, businessOf(request), request.body).map(legacyRecord)
  })

  app.get<{Params: {id: string}}>('/ms-machine-owner/demand/:id', async (request) => {
    return legacyRecord(getDemand(store, businessOf(request), request.params.id))
  })

  app.put<{Params: {id: string}}>('/ms-machine-owner/demand/:id', async (request) => {
    const {doc, fields} = updateLegacyDemand(demandContext(request), request.params.id, request.body)
    const record = legacyRecord(doc)
    const answer: Record<string, unknown> = {_id: doc._id}
    for (const field of fields) answer[field] = field === 'shippingAddress' ? doc.shippingAddress : record[field]
    return answer
  })

  app.delete<{Params: {id: string}}>('/ms-machine-owner/demand/:id', async (request) => {
    return legacyRecord(cancelLegacyDemand(demandContext(request), request.params.id).doc)
  })
}

/** The by-product order's `lang` query parameter: en (the default), fr, de or es. */
function parseLang(raw: unknown): Lang {
  if (raw === undefined) return 'en'
  const parsed = Lang.safeParse(typeof raw === 'string' ? raw.toLowerCase() : raw)
  if (parsed.success) return parsed.data
  throw badRequest(`The lang query parameter must be one of ${LANGS.join(', ')}; got ${JSON.stringify(raw)}.`, [
    {path: 'lang', message: `must be one of ${LANGS.map((l) => JSON.stringify(l)).join(', ')}`},
  ])
}
