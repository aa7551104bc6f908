import {ApiError, NotFoundError, RateLimitError} from '../../api/errors.js'
import {getDemand, iterateDemands} from '../../api/v1/demands.js'
import {V1_PAGE_SIZE_MAX} from '../../schemas/demand.js'
import type {DemandRecord} from '../../schemas/read/types.js'
import {formatDuration} from '../../util/duration.js'
import type {ServiceContext} from '../context.js'
import {startReceiver, type Receiver} from './receiver.js'
import {emptyState, journalSeen, loadState, saveState, type WatchState} from './state.js'
import {DemandTracker, trackedFields, type WatchEvent} from './tracker.js'

export type {WatchEvent, WatchEventKind} from './tracker.js'

export interface WatchOptions {
  /** Where this profile's and service's watch state is kept. */
  stateFile: string
  /** Time between two polls of the demand list, ms. */
  intervalMs: number
  /** Epoch ms: on a first run, demands created since then are shown as created. */
  since?: number
  /** Poll once (catching up from the saved state), then stop. */
  once?: boolean
  /** Stop after this many events. */
  exitAfter?: number
  /** A webhook receiver to start, or undefined for polling only. */
  receiver?: {port: number; publicUrl?: string}
  signal: AbortSignal
  /** Each event, one at a time, in order; the next waits for this one (a quote) to finish. */
  onEvent(event: WatchEvent): Promise<void> | void
  /** What the watch does (receiver up, falling back to polling, a refused delivery), for stderr. */
  onNote(text: string): void
}

export interface WatchResult {
  events: number
  /** Why it stopped. */
  stopped: 'signal' | 'once' | 'exit-after'
  /** The subscription in use (kept for the next run), when a receiver ran. */
  subscriptionId?: string
}

/**
 * Follows the business's demands: polls the whole list (every stage, newest first)
 * at once to catch up from the saved state, then every interval; a webhook receiver,
 * when given, reports changes as they happen in between. Both feed one tracker, one
 * event at a time, and the state is saved after every event, so a restart prints
 * what arrived meanwhile and nothing twice.
 */
export async function watchDemands(ctx: ServiceContext, opts: WatchOptions): Promise<WatchResult> {
  const {state, firstRun, store} = openState(opts)
  const tracker = new DemandTracker(state, {firstRun, ...pick(opts.since)})
  const done = new AbortController()
  const stop = AbortSignal.any([opts.signal, done.signal])
  let count = 0
  let queue: Promise<void> = Promise.resolve()
  let wake: (() => void) | undefined

  // Called right after the tracker observed the event's record: an event that could not be
  // told (its reader gone) is forgotten again, so the next watch tells it.
  const emit = async (event: WatchEvent | undefined): Promise<void> => {
    if (!event) return
    if (done.signal.aborted) return tracker.undoLast()
    try {
      await opts.onEvent(event)
    } catch (error) {
      tracker.undoLast()
      throw error
    }
    store.told(event.id)
    count++
    if (opts.exitAfter !== undefined && count >= opts.exitAfter) done.abort()
  }
  // One task at a time: a poll, or a delivered event. A failed poll is said and tried
  // again at the next interval; only the first one (the catch-up) stops the watch.
  // Each step has the time budget of a command of its own (as mcp proxy's messages do):
  // failures an hour ago do not stop this poll's retries.
  // A failure whose answer asked for a longer wait (Retry-After) puts the next poll off that long.
  let waitMs = opts.intervalMs
  const run = (task: () => Promise<void>, rethrow = false): Promise<void> => {
    const next = queue.then(() => {
      ctx.client.budget.renew()
      return task()
    })
    queue = next.catch((error: unknown) => {
      if (stop.aborted || rethrow) return
      waitMs = Math.max(opts.intervalMs, retryAfterMs(error))
      const again = error instanceof RateLimitError ? 'rate limited; polling again' : 'trying again'
      opts.onNote(`Polling failed: ${messageOf(error)}; ${again} in ${waitText(waitMs)}.`)
    })
    return rethrow ? next : queue
  }
  // The list holds non-archived demands only: a known one that left it was archived (a
  // `demand delete` cancels and archives), which its own record, read once, tells.
  const lookUpLeft = async (listed: ReadonlySet<string>): Promise<void> => {
    for (const id of tracker.missing(listed)) {
      if (stop.aborted) return
      const record = await getDemand(ctx.client, id, {signal: stop}).catch((error: unknown) => {
        if (error instanceof NotFoundError) return undefined
        throw error
      })
      if (record) await emit(tracker.left(record))
      else tracker.forget(id)
    }
  }
  const poll = async (): Promise<void> => {
    const pages = iterateDemands(
      ctx.client,
      ctx.businessId,
      'all',
      {pageSize: V1_PAGE_SIZE_MAX},
      {signal: stop, narrow: null},
    )
    const listed = new Set<string>()
    // The list comes newest first; the changes a poll finds are told oldest first, as they
    // happened. Each is remembered only as it is told, so a watch stopped part-way (Ctrl-C,
    // --exit-after) tells the rest next time.
    const changed: {record: DemandRecord; at: number; n: number}[] = []
    for await (const record of pages) {
      if (stop.aborted) break
      listed.add(record._id)
      const event = tracker.preview(record, 'poll')
      if (event)
        changed.push({
          record: trackedFields(record),
          at: event.at === null ? 0 : Date.parse(event.at) || 0,
          n: changed.length,
        })
      else tracker.observe(record, 'poll')
    }
    changed.sort((a, b) => a.at - b.at || b.n - a.n)
    for (const {record} of changed) {
      if (stop.aborted) break
      await emit(tracker.observe(record, 'poll'))
    }
    if (!stop.aborted) await lookUpLeft(listed)
    if (!stop.aborted) tracker.caughtUp()
    store.save()
  }

  let receiver: Receiver | undefined
  if (opts.receiver && !opts.once) {
    receiver = await openReceiver(ctx, opts, state.subscriptionId, (eventId, record) =>
      run(async () => {
        // An event without id (a service that sends none) is told by its record's updatedAt alone.
        if (eventId !== undefined && tracker.seenEvent(eventId)) return
        if (!record) return wake?.()
        await emit(tracker.observe(record, 'webhook')).catch((error: unknown) => {
          if (!stop.aborted) opts.onNote(`Event ${eventId ?? '(no id)'} failed: ${messageOf(error)}.`)
        })
      }),
    )
    if (receiver) {
      state.subscriptionId = receiver.subscriptionId
      store.save()
    }
  }
  try {
    // The catch-up poll: a failure here (a rejected key, no service) stops the watch, unless Ctrl-C did.
    await run(poll, true).catch((error: unknown) => {
      if (!stop.aborted) throw error
    })
    if (!opts.once && !stop.aborted) {
      const known = Object.keys(state.demands).length
      opts.onNote(`Caught up: ${known} demand${known === 1 ? '' : 's'} known; watching for changes (Ctrl-C to stop).`)
    }
    while (!opts.once && !stop.aborted) {
      await pause(waitMs, stop, (w) => (wake = w))
      waitMs = opts.intervalMs
      if (!stop.aborted) await run(poll)
    }
    await queue
  } finally {
    await receiver?.close()
    store.save()
  }
  const stopped = opts.signal.aborted ? 'signal' : done.signal.aborted ? 'exit-after' : 'once'
  return {events: count, stopped, ...(receiver ? {subscriptionId: receiver.subscriptionId} : {})}
}

/** The saved state, or a fresh one on a first run, and its store. */
function openState(opts: WatchOptions) {
  const saved = loadState(opts.stateFile)
  // --since picks what a first run shows; a saved state already says what was seen.
  if (saved && opts.since !== undefined) {
    opts.onNote(
      `--since applies to a first run only: this run catches up from the saved state ${opts.stateFile}, showing what changed since the last run (delete that file to start afresh).`,
    )
  }
  const state = saved ?? {...emptyState(), startedAt: new Date().toISOString()}
  return {state, firstRun: saved === undefined, store: stateStore(opts.stateFile, state)}
}

/**
 * Keeps the state on disk: written whole by `save`; a demand told is added to its
 * journal, and the state written whole again once the journal holds as many lines
 * as the state had demands (at least 1,000), so a catch-up telling every demand of
 * a long list costs linear time. The first demand told in a run writes it whole,
 * so that a first run's journal has a state to go with.
 */
function stateStore(file: string, state: WatchState) {
  let journaled = 0
  let room = 0
  const save = () => {
    saveState(file, state)
    journaled = 0
    room = Math.max(1000, Object.keys(state.demands).length)
  }
  return {
    save,
    told(id: string) {
      if (journaled >= room) return save()
      journalSeen(file, id, state.demands[id])
      journaled++
    },
  }
}

async function openReceiver(
  ctx: ServiceContext,
  opts: WatchOptions,
  previous: string | undefined,
  deliver: (eventId: string | undefined, record: DemandRecord | undefined) => void,
): Promise<Receiver | undefined> {
  try {
    const receiver = await startReceiver(ctx, {
      port: opts.receiver?.port ?? 0,
      ...(opts.receiver?.publicUrl === undefined ? {} : {publicUrl: opts.receiver.publicUrl}),
      ...(previous === undefined ? {} : {subscriptionId: previous}),
      onEvent: (e, record) => deliver(e.id, record),
      onRejected: (reason) => opts.onNote(`Refused a webhook delivery (${reason}).`),
    })
    opts.onNote(
      `Receiving demand events at ${receiver.url} (subscription ${receiver.subscriptionId}${receiver.reused ? ', reused' : ''}, signatures checked); polling every ${opts.intervalMs / 1000} s as well.`,
    )
    return receiver
  } catch (error) {
    opts.onNote(`No webhook receiver (${messageOf(error)}); polling every ${opts.intervalMs / 1000} s instead.`)
    return undefined
  }
}

/** Waits `ms`, or less when the signal aborts or `wake` is called. */
function pause(ms: number, signal: AbortSignal, setWake: (wake: () => void) => void): Promise<void> {
  return new Promise((resolve) => {
    const finish = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', finish)
      resolve()
    }
    const timer = setTimeout(finish, ms)
    signal.addEventListener('abort', finish, {once: true})
    setWake(finish)
  })
}

/** `0.5 s`, `60 s`, `5 min`, `11 h 5 min`. */
function waitText(ms: number): string {
  return ms < 120_000 ? `${ms / 1000} s` : formatDuration(ms)
}

/** What a failed answer's Retry-After asked for, in ms (0 when it asked nothing). */
function retryAfterMs(error: unknown): number {
  return error instanceof ApiError && error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : 0
}

function messageOf(error: unknown): string {
  const e = error as {serverMessage?: string; message?: string}
  return (e.serverMessage ?? e.message ?? String(error)).split('\n')[0] ?? String(error)
}

function pick(since: number | undefined): {since?: number} {
  return since === undefined ? {} : {since}
}
