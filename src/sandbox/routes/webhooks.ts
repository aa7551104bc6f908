import type {FastifyInstance} from 'fastify'
import type * as z from 'zod'

import {issuesToDetails} from '../../schemas/common.js'
import {CreateWebhookBody, TriggerBody, UpdateWebhookBody, WEBHOOK_EVENTS} from '../../schemas/webhooks.js'
import {businessOf, ownBusiness, v2Auth} from '../auth.js'
import {badRequest, forbidden, notFound} from '../errors.js'
import {emitEvent} from '../events.js'
import {newId} from '../ids.js'
import {isPlainObject, v1Record} from '../records.js'
import type {Business} from '../store/businesses.js'
import type {Webhook} from '../store/webhooks.js'
import type {SandboxContext} from '../context.js'

/** A subscription as the interface answers it (businessId is request-only). */
export function webhookRecord(webhook: Webhook): Record<string, unknown> {
  return {
    _id: webhook.id,
    url: webhook.url,
    secret: webhook.secret,
    events: webhook.events,
    useSecret: webhook.useSecret,
    createdAt: new Date(webhook.createdAt).toISOString(),
    updatedAt: new Date(webhook.updatedAt).toISOString(),
  }
}

function invalid(what: string, error: z.ZodError): Error {
  const details = issuesToDetails(error).map((d) =>
    d.path.startsWith('events') && d.message.startsWith('must be one of')
      ? {
          ...d,
          message: `must be one of ${WEBHOOK_EVENTS.map((e) => JSON.stringify(e)).join(', ')} ("quote_request_recieved" is accepted too)`,
        }
      : d,
  )
  return badRequest(`${what} (${details.map((d) => `${d.path || 'body'} ${d.message}`).join('; ')}).`, details)
}

function requireAccess(business: Business): void {
  if (!business.webhookAccess) {
    throw forbidden(
      `Business ${business.id} has no webhook access: request access from the service first (in the sandbox, the demo business has it).`,
    )
  }
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/** Legacy v2 webhooks (prefix /api/v2), plus two sandbox-only [ext] routes: deliveries and trigger. */
export async function webhookRoutes(app: FastifyInstance, ctx: SandboxContext): Promise<void> {
  const {store} = ctx
  app.addHook('onRequest', v2Auth(store))

  app.post('/integrations_ms/webhooks', async (request, reply) => {
    const raw = request.body
    const business = businessOf(request)
    if (isPlainObject(raw) && typeof raw.businessId === 'string') ownBusiness(request, raw.businessId)
    const parsed = CreateWebhookBody.safeParse(raw ?? undefined, {reportInput: true})
    if (!parsed.success) throw invalid('The webhook subscription is invalid', parsed.error)
    requireAccess(business)
    const now = ctx.clock()
    const webhook: Webhook = {
      id: newId(now),
      businessId: business.id,
      url: parsed.data.url,
      secret: parsed.data.secret,
      events: parsed.data.events,
      useSecret: parsed.data.useSecret ?? false,
      createdAt: now,
      updatedAt: now,
    }
    store.webhooks.insert(webhook)
    return reply.code(201).send({message: 'Webhook subscription created.', data: [webhookRecord(webhook)]})
  })

  app.get<{Params: {businessId: string}}>('/integrations_ms/webhooks/:businessId', async (request) => {
    const business = ownBusiness(request, request.params.businessId)
    const data = store.webhooks.listByBusiness(business.id).map(webhookRecord)
    return {message: `${data.length} webhook subscription${data.length === 1 ? '' : 's'} found.`, data}
  })

  app.post<{Params: {businessId: string; webhookId: string}}>(
    '/integrations_ms/webhooks/:businessId/:webhookId',
    async (request) => {
      const business = ownBusiness(request, request.params.businessId)
      const current = store.webhooks.byId(business.id, request.params.webhookId)
      if (!current) throw notFound(`Webhook subscription ${request.params.webhookId} not found.`)
      const parsed = UpdateWebhookBody.safeParse(request.body ?? {}, {reportInput: true})
      if (!parsed.success) throw invalid('The webhook update is invalid', parsed.error)
      const patch = parsed.data
      if (Object.values(patch).every((v) => v === undefined))
        throw badRequest('The update changes nothing: send any of url, secret, events, useSecret.')
      const updated: Webhook = {
        ...current,
        url: patch.url ?? current.url,
        secret: patch.secret ?? current.secret,
        events: patch.events ?? current.events,
        useSecret: patch.useSecret ?? current.useSecret,
        updatedAt: Math.max(ctx.clock(), current.updatedAt),
      }
      store.webhooks.update(updated)
      return {message: 'Webhook subscription updated.', data: [webhookRecord(updated)]}
    },
  )

  // [ext] The delivery log of one subscription, newest first; `before` (a delivery id) pages on.
  app.get<{Params: {businessId: string; webhookId: string}; Querystring: {limit?: string; before?: string}}>(
    '/integrations_ms/webhooks/:businessId/:webhookId/deliveries',
    async (request) => {
      const business = ownBusiness(request, request.params.businessId)
      const webhook = store.webhooks.byId(business.id, request.params.webhookId)
      if (!webhook) throw notFound(`Webhook subscription ${request.params.webhookId} not found.`)
      const rawLimit = request.query.limit
      if (
        rawLimit !== undefined &&
        !(typeof rawLimit === 'string' && /^\d+$/.test(rawLimit) && +rawLimit >= 1 && +rawLimit <= 500)
      )
        throw badRequest('limit must be a whole number from 1 to 500.', [
          {path: 'limit', message: 'must be a whole number from 1 to 500'},
        ])
      const limit = rawLimit === undefined ? 100 : Number(rawLimit)
      const before = request.query.before
      if (before !== undefined && typeof before !== 'string') throw badRequest('before must be one delivery id.')
      const page = store.deliveries.byWebhook(webhook.id, limit, before)
      if (!page)
        throw badRequest(`before must be the _id of a delivery of webhook ${webhook.id}; ${before} is not.`, [
          {path: 'before', message: 'not a delivery of this webhook'},
        ])
      // A delivery behind the subscription's oldest pending one is not tried before that one's next attempt.
      const head = store.deliveries.head(webhook.id)
      const headDue = head ? (head.nextAttemptAt ?? head.createdAt) : 0
      const data = page.map((d) => {
        const event = store.deliveries.event(d.eventId)
        return {
          _id: d.id,
          eventId: d.eventId,
          type: event?.type ?? '',
          status: d.status,
          attempts: store.deliveries.attempts(d.id).map((a) => ({
            attempt: a.attempt,
            at: new Date(a.startedAt).toISOString(),
            durationMs: a.durationMs,
            statusCode: a.statusCode,
            error: a.error,
          })),
          nextAttemptAt: d.status === 'pending' ? iso(Math.max(d.nextAttemptAt ?? d.createdAt, headDue)) : null,
          createdAt: new Date(d.createdAt).toISOString(),
          updatedAt: new Date(d.updatedAt).toISOString(),
        }
      })
      return {message: `${data.length} deliver${data.length === 1 ? 'y' : 'ies'} of webhook ${webhook.id}.`, data}
    },
  )

  // [ext] A sample event of a type, sent to the business's subscriptions to it (or one of them).
  app.post<{Params: {businessId: string}}>('/integrations_ms/webhooks/:businessId/trigger', async (request, reply) => {
    const business = ownBusiness(request, request.params.businessId)
    requireAccess(business)
    const parsed = TriggerBody.safeParse(request.body ?? undefined, {reportInput: true})
    if (!parsed.success) throw invalid('The trigger request is invalid', parsed.error)
    const {type, webhookId} = parsed.data
    if (webhookId !== undefined && !store.webhooks.byId(business.id, webhookId))
      throw notFound(`Webhook subscription ${webhookId} not found.`)
    const now = ctx.clock()
    const data = sampleData(ctx, business, type, now)
    const event = store.transaction(() => emitEvent(store, business.id, type, data, now, webhookId))
    const message = event
      ? `Sample ${type} event ${event.id} queued for ${event.deliveries} subscription${event.deliveries === 1 ? '' : 's'}.`
      : `No subscription of business ${business.id} listens to ${type}${webhookId ? ` (webhook ${webhookId})` : ''}; nothing will be delivered.`
    return reply.code(202).send({message, data: event ? [{id: event.id, type, deliveries: event.deliveries}] : []})
  })
}

/** The sample's data: the business's newest demand as a v1 record (with a productId for product_purchased). */
function sampleData(ctx: SandboxContext, business: Business, type: string, now: number): Record<string, unknown> {
  const latest = ctx.store.demands.list({
    businessId: business.id,
    archived: false,
    sort: 'desc',
    limit: 1,
    offset: 0,
  }).data[0]
  const record: Record<string, unknown> = latest
    ? v1Record(latest)
    : {_id: newId(now), orderNumber: 0, createdAt: new Date(now).toISOString(), updatedAt: new Date(now).toISOString()}
  if (type === 'product_purchased') {
    const product = ctx.store.catalog.products(business.id)[0]
    record.productId = product?._id ?? newId(now)
  }
  return record
}
