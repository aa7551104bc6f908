import {createHash} from 'node:crypto'
import {existsSync, readdirSync} from 'node:fs'

import {JournalFile, journalEvents} from '../demands/batch-journal.js'
import type {QuoteOutcome} from './types.js'

/**
 * The journal of a `demand quote --all --apply` run: the demands it listed, then each
 * demand's outcome as it finishes. Run again after an interruption, the same command
 * reads it instead of listing again and quotes only the demands not finished. It is a
 * JournalFile, like `demand create`'s: same directory, modes, lock and group commits.
 */

/** What makes two `--all` runs the same run: where, which demands, and how they are priced. */
export interface QuoteRunKey {
  /** Base URL (or profile target) plus business id. */
  target: string
  /** The list filters: type, status, archived, limit. */
  selection: Record<string, unknown>
  /** What decides a demand's price or fate: interface, currency, overrides, guards, --send... */
  options: Record<string, unknown>
}

export type QuoteJournalEvent =
  | {t: 'start'; v: 1; key: QuoteRunKey; at: string}
  /** The demands the run listed, in order: a resumed run quotes these, without listing again. */
  | {t: 'targets'; ids: string[]}
  | {t: 'outcome'; outcome: QuoteOutcome}

export interface OpenedQuoteJournal {
  journal: QuoteJournal
  /** The demands an interrupted run listed, in order; undefined for a new run (list, then `start`). */
  targets?: string[]
  /** The outcomes earlier runs finished, by demand id. A failed one is not finished: it is quoted again. */
  done: Map<string, QuoteOutcome>
  /** With `fresh`: how far the run whose journal was dropped had come. */
  dropped?: {done: number; of: number}
  /** Unfinished runs on the same service and business with other filters or options: left as they are. */
  others: number
}

const hash = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16)

/** The file name of a key: its target's hash first, so the other runs on one target can be told. */
export function quoteJournalName(key: QuoteRunKey): string {
  return `quote-${hash(key.target)}-${hash([key.selection, key.options])}.ndjson`
}

/** The demands that are finished: every outcome but `failed` (the service failed; quote it again). */
const finished = (o: QuoteOutcome) => o.status !== 'failed'

export class QuoteJournal extends JournalFile<QuoteJournalEvent> {
  /**
   * Opens the journal of `key` in `dir` (taking its lock: a second run of the same
   * selection is refused, naming the first's pid), reading what an interrupted run
   * recorded; `fresh` (--force) drops it.
   */
  static open(dir: string, key: QuoteRunKey, opts: {fresh?: boolean} = {}): OpenedQuoteJournal {
    const name = quoteJournalName(key)
    const held = JournalFile.hold(dir, name, {
      ...opts,
      wording: {run: 'this command (same filters and pricing options)', would: 'quote the same demands'},
    })
    const journal = new QuoteJournal(held.path, held.fd, held.lock)
    const earlier = held.before === undefined ? undefined : replay(held.before)
    const prefix = name.slice(0, name.indexOf('-', 'quote-'.length) + 1)
    const others = existsSync(dir)
      ? readdirSync(dir).filter((f) => f.startsWith(prefix) && f.endsWith('.ndjson') && f !== name).length
      : 0
    const done = new Map<string, QuoteOutcome>()
    if (earlier?.targets && !opts.fresh) {
      for (const [id, o] of earlier.outcomes) if (finished(o)) done.set(id, o)
      return {journal, targets: earlier.targets, done, others}
    }
    journal.append({t: 'start', v: 1, key, at: new Date().toISOString()})
    const dropped = earlier?.targets
      ? {done: [...earlier.outcomes.values()].filter(finished).length, of: earlier.targets.length}
      : undefined
    return {journal, done, others, ...(dropped ? {dropped} : {})}
  }

  /** The demands this run will quote, on the disk before the first is quoted. */
  start(ids: string[]): Promise<void> {
    return this.appendDurable({t: 'targets', ids})
  }

  /** A demand's outcome, on the disk before the next demand is quoted. */
  record(outcome: QuoteOutcome): Promise<void> {
    return this.appendDurable({t: 'outcome', outcome})
  }
}

/** The targets and the last outcome of each demand. A line cut short by a crash is ignored. */
function replay(text: string): {targets?: string[]; outcomes: Map<string, QuoteOutcome>} {
  let targets: string[] | undefined
  const outcomes = new Map<string, QuoteOutcome>()
  for (const event of journalEvents<QuoteJournalEvent>(text)) {
    if (event.t === 'targets' && Array.isArray(event.ids)) targets = event.ids
    else if (event.t === 'outcome' && typeof event.outcome?.demandId === 'string')
      outcomes.set(event.outcome.demandId, event.outcome)
  }
  return {...(targets ? {targets} : {}), outcomes}
}
