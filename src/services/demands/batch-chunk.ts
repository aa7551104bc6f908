// What a batch does with one chunk after each step: the rules that keep a
// batch from creating anything twice, as pure functions with no I/O.
import {
  ApiError,
  AuthenticationError,
  NetworkError,
  PermissionError,
  RateLimitError,
  ServerError,
  ValidationError,
} from '../../api/errors.js'
import {InputError} from '../errors.js'

/**
 * What the last step of a chunk came to. A chunk's pending rows are always of
 * one kind: never sent (or proven not created), maybe created (sent, no answer),
 * or confirmed (the service answered 2xx without saying which demands it made).
 */
export type ChunkEvent =
  /** The service answered one record per row: every row is settled. */
  | {type: 'created'}
  /**
   * The service answered 2xx, so it processed the request, but `rest` rows got no
   * record in the answer (no body, ids alone in another number, an unreadable body):
   * they exist and are never sent again; a look-up may find their ids.
   */
  | {type: 'confirmed'; rest: number}
  /**
   * The service refused the body (a 4xx): it checks a whole body before creating
   * anything, so the rows it named failed and the `rest` were not created.
   */
  | {type: 'refused'; rest: number}
  /** The request failed with proof that nothing was processed, and the client's retries are spent. */
  | {type: 'not-sent'}
  /** The request may have been processed: its rows may exist. */
  | {type: 'unknown'}
  /**
   * A look-up by draftId: `missing` rows were not found. `proven` when the look-up
   * was proven on this service to find any demand that exists (then a missing row
   * was not created); `confirmed` when the rows looked up are confirmed ones.
   */
  | {type: 'looked-up'; missing: number; proven: boolean; confirmed: boolean}
  /** The look-up itself failed (after the client's retries), or the run's time for look-ups is over. */
  | {type: 'lookup-failed'; confirmed: boolean}
  /** Authentication, permission, or invalid input: nothing else will succeed. */
  | {type: 'fatal'}

/** Where a chunk stands between steps. */
export interface ChunkState {
  /** Create requests sent for this chunk so far. */
  sends: number
  /** Whether the run is stopping (Ctrl-C, or a fatal error in another chunk). */
  stopped: boolean
}

/** How the rows still pending end when nothing more is tried. */
export type GiveUpOutcome =
  /** Proven not created: a re-run sends them. */
  | 'not-created'
  /** Maybe created, and nobody could tell: a re-run looks them up before anything is sent. */
  | 'unknown'
  /** Created (the service said so), without their ids. */
  | 'confirmed'

export type ChunkStep =
  | {next: 'done'}
  /** Send the rows still pending: each of them is proven not created. */
  | {next: 'send'}
  /** Look the rows up by draftId before anything is sent again, after the policy's wait. */
  | {next: 'reconcile'}
  /** Report the pending rows: not created, created without details, or with an outcome nobody could settle. */
  | {next: 'give-up'; outcome: GiveUpOutcome}
  /** Leave the pending rows to the journal (a re-run settles them) and stop. */
  | {next: 'stop'}

/**
 * The next step of a chunk. A create is sent again only with proof that the
 * earlier attempt created nothing: the service refused the body, the request
 * never left or was not processed (the client has already retried those by its
 * RetryPolicy, so they end here), or a look-up proven on this service found the
 * rows missing. A 2xx answer is proof of the opposite: those rows are never sent
 * again, whatever a look-up finds. Anything else is looked up, or reported as unknown.
 */
export function decideChunk(state: ChunkState, event: ChunkEvent, maxSends: number): ChunkStep {
  switch (event.type) {
    case 'created':
      return {next: 'done'}
    case 'fatal':
      return {next: 'stop'}
    case 'confirmed':
      if (event.rest === 0) return {next: 'done'}
      // A look-up only adds details: when stopping, the rows are reported as confirmed.
      return state.stopped ? {next: 'give-up', outcome: 'confirmed'} : {next: 'reconcile'}
    case 'refused':
      if (event.rest === 0) return {next: 'done'}
      if (state.stopped) return {next: 'stop'}
      return state.sends < maxSends ? {next: 'send'} : {next: 'give-up', outcome: 'not-created'}
    case 'not-sent':
      return state.stopped ? {next: 'stop'} : {next: 'give-up', outcome: 'not-created'}
    case 'unknown':
      return state.stopped ? {next: 'stop'} : {next: 'reconcile'}
    case 'lookup-failed':
      if (event.confirmed) return {next: 'give-up', outcome: 'confirmed'}
      return state.stopped ? {next: 'stop'} : {next: 'give-up', outcome: 'unknown'}
    case 'looked-up':
      if (event.missing === 0) return {next: 'done'}
      if (event.confirmed) return {next: 'give-up', outcome: 'confirmed'}
      if (state.stopped) return {next: 'stop'}
      if (!event.proven) return {next: 'give-up', outcome: 'unknown'}
      return state.sends < maxSends ? {next: 'send'} : {next: 'give-up', outcome: 'not-created'}
  }
}

/** How a failed create request counts for its chunk. */
export type SendFailure =
  | {type: 'fatal'}
  /** A 4xx: `rows` are the 0-based indexes the error's details name (empty: the whole body). */
  | {type: 'refused'; rows: Set<number>}
  | {type: 'not-sent'}
  | {type: 'unknown'}
  /** A 2xx whose body could not be read: processed, details unknown. */
  | {type: 'confirmed'}

/** Reads a create request's failure (after the client's own retries) as what it proves. */
export function classifySendFailure(error: unknown): SendFailure {
  if (error instanceof AuthenticationError || error instanceof PermissionError) return {type: 'fatal'}
  if (error instanceof InputError) return {type: 'fatal'}
  if (error instanceof ValidationError && error.clientSide) return {type: 'fatal'}
  if (error instanceof RateLimitError) return {type: 'not-sent'}
  if (error instanceof NetworkError) {
    return error.code !== 'aborted' && !error.mayHaveBeenSent ? {type: 'not-sent'} : {type: 'unknown'}
  }
  // A 5xx may come after the work was done (a proxy, a crash after commit): look before resending.
  if (error instanceof ServerError) return {type: 'unknown'}
  if (!(error instanceof ApiError)) return {type: 'fatal'}
  if (error.status !== undefined && error.status >= 200 && error.status < 300) return {type: 'confirmed'}
  if (error.code === 'bad_response' || error.status === undefined) return {type: 'unknown'}
  // A redirect is answered before the request is handled; following it would send the key elsewhere.
  if (error.status >= 300 && error.status < 400) return {type: 'not-sent'}
  if (error.status === 408) return {type: 'not-sent'}
  if (error.status >= 400 && error.status < 500) {
    const rows = new Set<number>()
    for (const d of error.details ?? []) {
      const first = Number(d.path.split('.')[0])
      if (Number.isInteger(first)) rows.add(first)
    }
    return {type: 'refused', rows}
  }
  return {type: 'unknown'}
}

/** The message of a refused row: the error's details about it, or the service's message. */
export function rowError(error: ApiError, index: number): string {
  const own = error.details?.filter((d) => d.path.split('.')[0] === String(index))
  if (own && own.length > 0) {
    return own.map((d) => `${d.path.split('.').slice(1).join('.') || '(row)'}: ${d.message}`).join('; ')
  }
  return error.serverMessage ?? error.message
}

/** The first line of an error, for a row's result. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message.split('\n')[0] ?? error.message
  return error instanceof Error ? error.message : String(error)
}

/**
 * A failed look-up in a few words, without its path: a row's error names the
 * create the user asked for, and the look-up only adds why it could not be settled.
 */
export function lookupFailure(error: unknown): string {
  if (error instanceof NetworkError) return error.serverMessage ?? 'no answer'
  if (error instanceof ApiError) return error.status === undefined ? error.code : `HTTP ${error.status}`
  return error instanceof Error ? error.message : String(error)
}

/** What a create answer says of one record (the fields a batch reads). */
export interface AnsweredRecord {
  _id: string
  orderNumber?: number
  draftId?: string
  status?: string
}

/** A row of a create request, as far as reading the answer goes. */
export interface SentRow {
  row: number
  draftId: string
}

/**
 * Which record of a 2xx create answer belongs to which row sent. A record that
 * carries a row's draftId is that row's; a record without a draftId is the row
 * at its place only when the service answered one record per row (in the order
 * sent). A record carrying a draftId this request did not send is never claimed.
 * `rest` are the indexes of the rows without a record: confirmed by the 2xx, ids unknown.
 */
export function matchAnswer(
  rows: readonly SentRow[],
  records: readonly AnsweredRecord[],
): {results: {row: number; id: string; orderNumber?: number; draftId: string; status?: string}[]; rest: number[]} {
  const sent = new Set(rows.map((r) => r.draftId))
  const byDraftId = new Map<string, AnsweredRecord>()
  for (const record of records) {
    const d = record.draftId
    if (d !== undefined && sent.has(d) && !byDraftId.has(d)) byDraftId.set(d, record)
  }
  const inOrder = records.length === rows.length
  const results: ReturnType<typeof matchAnswer>['results'] = []
  const rest: number[] = []
  rows.forEach((r, i) => {
    let record = byDraftId.get(r.draftId)
    const atPlace = inOrder ? records[i] : undefined
    if (!record && atPlace && (atPlace.draftId === undefined || atPlace.draftId === '')) record = atPlace
    if (!record) {
      rest.push(i)
      return
    }
    results.push({
      row: r.row,
      id: record._id,
      ...(record.orderNumber === undefined ? {} : {orderNumber: record.orderNumber}),
      draftId: r.draftId,
      ...(record.status === undefined ? {} : {status: record.status}),
    })
  })
  return {results, rest}
}

/**
 * Whether the service still looks alive to a batch. After `failures` chunks in a
 * row gave up because the service failed (no answer, 5xx, 429, after the client's
 * retries and a look-up), or once failures (lost answers included) have gone on
 * for `deadMs` without a single answer that worked, the batch sends no more
 * chunks: against a dead service it ends in seconds rather than trying every
 * chunk in turn, and against one that never answers, after `deadMs`.
 */
export class ServiceHealth {
  private streak = 0
  private lastAlive: number
  private lastFailure = ''
  /** A lost answer since the last answer that worked: not a chunk given up, but a failure for `deadMs`. */
  private unsure = false
  private tripped: string | undefined

  constructor(
    private readonly limits: {failures: number; deadMs: number},
    private readonly now: () => number = Date.now,
  ) {
    this.lastAlive = now()
  }

  /** The service answered (a 2xx, or a 4xx that it read the request and refused it). */
  alive(): void {
    this.streak = 0
    this.unsure = false
    this.lastAlive = this.now()
  }

  /** A create's answer was lost (5xx, cut, time-out): its look-up decides whether the service works. */
  lost(why: string): void {
    this.unsure = true
    this.lastFailure = why
  }

  /** A chunk gave up because the service failed; `why` is its create's error. */
  failed(why: string): void {
    this.streak++
    this.lastFailure = why
    if (this.streak >= this.limits.failures) this.tripped ??= why
  }

  /** Why no more chunks are sent (the last failure), or undefined while the service may be alive. */
  down(): string | undefined {
    if (this.tripped !== undefined) return this.tripped
    const failing = this.streak > 0 || this.unsure
    if (failing && this.now() - this.lastAlive >= this.limits.deadMs) this.tripped = this.lastFailure
    return this.tripped
  }
}
