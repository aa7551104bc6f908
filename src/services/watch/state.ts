import {appendFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {dirname} from 'node:path'

/**
 * What `demand watch` remembers between runs, per profile and service: every
 * demand it has seen (stage and updatedAt), the ids of recent webhook events,
 * and the subscription it made, so a restart catches up on what changed while
 * it was stopped, prints nothing twice, and reuses its subscription.
 */
export interface WatchState {
  version: 1
  /** Demand id → what was last seen of it. */
  demands: Record<string, SeenDemand>
  /** Ids of the last webhook events handled (deliveries are at least once). */
  eventIds: string[]
  /** The subscription this watch made on the service, reused by the next run. */
  subscriptionId?: string
  /** When the state was first written (ISO): the watch's starting point. */
  startedAt?: string
}

export interface SeenDemand {
  stage: string | null
  updatedAt: string | null
  /** Archived (it has left the polled list, which holds non-archived demands only): not looked up again. */
  archived?: true
}

/** How many webhook event ids are kept for de-duplication. */
const EVENT_IDS_KEPT = 500

export function emptyState(): WatchState {
  return {version: 1, demands: {}, eventIds: []}
}

/** The state at `file`, or undefined when there is none yet; a damaged file is an error naming it. */
export function loadState(file: string): WatchState | undefined {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new Error(
      `The watch state ${file} is not JSON; delete it to start afresh (changes since then are not shown).`,
    )
  }
  const s = parsed as Partial<WatchState>
  if (s.version !== 1 || typeof s.demands !== 'object' || s.demands === null) {
    throw new Error(`The watch state ${file} is not one this mfg reads; delete it to start afresh.`)
  }
  return {
    version: 1,
    demands: replayJournal(file, s.demands),
    eventIds: Array.isArray(s.eventIds) ? s.eventIds.filter((x) => typeof x === 'string') : [],
    ...(typeof s.subscriptionId === 'string' ? {subscriptionId: s.subscriptionId} : {}),
    ...(typeof s.startedAt === 'string' ? {startedAt: s.startedAt} : {}),
  }
}

/**
 * Writes the state whole (a temporary file renamed over the old one, so a crash
 * leaves one or the other), which holds what its journal held: the journal goes.
 */
export function saveState(file: string, state: WatchState): void {
  mkdirSync(dirname(file), {recursive: true, mode: 0o700})
  const kept = {...state, eventIds: state.eventIds.slice(-EVENT_IDS_KEPT)}
  const tmp = `${file}.${process.pid}.tmp`
  writeFileSync(tmp, `${JSON.stringify(kept)}\n`, {mode: 0o600})
  renameSync(tmp, file)
  rmSync(journalOf(file), {force: true})
}

/**
 * The journal beside a state file: one JSON line per demand told since the state
 * was last written whole, `{"id", "seen"}`, so that telling an event costs one
 * short append, not a rewrite of every demand known (quadratic over a long catch-up).
 */
const journalOf = (file: string) => `${file}.journal`

/** Adds what is now known of a demand to the state's journal (read back by loadState). */
export function journalSeen(file: string, id: string, seen: SeenDemand | undefined): void {
  appendFileSync(journalOf(file), `${JSON.stringify({id, seen: seen ?? null})}\n`, {mode: 0o600})
}

/** `demands` with the journal's lines applied in order; a line cut short by a crash is left out. */
function replayJournal(file: string, demands: Record<string, SeenDemand>): Record<string, SeenDemand> {
  let text: string
  try {
    text = readFileSync(journalOf(file), 'utf8')
  } catch {
    return demands
  }
  for (const line of text.split('\n')) {
    let entry: {id?: unknown; seen?: SeenDemand | null}
    try {
      entry = JSON.parse(line) as typeof entry
    } catch {
      continue
    }
    if (typeof entry.id !== 'string') continue
    if (entry.seen) demands[entry.id] = entry.seen
    else delete demands[entry.id]
  }
  return demands
}
