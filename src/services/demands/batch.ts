import {ApiError} from '../../api/errors.js'
import {sleep} from '../../api/retry.js'
import {createQuotes} from '../../api/v1/demands.js'
import {BODY_LIMIT} from '../../schemas/common.js'
import {MAX_BATCH} from '../../schemas/demand.js'
import type {ServiceContext} from '../context.js'
import {
  classifySendFailure,
  decideChunk,
  lookupFailure,
  matchAnswer,
  messageOf,
  rowError,
  ServiceHealth,
  type ChunkEvent,
  type ChunkStep,
  type GiveUpOutcome,
} from './batch-chunk.js'
import {
  BatchJournal,
  ChunkLog,
  isFailure,
  type JournalKey,
  type JournalRowState,
  type DraftIdState,
  type EarlierInput,
  type RowConfirmed,
  type RowFailure,
  type RowOutcome,
  type RowResult,
} from './batch-journal.js'
import {LookupProofFile} from './batch-proof.js'
import {DraftIdFinder, SCAN_MARGIN_MS, type FoundDemand} from './batch-reconcile.js'
import {
  jsonBytes,
  knownFields,
  RowSpool,
  validateSource,
  type RowSource,
  type Shard,
  type ValidationReport,
} from './batch-validate.js'
import {draftIdFor, idempotencyKeyFor} from './batch-ids.js'

export {isFailure, type RowConfirmed, type RowFailure, type RowOutcome, type RowResult}

/**
 * The draftIds of answered records the service made before the request that got
 * them (a service answers a known draftId with its demand, as the contract's
 * replays do, whichever generation made it). On the service's own clock, so no
 * skew between clocks counts: a record made by the request is at most the
 * request's duration older than the answer, whose Date header rounds it down to
 * its second. Without the service's time, none is told apart.
 */
function madeBefore(
  records: readonly {draftId?: string; createdAt?: string}[],
  answeredAt: number | undefined,
  tookMs: number,
): Set<string> {
  const found = new Set<string>()
  if (answeredAt === undefined) return found
  // The header says the second the answer was made in, never later than the answer itself.
  const earliest = answeredAt - tookMs - 250
  for (const r of records) {
    const made = r.createdAt === undefined ? Number.NaN : Date.parse(r.createdAt)
    if (r.draftId && made < earliest) found.add(r.draftId)
  }
  return found
}

/** A chunk's body stays under this, a fifth below the service's limit (its headers, our estimate of the size). */
const CHUNK_BYTES = Math.floor(BODY_LIMIT * 0.8)

export interface BatchProgress {
  /** Rows settled (created, found, or failed), including those taken from the journal. */
  done: number
  failed: number
  /** Rows this run will settle: the valid rows of the shard. */
  total: number
}

export interface BatchOptions {
  /** create-demands (legacy v2) instead of create-quotes (v1). */
  legacy?: boolean
  shard?: Shard
  skipInvalid?: boolean
  /** NDJSON of the invalid rows (with --skip-invalid). */
  errorsFile?: string
  dryRun?: boolean
  /** Chunks in flight at once (default 4). */
  concurrency?: number
  /** Rows per request, at most 100. */
  chunkSize?: number
  /** Where the journal lives; false for no journal. */
  journal?: {dir: string; fresh?: boolean} | false
  /**
   * The file that remembers, per profile, that this service's look-up by draftId
   * was proven to work (batch-proof.ts); without it the proof is made again each run.
   */
  proofFile?: string
  /** The business the demands go to: the first pass refuses rows naming another (the service would refuse their chunk). */
  businessId?: string
  /** Replaces the input's content hash as its identity (draftIds and journal key). */
  identity?: string
  /** Create requests per chunk (first send included) before its rows count as failed. Default 3. */
  maxSends?: number
  /** Aborting stops new chunks; chunks in flight finish their current request. */
  signal?: AbortSignal
  /** Each row's outcome, as soon as it is known (journal results first, in row order). */
  onResult?: (outcome: RowOutcome) => void
  onProgress?: (progress: BatchProgress) => void
  /** Called once the first pass is over, before anything is sent. */
  onValidated?: (report: ValidationReport) => void
  /**
   * Rows left to runs of other inputs going on (the same content sent there), waited
   * for once this run's own are sent: how many, and those runs' process ids; called
   * when that changes, with 0 rows once the wait is over.
   */
  onWaiting?: (waiting: {rows: number; pids: number[]}) => void
  /** How long a run of another input may record nothing before the rows left to it are given up (default 60 s; 0 at once). */
  othersQuietMs?: number
  /** Characters of JSON (estimated) of valid rows kept in memory between the two passes (default 4 Mi); the rest go to a temporary file. */
  spoolBudget?: number
}

export interface BatchSummary {
  validation: ValidationReport
  /** Rows created (or found) by this run, those confirmed without details included. */
  created: number
  /** Rows already created by an earlier run: answered from the journal, or found made before this run sent them. */
  resumed: number
  /**
   * Of those, rows a run of another input made (a row of the same content, the file
   * before an edit), and those runs: their input and start (`earlierInputs`).
   */
  resumedElsewhere: number
  earlierInputs: EarlierInput[]
  /** Rows the service confirmed (2xx) without saying which demand it made, and no look-up found (`outcome: "confirmed"`, no id). */
  confirmed: number
  /** Rows that failed, those with an unknown or ambiguous outcome included. */
  failed: number
  /** Failed rows whose outcome nobody could settle (`outcome: "unknown"`): a re-run looks them up first. */
  unknown: number
  /** Failed rows whose draftId more than one demand carries (`outcome: "ambiguous"`, with their `ids`). */
  ambiguous: number
  /** Valid rows not sent because the run was stopped (interrupted, or `stoppedBy`). */
  pending: number
  interrupted: boolean
  /**
   * Why the run stopped before every row was settled, when an error stopped it
   * (credentials refused mid-way, a journal that cannot be written): its message;
   * null otherwise. The rows not sent say so in their outcomes.
   */
  stoppedBy: string | null
  requests: number
  /** Chunks sent again after a failure that proved nothing was created. */
  retries: number
  /** Rows found on the server after an unknown outcome (not sent again). */
  reconciled: number
  /** Look-up requests made to settle unknown outcomes. */
  lookups: number
  /** The journal's path; null without one (a dry run). */
  journal: string | null
  dryRun: boolean
}

/** Create requests per chunk, the first included, unless BatchOptions.maxSends says otherwise. */
const DEFAULT_MAX_SENDS = 3
/** Chunks in a row that may give up because of the service before the batch sends no more. */
const FAILURES_BEFORE_STOP = 2
/** How long failures may go on without one answer that worked before the batch sends no more. */
const DEAD_SERVICE_MS = 30_000

/** How often the journals of the runs waited for are read. */
const OTHERS_POLL_MS = 250
/** A run waited for that records nothing for this long is stuck, or slower than worth waiting for. */
const OTHERS_QUIET_MS = 60_000

/** A row on its way: what is sent, and what an earlier attempt may have done with it. */
interface PendingRow {
  row: number
  draftId: string
  item: Record<string, unknown>
  /** Sent by an attempt whose outcome is unknown, or confirmed without details: look it up before anything else. */
  maybeSentAt?: number
  /** That attempt was an earlier run's (the journal said "maybe sent"). */
  earlier?: boolean
  /** The service answered 2xx for it without its record: it exists, and is never sent again. */
  confirmed?: boolean
}

/** A chunk's `sent` mark: its number, when, and the rows it marked (those no other run had claimed). */
interface Mark {
  c: number
  at: number
  rows: PendingRow[]
}

/** One chunk between its steps. Its pending rows are all of one kind: new, maybe sent, or confirmed. */
interface Chunk {
  rows: PendingRow[]
  /**
   * The `sent` mark of the chunk's first send, started while the worker's previous
   * request was in flight, so that the disk's sync is not waited for between requests.
   */
  mark?: Promise<Mark>
  sends: number
  /** Unknown outcomes so far: each look-up after one waits the RetryPolicy's back-off. */
  unknowns: number
  /** The create's error, for the rows' results: the request the user asked for, never a look-up's. */
  lastError: string
  /** Why the last look-up could not settle the rows. */
  lookupNote?: string
}

/**
 * Creates demands from a row source, losing nothing and duplicating nothing
 * against any server:
 *
 * 1. A first pass validates every row (nothing is sent if one is invalid,
 *    unless `skipInvalid`) and keeps the valid ones in a RowSpool, so the
 *    input is read and converted once.
 * 2. Each row gets a deterministic draftId (input identity + row number) unless it has one.
 * 3. A journal records each chunk's state; a chunk's `sent` mark is on the
 *    disk before its request leaves (an fdatasync off the event loop, shared by
 *    the chunks waiting at the same time). Rows an earlier run created are
 *    answered from it, and rows whose outcome it left unknown are looked up on
 *    the server before anything is sent again.
 * 4. A second pass hands chunks of at most 100 spooled rows to `concurrency` workers.
 *    The client retries what proves nothing was processed (429, a refused
 *    connection) by its RetryPolicy. Rows a 2xx answer does not name are created
 *    and never sent again. An unknown outcome (connection lost after sending,
 *    time-out, 5xx) is looked up by draftId, and only rows that a look-up proven on
 *    this service did not find are sent again; without that proof they are
 *    reported with their outcome unknown (decideChunk in batch-chunk.ts).
 * 5. A service that fails chunk after chunk (ServiceHealth) gets no more: the
 *    rest are reported as not sent.
 */
/**
 * A batch an error stopped (credentials refused mid-way, a journal that cannot be
 * written): `result` is what the run did, every row's outcome reported, and
 * `reason` the error, for the caller to report once it has shown the result.
 */
export class BatchStopped<R = BatchSummary> extends Error {
  constructor(
    readonly result: R,
    readonly reason: unknown,
  ) {
    super(reason instanceof Error ? reason.message : String(reason))
    this.name = 'BatchStopped'
  }
}

export async function runBatch(
  context: ServiceContext | (() => Promise<ServiceContext>),
  source: RowSource,
  opts: BatchOptions = {},
): Promise<BatchSummary> {
  const run = new BatchRun(source, opts)
  try {
    return await run.execute(context)
  } finally {
    run.dispose()
  }
}

/** One batch, step by step: read and validate, plan chunks, send, reconcile, journal. */
class BatchRun {
  private readonly legacy: boolean
  private readonly chunkSize: number
  /** The first pass keeps each valid row as it will be sent: the second neither reads nor converts again. */
  private readonly spool: RowSpool | undefined
  private summary!: BatchSummary
  private ctx!: ServiceContext
  private log = new ChunkLog()
  private finder!: DraftIdFinder
  private health!: ServiceHealth
  private identity = ''
  private earlier = new Map<number, JournalRowState>()
  /** Row → the demand an earlier run recorded for it (also under --fresh, which sends the row again). */
  private madeBefore = new Map<number, string>()
  /** What runs of the target's other inputs recorded, by draftId (BatchJournal.open). */
  private byDraftId = new Map<string, DraftIdState>()
  private fatal: {error: unknown} | undefined
  /** The rows given an outcome so far (an interrupted run reports the others as not sent). */
  private readonly settled = new Set<number>()
  /** Rows a run of another input has claimed and not settled yet: waited for once the others are sent. */
  private readonly waiting = new Map<number, PendingRow & {pid?: number; journal: string}>()
  /** Chunks handed to workers and not processed yet (each may leave rows to another run). */
  private inHand = 0

  constructor(
    private readonly source: RowSource,
    private readonly opts: BatchOptions,
  ) {
    this.legacy = opts.legacy ?? false
    this.chunkSize = Math.max(1, Math.min(opts.chunkSize ?? MAX_BATCH, MAX_BATCH))
    this.spool = opts.dryRun ? undefined : new RowSpool(opts.spoolBudget)
  }

  async execute(context: ServiceContext | (() => Promise<ServiceContext>)): Promise<BatchSummary> {
    // A context made on demand loads the HTTP client (api/http.js) once the rows are checked:
    // loaded now, while the first pass waits on the input, it is ready by then. A dry run never needs it.
    if (this.spool && typeof context === 'function') void import('../../api/http.js').catch(() => undefined)
    const validation = await this.validate()
    this.summary = {
      validation,
      created: 0,
      resumed: 0,
      resumedElsewhere: 0,
      earlierInputs: [],
      confirmed: 0,
      failed: 0,
      unknown: 0,
      ambiguous: 0,
      pending: validation.valid,
      interrupted: false,
      stoppedBy: null,
      requests: 0,
      retries: 0,
      reconciled: 0,
      lookups: 0,
      journal: null,
      dryRun: this.opts.dryRun ?? false,
    }
    if (!this.spool || validation.valid === 0) return this.summary
    // Only now, with every row checked, is the service needed (a dry run never connects).
    this.ctx = typeof context === 'function' ? await context() : context
    this.openJournal(validation)
    const target = this.ctx.target ?? this.ctx.client.baseUrl
    this.finder = new DraftIdFinder(this.ctx, {
      legacy: this.legacy,
      ...(this.opts.proofFile ? {proof: new LookupProofFile(this.opts.proofFile, target)} : {}),
    })
    try {
      await this.sendAll()
    } finally {
      await this.log.close()
      this.summary.lookups = this.finder.requests
    }
    if (this.fatal) {
      const why = messageOf(this.fatal.error)
      this.summary.stoppedBy = why
      await this.reportUnsent(`the run stopped: ${why}; once that is fixed, running the same command again sends it`)
      throw new BatchStopped(this.summary, this.fatal.error)
    }
    this.summary.interrupted = Boolean(this.opts.signal?.aborted) && this.summary.pending > 0
    if (this.summary.interrupted) await this.reportUnsent('the run was interrupted; running it again sends it')
    return this.summary
  }

  dispose(): void {
    this.spool?.close()
  }

  /** Read and validate: the first pass, which fills the spool with the valid rows. */
  private async validate(): Promise<ValidationReport> {
    const spool = this.spool
    const {shard, skipInvalid, errorsFile, businessId} = this.opts
    const validation = await validateSource(this.source, {
      legacy: this.legacy,
      ...(shard ? {shard} : {}),
      ...(skipInvalid ? {skipInvalid: true} : {}),
      ...(errorsFile ? {errorsFile} : {}),
      chunkSize: this.chunkSize,
      ...(businessId ? {businessId} : {}),
      ...(spool
        ? {
            // A file's rows are named by their content; a quote from flags by its identity.
            draftIds: this.opts.identity === undefined,
            onValid: (input, checked, contentId) => {
              const item = knownFields(input, checked)
              // Where the row had one it stays in place; otherwise it comes last, as a spread would put it.
              if (typeof item.draftId !== 'string') {
                item.draftId = contentId ?? draftIdFor(this.opts.identity ?? '', input.row - 1)
              }
              spool.add(input.row, item)
            },
          }
        : {}),
    })
    this.opts.onValidated?.(validation)
    return validation
  }

  private openJournal(validation: ValidationReport): void {
    this.identity = this.opts.identity ?? validation.contentHash
    if (!this.opts.journal) return
    const key: JournalKey = {
      input: this.identity,
      shard: this.opts.shard ? `${this.opts.shard.index}/${this.opts.shard.count}` : '1/1',
      target: `${this.ctx.target ?? this.ctx.client.baseUrl} ${this.ctx.businessId}`,
      api: this.legacy ? 'legacy' : 'v1',
    }
    const opened = BatchJournal.open(this.opts.journal.dir, key, {
      fresh: this.opts.journal.fresh,
      source: this.source.label,
    })
    this.log = new ChunkLog(opened.journal)
    this.earlier = opened.rows
    this.madeBefore = opened.madeBefore
    this.byDraftId = opened.byDraftId
    this.summary.journal = opened.journal.path
  }

  private stopped(): boolean {
    return Boolean(this.opts.signal?.aborted) || this.fatal !== undefined
  }

  /** `concurrency` workers take the planned chunks in turn. */
  private async sendAll(): Promise<void> {
    // Counted from the first request: reading a big input is not the service's time.
    this.health = new ServiceHealth({failures: FAILURES_BEFORE_STOP, deadMs: DEAD_SERVICE_MS})
    const planned = this.plan()
    const others = this.afterOthers()
    const take = async (from: AsyncGenerator<PendingRow[]>): Promise<Chunk | undefined> => {
      if (this.stopped()) return undefined
      const next = await from.next()
      if (next.done) return undefined
      this.inHand++
      return this.chunk(next.value)
    }
    const process = async (chunk: Chunk): Promise<void> => {
      try {
        await this.process(chunk)
      } finally {
        this.inHand--
      }
    }
    const worker = async (): Promise<void> => {
      try {
        // Each worker holds its next chunk, marked, while its current one is processed.
        for (let next = await take(planned); next !== undefined;) {
          const current = next
          next = await take(planned)
          await process(current)
        }
        // Then the rows left to other runs, holding no chunk while it waits: the others' go on meanwhile.
        for (let next = await take(others); next !== undefined; next = await take(others)) await process(next)
      } catch (error) {
        // A journal that cannot be written (disk full...): the other workers stop
        // before their next request, and the journal closes once they all have.
        this.fatal ??= {error}
      }
    }
    try {
      this.progress()
      await Promise.all(Array.from({length: Math.max(1, this.opts.concurrency ?? 4)}, worker))
    } finally {
      await planned.return(undefined)
      await others.return(undefined)
    }
    // A stopped run reports the rows still left to other runs as not sent.
    if (!this.stopped()) this.stopWaiting(`is still going`)
  }

  /**
   * Waits for the rows runs of other inputs going on had claimed: one created there is
   * answered with its demand; one such a run ended without creating is this run's
   * again (looked up first if it may have been sent there). A run that records nothing
   * for `othersQuietMs`, the time budget spent, or Ctrl-C end the wait. It ends once no
   * row waits and no chunk is in hand (a chunk's mark, or its send again, may leave rows here).
   */
  private async *afterOthers(): AsyncGenerator<PendingRow[]> {
    let quietSince = Date.now()
    let shown = ''
    for (;;) {
      // Chunks just handed out have begun their marks, which may leave rows here.
      await sleep(1)
      if (this.stopped()) return
      if (this.waiting.size === 0) {
        if (this.inHand === 0) break
        quietSince = Date.now()
        await sleep(OTHERS_POLL_MS, this.opts.signal)
        continue
      }
      const {verdicts, grew} = this.log.standing([...this.waiting.values()])
      const again: PendingRow[] = []
      for (const w of [...this.waiting.values()]) {
        const verdict = verdicts.get(w.row) ?? 'going'
        if (verdict === 'going') continue
        this.waiting.delete(w.row)
        const {pid: _, journal: __, ...row} = w
        if (verdict === 'free') again.push(row)
        else if (verdict.state === 'maybe') again.push({...row, maybeSentAt: verdict.sentAt, earlier: true})
        else this.settledBefore(w.row, w.draftId, undefined, verdict)
      }
      if (grew || again.length > 0) quietSince = Date.now()
      // Looked up first (maybe sent there), then the free ones, each kind in chunks of its own.
      again.sort((a, b) => Number(a.maybeSentAt === undefined) - Number(b.maybeSentAt === undefined) || a.row - b.row)
      for (let i = 0; i < again.length; i += this.chunkSize) {
        const part = again.slice(i, i + this.chunkSize)
        const maybe = part.filter((r) => r.maybeSentAt !== undefined)
        if (maybe.length > 0) yield maybe
        if (maybe.length < part.length) yield part.filter((r) => r.maybeSentAt === undefined)
      }
      const quietMs = this.opts.othersQuietMs ?? OTHERS_QUIET_MS
      if (this.waiting.size > 0 && Date.now() - quietSince >= quietMs) {
        this.stopWaiting(
          quietMs === 0 ? 'is still going' : `has recorded nothing for ${Math.round(quietMs / 1000)} s (--wait-others)`,
        )
      } else if (this.waiting.size > 0 && this.ctx.client.budget.spent() !== undefined) {
        this.stopWaiting(`is still going and this run's time is spent`)
      }
      shown = this.showWaiting(shown)
      if (this.waiting.size > 0) await sleep(OTHERS_POLL_MS, this.opts.signal)
    }
    this.showWaiting(shown)
  }

  /** Leaves a row to the run of another input that claimed it, until it settles it (afterOthers). */
  private wait(r: PendingRow, state: DraftIdState): void {
    this.waiting.set(r.row, {
      row: r.row,
      draftId: r.draftId,
      item: r.item,
      journal: state.journal!,
      ...(state.pid === undefined ? {} : {pid: state.pid}),
    })
  }

  /** The rows still left to other runs, reported as not sent (`why` that run was not waited for longer). */
  private stopWaiting(why: string): void {
    for (const w of this.waiting.values()) {
      const run = `another run (${w.pid === undefined ? '' : `pid ${w.pid}, `}of another input to the same service)`
      const error = `not sent: ${run} has sent a row with the same content and ${why}; run the command again once it has finished`
      this.settle({row: w.row, draftId: w.draftId, error}, 'created')
    }
    this.waiting.clear()
    this.progress()
  }

  /** Tells onWaiting how many rows wait, and for which runs, when that changed since `shown`. */
  private showWaiting(shown: string): string {
    const pids = [...new Set([...this.waiting.values()].flatMap((w) => (w.pid === undefined ? [] : [w.pid])))].sort(
      (a, b) => a - b,
    )
    const now = `${this.waiting.size} ${pids.join(',')}`
    if (now !== shown && !(shown === '' && this.waiting.size === 0))
      this.opts.onWaiting?.({rows: this.waiting.size, pids})
    return now
  }

  /**
   * Plan chunks: the second pass, over the valid rows that still need the server,
   * in input order. Rows an earlier run may have sent go in chunks of their own,
   * since they are looked up before anything else.
   */
  private async *plan(): AsyncGenerator<PendingRow[]> {
    let current: PendingRow[] = []
    // A chunk also ends before its body would pass what the service takes (big cells: notes, embedded files).
    let bytes = 0
    for await (const {row, item, chars} of this.spool!.read()) {
      if (this.stopped()) return
      const state = this.earlier.get(row)
      // A row maybe sent is looked up by the draftId it went with (a journal of an older mfg named rows otherwise).
      const draftId = state?.state === 'maybe' && state.draftId !== undefined ? state.draftId : (item.draftId as string)
      item.draftId = draftId
      const elsewhere = state === undefined ? this.byDraftId.get(draftId) : undefined
      if (this.settledBefore(row, draftId, state, elsewhere)) {
        this.progress()
        continue
      }
      if (elsewhere?.pid !== undefined && elsewhere.journal !== undefined) {
        // Sent by a run of another input going on: left to it, and waited for once the rest are sent.
        this.wait({row, draftId, item}, elsewhere)
        continue
      }
      // Left here: rows no run created, some of them maybe sent (by an earlier run of this input or of another).
      const sentAt =
        state?.state === 'maybe' ? state.sentAt : elsewhere?.state === 'maybe' ? elsewhere.sentAt : undefined
      const maybe = sentAt !== undefined
      // Characters stand for bytes in rows under 10,000 of them: at 3 bytes each, 100 such rows
      // add at most 2 MB to what was counted, within the fifth of the limit kept free.
      const size = jsonBytes(item, 10_000, chars) + 1
      if (current.length > 0 && ((current[0]!.maybeSentAt !== undefined) !== maybe || bytes + size > CHUNK_BYTES)) {
        yield current
        current = []
        bytes = 0
      }
      current.push({row, draftId, item, ...(maybe ? {maybeSentAt: sentAt!, earlier: true} : {})})
      bytes += size
      if (current.length >= this.chunkSize) {
        yield current
        current = []
        bytes = 0
      }
    }
    if (current.length > 0 && !this.stopped()) yield current
  }

  /**
   * Settles, without a request, a row a run has dealt with already: created by an
   * earlier run of this input (`state`), or of another input (`elsewhere`, then
   * journalled as this run's).
   */
  private settledBefore(
    row: number,
    draftId: string,
    state: JournalRowState | undefined,
    elsewhere: DraftIdState | undefined,
  ): boolean {
    if (state?.state === 'done') {
      this.settle(state.result, 'resumed')
      return true
    }
    if (elsewhere?.state === 'done') {
      // Made by a run of another input (the file before an edit): not this run's to send.
      const result = {...elsewhere.result, row}
      this.log.done([result])
      this.summary.resumedElsewhere++
      if (elsewhere.from && !this.summary.earlierInputs.some((e) => e.at === elsewhere.from!.at)) {
        this.summary.earlierInputs.push(elsewhere.from)
      }
      this.settle(result, 'resumed')
      return true
    }
    return false
  }

  /**
   * A planned chunk. Unless an earlier run may have sent its rows (then they are
   * looked up first) or the service is down, its `sent` mark starts now. A mark made
   * before its request leaves says no more than "maybe sent", which a re-run settles by looking up.
   */
  private chunk(rows: PendingRow[]): Chunk {
    const chunk: Chunk = {rows, sends: 0, unknowns: 0, lastError: ''}
    if (rows.every((r) => r.maybeSentAt === undefined) && this.health.down() === undefined) {
      chunk.mark = this.mark(rows)
      // Awaited by send(); this keeps a failed sync of a chunk never sent from going unhandled.
      chunk.mark.catch(() => undefined)
    }
    return chunk
  }

  /**
   * Journals rows as maybe sent, resolving once that is on the disk. A row a run of
   * another input has claimed meanwhile (the same content) is settled with what that
   * run recorded, and left out of the rows to send.
   */
  private async mark(rows: PendingRow[]): Promise<Mark> {
    const at = Date.now()
    const {c, taken} = await this.log.sent(rows, at)
    if (taken.size === 0) return {c, at, rows}
    for (const r of rows) {
      const state = taken.get(r.row)
      if (state !== undefined) this.settleClaimed(r, state)
    }
    this.progress()
    return {c, at, rows: rows.filter((r) => !taken.has(r.row))}
  }

  /** A row another input's run claimed while this run went: created there, or sent there and not settled yet (waited for). */
  private settleClaimed(r: PendingRow, state: DraftIdState): void {
    // A claim always names the journal it was read from (TargetClaims.takenOf): waited for there.
    if (!this.settledBefore(r.row, r.draftId, undefined, state)) this.wait(r, state)
  }

  /** One chunk from its first step to its last, each next step decided by decideChunk. */
  private async process(chunk: Chunk): Promise<void> {
    let step: ChunkStep = chunk.rows.some((r) => r.maybeSentAt !== undefined) ? {next: 'reconcile'} : {next: 'send'}
    for (;;) {
      if (step.next === 'done') return
      if (step.next === 'stop') return this.stopChunk(chunk)
      if (step.next === 'give-up') return this.giveUp(chunk, step.outcome)
      const down = this.health.down()
      if (down !== undefined) return this.skip(chunk, `the service failed the chunks before it (${down})`)
      // The command's time budget (the client's) is spent: no more requests, rows reported as they stand.
      const spent = this.ctx.client.budget.spent()
      if (spent !== undefined) return this.skip(chunk, this.ctx.client.budget.stoppedBy(spent))
      const event = step.next === 'send' ? await this.send(chunk) : await this.reconcile(chunk)
      this.heed(event, chunk)
      step = decideChunk({sends: chunk.sends, stopped: this.stopped()}, event, this.opts.maxSends ?? DEFAULT_MAX_SENDS)
    }
  }

  /** What an event says of the service's health. */
  private heed(event: ChunkEvent, chunk: Chunk): void {
    if (this.stopped()) return
    if (event.type === 'not-sent' || event.type === 'lookup-failed') this.health.failed(chunk.lastError)
    else if (event.type === 'unknown') this.health.lost(chunk.lastError)
    else if (event.type !== 'fatal') this.health.alive()
  }

  /** The service is down, or the command's time is spent (`why`): report the chunk without another request. */
  private async skip(chunk: Chunk, why: string): Promise<void> {
    const premarked = chunk.mark
    chunk.mark = undefined
    if (premarked) {
      const {c, rows} = await premarked
      chunk.rows = rows
      this.log.notSent(c, rows)
    }
    const first = chunk.rows[0]
    if (first?.confirmed) return this.giveUp(chunk, 'confirmed')
    if (first?.maybeSentAt !== undefined) return this.giveUp(chunk, 'unknown')
    chunk.lastError = `not sent: ${why}`
    return this.giveUp(chunk, 'not-created')
  }

  /** Send: one create request for the chunk's pending rows, journalled before it leaves. */
  private async send(chunk: Chunk): Promise<ChunkEvent> {
    const premarked = chunk.mark
    chunk.mark = undefined
    if (this.stopped() && premarked === undefined) return {type: 'not-sent'}
    if (chunk.sends++ > 0) this.summary.retries++
    // The request waits for the mark to be on the disk; other chunks go on meanwhile.
    const {c, at: sentAt, rows} = await (premarked ?? this.mark(chunk.rows))
    chunk.rows = rows
    // Every row claimed by another run: settled by the mark, nothing to send.
    if (rows.length === 0) return {type: 'created'}
    if (this.stopped()) {
      // Stopped while the mark was being synced: the chunk never left.
      this.log.notSent(c, rows)
      return {type: 'not-sent'}
    }
    let answer: Awaited<ReturnType<typeof this.post>>
    try {
      answer = await this.post(rows)
    } catch (error) {
      return this.sendFailed(chunk, c, sentAt, error)
    }
    // Replayed on this run's first send of the chunk: the service kept the answer of an
    // earlier run's request (the same rows make the same key), so those demands are not new;
    // nor are those it answered by their draftId that it made before this request.
    const replayed = answer.replayed && chunk.sends === 1
    if (answer.results.length > 0) {
      this.log.done(answer.results, c)
      for (const result of answer.results)
        this.settle(result, replayed || answer.existing.has(result.draftId) ? 'replayed' : 'created')
      this.progress()
    }
    chunk.rows = answer.rest.map((i) => rows[i]!)
    if (chunk.rows.length === 0) return {type: 'created'}
    return this.confirmedWithoutDetails(chunk, c, sentAt)
  }

  private async post(
    rows: PendingRow[],
  ): Promise<ReturnType<typeof matchAnswer> & {replayed: boolean; existing: Set<string>}> {
    let replayed = false
    let answeredAt: number | undefined
    // The key is a bonus on servers that honour it, sent as a plain header: the
    // client then resends the POST only on proof that nothing was processed,
    // and this run settles any other failure by looking the draftIds up.
    const write = {
      idempotencyKey: idempotencyKeyFor(
        this.legacy ? 'v2 create-demands' : 'v1 create-quotes',
        rows.map((r) => r.draftId),
      ),
      autoRetry: false,
      validate: false,
      summary: true,
      bulk: true,
      onReplayed: () => (replayed = true),
      onServerTime: (ms: number) => (answeredAt = ms),
    }
    const items = rows.map((r) => r.item)
    this.summary.requests++
    const leftAt = Date.now()
    const records: {_id: string; orderNumber?: number; draftId?: string; status?: string; createdAt?: string}[] = this
      .legacy
      ? await (await import('../../api/v2/demands.js')).createLegacyDemands(this.ctx.client, items, write)
      : await createQuotes(this.ctx.client, this.ctx.businessId, items, write)
    const sent = new Set(rows.map((r) => r.draftId))
    for (const record of records) if (record.draftId && sent.has(record.draftId)) this.finder.remember(record.draftId)
    return {...matchAnswer(rows, records), replayed, existing: madeBefore(records, answeredAt, Date.now() - leftAt)}
  }

  /**
   * The service answered 2xx but did not name these rows: they exist. Journalled
   * as created (without ids) at once; a look-up may still find their ids.
   */
  private confirmedWithoutDetails(chunk: Chunk, c: number, sentAt: number): ChunkEvent {
    this.log.done(
      chunk.rows.map((r): RowConfirmed => ({row: r.row, draftId: r.draftId, outcome: 'confirmed'})),
      c,
    )
    chunk.rows = chunk.rows.map((r) => ({...r, confirmed: true, maybeSentAt: sentAt}))
    return {type: 'confirmed', rest: chunk.rows.length}
  }

  /** Journal what a failed request proves, and keep the rows still pending. */
  private sendFailed(chunk: Chunk, c: number, sentAt: number, error: unknown): ChunkEvent {
    const failure = classifySendFailure(error)
    chunk.lastError = messageOf(error)
    switch (failure.type) {
      case 'fatal':
        // Authentication or permission: nothing was created, and nothing else will be.
        this.log.notSent(c, chunk.rows)
        this.fatal ??= {error}
        return {type: 'fatal'}
      case 'confirmed':
        return this.confirmedWithoutDetails(chunk, c, sentAt)
      case 'refused': {
        // The service checks a whole body before creating anything: the rows it
        // named failed; the others were not created and may go again.
        const named = failure.rows.size > 0 ? failure.rows : undefined
        const failures: RowFailure[] = []
        const rest: PendingRow[] = []
        chunk.rows.forEach((r, i) => {
          if (named && !named.has(i)) rest.push(r)
          else failures.push({row: r.row, draftId: r.draftId, error: rowError(error as ApiError, i)})
        })
        this.log.failed(c, failures)
        for (const f of failures) this.settle(f, 'created')
        this.progress()
        this.log.notSent(c, rest)
        chunk.rows = rest
        return {type: 'refused', rest: rest.length}
      }
      case 'not-sent':
        this.log.notSent(c, chunk.rows)
        return {type: 'not-sent'}
      case 'unknown':
        this.log.unknown(c, chunk.rows, sentAt)
        chunk.rows = chunk.rows.map((r) => ({...r, maybeSentAt: sentAt}))
        chunk.unknowns++
        return {type: 'unknown'}
    }
  }

  /** Reconcile: look up the rows that may exist, after the RetryPolicy's wait when this run just lost an answer. */
  private async reconcile(chunk: Chunk): Promise<ChunkEvent> {
    if (chunk.unknowns > 0) {
      // A wait after a failure: counted in, and cut to, the command's time budget.
      const budget = this.ctx.client.budget
      const wait = Math.max(
        0,
        Math.min(this.ctx.client.retryPolicy.backoff(chunk.unknowns), budget.failingLeftMs(), budget.leftMs()),
      )
      budget.addFailing(wait)
      await sleep(wait, this.opts.signal)
    }
    const confirmed = chunk.rows.some((r) => r.confirmed)
    if (this.stopped()) return {type: 'lookup-failed', confirmed}
    const suspects = chunk.rows.filter((r) => r.maybeSentAt !== undefined)
    let lookup: Awaited<ReturnType<DraftIdFinder['find']>>
    try {
      lookup = await this.finder.find(
        suspects.map((r) => r.draftId),
        Math.min(...suspects.map((r) => r.maybeSentAt!)),
      )
    } catch (error) {
      // Credentials or permission: nothing else will work. Anything else leaves the rows unsettled.
      if (classifySendFailure(error).type === 'fatal') {
        this.fatal ??= {error}
        return {type: 'fatal'}
      }
      chunk.lookupNote = `looking it up failed too: ${lookupFailure(error)}`
      return {type: 'lookup-failed', confirmed}
    }
    const settled = this.settleFound(suspects, lookup.found)
    chunk.rows = chunk.rows.filter((r) => !settled.has(r.row))
    if (!lookup.proven) {
      chunk.lookupNote =
        'looking it up by draftId found nothing, and that look-up is not proven to work on this service'
    } else if (!confirmed) {
      // Proven missing: not created, so these rows are new again.
      chunk.rows = chunk.rows.map(({maybeSentAt: _, earlier: __, ...rest}) => rest)
    }
    return {type: 'looked-up', missing: chunk.rows.length, proven: lookup.proven, confirmed}
  }

  /** Settles the rows a look-up found, and answers their row numbers. */
  private settleFound(suspects: PendingRow[], found: Map<string, FoundDemand[]>): Set<number> {
    const settled = new Set<number>()
    const done: RowResult[] = []
    for (const r of suspects) {
      const hits = found.get(r.draftId) ?? []
      if (hits.length === 0) continue
      settled.add(r.row)
      if (hits.length > 1) {
        // Never pick one: the journal keeps the row unsettled, and the user decides.
        const ids = hits.map((h) => h.id)
        const error = `${ids.length} demands carry this row's draftId (${ids.join(', ')}): it was created more than once, by another run or by the service; keep one and cancel the others`
        this.settle({row: r.row, draftId: r.draftId, error, outcome: 'ambiguous', ids}, 'created')
        continue
      }
      const {createdAt, ...hit} = hits[0]!
      const result: RowResult = {row: r.row, ...hit}
      done.push(result)
      // Made well before this run sent it (clocks may differ by minutes): an earlier run's demand.
      const before = createdAt !== undefined && createdAt < r.maybeSentAt! - SCAN_MARGIN_MS
      this.settle(result, r.confirmed ? 'created' : r.earlier || before ? 'found-earlier' : 'reconciled')
    }
    if (done.length > 0) this.log.done(done)
    if (settled.size > 0) this.progress()
    return settled
  }

  /** Out of proof or of tries: report the rows; the journal keeps what is still unknown for the next run. */
  private giveUp(chunk: Chunk, outcome: GiveUpOutcome): void {
    for (const r of chunk.rows) this.settle(this.outcomeOf(chunk, r, outcome), 'created')
    this.progress()
  }

  private outcomeOf(chunk: Chunk, r: PendingRow, outcome: GiveUpOutcome): RowOutcome {
    if (outcome === 'confirmed') return {row: r.row, draftId: r.draftId, outcome: 'confirmed'}
    if (outcome === 'not-created') {
      return {
        row: r.row,
        draftId: r.draftId,
        error: `${chunk.lastError} (not created; run the same command again to retry)`,
      }
    }
    const cause = chunk.lastError || 'sent by an earlier run that got no answer'
    const why = chunk.lookupNote ?? 'not looked up'
    return {
      row: r.row,
      draftId: r.draftId,
      error: `${cause}; outcome unknown (${why}): the demand may exist, so it is not sent again; a re-run looks it up first`,
      outcome: 'unknown',
    }
  }

  /**
   * A chunk the run stopped in (Ctrl-C, an error that stops everything): rows the
   * service may have created, or confirmed, are reported as such now; rows never
   * sent stay pending, for reportUnsent.
   */
  private stopChunk(chunk: Chunk): void {
    const sent = chunk.rows.filter((r) => r.confirmed || r.maybeSentAt !== undefined)
    for (const r of sent) this.settle(this.outcomeOf(chunk, r, r.confirmed ? 'confirmed' : 'unknown'), 'created')
    if (sent.length > 0) this.progress()
  }

  /**
   * Once the run has stopped (Ctrl-C, SIGTERM, or `stoppedBy`), the rows never sent,
   * each with its outcome (`not sent: why`), so the output covers every row as it
   * does when a time budget stops the run. They stay counted as pending (not
   * failed): the summary says how many, and a re-run sends them.
   */
  private async reportUnsent(why: string): Promise<void> {
    for await (const {row, item} of this.spool!.read()) {
      if (this.settled.has(row)) continue
      this.opts.onResult?.({row, draftId: item.draftId as string, error: `not sent: ${why}`})
    }
  }

  private settle(outcome: RowOutcome, how: 'created' | 'resumed' | 'replayed' | 'reconciled' | 'found-earlier'): void {
    const s = this.summary
    this.settled.add(outcome.row)
    s.pending--
    if (isFailure(outcome)) {
      s.failed++
      if (outcome.outcome === 'unknown') s.unknown++
      if (outcome.outcome === 'ambiguous') s.ambiguous++
    } else if (how === 'resumed' || how === 'replayed' || how === 'found-earlier' || this.isEarlierDemand(outcome)) {
      // A row sent again (--fresh) and answered with the demand an earlier run made is not this run's work.
      s.resumed++
      if (how === 'found-earlier') s.reconciled++
    } else {
      s.created++
      if (how === 'reconciled') s.reconciled++
      if ('outcome' in outcome) s.confirmed++
    }
    this.opts.onResult?.(outcome)
  }

  private isEarlierDemand(outcome: RowOutcome): boolean {
    const id = 'id' in outcome ? outcome.id : undefined
    return id !== undefined && this.madeBefore.get(outcome.row) === id
  }

  private progress(): void {
    const s = this.summary
    this.opts.onProgress?.({done: s.created + s.resumed + s.failed, failed: s.failed, total: s.validation.valid})
  }
}
