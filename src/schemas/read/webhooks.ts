import type * as z from 'zod'

import {WEBHOOK_EVENTS} from '../webhooks.js'
import {bool, isoDate, list, openEnum, page, record, text} from './core.js'

/**
 * Webhook subscriptions as the CLI reads them: a subscription needs its `_id`.
 * `useSecret` absent means false and `events` absent means none, as the
 * interface's defaults say.
 */
export const WebhookRecordRead = record({
  _id: text(),
  url: text().optional(),
  secret: text().optional(),
  events: list(openEnum(WEBHOOK_EVENTS), {dropUnreadable: true}).default([]),
  useSecret: bool().default(false),
  createdAt: isoDate().optional(),
  updatedAt: isoDate().optional(),
})
export type WebhookRecordRead = z.infer<typeof WebhookRecordRead>

/** `{message, data: [subscriptions]}`; also a bare list, and without message. */
export const WebhookAnswerRead = page('data', WebhookRecordRead, {message: text().optional()})
export type WebhookAnswerRead = z.infer<typeof WebhookAnswerRead>

/**
 * A delivery's body as a receiver reads it. The interface promises a type and a data
 * field; the contract adds id and createdAt, which a real service may leave out (or
 * send as a number and epoch ms). Data that is null, absent or no object reads as {}.
 */
export const WebhookEventRead = record({
  id: text().optional(),
  type: text(),
  createdAt: isoDate().optional(),
  data: record({}).default({}),
})
export type WebhookEventRead = z.infer<typeof WebhookEventRead>
