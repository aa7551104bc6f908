import {createHmac} from 'node:crypto'
import {request as httpRequest, type ClientRequest} from 'node:http'
import {request as httpsRequest} from 'node:https'

import {SIGNATURE_HEADER, SIGNATURE_SHA256_HEADER, type WebhookEventType} from '../schemas/webhooks.js'
import {newId} from './ids.js'
import {v1Record} from './records.js'
import type {DeliveryRow} from './store/deliveries.js'
import type {DemandDoc} from './store/demands.js'
import type {Store} from './store/index.js'

/**
 * Webhook events: emission (an outbox in SQLite, written in the same transaction as
 * the demand change) and the delivery worker that drains it.
 */

// ---------------------------------------------------------------- emission

/**
 * Queues an event for every subscription of the business that listens to `type`.
 * Nothing is stored when none does. Answers the event id, or undefined.
 */
export function emitEvent(
  store: Store,
  businessId: string,
  type: WebhookEventType,
  data: Record<string, unknown>,
  now: number,
  only?: string,
): {id: string; deliveries: number} | undefined {
  const subscribers = store.webhooks
    .listByBusiness(businessId)
    .filter((w) => w.events.includes(type) && (only === undefined || w.id === only))
  if (subscribers.length === 0) return undefined
  const id = `evt_${newId(now)}`
  const body = JSON.stringify({id, type, createdAt: new Date(now).toISOString(), data})
  store.deliveries.enqueue(
    {id, businessId, type, createdAt: now, body},
    subscribers.map((w) => ({id: `dlv_${newId(now)}`, webhookId: w.id})),
    now,
  )
  return {id, deliveries: subscribers.length}
}

const takenAsOf = (doc: DemandDoc): string | undefined =>
  (doc as unknown as {jobDetails?: {takenAs?: string}}).jobDetails?.takenAs

/** Events of a new demand: quote_request_received or order_placed, plus product_purchased for a by-product order. */
export function emitCreated(store: Store, doc: DemandDoc, now: number, takenAs: string, productId?: string): void {
  const record = v1Record(doc)
  emitEvent(store, doc.business, takenAs === 'ORDER' ? 'order_placed' : 'quote_request_received', record, now)
  if (productId !== undefined) emitEvent(store, doc.business, 'product_purchased', {...record, productId}, now)
}

/**
 * Events of an update: order_placed when a quote became an order, else
 * quote_request_updated or order_updated, and nothing when the record did not change.
 */
export function emitUpdated(
  store: Store,
  previous: DemandDoc,
  doc: DemandDoc,
  now: number,
  becameOrder: boolean,
  takenAs: string,
): void {
  const record = v1Record(doc)
  if (becameOrder) {
    emitEvent(store, doc.business, 'order_placed', record, now)
    return
  }
  const same =
    JSON.stringify({...previous, updatedAt: ''}) === JSON.stringify({...doc, updatedAt: ''}) &&
    takenAsOf(previous) === takenAsOf(doc)
  if (same) return
  emitEvent(store, doc.business, takenAs === 'ORDER' ? 'order_updated' : 'quote_request_updated', record, now)
}

// ---------------------------------------------------------------- delivery

export interface DeliveryOptions {
  /** First retry delay; the n-th retry waits base × 2^(n-1). Default 1000 ms. */
  retryBaseMs?: number
  /** An attempt without an answer after this long fails. Default 10 s. */
  timeoutMs?: number
  /** Attempts before a delivery is given up. Default 8. */
  maxAttempts?: number
  /**
   * On stop, in-flight attempts get this long to finish; the rest are cut and count as
   * failed attempts (retried with the back-off by the next sandbox on the data). Default 2 s.
   */
  drainMs?: number
}

export const DELIVERY_DEFAULTS = {retryBaseMs: 1000, timeoutMs: 10_000, maxAttempts: 8, drainMs: 2000} as const

/** `t=<unix s>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` (contract, Events). */
export function signatureSha256(secret: string, body: string, timestampS: number): string {
  const v1 = createHmac('sha256', secret).update(`${timestampS}.${body}`).digest('hex')
  return `t=${timestampS},v1=${v1}`
}

/** The error of an attempt cut short because the sandbox stopped (close()) first. */
export const STOPPED_ERROR = 'the sandbox stopped before the receiver answered'

interface Flight {
  request?: ClientRequest
  done: Promise<void>
}

interface Outcome {
  statusCode: number | null
  error: string | null
}

/**
 * Drains the delivery queue: per subscription, the oldest pending delivery is
 * attempted; the next one waits until it is delivered (2xx) or given up after
 * `maxAttempts`, so deliveries arrive in order per subscription. Retries back
 * off exponentially. Everything is in SQLite, so a restarted sandbox resumes:
 * a pending delivery keeps its retry time, never later than this worker's back-off
 * from its start (a sandbox restarted with a shorter back-off retries sooner).
 * Scheduling uses real time (not the app's clock), so a frozen test clock
 * does not stall deliveries.
 */
export class DeliveryWorker {
  private readonly opts: Required<DeliveryOptions>
  private readonly inFlight = new Map<string, Flight>()
  private timer: NodeJS.Timeout | undefined
  private immediate: NodeJS.Immediate | undefined
  private running = false
  private unsubscribe: (() => void) | undefined

  constructor(
    private readonly store: Store,
    opts: DeliveryOptions = {},
  ) {
    this.opts = {
      retryBaseMs: opts.retryBaseMs ?? DELIVERY_DEFAULTS.retryBaseMs,
      timeoutMs: opts.timeoutMs ?? DELIVERY_DEFAULTS.timeoutMs,
      maxAttempts: opts.maxAttempts ?? DELIVERY_DEFAULTS.maxAttempts,
      drainMs: opts.drainMs ?? DELIVERY_DEFAULTS.drainMs,
    }
  }

  start(): void {
    if (this.running) return
    this.running = true
    const now = Date.now()
    this.store.deliveries.resume((attempts) => now + this.backoffMs(attempts))
    this.unsubscribe = this.store.deliveries.onEnqueue(() => this.kick())
    this.kick()
  }

  /**
   * Stops scheduling, lets in-flight attempts finish for up to drainMs, then cuts the
   * rest: each is a failed attempt (STOPPED_ERROR), retried with the back-off like any other.
   */
  async stop(): Promise<void> {
    if (!this.running) return
    this.running = false
    this.unsubscribe?.()
    this.unsubscribe = undefined
    if (this.timer) clearTimeout(this.timer)
    if (this.immediate) clearImmediate(this.immediate)
    this.timer = undefined
    this.immediate = undefined
    const flights = [...this.inFlight.values()]
    if (flights.length === 0) return
    let drainTimer: NodeJS.Timeout | undefined
    const drained = Promise.all(flights.map((f) => f.done)).then(() => true)
    const timedOut = new Promise<boolean>((resolve) => {
      drainTimer = setTimeout(() => resolve(false), this.opts.drainMs)
    })
    const finished = await Promise.race([drained, timedOut])
    if (drainTimer) clearTimeout(drainTimer)
    if (!finished) {
      for (const flight of flights) flight.request?.destroy(new Error(STOPPED_ERROR))
      await Promise.all(flights.map((f) => f.done))
    }
  }

  /** Looks at the queue soon (after the current transaction has committed). */
  kick(): void {
    if (!this.running || this.immediate) return
    this.immediate = setImmediate(() => {
      this.immediate = undefined
      this.pump()
    })
  }

  private pump(): void {
    if (!this.running) return
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    const now = Date.now()
    let next = Number.POSITIVE_INFINITY
    for (const head of this.store.deliveries.heads()) {
      if (this.inFlight.has(head.webhookId)) continue
      const due = head.nextAttemptAt ?? now
      if (due <= now) this.attempt(head)
      else next = Math.min(next, due)
    }
    if (next !== Number.POSITIVE_INFINITY) {
      this.timer = setTimeout(() => {
        this.timer = undefined
        this.pump()
      }, next - now)
      this.timer.unref()
    }
  }

  private attempt(delivery: DeliveryRow): void {
    const webhook = this.store.webhooks.get(delivery.webhookId)
    const event = this.store.deliveries.event(delivery.eventId)
    const attempt = delivery.attempts + 1
    const started = Date.now()
    if (!webhook || !event) {
      this.finish(delivery, attempt, started, {statusCode: null, error: 'the subscription or the event is gone'}, true)
      return
    }
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(event.body)),
      'user-agent': 'mfg-sandbox-webhooks/1',
      [SIGNATURE_SHA256_HEADER]: signatureSha256(webhook.secret, event.body, Math.floor(started / 1000)),
    }
    if (webhook.useSecret) headers[SIGNATURE_HEADER] = webhook.secret
    const flight: Flight = {done: Promise.resolve()}
    flight.done = this.post(webhook.url, event.body, headers, flight).then((outcome) => {
      this.inFlight.delete(delivery.webhookId)
      this.finish(delivery, attempt, started, outcome, false)
    })
    this.inFlight.set(delivery.webhookId, flight)
  }

  private finish(delivery: DeliveryRow, attempt: number, started: number, outcome: Outcome, giveUp: boolean): void {
    const now = Date.now()
    const ok = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300
    let status: 'delivered' | 'failed' | 'pending' = 'pending'
    let nextAttemptAt: number | null = null
    if (ok) status = 'delivered'
    else if (giveUp || attempt >= this.opts.maxAttempts) status = 'failed'
    else nextAttemptAt = now + this.backoffMs(attempt)
    this.store.deliveries.record(
      delivery,
      {
        deliveryId: delivery.id,
        attempt,
        startedAt: started,
        durationMs: now - started,
        statusCode: outcome.statusCode,
        error: outcome.error,
      },
      status,
      nextAttemptAt,
      now,
    )
    this.kick()
  }

  /** How long after its `attempts`-th failed attempt a delivery is tried again. */
  private backoffMs(attempts: number): number {
    return this.opts.retryBaseMs * 2 ** (attempts - 1)
  }

  /** One POST on a fresh connection; resolves with the status code or the error, never rejects. */
  private post(url: string, body: string, headers: Record<string, string>, flight: Flight): Promise<Outcome> {
    return new Promise<Outcome>((resolve) => {
      let settled = false
      const settle = (outcome: Outcome) => {
        if (settled) return
        settled = true
        clearTimeout(timeout)
        resolve(outcome)
      }
      const timeout = setTimeout(() => {
        request.destroy(new Error(`no answer within ${this.opts.timeoutMs / 1000} s`))
      }, this.opts.timeoutMs)
      let request: ClientRequest
      try {
        const send = url.startsWith('https:') ? httpsRequest : httpRequest
        request = send(url, {method: 'POST', headers, agent: false}, (response) => {
          const statusCode = response.statusCode ?? null
          response.on('error', () => settle({statusCode, error: null}))
          response.on('end', () => settle({statusCode, error: null}))
          response.on('close', () => settle({statusCode, error: null}))
          response.resume()
        })
      } catch (error) {
        clearTimeout(timeout)
        resolve({statusCode: null, error: (error as Error).message})
        return
      }
      flight.request = request
      request.on('error', (error) => settle({statusCode: null, error: error.message}))
      request.end(body)
    })
  }
}
