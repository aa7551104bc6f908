import {randomBytes} from 'node:crypto'

import {parseResponse} from '../../api/parse.js'
import {DemandRecordRead} from '../../schemas/read/demand.js'
import {startListener, type ReceivedEvent} from '../webhooks/listen.js'
import {createWebhook, listWebhooks, updateWebhook} from '../webhooks/subscriptions.js'
import type {DemandRecord} from '../../schemas/read/types.js'
import type {WebhookEventType} from '../../schemas/webhooks.js'
import type {ServiceContext} from '../context.js'

/** The events of demands, new and changed (product_purchased repeats order_placed). */
export const WATCH_EVENTS: WebhookEventType[] = [
  'quote_request_received',
  'quote_request_updated',
  'order_placed',
  'order_updated',
]

export interface ReceiverOptions {
  /** Port on 127.0.0.1 (0: a free one). */
  port: number
  /** The address the service is to send to, when it is not the receiver's own (a tunnel to it). */
  publicUrl?: string
  /** The subscription a previous watch made: re-pointed at this receiver instead of a new one. */
  subscriptionId?: string
  /** A delivered event with its demand record (undefined when the record could not be read). */
  onEvent(event: ReceivedEvent, record: DemandRecord | undefined): void
  onRejected(reason: string): void
}

export interface Receiver {
  /** Where the service sends. */
  url: string
  subscriptionId: string
  /** Whether the subscription of a previous run was reused. */
  reused: boolean
  close(): Promise<void>
}

/**
 * A local receiver and a subscription for demand events pointing at it, signed
 * with a fresh secret (every delivery is checked). The interface has no call to
 * delete a subscription, so the watch keeps the one it made and re-points it at
 * each start. When the subscription cannot be made (no webhook access, no v2
 * token), the receiver is closed and the error thrown.
 */
export async function startReceiver(ctx: ServiceContext, opts: ReceiverOptions): Promise<Receiver> {
  const secret = randomBytes(24).toString('hex')
  const listener = await startListener({
    port: opts.port,
    secret,
    events: WATCH_EVENTS,
    onEvent: (e) => {
      // Read as leniently as an answer; a record that cannot be read makes the watch poll instead.
      let record: DemandRecord | undefined
      try {
        record = parseResponse(DemandRecordRead, e.data, 'POST', `webhook ${e.type}`) as DemandRecord
      } catch {
        record = undefined
      }
      opts.onEvent(e, record)
    },
    onRejected: (r) => opts.onRejected(`${r.status}: ${r.reason}`),
  })
  const url = opts.publicUrl ?? listener.url
  try {
    const wanted = {url, secret, events: WATCH_EVENTS, useSecret: true}
    const previous = opts.subscriptionId
    const exists = previous !== undefined && (await listWebhooks(ctx)).some((w) => w._id === previous)
    if (exists) {
      await updateWebhook(ctx, previous, wanted)
      return {url, subscriptionId: previous, reused: true, close: () => listener.close()}
    }
    const made = await createWebhook(ctx, wanted)
    const id = made.hook?._id ?? (await listWebhooks(ctx)).find((w) => w.url === url)?._id
    if (id === undefined) throw new Error('the service did not say which subscription it made')
    return {url, subscriptionId: id, reused: false, close: () => listener.close()}
  } catch (error) {
    await listener.close()
    throw error
  }
}
