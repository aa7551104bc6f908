import {createHash} from 'node:crypto'
import {join} from 'node:path'

import {Flags} from '@oclif/core'

import {isLoopbackHost} from '../api/http.js'
import type {WatchEvent} from '../services/watch/tracker.js'
import {readerLimitFlags} from './reader-limits.js'
import {UsageError} from './errors.js'
import {numberOf} from './flags.js'
import {quoteFlags} from './quote-run.js'
import {tableCell} from './render.js'

/** `demand watch`: its flags and the decisions taken from them. */

const HOOK = {helpGroup: 'WEBHOOK RECEIVER'}
const QUOTE = {helpGroup: 'QUOTE'}

/** The quote flags that make sense for each new request (no selection, no --send). */
const {apply, 'dry-run': dryRun, legacy, currency, technology, material, thickness, force} = quoteFlags
const guards = quoteFlags

export const watchFlags = {
  interval: Flags.string({
    description: 'Seconds between two polls of the demand list (at least 0.2).',
    default: '30',
    helpValue: 'SECONDS',
  }),
  since: Flags.string({
    description:
      'On the first run (no saved state), also show demands created since then: 30m, 12h, 2d, or an ISO date.',
    helpValue: 'AGE|DATE',
  }),
  once: Flags.boolean({description: 'Catch up from the saved state once, print what changed, and stop (for cron).'}),
  'exit-after': Flags.integer({description: 'Stop after this many events.', min: 1, helpValue: 'N'}),
  webhook: Flags.boolean({
    ...HOOK,
    description:
      'Receive webhooks as well as polling (default: when the service is on this machine, or with --public-url).',
    allowNo: true,
  }),
  'public-url': Flags.string({
    ...HOOK,
    description: 'The https address (a tunnel) at which the service reaches this machine’s receiver on --port.',
    dependsOn: ['port'],
  }),
  port: Flags.integer({...HOOK, description: 'Receiver port on 127.0.0.1 (default: a free one).', min: 0, max: 65_535}),
  quote: Flags.boolean({...QUOTE, description: 'Quote each new request as it arrives (as mfg demand quote does).'}),
  apply: {...apply, ...QUOTE, dependsOn: ['quote']},
  'dry-run': {...dryRun, ...QUOTE, dependsOn: ['quote']},
  legacy: {...legacy, dependsOn: ['quote']},
  currency: {...currency, dependsOn: ['quote']},
  technology: {...technology, dependsOn: ['quote']},
  material: {...material, dependsOn: ['quote']},
  thickness: {...thickness, dependsOn: ['quote']},
  'max-unit-price': {...guards['max-unit-price'], dependsOn: ['quote']},
  'min-total': {...guards['min-total'], dependsOn: ['quote']},
  'max-total': {...guards['max-total'], dependsOn: ['quote']},
  'only-format': {...guards['only-format'], dependsOn: ['quote']},
  'allow-partial': {...guards['allow-partial'], dependsOn: ['quote']},
  force: {...force, ...QUOTE, dependsOn: ['quote']},
  ...readerLimitFlags('PART FILE LIMITS', ['quote']),
}

/** `--interval` in ms. */
export function intervalMs(raw: string): number {
  const seconds = numberOf(raw, '--interval')
  if (seconds === undefined || seconds < 0.2)
    throw new UsageError(`--interval must be 0.2 seconds or more, got ${raw}.`)
  return Math.round(seconds * 1000)
}

const UNIT_MS: Record<string, number> = {s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000}

/** `--since`: an age (30m, 12h, 2d) before `now`, or a date; epoch ms. */
export function sinceMs(raw: string, now = Date.now()): number {
  const age = /^(\d+(?:\.\d+)?)\s*([smhdw])$/i.exec(raw.trim())
  if (age) return now - Number(age[1]) * UNIT_MS[age[2]!.toLowerCase()]!
  const date = /^\d{4}-\d{2}-\d{2}/.test(raw.trim()) ? Date.parse(raw.trim()) : Number.NaN
  if (Number.isNaN(date)) {
    throw new UsageError(
      `--since takes an age (a number and s, m, h, d or w, such as 30m or 2d) or an ISO date (2026-05-01 or 2026-05-01T08:00:00Z); got ${JSON.stringify(raw)}.`,
    )
  }
  return date
}

/**
 * Whether to run a receiver: --no-webhook never; --public-url always; otherwise
 * only when the service is on this machine (the embedded sandbox, a local one),
 * since a service elsewhere cannot reach 127.0.0.1.
 */
export function receiverPlan(
  flags: {webhook?: boolean; 'public-url'?: string; port?: number},
  baseUrl: string,
  insecure = false,
): {port: number; publicUrl?: string} | undefined {
  const publicUrl = flags['public-url']
  if (flags.webhook === false) {
    if (publicUrl !== undefined) throw new UsageError('--public-url is for the webhook receiver: drop --no-webhook.')
    return undefined
  }
  if (publicUrl !== undefined) {
    if (!/^https?:\/\/[^/]/i.test(publicUrl))
      throw new UsageError(`--public-url must be an http(s) URL, got ${JSON.stringify(publicUrl)}.`)
    const host = new URL(publicUrl)
    if (host.protocol === 'http:' && !isLoopbackHost(host.hostname) && !insecure) {
      // Each delivery carries the subscription's secret in its service-signature header.
      throw new UsageError(
        `--public-url ${host.host} is plain http to another machine: each delivery's service-signature header (the secret) would travel in clear. Use an https address, or pass --insecure (or set MFG_INSECURE=1).`,
      )
    }
    return {port: flags.port ?? 0, publicUrl}
  }
  if (isLoopbackHost(new URL(baseUrl).hostname)) return {port: flags.port ?? 0}
  if (flags.webhook === true) {
    throw new UsageError(
      `--webhook: the service at ${new URL(baseUrl).host} cannot reach a receiver on 127.0.0.1; pass --public-url with a tunnel to --port, or leave --webhook out to poll.`,
    )
  }
  return undefined
}

/** Where the state of this profile's watch of this service is kept. */
export function stateFileOf(dataDir: string, profile: string, target: string): string {
  const key = createHash('sha256').update(`${profile}\n${target}`).digest('hex').slice(0, 16)
  return join(dataDir, 'watch', `${key}.json`)
}

/** One line a person reads. */
export function eventLine(e: WatchEvent): string {
  const order = e.orderNumber === undefined ? '' : `order ${tableCell(e.orderNumber)}  `
  const stage = (s: string | null | undefined, none: string) => (s === undefined || s === null ? none : tableCell(s))
  const what = e.event === 'stage' ? `${stage(e.previousStage, '?')} → ${stage(e.stage, '?')}` : stage(e.stage, '')
  const kind = e.takenAs === undefined ? '' : `${tableCell(e.takenAs.toLowerCase())}  `
  const archived = e.archived ? ', archived' : ''
  return `${tableCell(e.at ?? '-')}  ${e.event.padEnd(7)}  ${tableCell(e.id)}  ${order}${kind}${what}${archived}  (${e.via})`
}

/** A new request to quote: created, taken as a quote. */
export function isNewRequest(e: WatchEvent): boolean {
  return e.event === 'created' && e.takenAs !== 'ORDER' && (e.stage === 'quote_sent' || e.stage === 'Quote Sent')
}
