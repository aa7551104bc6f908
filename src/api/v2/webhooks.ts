import {z} from 'zod'

import type {ApiClient} from '../http.js'
import {parseResponse, segment} from '../parse.js'

/** A webhook subscription as the legacy interface answers it; unknown fields kept. */
export const WebhookSubscription = z.looseObject({
  _id: z.string(),
  url: z.string(),
  secret: z.string().optional(),
  events: z.array(z.string()),
  useSecret: z.boolean().optional(),
})
export type WebhookSubscription = z.infer<typeof WebhookSubscription>

export const WebhookList = z.looseObject({message: z.string(), data: z.array(WebhookSubscription)})
export type WebhookList = z.infer<typeof WebhookList>

const BASE = '/api/v2/integrations_ms/webhooks'

/** GET /api/v2/integrations_ms/webhooks/{businessId}. Also the cheapest check of v2 credentials. */
export async function listWebhooks(
  client: ApiClient,
  businessId: string,
  opts: {signal?: AbortSignal} = {},
): Promise<WebhookList> {
  const path = `${BASE}/${segment(businessId, 'businessId', 'GET', `${BASE}/{businessId}`)}`
  const res = await client.request({method: 'GET', path, ...(opts.signal ? {signal: opts.signal} : {})})
  return parseResponse(WebhookList, res.body, 'GET', path, res.status)
}
