import * as z from 'zod'

import {HttpUrl} from './common.js'

/** Webhook subscriptions and events: wire shapes shared by the client and the sandbox. */

export const WEBHOOK_EVENTS = [
  'order_placed',
  'quote_request_received',
  'product_purchased',
  'quote_request_updated',
  'order_updated',
] as const
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number]
export const WebhookEventType = z.enum(WEBHOOK_EVENTS)

/** Input spellings accepted besides the interface's (interface, Events). */
export const WEBHOOK_EVENT_ALIASES: Readonly<Record<string, WebhookEventType>> = {
  quote_request_recieved: 'quote_request_received',
}

/** An event name as sent, with the documented misspelling accepted and answered correctly. */
export const WebhookEventName = z
  .string()
  .transform((s) => WEBHOOK_EVENT_ALIASES[s.trim()] ?? s.trim())
  .pipe(WebhookEventType)

/** Header carrying the subscription secret when useSecret is true. */
export const SIGNATURE_HEADER = 'service-signature'
/** [ext] `t=<unix s>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed by the secret>`. */
export const SIGNATURE_SHA256_HEADER = 'service-signature-sha256'

/**
 * The secret travels as a header value (service-signature), which carries ASCII
 * only, and loses spaces at either end: what the header cannot carry unchanged
 * is refused, so a receiver never sees a secret other than the one set.
 */
const secret = z
  .string()
  .min(1, 'must not be empty')
  .max(512)
  .regex(
    /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/,
    'must be printable ASCII (letters, digits, punctuation; spaces only inside), as it travels in the service-signature header',
  )
const events = z
  .array(WebhookEventName)
  .min(1, 'must have at least 1 item')
  .max(WEBHOOK_EVENTS.length + 5)
  .transform((list) => [...new Set(list)])

export const CreateWebhookBody = z.object({
  businessId: z.string().min(1),
  url: HttpUrl,
  secret,
  events,
  useSecret: z.boolean().optional(),
})
export type CreateWebhookBody = z.infer<typeof CreateWebhookBody>

export const UpdateWebhookBody = z.object({
  url: HttpUrl.optional(),
  secret: secret.optional(),
  events: events.optional(),
  useSecret: z.boolean().optional(),
})
export type UpdateWebhookBody = z.infer<typeof UpdateWebhookBody>

/**
 * A subscription as the sandbox answers it (strict; the secret is returned, as the
 * interface says). The CLI reads answers with read/webhooks.ts; read/types.ts
 * names the read shapes.
 */
export const WebhookRecord = z.looseObject({
  _id: z.string(),
  url: z.string(),
  secret: z.string(),
  events: z.array(z.string()),
  useSecret: z.boolean(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
})

export const WebhookAnswer = z.looseObject({message: z.string(), data: z.array(WebhookRecord)})

/** [ext] One attempt of a delivery, in the sandbox's delivery log. */
export const DeliveryAttempt = z.looseObject({
  attempt: z.number().int(),
  at: z.string(),
  durationMs: z.number(),
  statusCode: z.number().int().nullable(),
  error: z.string().nullable(),
})
export const DeliveryStatus = z.enum(['pending', 'delivered', 'failed'])
/** [ext] A delivery of one event to one subscription. */
export const Delivery = z.looseObject({
  _id: z.string(),
  eventId: z.string(),
  type: z.string(),
  status: DeliveryStatus,
  attempts: z.array(DeliveryAttempt),
  nextAttemptAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type Delivery = z.infer<typeof Delivery>
/** A delivery as `webhook deliveries` shows it: with the last attempt's status code, or its error (null before any). */
export const ShownDelivery = Delivery.extend({lastStatusCode: z.union([z.number(), z.string()]).nullable()})
export type ShownDelivery = z.infer<typeof ShownDelivery>
export const DeliveriesAnswer = z.looseObject({message: z.string(), data: z.array(Delivery)})

/** [ext] POST /integrations_ms/webhooks/{businessId}/trigger body. */
export const TriggerBody = z.object({type: WebhookEventName, webhookId: z.string().min(1).optional()})
