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

/** What the last step of a chunk came to. */
export type ChunkEvent =
  /** The service answered one record per row: every row is settled. */
  | {type: 'created'}
  /**
   * The service refused the body (a 4xx): it checks a whole body before creating
   * anything, so the rows it named failed and the `rest` were not created.
   */
  | {type: 'refused'; rest: number}
  /** The request failed with proof that nothing was processed, and the client's retries are spent. */
  | {type: 'not-sent'}
  /** The request may have been processed: its rows may exist. */
  | {type: 'unknown'}
  /** A look-up by draftId: `missing` rows were not found; `proven` when the look-up can be trusted to find any. */
  | {type: 'looked-up'; missing: number; proven: boolean}
  /** The look-up itself failed (after the client's retries). */
  | {type: 'lookup-failed'}
  /** Authentication, permission, or invalid input: nothing else will succeed. */
  | {type: 'fatal'}

/** Where a chunk stands between steps. */
export interface ChunkState {
  /** Create requests sent for this chunk so far. */
  sends: number
  /** Whether the run is stopping (Ctrl-C, or a fatal error in another chunk). */
  stopped: boolean
}

export type ChunkStep =
  | {next: 'done'}
  /** Send the rows still pending: each of them is proven not created. */
  | {next: 'send'}
  /** Look the rows up by draftId before anything is sent again, after the policy's wait. */
  | {next: 'reconcile'}
  /** Report the pending rows as failed: not created, or with an outcome nobody could settle. */
  | {next: 'give-up'; outcome: 'not-created' | 'unknown'}
  /** Leave the pending rows to the journal (a re-run settles them) and stop. */
  | {next: 'stop'}

/**
 * The next step of a chunk. A create is sent again only with proof that the
 * earlier attempt created nothing: the service refused the body, the request
 * never left or was not processed (the client has already retried those by its
 * RetryPolicy, so they end here), or a look-up that can be trusted found the
 * rows missing. Anything else is looked up, or reported as unknown.
 */
export function decideChunk(state: ChunkState, event: ChunkEvent, maxSends: number): ChunkStep {
  switch (event.type) {
    case 'created':
      return {next: 'done'}
    case 'fatal':
      return {next: 'stop'}
    case 'refused':
      if (event.rest === 0) return {next: 'done'}
      if (state.stopped) return {next: 'stop'}
      return state.sends < maxSends ? {next: 'send'} : {next: 'give-up', outcome: 'not-created'}
    case 'not-sent':
      return state.stopped ? {next: 'stop'} : {next: 'give-up', outcome: 'not-created'}
    case 'unknown':
      return state.stopped ? {next: 'stop'} : {next: 'reconcile'}
    case 'lookup-failed':
      return state.stopped ? {next: 'stop'} : {next: 'give-up', outcome: 'unknown'}
    case 'looked-up':
      if (event.missing === 0) return {next: 'done'}
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
  if (error.code === 'bad_response' || error.status === undefined) return {type: 'unknown'}
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
