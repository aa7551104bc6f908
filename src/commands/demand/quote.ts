import {join} from 'node:path'

import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {writeOut} from '../../cli/output.js'
import {
  cacheRoot,
  checkSelection,
  planQuotes,
  quoteEach,
  quoteFlags,
  quoteOptionsOf,
  writes,
} from '../../cli/quote-run.js'
import type {QuoteOutcome} from '../../services/quote/types.js'

/** Exit code when at least one demand was skipped (a guard, an unreadable part). */
const EXIT_SKIPPED = 4

export default class DemandQuote extends BaseCommand {
  static override summary = "Price demands' part files and write the quote: download, measure, estimate, update."
  static override description = `For each part of each demand: a signed link to its file, a verified download (kept in the cache by content hash, so a rerun reads it from the disk), the file measured (STL, OBJ, 3MF), then priced with the business's own machines, materials and options through the price estimation (v1; --legacy for the legacy one), on the technology and material the part names unless --technology/--material say otherwise. With --apply the prices are written with the v1 update (each part's unit price, the demand's total); --send also moves each quoted demand to quote_sent, which emails the buyer: asked on a terminal, --yes otherwise.

On a terminal the run is a dry run unless --apply: it prints the quote (file, format, size, volume and area, machine, material, quantity, unit price, total, and the difference from what the demand holds now) and writes nothing. Without a terminal (cron, CI) pass --apply or --dry-run: neither is assumed. --json prints one object per demand, one line each.

A demand is skipped, with the reason, when a part cannot be downloaded, read or measured (an open mesh, an unknown format), when the estimation refuses a part (a material the business lacks), or when a guard stops it (--max-unit-price, --min-total, --max-total, --only-format). Part files are untrusted: one over a reader limit (its size, triangles, 3MF inflation, DXF entities, or the STEP/IGES/DXF reader's time and memory) skips its demand naming the flag that raises the limit, as in mfg price measure. Nothing partial is written unless --allow-partial. Exit codes: 0 every demand quoted or unchanged, 4 some skipped, 1 the service failed for some, 2 bad flags.

Reruns are idempotent: a demand whose files, pricing inputs and prices match the digest stored at its last quote (under the data directory), and which still holds those prices, is reported unchanged and not written again; with --send it is sent unless that same quote was sent already and the demand is still in quote_sent, so a daily --apply --send run emails each buyer once. --force quotes (and sends) again anyway.

An --all run with --apply keeps a journal (journals/ under the data directory, mode 0600), one per service, business, filters and pricing options: the demands it listed, then each one's outcome as it is done. Interrupted (Ctrl-C: exit 130; a crash; the service failing on some: exit 1; failing on 3 demands in a row, after its retries, stops the run), the same command run again says that it resumes (N of M done), does not list again, and quotes only the demands not done; the done ones are reported from the journal in their place, marked "(by the interrupted run)" ("resumed": true with --json), so the output and the summary still cover every demand. A finished run removes its journal. A second run of the same command while one is in progress is refused, naming its pid. --force, or other filters or pricing options, start afresh (and say so). A dry run keeps no journal.

--status ${'quote_request_received'} selects the new quote requests: quotes in quote_sent, the stage a new request starts in on this service.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> 65f000060000000000000002 --dry-run',
    '<%= config.bin %> <%= command.id %> --all --status quote_request_received --dry-run',
    '<%= config.bin %> <%= command.id %> --all --status quote_request_received --apply --max-total 500 --only-format stl,3mf',
    '<%= config.bin %> <%= command.id %> 65f000060000000000000002 --apply --send --yes --json',
  ]
  static override strict = false
  static override args = {ids: Args.string({description: 'Demand ids (_id), one or more; or --all.'})}
  static override flags = quoteFlags

  async run(): Promise<undefined> {
    const {argv, flags} = await this.parse(DemandQuote)
    const ids = argv as string[]
    checkSelection(ids, flags)
    const apply = writes(flags)
    const {mfgPaths} = await import('../../profiles/paths.js')
    const options = quoteOptionsOf(
      flags,
      {cacheDir: join(cacheRoot(this.config.cacheDir), 'quote-files'), stateDir: join(mfgPaths().dataDir, 'quotes')},
      apply,
    )
    if (flags.send) {
      const {confirmOrYes} = await import('../../cli/prompt.js')
      const message = 'Write the prices and move each quoted demand to quote_sent (this emails each buyer)?'
      if (!(await confirmOrYes({yes: flags.yes, message}))) {
        this.note('Nothing was sent.')
        return undefined
      }
    }
    const ctx = await this.context(flags).service()
    const {quoteText, summaryLine} = await import('../../cli/quote-render.js')
    // Said even under --json (as {"notice": ...}): a resumed or unfinished run must be seen.
    const note = (text: string) => this.notice(text)
    const plan = await planQuotes(ctx, ids, flags, {...options, journalDir: mfgPaths().journalDir}, note)
    const printJson = this.jsonEnabled() ? await this.jsonLineWriter() : undefined
    const print = printJson ?? ((o: QuoteOutcome) => writeOut(`${quoteText(o)}\n`))
    const {counts, sent, earlier, stopped} = await quoteEach(ctx, plan, options, print, note)
    if (plan.targets.length === 0) this.note('No demands match.')
    else this.note(summaryLine(counts, apply, sent, earlier))
    if (stopped !== undefined) process.exitCode = stopped
    else if (counts.failed > 0) process.exitCode = 1
    else if (counts.skipped > 0) process.exitCode = EXIT_SKIPPED
    return undefined
  }

  /** Each demand's object is printed as it is done; nothing is left to print at the end. */
  protected override logJson(json: unknown): void {
    if (json !== undefined) super.logJson(json)
  }
}
