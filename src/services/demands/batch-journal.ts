import {createHash} from 'node:crypto'
import {
  appendFileSync,
  chmodSync,
  closeSync,
  existsSync,
  fchmodSync,
  fdatasync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import {basename, join} from 'node:path'
import {lockHolder, processAlive, sleepSync, type LockHolder} from '../../util/alive.js'
import {fileReason} from '../../util/file-reason.js'
import {LockBusyError, withFileLock} from '../../util/file-lock.js'

/** A row that exists on the server. */
export interface RowResult {
  row: number
  id: string
  orderNumber?: number
  draftId: string
  status?: string
}

/**
 * A row the service confirmed (a 2xx answer) without saying which demand it made
 * (no body, or fewer records than rows), and that no look-up could find: it
 * exists, its id is not known.
 */
export interface RowConfirmed {
  row: number
  draftId: string
  outcome: 'confirmed'
}

/** A row that was not created (or whose outcome could not be settled). */
export interface RowFailure {
  row: number
  draftId: string
  error: string
  /**
   * `unknown` when nobody could tell whether the row was created: the request may
   * have been processed and no proven look-up settled it. A re-run looks it up
   * first. `ambiguous` when a look-up found more than one demand with its draftId
   * (`ids`): it was created more than once, by another run or the service, and
   * none is picked. Absent: not created.
   */
  outcome?: 'unknown' | 'ambiguous'
  /** With `ambiguous`: every demand that carries the row's draftId. */
  ids?: string[]
}

export type RowOutcome = RowResult | RowFailure | RowConfirmed

export const isFailure = (o: RowOutcome): o is RowFailure => 'error' in o

/** A row that exists on the server, with or without its id. */
export type RowSettled = RowResult | RowConfirmed

/** What makes two runs "the same run": the input, the slice of it, where it goes and through which API. */
export interface JournalKey {
  /** sha256 of the input bytes (or the caller's own identity). */
  input: string
  /** "I/N", or "1/1" without --shard. */
  shard: string
  /** Base URL plus business id. */
  target: string
  api: 'v1' | 'legacy'
}

/**
 * One line of the journal. Every state change of a chunk is appended before the
 * run goes on (a `sent` mark is synced to the disk before its request leaves), so
 * a crash at any point leaves a journal that says, per row: created (with its
 * result), maybe sent, or not created.
 */
export type JournalEvent =
  | {t: 'start'; v: 1; key: JournalKey; at: string; source?: string}
  /** Written before the request leaves: from here on the rows' outcome is unknown until settled. */
  | {t: 'sent'; c: number; rows: number[]; draftIds: string[]; at: number}
  /** Rows that exist on the server; a later `done` of the same row (its id found) replaces one without details. */
  | {t: 'done'; c: number; results: RowSettled[]}
  /** Definitively refused (the service validates a whole body before creating anything). */
  | {t: 'failed'; c: number; failures: RowFailure[]}
  /** Known not to have been created (429, connection refused): plain pending again. */
  | {t: 'notsent'; c: number; rows: number[]}
  /** Sent, but no answer: reconcile before any resend. */
  | {t: 'unknown'; c: number; rows: number[]; at: number}

/** A row's state as the journal left it; a row maybe sent keeps the draftId it was sent with. */
export type JournalRowState =
  | {state: 'done'; result: RowSettled}
  | {state: 'maybe'; sentAt: number; draftId?: string}
  | {state: 'failed'; error: string}

/**
 * What another input's run (the same target and API) recorded of a draftId: created, or
 * maybe sent; `pid` when that run is going on now.
 */
export type DraftIdState = ({state: 'done'; result: RowSettled} | {state: 'maybe'; sentAt: number}) & {
  pid?: number
  /** The journal (its file name) of the run that recorded it, when that run was going on. */
  journal?: string
  /** The run that recorded it: its input (a file's path, or stdin) and when it started. */
  from?: EarlierInput
}

/** An earlier run of another input, as its journal's first line names it. */
export interface EarlierInput {
  source?: string
  at: string
}

export interface OpenedJournal {
  journal: BatchJournal
  /** Row number → state, from earlier runs (empty when new or --fresh). */
  rows: Map<number, JournalRowState>
  /** Whether an earlier run's journal was found and used. */
  resumed: boolean
  /**
   * The demands earlier runs recorded as created, row → id, even with --fresh: a fresh run
   * sends those rows again, and an answer naming the same demand is an earlier run's work.
   */
  madeBefore: Map<number, string>
  /**
   * draftId → what the journals of the target's other inputs recorded of it (empty with
   * --fresh): a row of an edited file keeps its draftId (a file's draftIds come from
   * the rows' content), and is found here if a run of the file before the edit made it.
   */
  byDraftId: Map<string, DraftIdState>
}

/** No row taken by another run (shared: never written to). */
const NONE_TAKEN: Map<number, DraftIdState> = new Map()

/** How far back the journals of other inputs are read, in days, at most how many of them, and how many bytes in all. */
export const OTHER_INPUTS_DAYS = 30
export const OTHER_INPUTS_MAX = 64
export const OTHER_INPUTS_BYTES = 64 * 1024 * 1024

/** The file name of a key: stable, and free of the URL's characters. */
export function journalFileName(key: JournalKey): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([key.input, key.shard, key.target, key.api]))
    .digest('hex')
  return `create-${digest.slice(0, 32)}.ndjson`
}

/** How a refused second run names the first: what is running, and what running it twice would do. */
export interface LockWording {
  /** "this batch" */
  run: string
  /** "send the same rows" */
  would: string
}

/** A journal file taken: its path, its descriptor, its lock, and what it held before (undefined: none). */
interface HeldFile {
  path: string
  fd: number
  lock: RunLock
  before: string | undefined
}

/**
 * The events a journal file holds, in order. A line that does not parse (the last one,
 * cut short by a crash) is passed over: it was never acted on, since each step waits
 * for its line to be on the disk.
 */
export function* journalEvents<E>(text: string): Generator<E> {
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    try {
      yield JSON.parse(line) as E
    } catch {
      // Cut short: not an event.
    }
  }
}

/**
 * An append-only NDJSON file that records one run (directory 0700, file 0600), held
 * by one process at a time through a lock beside it. Every line is written at once, so
 * a crash of the process loses nothing; `appendDurable` also waits for the disk, and
 * the writes that arrive while a sync runs share the next one (a group commit).
 */
export class JournalFile<E> {
  /** Disk syncs under way. */
  private readonly syncs = new Set<Promise<void>>()
  /** The sync started last, while it runs. */
  private latest: Promise<void> | undefined
  /** The sync that will start when `latest` ends, shared by everyone who asked meanwhile. */
  private queued: Promise<void> | undefined

  protected constructor(
    readonly path: string,
    private fd: number | undefined,
    private readonly lock: RunLock,
  ) {}

  /**
   * Takes the lock of `name` in `dir` (a live holder makes this run refuse, naming it), reads
   * what the file holds, and opens it for appending; with `fresh` it is emptied first.
   */
  protected static hold(dir: string, name: string, opts: {fresh?: boolean; wording?: LockWording} = {}): HeldFile {
    try {
      mkdirSync(dir, {recursive: true, mode: 0o700})
      chmodSync(dir, 0o700)
    } catch (error) {
      throw new JournalError(
        `cannot keep the journal in ${dir}: ${fileReason(error, true)}; nothing was sent (MFG_HOME chooses where mfg keeps its files).`,
        'journal_unwritable',
      )
    }
    const path = join(dir, name)
    // Before anything is read or truncated: one run at a time.
    const lock = RunLock.take(`${path}.lock`, opts.wording)
    try {
      const before = existsSync(path) ? readFileSync(path, 'utf8') : undefined
      const fd = openSync(path, opts.fresh ? 'w' : 'a', 0o600)
      fchmodSync(fd, 0o600)
      return {path, fd, lock, before}
    } catch (error) {
      lock.release()
      throw error
    }
  }

  /** Writes an event, without waiting for the disk. */
  append(event: E): void {
    if (this.fd === undefined) return
    writeSync(this.fd, `${JSON.stringify(event)}\n`)
  }

  /**
   * Writes an event and resolves once it is on the disk. The sync runs off the
   * event loop, so other requests and answers go on meanwhile; writes that arrive
   * while a sync runs share the next one (a group commit).
   */
  appendDurable(event: E): Promise<void> {
    this.append(event)
    return this.sync()
  }

  /** Resolves once everything written so far is on the disk. */
  protected sync(): Promise<void> {
    if (this.fd === undefined) return Promise.resolve()
    // The sync running may have started before the last write: wait for the next one.
    if (this.latest) {
      const next = () => {
        this.queued = undefined
        return this.startSync()
      }
      this.queued ??= this.latest.then(next, next)
      return this.queued
    }
    return this.startSync()
  }

  private startSync(): Promise<void> {
    const fd = this.fd
    if (fd === undefined) return Promise.resolve()
    const running: Promise<void> = new Promise((resolve, reject) => {
      fdatasync(fd, (error) => {
        this.syncs.delete(running)
        if (this.latest === running) this.latest = undefined
        if (error) reject(error)
        else resolve()
      })
    })
    this.syncs.add(running)
    this.latest = running
    return running
  }

  /**
   * Closes the file once the syncs under way are over, and lets the lock go; with
   * `remove`, the file is deleted first (the run it recorded is over).
   */
  async close(opts: {remove?: boolean} = {}): Promise<void> {
    while (this.syncs.size > 0 || this.queued) await Promise.allSettled([...this.syncs, this.queued])
    if (this.fd === undefined) return
    closeSync(this.fd)
    this.fd = undefined
    if (opts.remove) rmSync(this.path, {force: true})
    this.lock.release()
  }
}

/**
 * Append-only NDJSON journal of one batch (a JournalFile). `sent` is synced to the
 * disk, because a request must not leave before the journal says it may have (`markSent`
 * resolves once it is, and the sender awaits it), and that sync carries
 * the `start` line written before it. The outcomes (`done`, `failed`, ...) are not: if
 * the machine itself goes down before they reach the disk, the next run finds
 * the chunk `sent` without an outcome and looks its draftIds up, as for a lost answer.
 */
export class BatchJournal extends JournalFile<JournalEvent> {
  private nextChunk: number

  private constructor(
    path: string,
    fd: number,
    firstChunk: number,
    lock: RunLock,
    private readonly claims: TargetClaims | undefined,
  ) {
    super(path, fd, lock)
    this.nextChunk = firstChunk
  }

  /**
   * Journals rows as maybe sent (chunk `c`), but for those a run of another input to the
   * same target has claimed since this run began (the same draftId): answered instead,
   * row → what that run recorded. Resolves once the mark is on the disk.
   */
  async markSent(
    c: number,
    rows: readonly {row: number; draftId: string}[],
    at: number,
  ): Promise<Map<number, DraftIdState>> {
    const write = (free: readonly {row: number; draftId: string}[]) => {
      if (free.length > 0)
        this.append({t: 'sent', c, rows: free.map((r) => r.row), draftIds: free.map((r) => r.draftId), at})
    }
    let taken = NONE_TAKEN
    if (this.claims) taken = this.claims.claim(rows, write)
    else write(rows)
    await this.sync()
    return taken
  }

  /** Where rows claimed by runs of other inputs stand now (TargetClaims.standing); all `going` under --fresh. */
  standing(rows: readonly {row: number; draftId: string; journal: string}[]): {
    verdicts: Map<number, Standing>
    grew: boolean
  } {
    return this.claims?.standing(rows) ?? {verdicts: new Map(rows.map((r) => [r.row, 'going'])), grew: false}
  }

  /** Opens (or with `fresh`, replaces) the journal for `key` in `dir`, reading what earlier runs recorded. */
  static open(
    dir: string,
    key: JournalKey,
    opts: {fresh?: boolean; source?: string; otherInputsBytes?: number} = {},
  ): OpenedJournal {
    const name = journalFileName(key)
    // Read before this run's own journal is taken (and, with --fresh, emptied): a refusal leaves it as it was.
    const slices = join(dir, sliceListName(key))
    const listed = existsSync(slices) ? readFileSync(slices, 'utf8').split('\n').filter(Boolean) : []
    const others = otherSlices(
      dir,
      key,
      listed.filter((n) => n !== name),
    )
    const targetList = join(dir, targetListName(key))
    const {path, fd, lock, before: text} = JournalFile.hold(dir, name, opts)
    let claims: TargetClaims | undefined
    try {
      if (!listed.includes(name)) appendFileSync(slices, `${name}\n`, {mode: 0o600})
      claims = underTargetLock(targetList, 'this run cannot be made known to the runs of other inputs', () => {
        // Every run, a new one or one taking a journal up again, adds a line: runs going on learn of it.
        enlist(dir, targetList, name)
        return opts.fresh ? undefined : new TargetClaims(dir, key, name)
      })
    } catch (error) {
      closeSync(fd)
      lock.release()
      throw error
    }
    // The journals listed when the claims took their sizes: a run listed since this one read the list is read too.
    const byDraftId = claims
      ? otherInputs(dir, key, claims.others, opts.otherInputsBytes ?? OTHER_INPUTS_BYTES)
      : new Map<string, DraftIdState>()
    const rows = new Map<number, JournalRowState>()
    let firstChunk = 0
    let resumed = false
    const before = text === undefined ? undefined : new Map<number, JournalRowState>()
    if (before && text !== undefined) {
      const replayed = replay(text, before)
      if (!opts.fresh) {
        for (const [row, state] of before) rows.set(row, state)
        firstChunk = replayed.maxChunk + 1
        resumed = replayed.events > 0
      }
    }
    const madeBefore = new Map<number, string>()
    for (const [row, state] of [...others, ...(before ?? [])]) {
      if (state.state === 'done' && 'id' in state.result) madeBefore.set(row, state.result.id)
    }
    if (!opts.fresh) {
      for (const [row, state] of others) {
        const own = rows.get(row)
        if (own?.state === 'done' || state.state === 'failed') continue
        if (state.state === 'done' || own?.state !== 'maybe') rows.set(row, state)
      }
    }
    const journal = new BatchJournal(path, fd, firstChunk, lock, claims)
    if (!resumed) {
      const start = {t: 'start', v: 1, key, at: new Date().toISOString()} as const
      journal.append(opts.source === undefined ? start : {...start, source: opts.source})
    }
    return {journal, rows, resumed, madeBefore, byDraftId}
  }

  /** A number for the next send, unique within this journal. */
  chunkId(): number {
    return this.nextChunk++
  }
}

/**
 * What the journals of the same input's other slices (another `--shard`, or the whole
 * input) recorded, target and API the same: a run of the whole file after its shards,
 * or of a shard after the whole file, finds there the rows the other created or may
 * have sent, and does not send them again. A run of another slice that is going on
 * now and shares rows with this one makes this one refuse, as a second run of the
 * same slice does.
 */
function otherSlices(dir: string, key: JournalKey, names: readonly string[]): Map<number, JournalRowState> {
  const rows = new Map<number, JournalRowState>()
  for (const name of names) {
    const path = join(dir, name)
    if (!/^create-[0-9a-f]{32}\.ndjson$/.test(name) || !existsSync(path)) continue
    const other = startEvent(path)?.key
    if (!other || other.input !== key.input || other.target !== key.target || other.api !== key.api) continue
    if (!slicesMeet(other.shard, key.shard)) continue
    const holder = readHolder(`${path}.lock`)
    if (holder && holder.pid !== process.pid && processAlive(holder.pid)) {
      throw new JournalError(
        `another run of the same input (${other.shard === '1/1' ? 'the whole of it' : `shard ${other.shard}`}) is in progress (pid ${holder.pid}, started ${holder.at ?? 'at an unknown time'}); it would send some of the same rows. Wait for it to finish, or stop it (kill -INT ${holder.pid}), then run the command again: it takes over what that run recorded.`,
        'busy',
      )
    }
    const found = new Map<number, JournalRowState>()
    replay(readFileSync(path, 'utf8'), found)
    for (const [row, state] of found) {
      const known = rows.get(row)
      if (known?.state !== 'done' && !(known?.state === 'maybe' && state.state !== 'done')) rows.set(row, state)
    }
  }
  return rows
}

/**
 * What the journals of the target's other inputs (the same base URL, business and API,
 * another input) recorded, by draftId: the newest OTHER_INPUTS_MAX of those written in
 * the last OTHER_INPUTS_DAYS days, as many as OTHER_INPUTS_BYTES holds (a start reads
 * them all, so a long history of big batches must not make every run slow). Rows created there are not sent again; rows maybe
 * sent there are looked up first, or left alone while that run goes on (`pid`).
 */
function otherInputs(
  dir: string,
  key: JournalKey,
  names: readonly string[],
  budget: number,
): Map<string, DraftIdState> {
  const found = new Map<string, DraftIdState>()
  const since = Date.now() - OTHER_INPUTS_DAYS * 24 * 3600 * 1000
  const recent = names
    .filter((n) => /^create-[0-9a-f]{32}\.ndjson$/.test(n))
    .map((n) => ({path: join(dir, n), ...fileTimes(join(dir, n))}))
    .filter((j) => j.at !== undefined && j.at >= since)
    .sort((a, b) => b.at! - a.at!)
    .slice(0, OTHER_INPUTS_MAX)
  let bytes = 0
  const kept = recent.findIndex((j) => (bytes += j.size ?? 0) > budget)
  if (kept >= 0) recent.length = Math.max(kept, 1)
  // Oldest first: a later run's word on a draftId wins.
  for (const {path} of recent.reverse()) {
    const start = startEvent(path)
    const other = start?.key
    if (!other || other.input === key.input || other.target !== key.target || other.api !== key.api) continue
    const holder = readHolder(`${path}.lock`)
    const pid = holder && holder.pid !== process.pid && processAlive(holder.pid) ? holder.pid : undefined
    const from = earlierInputOf(start)
    const going = pid === undefined ? {} : {pid, journal: basename(path)}
    for (const [draftId, state] of replayDraftIds(readFileSync(path, 'utf8'))) {
      if (found.get(draftId)?.state === 'done' && state.state !== 'done') continue
      found.set(draftId, {...state, from, ...going})
    }
  }
  return found
}

function fileTimes(path: string): {at?: number; size?: number} {
  try {
    const stat = statSync(path)
    return {at: stat.mtimeMs, size: stat.size}
  } catch {
    return {}
  }
}

/** A journal's events by draftId: created, or maybe sent (rows refused or known not sent are left out). */
function replayDraftIds(text: string): Map<string, DraftIdState> {
  const replay = new DraftIdReplay()
  replay.feed(journalEvents<JournalEvent>(text))
  return replay.states
}

/** Reads a journal's events by draftId, as many at a time as come (a journal read as it grows). */
class DraftIdReplay {
  readonly states = new Map<string, DraftIdState>()
  private readonly draftOf = new Map<number, string>()

  feed(events: Iterable<JournalEvent>): void {
    for (const event of events) {
      switch (event.t) {
        case 'sent':
          event.rows.forEach((row, i) => {
            const draftId = event.draftIds[i]
            if (draftId !== undefined) this.draftOf.set(row, draftId)
            this.maybe(draftId, event.at)
          })
          break
        case 'unknown':
          for (const row of event.rows) this.maybe(this.draftOf.get(row), event.at)
          break
        case 'done':
          for (const result of event.results) this.states.set(result.draftId, {state: 'done', result})
          break
        case 'failed':
          for (const f of event.failures) this.drop(f.draftId)
          break
        case 'notsent':
          for (const row of event.rows) this.drop(this.draftOf.get(row))
          break
        default:
          break
      }
    }
  }

  private maybe(draftId: string | undefined, at: number): void {
    if (draftId === undefined) return
    const prev = this.states.get(draftId)
    if (prev?.state === 'done') return
    this.states.set(draftId, {state: 'maybe', sentAt: prev?.state === 'maybe' ? Math.min(prev.sentAt, at) : at})
  }

  private drop(draftId: string | undefined): void {
    if (draftId !== undefined && this.states.get(draftId)?.state !== 'done') this.states.delete(draftId)
  }
}

/** Where a row another run claimed stands (TargetClaims.standing). */
export type Standing = DraftIdState | 'going' | 'free'

/** A journal of another input to the same target, as far as it has been read since this run began. */
interface WatchedJournal {
  /** Bytes read so far (those before this run began are not: the start of the run read them). */
  offset: number
  /** A last line not ended yet. */
  tail: string
  /** What the part read recorded, by draftId; undefined until its start line shows it is another input's. */
  replay?: DraftIdReplay
  /** Its start line read, and it is not another input of the same target and API: never read again. */
  ignored?: boolean
  from?: EarlierInput
}

/**
 * The rows that runs of other inputs going on at the same time claim. Two runs of
 * different inputs sharing rows (the same content, so the same draftId) must not both
 * send one: each marks a chunk `sent` under the target's claim lock, after reading what
 * the journals of the other runs going on have marked since it last looked, and leaves
 * out the rows one of them has claimed. Every run adds its journal's name to the
 * target's list when it starts, so the others learn of it at their next claim.
 */
class TargetClaims {
  private readonly listPath: string
  /** The list's size and time when last read: an append or a rewrite changes one of them. */
  private listStamp: string
  /** By journal name: every other journal of the target (its size when this run began, then what was read). */
  private readonly journals = new Map<string, WatchedJournal>()
  /** The journals whose run was going on when last looked at: read at each claim. */
  private readonly polled = new Set<string>()

  /** The other journals listed when this run began (under the lock): read whole by the start of the run (otherInputs). */
  readonly others: readonly string[]

  constructor(
    private readonly dir: string,
    private readonly key: JournalKey,
    private readonly own: string,
  ) {
    this.listPath = join(dir, targetListName(key))
    this.others = this.listed()
    this.listStamp = stampOf(this.listPath)
    for (const name of this.others) this.journals.set(name, {offset: fileTimes(join(dir, name)).size ?? 0, tail: ''})
    this.findLive(this.others)
  }

  /**
   * Marks the rows no run of another input going on (or ended since this run began) has
   * claimed, through `mark`, under the target's lock; answers the others, row → what that run recorded.
   */
  claim<R extends {row: number; draftId: string}>(
    rows: readonly R[],
    mark: (free: R[]) => void,
  ): Map<number, DraftIdState> {
    return underTargetLock(this.listPath, 'the rows of this batch cannot be claimed', () => {
      this.refresh()
      const taken = this.takenOf(rows)
      mark(taken.size === 0 ? [...rows] : rows.filter((r) => !taken.has(r.row)))
      return taken
    })
  }

  /**
   * Where rows another input's run claimed (`journal`, the one that claimed each) stand
   * now, under the target's lock: created there (`done`), still that run's while it goes
   * on (`going`), or, that run over without creating them, `maybe` sent by it (to be
   * looked up) or `free` (never sent there, or given up: this run's to send). `grew`:
   * whether a journal these rows wait for has recorded anything since the last look
   * (another run's work says nothing of whether the runs waited for are stuck).
   */
  standing(rows: readonly {row: number; draftId: string; journal: string}[]): {
    verdicts: Map<number, Standing>
    grew: boolean
  } {
    return underTargetLock(this.listPath, 'the rows of this batch cannot be claimed', () => {
      const waitedFor = new Set(rows.map((r) => r.journal))
      const offsets = () => [...waitedFor].reduce((sum, name) => sum + (this.journals.get(name)?.offset ?? 0), 0)
      const before = offsets()
      this.refresh()
      const grew = offsets() !== before
      const verdicts = new Map<number, Standing>()
      const ended = new Map<string, Map<string, DraftIdState>>()
      // Each state with the run that recorded it, named in the summary as earlier inputs are.
      const named = (state: DraftIdState, from: EarlierInput | undefined) => (from ? {...state, from} : state)
      for (const r of rows) {
        const watched = this.journals.get(r.journal)
        const seen = watched?.replay?.states.get(r.draftId)
        if (seen?.state === 'done') verdicts.set(r.row, named(seen, watched?.from))
        else if (this.livePid(r.journal) !== undefined) verdicts.set(r.row, 'going')
        else {
          // Its run is over: what its whole journal says of the row, read once for all its rows.
          const path = join(this.dir, r.journal)
          let final = ended.get(r.journal)
          if (final === undefined) {
            final = existsSync(path) ? replayDraftIds(readFileSync(path, 'utf8')) : new Map<string, DraftIdState>()
            ended.set(r.journal, final)
          }
          const state = final.get(r.draftId)
          const start = watched?.from ? undefined : startEvent(path)
          const from = watched?.from ?? (start && earlierInputOf(start))
          verdicts.set(r.row, state === undefined ? 'free' : named(state, from))
          // Handed to this run: that run's old mark no longer holds the row back from this run's claim.
          this.journals.get(r.journal)?.replay?.states.delete(r.draftId)
        }
      }
      return {verdicts, grew}
    })
  }

  private takenOf(rows: readonly {row: number; draftId: string}[]): Map<number, DraftIdState> {
    const taken = new Map<number, DraftIdState>()
    const read = [...this.journals].filter(([, j]) => j.replay !== undefined && j.replay.states.size > 0)
    if (read.length === 0) return taken
    for (const r of rows) {
      for (const [name, j] of read) {
        const state = j.replay!.states.get(r.draftId)
        if (state === undefined || taken.get(r.row)?.state === 'done') continue
        const pid = this.livePid(name)
        taken.set(r.row, {
          ...state,
          ...(j.from ? {from: j.from} : {}),
          journal: name,
          ...(pid === undefined ? {} : {pid}),
        })
      }
    }
    return taken
  }

  /** Reads what the journals of the runs going on added; a run started since the last look is found through the list. */
  private refresh(): void {
    const stamp = stampOf(this.listPath)
    if (stamp !== this.listStamp) {
      this.listStamp = stamp
      const names = this.listed()
      for (const name of names) if (!this.journals.has(name)) this.journals.set(name, {offset: 0, tail: ''})
      this.findLive(names)
    }
    for (const name of [...this.polled]) {
      // Read once more after its run has ended: what it recorded last counts too.
      const ended = this.livePid(name) === undefined
      this.readOn(name, this.journals.get(name)!)
      if (ended) this.polled.delete(name)
    }
  }

  private listed(): string[] {
    const text = existsSync(this.listPath) ? readFileSync(this.listPath, 'utf8') : ''
    return [...new Set(text.split('\n').filter((n) => n !== '' && n !== this.own))]
  }

  private findLive(names: readonly string[]): void {
    for (const name of names) if (this.livePid(name) !== undefined) this.polled.add(name)
  }

  private livePid(name: string): number | undefined {
    const holder = readHolder(join(this.dir, `${name}.lock`))
    return holder && holder.pid !== process.pid && processAlive(holder.pid) ? holder.pid : undefined
  }

  /** Reads a journal from where it was left, its whole lines fed to its replay. */
  private readOn(name: string, j: WatchedJournal): void {
    if (j.ignored) return
    const path = join(this.dir, name)
    if (j.replay === undefined) {
      const start = startEvent(path)
      if (start === undefined) return
      const other = start.key
      if (other.input === this.key.input || other.target !== this.key.target || other.api !== this.key.api) {
        j.ignored = true
        return
      }
      j.replay = new DraftIdReplay()
      j.from = earlierInputOf(start)
    }
    const added = readFrom(path, j.offset)
    if (added.length === 0) return
    j.offset += added.length
    const text = j.tail + added.toString('utf8')
    const end = text.lastIndexOf('\n') + 1
    j.tail = text.slice(end)
    j.replay.feed(journalEvents<JournalEvent>(text.slice(0, end)))
  }
}

/** The bytes of a file from `offset` to its end (none when it is gone). */
function readFrom(path: string, offset: number): Buffer {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return Buffer.alloc(0)
  }
  try {
    const size = fstatSync(fd).size
    if (size <= offset) return Buffer.alloc(0)
    const buffer = Buffer.alloc(size - offset)
    let read = 0
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, offset + read)
      if (n === 0) break
      read += n
    }
    return buffer.subarray(0, read)
  } finally {
    closeSync(fd)
  }
}

/** Runs `fn` under the lock of a target's list (the claims' lock); busy for ten seconds, a JournalError saying `what`. */
function underTargetLock<T>(listPath: string, what: string, fn: () => T): T {
  try {
    return withFileLock(`${listPath}.lock`, fn)
  } catch (error) {
    if (error instanceof LockBusyError)
      throw new JournalError(
        `${what}: ${error.message} for more than ten seconds; nothing more was sent. Run the command again.`,
        'busy',
      )
    throw error
  }
}

/** A list is rewritten once it has this many lines and more than twice those it keeps. */
export const TARGET_LIST_PRUNE_LINES = 256

/**
 * Adds a run's journal to its target's list, under the list's lock. Every run adds a
 * line, so the list grows with the runs: once it is long and mostly repeats, it is
 * rewritten (a new file renamed over it) with each name once, leaving out journals
 * gone or not written to for OTHER_INPUTS_DAYS (a run that takes one up again adds it again).
 */
function enlist(dir: string, listPath: string, name: string): void {
  const lines = existsSync(listPath) ? readFileSync(listPath, 'utf8').split('\n').filter(Boolean) : []
  if (lines.length >= TARGET_LIST_PRUNE_LINES) {
    const since = Date.now() - OTHER_INPUTS_DAYS * 24 * 3600 * 1000
    const kept = [...new Set(lines)].filter((n) => n !== name && (fileTimes(join(dir, n)).at ?? 0) >= since)
    if (lines.length > 2 * (kept.length + 1)) {
      const temp = `${listPath}.${process.pid}.tmp`
      writeFileSync(temp, [...kept, name].map((n) => `${n}\n`).join(''), {mode: 0o600})
      renameSync(temp, listPath)
      return
    }
  }
  appendFileSync(listPath, `${name}\n`, {mode: 0o600})
}

/** A file's inode, size and modification time as one string ('' when it is gone). */
function stampOf(path: string): string {
  try {
    const stat = statSync(path)
    // The inode too: a rewrite is a new file, whatever its size and the clock's resolution.
    return `${stat.ino} ${stat.size} ${stat.mtimeMs}`
  } catch {
    return ''
  }
}

/** The file listing the journals of one target and API (any input, any slice), a name a line. */
function targetListName(key: JournalKey): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([key.target, key.api]))
    .digest('hex')
  return `create-${digest.slice(0, 32)}.target`
}

/**
 * The file listing the journals of one input's slices (the same input, target and API,
 * any `--shard`), a name a line: a run reads the journals listed there, not the directory.
 */
function sliceListName(key: JournalKey): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([key.input, key.target, key.api]))
    .digest('hex')
  return `create-${digest.slice(0, 32)}.slices`
}

/** The run a journal's start line names: its input and when it began. */
function earlierInputOf(start: Extract<JournalEvent, {t: 'start'}>): EarlierInput {
  return {at: start.at, ...(start.source === undefined ? {} : {source: start.source})}
}

/** The event a journal file starts with (its first line), or undefined when it has none. */
function startEvent(path: string): Extract<JournalEvent, {t: 'start'}> | undefined {
  const fd = openSync(path, 'r')
  try {
    const head = Buffer.alloc(4096)
    const text = head.subarray(0, readSync(fd, head, 0, head.length, 0)).toString('utf8')
    const event = journalEvents<JournalEvent>(text.slice(0, text.indexOf('\n') + 1)).next().value
    return event?.t === 'start' ? event : undefined
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}

/** Whether two slices "I/N" share a row: the rows r with (r − 1) mod N = I − 1 and (r − 1) mod M = J − 1. */
function slicesMeet(a: string, b: string): boolean {
  const [i, n] = a.split('/').map(Number) as [number, number]
  const [j, m] = b.split('/').map(Number) as [number, number]
  const gcd = (x: number, y: number): number => (y === 0 ? x : gcd(y, x % y))
  return (i - j) % gcd(n, m) === 0
}

/**
 * The journal cannot be had, so this run sends nothing (exit code 1): `busy`, another
 * process runs the same batch (same input, shard, target and API); `journal_unwritable`,
 * its directory cannot be made or written.
 */
export class JournalError extends Error {
  readonly exitCode = 1
  constructor(
    message: string,
    readonly code: 'busy' | 'journal_unwritable',
  ) {
    super(message)
    this.name = 'JournalError'
  }
}

/**
 * The lock of one journal: a file beside it made with O_EXCL, holding the pid and start
 * time of the run that holds it. A lock whose process is gone (killed, crashed) is stale
 * and taken over; a live one makes the second run refuse, naming the first, so that two
 * runs never send the same rows at once nor report each other's work as their own.
 */
class RunLock {
  private held = true
  private readonly onExit = (): void => this.release()

  private constructor(private readonly path: string) {
    // A process.exit (a second Ctrl-C) skips close(): the lock goes with the process.
    process.once('exit', this.onExit)
  }

  static take(path: string, wording: LockWording = {run: 'this batch', would: 'send the same rows'}): RunLock {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        writeFileSync(path, JSON.stringify({pid: process.pid, at: new Date().toISOString()}), {flag: 'wx', mode: 0o600})
        return new RunLock(path)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
      const holder = readHolder(path)
      if (holder && holder.pid !== process.pid && processAlive(holder.pid)) {
        throw new JournalError(
          `another run of ${wording.run} is in progress (pid ${holder.pid}, started ${holder.at ?? 'at an unknown time'}); it would ${wording.would}. Wait for it to finish, or stop it (kill -INT ${holder.pid}), then run the command again: it resumes from the journal.`,
          'busy',
        )
      }
      if (!holder && attempt === 0) {
        // Made this instant and not written yet, or left half written: look again shortly.
        sleepSync(200)
        continue
      }
      // Stale: its process is gone. Remove it and try again.
      rmSync(path, {force: true})
    }
    throw new JournalError(
      `cannot take the lock of the journal of ${wording.run} (${path}); run the command again.`,
      'busy',
    )
  }

  release(): void {
    if (!this.held) return
    this.held = false
    process.removeListener('exit', this.onExit)
    if (readHolder(this.path)?.pid === process.pid) rmSync(this.path, {force: true})
  }
}

function readHolder(path: string): LockHolder | undefined {
  try {
    return lockHolder(readFileSync(path, 'utf8'))
  } catch {
    return undefined
  }
}

/**
 * Applies the journal's events in order. A last line cut short by a crash is
 * ignored: it was never acted on, because each step waits for its line to be durable.
 */
function replay(text: string, rows: Map<number, JournalRowState>): {maxChunk: number; events: number} {
  let maxChunk = -1
  let events = 0
  for (const event of journalEvents<JournalEvent>(text)) {
    events++
    if ('c' in event && event.c > maxChunk) maxChunk = event.c
    switch (event.t) {
      case 'sent':
      case 'unknown':
        // The earliest send bounds how far back a scan of the newest demands must look.
        event.rows.forEach((row, i) => {
          const prev = rows.get(row)
          if (prev?.state === 'done') return
          const sentAt = prev?.state === 'maybe' ? Math.min(prev.sentAt, event.at) : event.at
          // The draftId it went with: looked up by that, whatever this run would name the row.
          const draftId = event.t === 'sent' ? event.draftIds[i] : prev?.state === 'maybe' ? prev.draftId : undefined
          rows.set(row, {state: 'maybe', sentAt, ...(draftId === undefined ? {} : {draftId})})
        })
        break
      case 'done':
        for (const result of event.results) rows.set(result.row, {state: 'done', result})
        break
      case 'failed':
        for (const f of event.failures)
          if (rows.get(f.row)?.state !== 'done') rows.set(f.row, {state: 'failed', error: f.error})
        break
      case 'notsent':
        for (const row of event.rows) if (rows.get(row)?.state !== 'done') rows.delete(row)
        break
      default:
        break
    }
  }
  return {maxChunk, events}
}

/**
 * What a batch writes about its chunks, with or without a journal (a one-off
 * quote from flags keeps none): every send gets a chunk number either way.
 */
export class ChunkLog {
  private local = 0

  constructor(private readonly journal?: BatchJournal) {}

  /**
   * Marks rows as maybe sent, resolving once the mark is on the disk: call before the
   * request leaves. Rows a run of another input going on has claimed are not marked:
   * `taken` answers them with what that run recorded, and they are not to be sent.
   */
  async sent(
    rows: readonly {row: number; draftId: string}[],
    at: number,
  ): Promise<{c: number; taken: Map<number, DraftIdState>}> {
    const c = this.nextChunk()
    return {c, taken: this.journal ? await this.journal.markSent(c, rows, at) : NONE_TAKEN}
  }

  /** Where rows claimed by runs of other inputs stand now (BatchJournal.standing). */
  standing(rows: readonly {row: number; draftId: string; journal: string}[]): {
    verdicts: Map<number, Standing>
    grew: boolean
  } {
    return this.journal?.standing(rows) ?? {verdicts: new Map(rows.map((r) => [r.row, 'free'])), grew: false}
  }

  /** Rows that exist on the server; without a chunk number, rows found by a look-up. */
  done(results: RowSettled[], c = this.nextChunk()): void {
    this.journal?.append({t: 'done', c, results})
  }

  failed(c: number, failures: RowFailure[]): void {
    this.journal?.append({t: 'failed', c, failures})
  }

  notSent(c: number, rows: readonly {row: number}[]): void {
    if (rows.length > 0) this.journal?.append({t: 'notsent', c, rows: rows.map((r) => r.row)})
  }

  unknown(c: number, rows: readonly {row: number}[], at: number): void {
    this.journal?.append({t: 'unknown', c, rows: rows.map((r) => r.row), at})
  }

  close(): Promise<void> {
    return this.journal?.close() ?? Promise.resolve()
  }

  private nextChunk(): number {
    return this.journal?.chunkId() ?? this.local++
  }
}
