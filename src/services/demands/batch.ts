import {
  ApiError,
  AuthenticationError,
  NetworkError,
  PermissionError,
  RateLimitError,
  ServerError,
  ValidationError,
} from '../../api/errors.js'
import {sleep} from '../../api/http.js'
import {createQuotes} from '../../api/v1/demands.js'
import {createLegacyDemands} from '../../api/v2/demands.js'
import {MAX_BATCH} from '../../schemas/demand.js'
import type {ServiceContext} from '../context.js'
import {InputError} from '../errors.js'
import {
  BatchJournal,
  isFailure,
  type JournalKey,
  type JournalRowState,
  type RowFailure,
  type RowOutcome,
  type RowResult,
} from './batch-journal.js'
import {DraftIdFinder} from './batch-reconcile.js'
import {
  knownFields,
  createSchema,
  RowSpool,
  validateSource,
  type RowSource,
  type Shard,
  type ValidationReport,
} from './batch-validate.js'
import {draftIdFor, idempotencyKeyFor} from './create.js'

export {isFailure, type RowFailure, type RowOutcome, type RowResult}

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
  /** Where the journal lives; false for no journal (a one-off quote from flags). */
  journal?: {dir: string; fresh?: boolean} | false
  /** Replaces the input's content hash as its identity (draftIds and journal key). */
  identity?: string
  /** Sends (and reconciliations) per chunk before its rows count as failed. Default 8. */
  maxRounds?: number
  /** First back-off step in ms (doubles, jittered, capped at 8 s). Default 500. */
  retryBaseMs?: number
  /** Aborting stops new chunks; chunks in flight finish their current request. */
  signal?: AbortSignal
  /** Each row's outcome, as soon as it is known (journal results first, in row order). */
  onResult?: (outcome: RowOutcome) => void
  onProgress?: (progress: BatchProgress) => void
  /** Called once the first pass is over, before anything is sent. */
  onValidated?: (report: ValidationReport) => void
  /** Characters of JSON (estimated) of valid rows kept in memory between the two passes (default 4 Mi); the rest go to a temporary file. */
  spoolBudget?: number
}

export interface BatchSummary {
  validation: ValidationReport
  /** Rows created (or found) by this run. */
  created: number
  /** Rows already created by an earlier run, answered from the journal. */
  resumed: number
  failed: number
  /** Valid rows not settled because the run was stopped. */
  pending: number
  interrupted: boolean
  requests: number
  /** Chunks sent again after a transient failure. */
  retries: number
  /** Rows found on the server after an unknown outcome (not sent again). */
  reconciled: number
  /** Look-up requests made to settle unknown outcomes. */
  lookups: number
  journal?: string
  dryRun: boolean
}

interface PreparedRow {
  row: number
  draftId: string
  item: Record<string, unknown>
  /** Sent by an earlier attempt whose outcome is unknown: look it up before sending. */
  maybeSentAt?: number
}

type Failure =
  | {kind: 'fatal'; error: unknown}
  | {kind: 'refused'; error: ApiError; rowIndexes?: Set<number>}
  | {kind: 'notsent'; error: unknown; retryAfterMs?: number}
  | {kind: 'unknown'; error: unknown; retryAfterMs?: number}

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
 *    429 and connection failures before sending are retried with back-off
 *    (honouring Retry-After); an unknown outcome (connection lost after sending,
 *    time-out, 5xx) is reconciled by draftId first and only missing rows are resent.
 */
export async function runBatch(
  context: ServiceContext | (() => Promise<ServiceContext>),
  source: RowSource,
  opts: BatchOptions = {},
): Promise<BatchSummary> {
  // The first pass keeps each valid row as it will be sent, so the second pass
  // neither reads nor converts the input again.
  const spool = opts.dryRun ? undefined : new RowSpool(opts.spoolBudget)
  try {
    return await runPasses(context, source, opts, spool)
  } finally {
    spool?.close()
  }
}

async function runPasses(
  context: ServiceContext | (() => Promise<ServiceContext>),
  source: RowSource,
  opts: BatchOptions,
  spool: RowSpool | undefined,
): Promise<BatchSummary> {
  const legacy = opts.legacy ?? false
  const chunkSize = Math.max(1, Math.min(opts.chunkSize ?? MAX_BATCH, MAX_BATCH))
  const schema = createSchema(legacy)
  const known = new Set<string>(Object.keys((schema as unknown as {shape: Record<string, unknown>}).shape))
  const validation = await validateSource(source, {
    legacy,
    ...(opts.shard ? {shard: opts.shard} : {}),
    ...(opts.skipInvalid ? {skipInvalid: true} : {}),
    ...(opts.errorsFile ? {errorsFile: opts.errorsFile} : {}),
    chunkSize,
    // A row without unknown fields is sent as it was read.
    ...(spool
      ? {
          onValid: (input, checked) =>
            spool.add(
              input.row,
              checked.unknownFields.length === 0 ? (input.value as Record<string, unknown>) : knownFields(input, known),
            ),
        }
      : {}),
  })
  opts.onValidated?.(validation)
  const summary: BatchSummary = {
    validation,
    created: 0,
    resumed: 0,
    failed: 0,
    pending: validation.valid,
    interrupted: false,
    requests: 0,
    retries: 0,
    reconciled: 0,
    lookups: 0,
    dryRun: opts.dryRun ?? false,
  }
  if (!spool || validation.valid === 0) return summary
  const valid = spool
  // Only now, with every row checked, is the service needed (a dry run never connects).
  const ctx = typeof context === 'function' ? await context() : context

  const identity = opts.identity ?? validation.contentHash
  const key: JournalKey = {
    input: identity,
    shard: opts.shard ? `${opts.shard.index}/${opts.shard.count}` : '1/1',
    target: `${ctx.target ?? ctx.client.baseUrl} ${ctx.businessId}`,
    api: legacy ? 'legacy' : 'v1',
  }
  const opened = opts.journal ? BatchJournal.open(opts.journal.dir, key, {fresh: opts.journal.fresh}) : undefined
  const journal = opened?.journal
  const earlier: Map<number, JournalRowState> = opened?.rows ?? new Map()
  if (journal) summary.journal = journal.path
  let localChunk = 0
  const chunkId = () => journal?.chunkId() ?? localChunk++
  const append: BatchJournal['append'] = (event) => journal?.append(event)

  const finder = new DraftIdFinder(ctx, {legacy})
  const maxRounds = opts.maxRounds ?? 8
  const retryBaseMs = opts.retryBaseMs ?? 500
  const signal = opts.signal
  let fatal: {error: unknown} | undefined
  const stopped = () => Boolean(signal?.aborted) || fatal !== undefined

  const progress = () =>
    opts.onProgress?.({
      done: summary.created + summary.resumed + summary.failed,
      failed: summary.failed,
      total: validation.valid,
    })
  const settle = (outcome: RowOutcome, how: 'created' | 'resumed' | 'reconciled') => {
    summary.pending--
    if (isFailure(outcome)) summary.failed++
    else if (how === 'resumed') summary.resumed++
    else {
      summary.created++
      if (how === 'reconciled') summary.reconciled++
    }
    opts.onResult?.(outcome)
  }

  /** The second pass: chunks of the valid rows that still need the server, in input order. */
  async function* chunks(): AsyncGenerator<PreparedRow[]> {
    let current: PreparedRow[] = []
    for await (const {row, item} of valid.read()) {
      if (stopped()) return
      const state = earlier.get(row)
      if (state?.state === 'done') {
        settle(state.result, 'resumed')
        progress()
        continue
      }
      const draftId = typeof item.draftId === 'string' ? item.draftId : draftIdFor(identity, row - 1)
      // Where the row had one it stays in place; otherwise it comes last, as a spread would put it.
      item.draftId = draftId
      current.push({
        row,
        draftId,
        item,
        ...(state?.state === 'maybe' ? {maybeSentAt: state.sentAt} : {}),
      })
      if (current.length >= chunkSize) {
        yield current
        current = []
      }
    }
    if (current.length > 0 && !stopped()) yield current
  }

  async function send(
    rows: PreparedRow[],
  ): Promise<{id: string; orderNumber?: number; draftId?: string; status?: string}[]> {
    const items = rows.map((r) => r.item)
    // The key is a bonus on servers that honour it; autoRetry false keeps the
    // client from resending the POST on its own, since this runner settles an
    // unknown outcome by looking the draftIds up before anything goes again.
    const write = {
      idempotencyKey: idempotencyKeyFor(rows.map((r) => r.draftId)),
      autoRetry: false,
      validate: false,
      summary: true,
      bulk: true,
    }
    summary.requests++
    const records = legacy
      ? await createLegacyDemands(ctx.client, items, write)
      : await createQuotes(ctx.client, ctx.businessId, items, write)
    return records.map((r) => ({
      id: r._id,
      ...(r.orderNumber === undefined ? {} : {orderNumber: r.orderNumber}),
      ...(r.draftId === undefined ? {} : {draftId: r.draftId}),
      ...(r.status === undefined ? {} : {status: r.status}),
    }))
  }

  async function processChunk(chunk: PreparedRow[]): Promise<void> {
    let pending = chunk
    let lastError = ''
    let outcomeUnknown = false
    for (let round = 0; pending.length > 0 && round < maxRounds; round++) {
      const suspects = pending.filter((r) => r.maybeSentAt !== undefined)
      if (suspects.length > 0) {
        if (stopped()) return
        const sentAt = Math.min(...suspects.map((r) => r.maybeSentAt!))
        let found: Awaited<ReturnType<DraftIdFinder['find']>>
        try {
          found = await finder.find(
            suspects.map((r) => r.draftId),
            sentAt,
          )
        } catch (error) {
          const f = classify(error)
          if (f.kind === 'fatal' || f.kind === 'refused') {
            fatal ??= {error}
            return
          }
          lastError = messageOf(error)
          await sleep(backoff(round, f.retryAfterMs), signal)
          continue
        }
        const results: RowResult[] = []
        for (const r of suspects) {
          const hit = found.get(r.draftId)
          if (hit) results.push({row: r.row, ...hit})
        }
        if (results.length > 0) {
          append({t: 'done', c: chunkId(), results})
          for (const result of results) settle(result, 'reconciled')
          progress()
        }
        const foundRows = new Set(results.map((r) => r.row))
        pending = pending.filter((r) => !foundRows.has(r.row)).map(({maybeSentAt: _, ...rest}) => rest)
        outcomeUnknown = false
        if (pending.length === 0) return
      }
      if (stopped()) return
      if (round > 0) summary.retries++
      const c = chunkId()
      const sentAt = Date.now()
      const rows = pending.map((r) => r.row)
      // The request waits for the mark to be on the disk; other chunks go on meanwhile.
      await journal?.appendDurable({t: 'sent', c, rows, draftIds: pending.map((r) => r.draftId), at: sentAt})
      if (stopped()) {
        // Stopped while the mark was being synced: the chunk never left.
        append({t: 'notsent', c, rows})
        return
      }
      try {
        const answers = await send(pending)
        if (answers.length !== pending.length) {
          throw new ApiError({
            method: 'POST',
            path: legacy ? 'create-demands' : 'create-quotes',
            code: 'bad_response',
            serverMessage: `the service answered ${answers.length} demands for ${pending.length} rows`,
          })
        }
        const results: RowResult[] = pending.map((r, i) => {
          const a = answers[i]!
          return {
            row: r.row,
            id: a.id,
            ...(a.orderNumber === undefined ? {} : {orderNumber: a.orderNumber}),
            draftId: a.draftId ?? r.draftId,
            ...(a.status === undefined ? {} : {status: a.status}),
          }
        })
        append({t: 'done', c, results})
        for (const result of results) settle(result, 'created')
        progress()
        return
      } catch (error) {
        const f = classify(error)
        lastError = messageOf(error)
        if (f.kind === 'fatal') {
          // Authentication or permission: nothing was created, and nothing else will be.
          append({t: 'notsent', c, rows: pending.map((r) => r.row)})
          fatal ??= {error}
          return
        }
        if (f.kind === 'refused') {
          // The service checks a whole body before creating anything: the rows it
          // named failed; the others were not created and go again.
          const named = f.rowIndexes && f.rowIndexes.size > 0 ? f.rowIndexes : undefined
          const failures: RowFailure[] = pending
            .filter((_, i) => !named || named.has(i))
            .map((r) => ({row: r.row, draftId: r.draftId, error: rowError(f.error, pending.indexOf(r))}))
          append({t: 'failed', c, failures})
          for (const failure of failures) settle(failure, 'created')
          progress()
          const failedRows = new Set(failures.map((x) => x.row))
          const rest = pending.filter((r) => !failedRows.has(r.row))
          if (rest.length > 0) append({t: 'notsent', c, rows: rest.map((r) => r.row)})
          pending = rest
          continue
        }
        if (f.kind === 'notsent') {
          append({t: 'notsent', c, rows: pending.map((r) => r.row)})
          outcomeUnknown = false
        } else {
          append({t: 'unknown', c, rows: pending.map((r) => r.row), at: sentAt})
          pending = pending.map((r) => ({...r, maybeSentAt: sentAt}))
          outcomeUnknown = true
        }
        await sleep(backoff(round, f.retryAfterMs), signal)
      }
    }
    if (pending.length === 0 || stopped()) return
    // Out of rounds: report the rows; the journal keeps what is still unknown for the next run.
    const suffix = outcomeUnknown
      ? ' (outcome unknown: run the same command again to look these rows up before anything is resent)'
      : ' (not created; run the same command again to retry)'
    for (const r of pending) settle({row: r.row, draftId: r.draftId, error: lastError + suffix}, 'created')
    progress()
  }

  function backoff(round: number, retryAfterMs: number | undefined): number {
    if (retryAfterMs !== undefined) return retryAfterMs + Math.floor(Math.random() * 100)
    const exp = Math.min(8000, retryBaseMs * 2 ** round)
    return Math.round(exp / 2 + Math.random() * (exp / 2))
  }

  const generator = chunks()
  const worker = async (): Promise<void> => {
    try {
      for (;;) {
        if (stopped()) return
        const next = await generator.next()
        if (next.done) return
        await processChunk(next.value)
      }
    } catch (error) {
      // A journal that cannot be written (disk full...): the other workers stop
      // before their next request, and the journal closes once they all have.
      fatal ??= {error}
    }
  }
  try {
    progress()
    const workers = Math.max(1, opts.concurrency ?? 4)
    await Promise.all(Array.from({length: workers}, worker))
  } finally {
    await generator.return(undefined)
    await journal?.close()
    summary.lookups = finder.requests
  }
  if (fatal) throw fatal.error
  summary.interrupted = Boolean(signal?.aborted) && summary.pending > 0
  return summary

  function rowError(error: ApiError, index: number): string {
    const own = error.details?.filter((d) => d.path.split('.')[0] === String(index))
    if (own && own.length > 0) {
      return own.map((d) => `${d.path.split('.').slice(1).join('.') || '(row)'}: ${d.message}`).join('; ')
    }
    return error.serverMessage ?? error.message
  }
}

function classify(error: unknown): Failure {
  if (error instanceof AuthenticationError || error instanceof PermissionError) return {kind: 'fatal', error}
  if (error instanceof InputError) return {kind: 'fatal', error}
  if (error instanceof RateLimitError) {
    return {
      kind: 'notsent',
      error,
      ...(error.retryAfterSeconds === undefined ? {} : {retryAfterMs: error.retryAfterSeconds * 1000}),
    }
  }
  if (error instanceof NetworkError) {
    if (error.code === 'aborted') return {kind: 'unknown', error}
    return error.mayHaveBeenSent ? {kind: 'unknown', error} : {kind: 'notsent', error}
  }
  if (error instanceof ServerError) {
    // A 5xx may come after the work was done (a proxy, a crash after commit): look before resending.
    return {
      kind: 'unknown',
      error,
      ...(error.retryAfterSeconds === undefined ? {} : {retryAfterMs: error.retryAfterSeconds * 1000}),
    }
  }
  if (error instanceof ValidationError && error.clientSide) return {kind: 'fatal', error}
  if (error instanceof ApiError) {
    if (error.code === 'bad_response') return {kind: 'unknown', error}
    if (error.status !== undefined && error.status >= 400 && error.status < 500) {
      const indexes = new Set<number>()
      for (const d of error.details ?? []) {
        const first = Number(d.path.split('.')[0])
        if (Number.isInteger(first)) indexes.add(first)
      }
      return {kind: 'refused', error, rowIndexes: indexes}
    }
    return {kind: 'unknown', error}
  }
  return {kind: 'fatal', error}
}

function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message.split('\n')[0] ?? error.message
  return error instanceof Error ? error.message : String(error)
}
