import type {FastifyInstance} from 'fastify'

import {businessOf, ownBusiness, v2Auth} from '../auth.js'
import {getDemand} from '../demands.js'
import {legacyRecord} from '../records.js'
import type {Webhook} from '../store/webhooks.js'
import type {SandboxContext} from '../app.js'

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

/** Legacy v2 routes (prefix /api/v2): API key and X-Auth-Token on every one. */
export async function v2Routes(app: FastifyInstance, ctx: SandboxContext): Promise<void> {
  const {store} = ctx
  app.addHook('onRequest', v2Auth(store))

  app.get<{Params: {businessId: string}}>('/integrations_ms/webhooks/:businessId', async (request) => {
    const business = ownBusiness(request, request.params.businessId)
    const data = store.webhooks.listByBusiness(business.id).map(webhookRecord)
    return {message: `${data.length} webhook subscription${data.length === 1 ? '' : 's'} found.`, data}
  })

  app.get<{Params: {id: string}}>('/ms-machine-owner/demand/:id', async (request) => {
    return legacyRecord(getDemand(store, businessOf(request), request.params.id))
  })
}
