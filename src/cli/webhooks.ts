import {UsageError} from './errors.js'
import {askSecret, canPrompt} from './prompt.js'
import type {WebhookRecord} from '../schemas/read/types.js'
import {maskUrlPassword} from '../schemas/secrets.js'
import type {Delivery, ShownDelivery} from '../schemas/webhooks.js'
import type {ReceivedEvent} from '../services/webhooks/listen.js'
import {tableCell} from './render.js'

/** Where a webhook secret may come from, in order: the flag, MFG_WEBHOOK_SECRET, a hidden prompt. */
export const WEBHOOK_SECRET_ENV = 'MFG_WEBHOOK_SECRET'

/**
 * The webhook secret: `--secret`, else MFG_WEBHOOK_SECRET, else a hidden prompt
 * in a terminal. `required: false` answers undefined instead of asking.
 */
export async function webhookSecret(opts: {
  flag?: string
  required: boolean
  prompt?: boolean
}): Promise<string | undefined> {
  if (opts.flag !== undefined) {
    if (opts.flag === '') throw new UsageError('--secret must not be empty.')
    return opts.flag
  }
  const env = process.env[WEBHOOK_SECRET_ENV]
  if (env) return env
  if (!opts.required && !opts.prompt) return undefined
  if (!canPrompt()) {
    throw new UsageError(
      `Missing webhook secret: pass --secret or set ${WEBHOOK_SECRET_ENV} (no terminal to prompt in).`,
    )
  }
  return askSecret({flag: '--secret', message: 'Webhook secret (hidden):'})
}

/** A table row of `webhook list`: the events joined by commas; an absent url an empty cell. */
export function webhookRow(hook: WebhookRecord): Record<string, unknown> {
  return {...hook, events: Array.isArray(hook.events) ? hook.events.join(',') : ''}
}

/** Why a subscription's secret does not reach its receiver, and the command that changes it. */
export function secretNotSent(id: string): string {
  return `kept but not sent: deliveries carry it only with useSecret on (mfg webhook update ${id} --use-secret)`
}

/** `webhook create`'s note: where to, which events, the secret masked and whether it is sent. */
export function subscribedNote(hook: WebhookRecord, url: string): string {
  const sent = hook.useSecret ? ', sent in service-signature' : `, ${secretNotSent(hook._id)}`
  const secret = hook.secret ? `secret ${hook.secret}` : 'secret not shown by the service'
  return `Subscribed ${hook.url ?? url} to ${hook.events.join(', ')} (${secret}${sent}).`
}

/** `webhook update`'s line: id, destination, events, useSecret and the secret masked. */
export function webhookLine(hook: WebhookRecord): string {
  const [id, url, events, secret] = [hook._id, hook.url ?? '—', hook.events.join(','), hook.secret || '—'].map(
    tableCell,
  )
  return `${id}  ${url}  ${events}  useSecret=${hook.useSecret}  secret ${secret}`
}

/** `webhook deliveries`' columns. */
export const DELIVERY_COLUMNS = [
  'eventId',
  'type',
  'status',
  'attempts',
  'lastStatusCode',
  'nextAttemptAt',
  'createdAt',
] as const
/** What --wide adds, what goes first on a narrow terminal, what is not cut. */
export const DELIVERY_LAYOUT = {
  wide: ['_id', 'updatedAt'],
  drop: ['nextAttemptAt', 'lastStatusCode', 'createdAt', 'attempts'],
  keep: ['eventId', '_id'],
} as const

/** A delivery as `webhook deliveries` answers it: with lastStatusCode, the last attempt's status code or error. */
export function shownDelivery(d: Delivery): ShownDelivery {
  const last = d.attempts.at(-1)
  return {...d, lastStatusCode: last ? (last.statusCode ?? last.error ?? null) : null}
}

/**
 * A table or CSV row of `webhook deliveries`: the attempts counted, unless a
 * column names a field of one (attempts.0.statusCode).
 */
export function deliveryRow(d: ShownDelivery, columns: readonly string[] = []): Record<string, unknown> {
  return columns.some((c) => c.startsWith('attempts.')) ? d : {...d, attempts: d.attempts.length}
}

/**
 * A usage error unless `forwardTo` is an http(s) URL, and plain http only to this
 * machine or with `insecure`: forwarded events keep their headers, service-signature
 * (the webhook secret itself) included.
 */
export async function checkForwardTo(forwardTo: string | undefined, insecure: boolean | undefined): Promise<void> {
  if (forwardTo === undefined) return
  if (!/^https?:\/\/[^/]/i.test(forwardTo)) {
    throw new UsageError(`--forward-to must be an http(s) URL, got ${JSON.stringify(maskUrlPassword(forwardTo))}.`)
  }
  const {isLoopbackHost} = await import('../api/http.js')
  const {insecureFromEnv} = await import('./context.js')
  const target = new URL(forwardTo)
  if (target.protocol === 'http:' && !isLoopbackHost(target.hostname) && !insecure && !insecureFromEnv(process.env)) {
    throw new UsageError(
      `--forward-to ${target.host} is plain http to another machine: each event's service-signature header (the webhook secret) would travel in clear. Use https, or pass --insecure (or set MFG_INSECURE=1) to allow it.`,
    )
  }
}

/** `webhook listen`'s line for one event: when, type, id, and the order or record it is about. */
export function eventLine(e: ReceivedEvent): string {
  const data = e.data as {_id?: unknown; orderNumber?: unknown}
  // Anyone who can reach the listener may send an event: no field of it may send terminal codes.
  const subject =
    data.orderNumber === undefined ? tableCell(data._id) : `order ${tableCell(data.orderNumber)} ${tableCell(data._id)}`
  const again = e.redelivered ? '  (again: delivered before)' : ''
  return `${e.receivedAt}  ${tableCell(e.type).padEnd(22)}  ${tableCell(e.id ?? '—')}  ${subject}${again}`
}

/** What `webhook listen` says once it listens: where, whether signatures are checked, the filters. */
export function listeningNote(url: string, opts: {secret?: string; events?: string[]; forwardTo?: string}): string {
  const checked =
    opts.secret === undefined
      ? `signatures NOT checked: pass --secret or set ${WEBHOOK_SECRET_ENV}`
      : 'signatures checked'
  const events = opts.events ? `; events ${opts.events.join(', ')}` : ''
  const forward = opts.forwardTo ? `; forwarding to ${maskUrlPassword(opts.forwardTo)}` : ''
  return `Listening for webhooks on ${url} (${checked}${events}${forward}).`
}
