import {ApiError} from '../../api/errors.js'
import {
  createWebhook as sendCreate,
  listDeliveries as fetchDeliveries,
  listWebhooks as fetchList,
  triggerEvent as sendTrigger,
  updateWebhook as sendUpdate,
  type TriggerAnswer,
} from '../../api/v2/webhooks.js'
import {notAllowed} from '../../schemas/issue-reason.js'
import {maskSecret, maskUrlPassword} from '../../schemas/secrets.js'
import {WEBHOOK_EVENTS, WEBHOOK_EVENT_ALIASES, type Delivery, type WebhookEventType} from '../../schemas/webhooks.js'
import type {ServiceContext} from '../context.js'
import {InputError} from '../errors.js'
import type {WebhookRecord} from '../../schemas/read/types.js'

/**
 * A subscription as shown: the secret masked (the service answers it in full; one it
 * left out stays out), and a password in its URL.
 */
export type ShownWebhook = WebhookRecord

export function maskWebhook(record: Record<string, unknown>): ShownWebhook {
  const secret = typeof record.secret === 'string' ? {secret: maskSecret(record.secret)} : {}
  const url = typeof record.url === 'string' ? {url: maskUrlPassword(record.url)} : {}
  const {secret: _given, ...rest} = record
  return {...(rest as WebhookRecord), ...secret, ...url}
}

/** `a,b` into event names: the five of the interface, the documented misspelling accepted. */
export function parseEvents(spec: string, flag = '--events'): WebhookEventType[] {
  const names = spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  if (names.length === 0) throw new InputError(`${flag} needs at least one event: ${WEBHOOK_EVENTS.join(', ')}.`)
  const out: WebhookEventType[] = []
  for (const name of names) {
    const event = WEBHOOK_EVENT_ALIASES[name] ?? name
    if (!(WEBHOOK_EVENTS as readonly string[]).includes(event)) {
      throw new InputError(`${flag}: ${notAllowed(name, WEBHOOK_EVENTS)}`)
    }
    if (!out.includes(event as WebhookEventType)) out.push(event as WebhookEventType)
  }
  return out
}

export interface CreateWebhookInput {
  url: string
  secret: string
  events: WebhookEventType[]
  useSecret?: boolean
}

/** A subscription the service created or changed: shown when its answer (or a read-back) had it. */
export interface WrittenWebhook {
  hook?: ShownWebhook
  /** The status the service confirmed the write with. */
  status: number
}

/** Creates a subscription; the answer may come without it (201/202/204 without a body: `hook` absent). */
export async function createWebhook(ctx: ServiceContext, input: CreateWebhookInput): Promise<WrittenWebhook> {
  const written = await sendCreate(ctx.client, {businessId: ctx.businessId, ...input})
  const record = written.record?.data[0]
  return {status: written.status, ...(record ? {hook: maskWebhook(record)} : {})}
}

export async function listWebhooks(ctx: ServiceContext): Promise<ShownWebhook[]> {
  const answer = await fetchList(ctx.client, ctx.businessId)
  return answer.data.map((r) => maskWebhook(r))
}

export interface UpdateWebhookInput {
  url?: string
  secret?: string
  events?: WebhookEventType[]
  useSecret?: boolean
}

/**
 * Changes a subscription. An answer without it is made up for by reading the
 * business's subscriptions back (one GET); `hook` is absent when that fails too.
 */
export async function updateWebhook(
  ctx: ServiceContext,
  id: string,
  input: UpdateWebhookInput,
): Promise<WrittenWebhook> {
  if (Object.keys(input).length === 0) {
    throw new InputError(
      'Nothing to change: pass --url, --secret (or --prompt-secret), --events or --use-secret/--no-use-secret.',
    )
  }
  const written = await sendUpdate(ctx.client, ctx.businessId, id, input)
  const record = written.record?.data.find((r) => r._id === id) ?? written.record?.data[0]
  if (record) return {status: written.status, hook: maskWebhook(record)}
  const found = await fetchList(ctx.client, ctx.businessId).then(
    (list) => list.data.find((r) => r._id === id),
    () => undefined,
  )
  return {status: written.status, ...(found ? {hook: maskWebhook(found)} : {})}
}

/** The service has no such [ext] route (the real service, or an older sandbox). */
export class UnsupportedError extends Error {
  readonly exitCode = 1
  readonly code = 'unsupported'
  constructor(message: string) {
    super(message)
    this.name = 'UnsupportedError'
  }
}

const MISSING_ROUTE = new Set([404, 405, 501])

/** Whether a 404 means the route is missing: it does when the subscription exists (or none was named). */
async function routeMissing(ctx: ServiceContext, error: unknown, webhookId: string | undefined): Promise<boolean> {
  if (!(error instanceof ApiError) || error.status === undefined || !MISSING_ROUTE.has(error.status)) return false
  if (error.status !== 404 || webhookId === undefined) return true
  const list = await fetchList(ctx.client, ctx.businessId)
  return list.data.some((w) => w._id === webhookId)
}

/** Most deliveries the log answers a request. */
export const DELIVERIES_PAGE = 500

/**
 * [ext] The sandbox's delivery log of one subscription, newest first: the newest `limit`
 * (100 by default; Infinity for all), asked for 500 a request, each page after the last
 * delivery of the one before.
 */
export async function listDeliveries(ctx: ServiceContext, webhookId: string, limit = 100): Promise<Delivery[]> {
  try {
    const found: Delivery[] = []
    const seen = new Set<string>()
    let before: string | undefined
    while (found.length < limit) {
      const want = Math.min(DELIVERIES_PAGE, limit - found.length)
      const page = (
        await fetchDeliveries(ctx.client, ctx.businessId, webhookId, {limit: want, ...(before ? {before} : {})})
      ).data
      // A log that ignores `before` answers the same page again: nothing new, stop.
      const fresh = page.filter((d) => !seen.has(d._id))
      for (const d of fresh) seen.add(d._id)
      found.push(...fresh)
      if (page.length < want || fresh.length === 0) break
      before = page.at(-1)!._id
    }
    return found
  } catch (error) {
    if (await routeMissing(ctx, error, webhookId)) {
      throw new UnsupportedError(
        'This service keeps no delivery log that the CLI can read (it is an extension of the mfg sandbox); check deliveries on your receiver, for example with `mfg webhook listen`.',
      )
    }
    throw error
  }
}

/** [ext] Makes the sandbox send a sample event of a type to the business's subscriptions (or one). */
export async function triggerEvent(
  ctx: ServiceContext,
  type: WebhookEventType,
  webhookId?: string,
): Promise<TriggerAnswer> {
  try {
    return await sendTrigger(ctx.client, ctx.businessId, {type, ...(webhookId ? {webhookId} : {})})
  } catch (error) {
    if (await routeMissing(ctx, error, webhookId)) {
      throw new UnsupportedError(
        'This service cannot send sample events (webhook trigger is an extension of the mfg sandbox); cause a real event instead, for example by creating a quote.',
      )
    }
    throw error
  }
}
