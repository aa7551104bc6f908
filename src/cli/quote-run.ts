import {join} from 'node:path'

import {Flags} from '@oclif/core'

import {
  ApiError,
  AuthenticationError,
  InsecureTransportError,
  NetworkError,
  RateLimitError,
  ServerError,
} from '../api/errors.js'

import {LIST_TYPES, STAGES, type ListType} from '../schemas/demand.js'
import type {ListDemandsInput} from '../services/demands/list.js'
import type {ServiceContext} from '../services/context.js'
import type {OpenedQuoteJournal, QuoteJournal, QuoteRunKey} from '../services/quote/journal.js'
import type {QuoteOptions, QuoteOutcome} from '../services/quote/types.js'
import type {QuoteCounts} from './quote-render.js'
import {UsageError} from './errors.js'
import {numberOf, yesFlag} from './flags.js'
import {SlicerNotFoundError, findPrusaSlicer} from '../services/price/slicer.js'
import {canPrompt} from './prompt.js'
import {limitsOf, readerLimitFlags, type ReaderLimitFlags} from './reader-limits.js'

/**
 * `demand quote`'s flags and the decisions taken from them before anything is
 * read: dry run or apply, which demands, the guards.
 */

/** The stage a new quote request is in on this service (a new demand starts in quote_sent). */
export const NEW_REQUESTS = 'quote_request_received'
export const FORMATS = ['stl', 'obj', '3mf', 'step', 'iges', 'dxf'] as const

const GUARD = {helpGroup: 'GUARDS'}
const PICK = {helpGroup: 'WHICH DEMANDS'}
const PRICE = {helpGroup: 'PRICING'}

export const quoteFlags = {
  apply: Flags.boolean({description: 'Write the prices to the demands.', exclusive: ['dry-run']}),
  'dry-run': Flags.boolean({description: 'Only show the quote; write nothing (the default on a terminal).'}),
  send: Flags.boolean({description: 'Also move each quoted demand to quote_sent (emails the buyer). Needs --apply.'}),
  yes: yesFlag,
  all: Flags.boolean({...PICK, description: 'Quote every demand the filters select, instead of ids.'}),
  type: Flags.string({...PICK, description: 'With --all: which demands.', options: [...LIST_TYPES], default: 'quotes'}),
  status: Flags.string({
    ...PICK,
    description: `With --all: only demands in this stage; ${NEW_REQUESTS} is the new requests (quotes in quote_sent).`,
    options: [NEW_REQUESTS, ...STAGES],
  }),
  archived: Flags.boolean({...PICK, description: 'With --all: archived demands instead.'}),
  limit: Flags.integer({...PICK, description: 'With --all: the most demands to quote.', min: 1}),
  legacy: Flags.boolean({
    ...PRICE,
    description: 'Price on the legacy estimation (the demand currency unless --currency).',
  }),
  currency: Flags.string({...PRICE, description: 'Currency to price in (default: the demand currency).'}),
  technology: Flags.string({
    ...PRICE,
    aliases: ['machine'],
    description:
      'Machine technology to price every part on (for example FDM, SLS, CNC), instead of what each part says.',
  }),
  material: Flags.string({...PRICE, description: 'Material to price every part in, instead of what each part says.'}),
  thickness: Flags.string({...PRICE, description: 'Sheet thickness in mm for DXF parts whose demand says none.'}),
  slicer: Flags.string({
    ...PRICE,
    options: ['prusa'],
    description:
      'Slice FDM parts with PrusaSlicer for print hours, filament and layers instead of the built-in estimate (prusa-slicer on PATH, or MFG_PRUSA_SLICER).',
  }),
  'max-unit-price': Flags.string({...GUARD, description: 'Skip a demand with a part whose unit price is above this.'}),
  'min-total': Flags.string({...GUARD, description: "Skip a demand whose parts' total is below this."}),
  'max-total': Flags.string({...GUARD, description: "Skip a demand whose parts' total is above this."}),
  'only-format': Flags.string({
    ...GUARD,
    description: `Quote only demands whose every part is in these formats (comma-separated: ${FORMATS.join(', ')}).`,
  }),
  'allow-partial': Flags.boolean({
    ...GUARD,
    description: 'Write the parts that priced when another part cannot be read.',
  }),
  force: Flags.boolean({description: 'Quote again even when nothing changed since the last quote.'}),
  ...readerLimitFlags('PART FILE LIMITS'),
}

export interface QuoteFlags extends ReaderLimitFlags {
  apply: boolean
  'dry-run': boolean
  send: boolean
  all: boolean
  type: string
  status?: string
  archived: boolean
  limit?: number
  legacy: boolean
  currency?: string
  technology?: string
  material?: string
  thickness?: string
  slicer?: string
  'max-unit-price'?: string
  'min-total'?: string
  'max-total'?: string
  'only-format'?: string
  'allow-partial': boolean
  force: boolean
}

/**
 * Whether the run writes. On a terminal a dry run is the default; off one (cron,
 * CI) nothing is assumed: --apply or --dry-run must be given.
 */
export function writes(flags: QuoteFlags): boolean {
  if (flags.apply) return true
  if (flags['dry-run'] || canPrompt()) return false
  throw new UsageError(
    'Quoting writes prices to demands: pass --apply to write them, or --dry-run to only show them (no terminal, so neither is assumed).',
  )
}

/** The demands asked for: ids, or --all with the list filters. */
export function checkSelection(ids: string[], flags: QuoteFlags): void {
  if (ids.length > 0 && flags.all) throw new UsageError('Pass demand ids or --all, not both.')
  if (ids.length === 0 && !flags.all)
    throw new UsageError('Which demands? Pass one or more demand ids, or --all (with --status, --type, --limit).')
  if (flags.send && !flags.apply) throw new UsageError('--send moves demands to quote_sent: it needs --apply.')
  const listOnly = (['status', 'limit'] as const).filter((k) => flags[k] !== undefined)
  if (!flags.all && (listOnly.length > 0 || flags.archived))
    throw new UsageError(
      `--${[...listOnly, ...(flags.archived ? ['archived'] : [])][0]} selects demands with --all only.`,
    )
}

export function listInputOf(flags: QuoteFlags): ListDemandsInput {
  const fresh = flags.status === NEW_REQUESTS
  return {
    type: (fresh ? 'quotes' : flags.type) as ListType,
    ...(flags.status ? {status: fresh ? 'quote_sent' : flags.status} : {}),
    ...(flags.archived ? {archived: true} : {}),
    ...(flags.limit === undefined ? {} : {limit: flags.limit}),
  }
}

function formatsOf(text: string): string[] {
  const list = text
    .split(',')
    .map((s) => s.trim().toLowerCase().replace(/^\./, ''))
    .filter(Boolean)
    .map((s) => (s === 'stp' ? 'step' : s === 'igs' ? 'iges' : s))
  const bad = list.find((f) => !(FORMATS as readonly string[]).includes(f))
  if (bad !== undefined || list.length === 0)
    throw new UsageError(`--only-format takes ${FORMATS.join(', ')} (comma-separated); got ${JSON.stringify(text)}.`)
  return list
}

function positive(raw: string | undefined, flag: string): number | undefined {
  const n = numberOf(raw, flag)
  if (n !== undefined && n < 0) throw new UsageError(`${flag} must be 0 or more, got ${raw}.`)
  return n
}

/** The service's options from the flags; the directories come from the command. */
export function quoteOptionsOf(
  flags: QuoteFlags,
  dirs: {cacheDir: string; stateDir: string},
  apply: boolean,
): QuoteOptions {
  const guards = {
    ...pick('maxUnitPrice', positive(flags['max-unit-price'], '--max-unit-price')),
    ...pick('minTotal', positive(flags['min-total'], '--min-total')),
    ...pick('maxTotal', positive(flags['max-total'], '--max-total')),
    ...pick('onlyFormats', flags['only-format'] === undefined ? undefined : formatsOf(flags['only-format'])),
  }
  const thickness = positive(flags.thickness, '--thickness')
  const limits = limitsOf(flags)
  let slicer: {binary: string} | undefined
  if (flags.slicer !== undefined) {
    const binary = findPrusaSlicer()
    if (!binary) throw new SlicerNotFoundError()
    slicer = {binary}
  }
  return {
    apply,
    send: flags.send,
    ...dirs,
    guards,
    ...pick('legacy', flags.legacy || undefined),
    ...pick('currency', flags.currency?.toUpperCase()),
    ...pick('technology', flags.technology),
    ...pick('material', flags.material),
    ...pick('thickness', thickness),
    ...pick('slicer', slicer),
    ...pick('allowPartial', flags['allow-partial'] || undefined),
    ...pick('force', flags.force || undefined),
    ...pick('limits', Object.keys(limits).length > 0 ? limits : undefined),
  }
}

function pick<K extends string, V>(key: K, value: V | undefined): {[P in K]?: V} {
  return (value === undefined ? {} : {[key]: value}) as {[P in K]?: V}
}

/** oclif's cache directory, under MFG_HOME when it is set (as bin/run.js places it). */
export function cacheRoot(oclifCache: string): string {
  const {MFG_CACHE_DIR: dir, MFG_HOME: home} = process.env
  return dir || (home ? join(home, 'oclif', 'cache') : oclifCache)
}

/** A demand the service failed on: reported and counted; a rejected key stops the run. */
export function failedOutcome(id: string, error: unknown, legacy: boolean): QuoteOutcome {
  const stops = error instanceof AuthenticationError || error instanceof InsecureTransportError
  if (!(error instanceof ApiError) || stops) throw error
  return {
    demandId: id,
    status: 'failed',
    reason: (error.serverMessage ?? error.message).split('\n')[0],
    parts: [],
    currency: null,
    partsTotal: null,
    currentPartsTotal: null,
    difference: null,
    written: false,
    sent: false,
    interface: legacy ? 'legacy' : 'v1',
  }
}

/** The demands a run quotes, and what the interrupted run it resumes already finished. */
export interface QuotePlan {
  targets: string[]
  /** Outcomes the interrupted run finished, by demand id: reported again, not quoted again. */
  earlier: Map<string, QuoteOutcome>
  /** `--all --apply` only: the run's journal (a dry run writes nothing, so it keeps none). */
  journal?: QuoteJournal
}

/** What makes a `--all` run the same as an interrupted one: the service, the filters, the pricing options. */
function runKey(ctx: ServiceContext, flags: QuoteFlags, options: QuoteOptions): QuoteRunKey {
  const {apply: _apply, cacheDir: _cache, stateDir: _state, force: _force, onPart: _on, signal: _sig, ...rest} = options
  return {
    target: `${ctx.target ?? ctx.client.baseUrl} ${ctx.businessId}`,
    selection: {...listInputOf(flags)},
    options: rest,
  }
}

/**
 * The demands to quote: the ids given; with --all the demands the filters select, or,
 * with --apply, those of the interrupted run of the same command (read from its
 * journal, without listing again: a demand it quoted and sent has left the filter).
 */
export async function planQuotes(
  ctx: ServiceContext,
  ids: string[],
  flags: QuoteFlags,
  options: QuoteOptions & {journalDir: string},
  note: (text: string) => void,
): Promise<QuotePlan> {
  if (!flags.all) return {targets: ids, earlier: new Map()}
  const {journalDir, ...quoteOptions} = options
  let opened: OpenedQuoteJournal | undefined
  if (options.apply) {
    const {QuoteJournal} = await import('../services/quote/journal.js')
    opened = QuoteJournal.open(journalDir, runKey(ctx, flags, quoteOptions), {fresh: flags.force})
  }
  if (opened?.targets) {
    const {targets, done} = opened
    note(
      `Resuming the interrupted run of this command: ${done.size} of ${targets.length} demands done; quoting the other ${targets.length - done.size} without listing again (--force starts afresh).`,
    )
    return {targets, earlier: done, journal: opened.journal}
  }
  if (opened?.dropped)
    note(
      `--force: starting afresh; the interrupted run of this command (${opened.dropped.done} of ${opened.dropped.of} demands done) is not resumed.`,
    )
  if (opened && opened.others > 0)
    note(
      'An interrupted run with other filters or pricing options is kept for its own command; this one starts afresh.',
    )
  const targets: string[] = []
  try {
    const {streamDemands} = await import('../services/demands/list.js')
    for await (const r of streamDemands(ctx, listInputOf(flags))) targets.push(r._id)
    await opened?.journal.start(targets)
  } catch (error) {
    await opened?.journal.close()
    throw error
  }
  return {targets, earlier: new Map(), ...(opened ? {journal: opened.journal} : {})}
}

/**
 * The service failing (5xx, 429, no answer) on this many demands in a row, each after the
 * client's own retries, stops the run: the service is down, and the journal lets a later run
 * go on from there instead of failing every other demand in turn.
 */
export const SERVICE_FAILURES_BEFORE_STOP = 3

const serviceDown = (error: unknown) =>
  error instanceof ServerError || error instanceof NetworkError || error instanceof RateLimitError

export interface QuoteTotals {
  counts: QuoteCounts
  sent: number
  /** Outcomes reported from the interrupted run's journal. */
  earlier: number
  /** The exit code of the signal that stopped the run (130 for Ctrl-C), if one did. */
  stopped?: number
  /** Whether the run stopped because the service failed on SERVICE_FAILURES_BEFORE_STOP demands in a row. */
  serviceDown?: boolean
}

/**
 * Quotes the plan's demands one after another, printing each outcome as it is done
 * (an earlier run's, from the journal, in its place in the list) and journalling it
 * before the next. Ctrl-C stops after the current demand. The journal is removed once
 * every demand is finished; it is kept when the run was stopped or the service failed
 * on some, so the same command run again quotes only those.
 */
export async function quoteEach(
  ctx: ServiceContext,
  plan: QuotePlan,
  options: QuoteOptions,
  print: (o: QuoteOutcome) => void,
  note: (text: string) => void,
): Promise<QuoteTotals> {
  const {quoteDemand} = await import('../services/quote/quote.js')
  const {QuoteProgress} = await import('./quote-render.js')
  const {stopOnSignals} = await import('./interrupt.js')
  const progress = new QuoteProgress()
  const totals: QuoteTotals = {
    counts: {quoted: 0, 'would-quote': 0, unchanged: 0, skipped: 0, failed: 0},
    sent: 0,
    earlier: 0,
  }
  const tally = (outcome: QuoteOutcome) => {
    totals.counts[outcome.status]++
    if (outcome.sent) totals.sent++
    print(outcome)
  }
  const {targets} = plan
  const stop = stopOnSignals('Stopping after the current demand (Ctrl-C again to stop at once)...')
  // Done: the interrupted run's, and this run's outcomes but `failed`.
  let finished = targets.filter((id) => plan.earlier.has(id)).length
  let failuresInARow = 0
  try {
    for (const [n, id] of targets.entries()) {
      if (stop.signal.aborted) break
      const before = plan.earlier.get(id)
      if (before) {
        totals.earlier++
        tally({...before, resumed: true})
        continue
      }
      const at = `[${n + 1}/${targets.length}] ${id}`
      progress.show(at)
      let down = false
      const outcome = await quoteDemand(ctx, id, {
        ...options,
        signal: stop.signal,
        onPart: (p) => progress.show(`${at}  part ${p.index + 1}/${p.count} ${p.fileName}`),
      }).catch((error: unknown) => {
        down = serviceDown(error)
        return failedOutcome(id, error, options.legacy === true)
      })
      progress.clear()
      await plan.journal?.record(outcome)
      if (outcome.status !== 'failed') finished++
      tally(outcome)
      failuresInARow = down ? failuresInARow + 1 : 0
      if (failuresInARow >= SERVICE_FAILURES_BEFORE_STOP && n + 1 < targets.length) {
        note(
          `Stopped: the service failed on ${failuresInARow} demands in a row; the ${targets.length - n - 1} after them are not tried.`,
        )
        totals.serviceDown = true
        break
      }
    }
  } finally {
    progress.clear()
    stop.dispose()
    await plan.journal?.close({remove: finished === targets.length})
  }
  if (stop.received()) totals.stopped = stop.exitCode()
  if (plan.journal && finished < targets.length)
    note(
      `${targets.length - finished} of ${targets.length} demands not quoted${totals.stopped ? ' (interrupted)' : ''}: run the same command again to quote only those; the ${finished} done are not quoted again.`,
    )
  return totals
}
