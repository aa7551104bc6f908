import * as z from 'zod'

import {WebhookAnswerRead} from '../../schemas/read/webhooks.js'
import {CreateWebhookBody, DeliveriesAnswer, TriggerBody, UpdateWebhookBody} from '../../schemas/webhooks.js'
import type {ApiClient} from '../http.js'
import {checkRequest, parseResponse, segment} from '../parse.js'
import {readWritten, type Written} from '../written.js'
import type {WebhookAnswer, WebhookRecord} from '../../schemas/read/types.js'

/** A webhook subscription as the legacy interface answers it, read tolerantly (schemas/read/webhooks.ts). */
export type WebhookSubscription = WebhookRecord
export type WebhookList = WebhookAnswer

const BASE = '/api/v2/integrations_ms/webhooks'

/** GET /api/v2/integrations_ms/webhooks/{businessId}. Also the cheapest check of v2 credentials. */
export async function listWebhooks(
  client: ApiClient,
  businessId: string,
  opts: {signal?: AbortSignal} = {},
): Promise<WebhookList> {
  const path = `${BASE}/${segment(businessId, 'businessId', 'GET', `${BASE}/{businessId}`)}`
  const res = await client.request({method: 'GET', path, ...(opts.signal ? {signal: opts.signal} : {})})
  return parseResponse(WebhookAnswerRead, res.body, 'GET', path, res.status, client)
}

/** POST /api/v2/integrations_ms/webhooks: creates a subscription; the body is checked first. Answers it, or not (readWritten). */
export async function createWebhook(client: ApiClient, body: CreateWebhookBody): Promise<Written<WebhookAnswer>> {
  const path = BASE
  await checkRequest(CreateWebhookBody, body, 'POST', path, 'the subscription')
  const res = await client.request({method: 'POST', path, body})
  return readWritten(WebhookAnswerRead, res, 'POST', path, client)
}

/** POST /api/v2/integrations_ms/webhooks/{businessId}/{webhookId}: changes any of url, secret, events, useSecret. */
export async function updateWebhook(
  client: ApiClient,
  businessId: string,
  webhookId: string,
  body: UpdateWebhookBody,
): Promise<Written<WebhookAnswer>> {
  const template = `${BASE}/{businessId}/{webhookId}`
  const path = `${BASE}/${segment(businessId, 'businessId', 'POST', template)}/${segment(webhookId, 'webhook id', 'POST', template)}`
  await checkRequest(UpdateWebhookBody, body, 'POST', path, 'the change')
  const res = await client.request({method: 'POST', path, body})
  return readWritten(WebhookAnswerRead, res, 'POST', path, client)
}

/** [ext] GET .../webhooks/{businessId}/{webhookId}/deliveries?limit=&before=: the sandbox's delivery log, newest first. */
export async function listDeliveries(
  client: ApiClient,
  businessId: string,
  webhookId: string,
  opts: {limit?: number; before?: string} = {},
): Promise<z.infer<typeof DeliveriesAnswer>> {
  const template = `${BASE}/{businessId}/{webhookId}/deliveries`
  const path = `${BASE}/${segment(businessId, 'businessId', 'GET', template)}/${segment(webhookId, 'webhook id', 'GET', template)}/deliveries`
  const res = await client.request({method: 'GET', path, query: {limit: opts.limit, before: opts.before}})
  return parseResponse(DeliveriesAnswer, res.body, 'GET', path, res.status, client)
}

export const TriggerAnswer = z.looseObject({
  message: z.string(),
  data: z.array(z.looseObject({id: z.string(), type: z.string(), deliveries: z.number()})),
})
export type TriggerAnswer = z.infer<typeof TriggerAnswer>

/** [ext] POST .../webhooks/{businessId}/trigger `{type, webhookId?}`: queues a sample event. */
export async function triggerEvent(
  client: ApiClient,
  businessId: string,
  body: {type: string; webhookId?: string},
): Promise<TriggerAnswer> {
  const path = `${BASE}/${segment(businessId, 'businessId', 'POST', `${BASE}/{businessId}/trigger`)}/trigger`
  await checkRequest(TriggerBody, body, 'POST', path, 'the trigger request')
  const res = await client.request({method: 'POST', path, body})
  return parseResponse(TriggerAnswer, res.body, 'POST', path, res.status, client)
}
