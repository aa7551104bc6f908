import type {DemandRecord} from '../../schemas/read/types.js'
import {defined} from '../../util/fields.js'
import type {SeenDemand, WatchState} from './state.js'

/** created: a demand not seen before; stage: it moved to another stage; changed: anything else about it changed. */
export type WatchEventKind = 'created' | 'changed' | 'stage'

/** One line of `demand watch`. */
export interface WatchEvent {
  event: WatchEventKind
  id: string
  orderNumber?: number
  /** QUOTE or ORDER, when the record says. */
  takenAs?: string
  /** The stage id (quote_sent, ...) or, when the record gives no id, its display name. */
  stage: string | null
  /** With `stage`: the stage it left. */
  previousStage?: string | null
  /** The demand is archived (cancelled with `demand delete`, or `demand update --archive`). */
  archived?: true
  /** When it happened, as the service says: updatedAt (createdAt for a new demand). */
  at: string | null
  /** How the watch learnt of it. */
  via: 'poll' | 'webhook'
}

export interface TrackerOptions {
  /**
   * True when there is no saved state yet: the demands already there are recorded
   * without a line, except those created at or after `since` (default: the start).
   */
  firstRun: boolean
  /** Epoch ms: on a first run, demands created from then on are shown as created. */
  since?: number
}

export function stageOf(r: DemandRecord): string | null {
  return r.demandStatusInfo?.status ?? r.status ?? null
}

/** The fields of a record `observe` reads: what a poll keeps of each change until it is told. */
export function trackedFields(r: DemandRecord): DemandRecord {
  const status = r.demandStatusInfo?.status
  return {
    _id: r._id,
    ...defined({
      status: r.status,
      updatedAt: r.updatedAt,
      createdAt: r.createdAt,
      archive: r.archive,
      orderNumber: r.orderNumber,
    }),
    ...(status === undefined ? {} : {demandStatusInfo: {status}}),
    ...(r.jobDetails?.takenAs === undefined ? {} : {jobDetails: {takenAs: r.jobDetails.takenAs}}),
  } as DemandRecord
}

/**
 * Turns what the watch reads (a page of the list, a webhook's record) into events,
 * comparing with what it saw last; a record seen twice (through both paths, or an
 * event delivered again) gives one event, and a record older than the one already
 * seen gives none.
 */
export class DemandTracker {
  private firstRun: boolean
  private readonly startedAt = Date.now()

  constructor(
    private readonly state: WatchState,
    private readonly opts: TrackerOptions,
  ) {
    this.firstRun = opts.firstRun
  }

  /** The first catch-up is over: from now on every demand not seen before is new. */
  caughtUp(): void {
    this.firstRun = false
  }

  /** Whether a webhook event id was handled already; remembers it. */
  seenEvent(eventId: string): boolean {
    if (this.state.eventIds.includes(eventId)) return true
    this.state.eventIds.push(eventId)
    return false
  }

  /**
   * The demands seen before that a whole poll of the (non-archived) list did not
   * meet and that are not known to be archived: each is looked up once (`left`).
   */
  missing(listed: ReadonlySet<string>): string[] {
    return Object.entries(this.state.demands)
      .filter(([id, seen]) => !listed.has(id) && seen.archived === undefined)
      .map(([id]) => id)
  }

  /**
   * A demand missing from the list, as read on its own: its event like any other
   * (a cancellation is a stage event), and it is remembered as archived unless the
   * record says it is not (then the list skipped it while it shifted).
   */
  left(record: DemandRecord): WatchEvent | undefined {
    const archived = record.archive !== false
    return this.observe(archived ? {...record, archive: true} : record, 'poll')
  }

  /** A demand the service no longer knows: forgotten, without an event. */
  forget(id: string): void {
    delete this.state.demands[id]
  }

  /** The record `observe` saw last and what was known of it before: for `undoLast`. */
  private last: {id: string; known: SeenDemand | undefined} | undefined

  /** Forgets what the last `observe` remembered (its event could not be told). */
  undoLast(): void {
    if (!this.last) return
    if (this.last.known === undefined) delete this.state.demands[this.last.id]
    else this.state.demands[this.last.id] = this.last.known
    this.last = undefined
  }

  /** The event `observe` would give for a record, without remembering the record. */
  preview(record: DemandRecord, via: WatchEvent['via']): WatchEvent | undefined {
    const event = this.observe(record, via)
    this.undoLast()
    return event
  }

  observe(record: DemandRecord, via: WatchEvent['via']): WatchEvent | undefined {
    const stage = stageOf(record)
    const updatedAt = record.updatedAt ?? record.createdAt ?? null
    const known = this.state.demands[record._id]
    this.last = {id: record._id, known}
    const archived = record.archive === true ? {archived: true as const} : {}
    this.state.demands[record._id] = {stage, updatedAt, ...archived}
    const base = {
      id: record._id,
      ...(record.orderNumber === undefined ? {} : {orderNumber: record.orderNumber}),
      ...(record.jobDetails?.takenAs === undefined ? {} : {takenAs: record.jobDetails.takenAs}),
      stage,
      via,
      ...archived,
    }
    if (!known) {
      if (this.firstRun && !this.createdSince(record)) return undefined
      return {event: 'created', ...base, at: record.createdAt ?? updatedAt}
    }
    if (known.updatedAt !== null && updatedAt !== null && Date.parse(updatedAt) < Date.parse(known.updatedAt)) {
      // An older copy (a late delivery after a poll saw a newer one): keep the newer.
      this.state.demands[record._id] = known
      return undefined
    }
    if (known.stage !== stage) return {event: 'stage', ...base, previousStage: known.stage, at: updatedAt}
    if (known.updatedAt !== updatedAt) return {event: 'changed', ...base, at: updatedAt}
    return undefined
  }

  /** Whether a demand met during the first catch-up is new: created since --since, or since the watch started. */
  private createdSince(record: DemandRecord): boolean {
    if (record.createdAt === undefined) return false
    return Date.parse(record.createdAt) >= (this.opts.since ?? this.startedAt)
  }
}
