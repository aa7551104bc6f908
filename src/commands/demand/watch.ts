import {join} from 'node:path'

import {BaseCommand} from '../../cli/base-command.js'
import {writeErr, writeOut} from '../../cli/output.js'
import {onStdoutClosed} from '../../cli/stdio.js'
import {eventLine, intervalMs, isNewRequest, receiverPlan, sinceMs, stateFileOf, watchFlags} from '../../cli/watch.js'
import type {QuoteOptions} from '../../services/quote/types.js'
import type {WatchEvent} from '../../services/watch/tracker.js'

export default class DemandWatch extends BaseCommand {
  static override summary = 'Follow new and changed demands as they arrive; optionally quote each new request.'
  static override description = `Prints one line per event: created (a demand not seen before), stage (it moved to another stage) or changed (anything else about it changed, its prices for example). With --json, one object a line: event, id, orderNumber, takenAs, stage, previousStage (stage events), archived (true when the demand is archived), at (when the service says it happened), via (poll or webhook). The changes one poll finds are printed oldest first, as they happened.

The watch polls the whole demand list every --interval seconds (default 30); a known demand that left the list (archived: demand delete cancels and archives) is read once, so its move to cancelled is reported too. When the service is on this machine (the embedded sandbox, or mfg sandbox serve on localhost) it also starts a webhook receiver on 127.0.0.1 and subscribes it to the demand events, so changes show as they happen; every delivery's signature is checked with a secret made for the run. A service elsewhere cannot reach 127.0.0.1: pass --public-url with a tunnel (an https address forwarded to --port) to receive webhooks from it, or --no-webhook to only poll. The interface has no call to delete a subscription: the watch keeps the one it made and re-points it at its receiver on every start, so it makes one subscription per profile and service, not one per run.

What the watch has seen is saved (under the data directory, per profile and service) after every event. A restart first catches up from it, so what arrived while it was stopped is shown, and nothing is shown twice, whichever way (poll or webhook) it came. On the first run the demands already there are only recorded: --since shows those created since then. --once catches up and stops (for cron); --exit-after N stops after N events.

With --quote each new request (a quote in quote_sent) is quoted as mfg demand quote does, with the same guards and pricing flags; its quote is printed after the event (with --json as {"event":"quote", ...the quote}). Off a terminal pass --apply (write the prices) or --dry-run. The quote is never sent to the buyer from here: use mfg demand quote --send.

A poll that fails (after the client's retries) is said on stderr and tried again at the next interval, or after the wait the service's Retry-After asks for when that is longer (a rate limit); only the first poll, the catch-up, stops the watch with its error. Each poll and each event has the time budget of a command of its own (--timeout, --total-timeout).

Ctrl-C (or SIGTERM) stops after the event in hand, closes the receiver and exits 130 (143).`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --json --interval 10 | jq -c "select(.event == \\"created\\")"',
    '<%= config.bin %> <%= command.id %> --once --since 1d',
    '<%= config.bin %> <%= command.id %> --quote --apply --max-total 500 --only-format stl,3mf',
    '<%= config.bin %> <%= command.id %> --public-url https://watch.example.net/hook --port 4849',
  ]
  static override flags = watchFlags

  protected override handlesInterrupt = false

  async run(): Promise<undefined> {
    const {flags} = await this.parse(DemandWatch)
    const interval = intervalMs(flags.interval)
    const since = flags.since === undefined ? undefined : sinceMs(flags.since)
    const quote = flags.quote ? await this.quoteOptions(flags) : undefined
    const session = await this.context(flags).session()
    const {insecureFromEnv} = await import('../../cli/context.js')
    const insecure = flags.insecure || insecureFromEnv(process.env)
    const receiver = receiverPlan(flags, session.profile.baseUrl, insecure)
    const ctx = await this.context(flags).service()
    const {mfgPaths} = await import('../../profiles/paths.js')
    const {watchDemands} = await import('../../services/watch/watch.js')
    const {stopOnSignals} = await import('../../cli/interrupt.js')
    const json = this.jsonEnabled()
    const printJson = json ? await this.jsonLineWriter() : undefined
    const stop = stopOnSignals('Stopping the watch...')
    // Its reader gone (`| head -1`, a handler that died), the watch stops as a listing does (exit 0),
    // and the event it could not print is not remembered: the next watch prints it.
    const readerGone = onStdoutClosed()
    const quoteOne = quote ? await this.quoter(quote, stop.signal, printJson) : undefined
    try {
      const result = await watchDemands(ctx, {
        stateFile: stateFileOf(mfgPaths().dataDir, session.profile.name, session.target),
        intervalMs: interval,
        ...(since === undefined ? {} : {since}),
        ...(flags.once ? {once: true} : {}),
        ...(flags['exit-after'] === undefined ? {} : {exitAfter: flags['exit-after']}),
        ...(receiver ? {receiver} : {}),
        signal: AbortSignal.any([stop.signal, readerGone]),
        onEvent: async (e: WatchEvent) => {
          if (printJson) printJson(e)
          else writeOut(eventLine(e))
          // A write to a closed pipe fails at once and is reported on the next turn of the event loop.
          await new Promise((resolve) => setImmediate(resolve))
          if (readerGone.aborted) throw new Error('the reader of the output has gone')
          if (quoteOne && isNewRequest(e)) await quoteOne(e.id)
        },
        onNote: (text) => (json ? writeErr(JSON.stringify({note: text})) : writeErr(text)),
      })
      if (result.stopped === 'once') this.note(`${result.events} event(s).`)
    } finally {
      stop.dispose()
    }
    if (stop.received()) process.exitCode = stop.exitCode()
    return undefined
  }

  /** The quote options from the flags (the same as mfg demand quote's), checked before anything runs. */
  private async quoteOptions(flags: Record<string, unknown>): Promise<QuoteOptions> {
    const {cacheRoot, quoteOptionsOf, writes} = await import('../../cli/quote-run.js')
    const {mfgPaths} = await import('../../profiles/paths.js')
    const q = {...flags, send: false, all: false, type: 'quotes', archived: false} as Parameters<typeof writes>[0]
    const dirs = {
      cacheDir: join(cacheRoot(this.config.cacheDir), 'quote-files'),
      stateDir: join(mfgPaths().dataDir, 'quotes'),
    }
    return quoteOptionsOf(q, dirs, writes(q))
  }

  /** Quotes one new request and prints its quote; a failure is printed and the watch goes on. */
  private async quoter(options: QuoteOptions, signal: AbortSignal, printJson: ((item: unknown) => void) | undefined) {
    const ctx = await this.context({}).service()
    const {quoteDemand} = await import('../../services/quote/quote.js')
    const {failedOutcome} = await import('../../cli/quote-run.js')
    const {quoteText} = await import('../../cli/quote-render.js')
    return async (id: string): Promise<void> => {
      const outcome = await quoteDemand(ctx, id, {...options, signal}).catch((error: unknown) =>
        failedOutcome(id, error, options.legacy === true),
      )
      if (printJson) printJson({event: 'quote', id, ...outcome})
      else writeOut(quoteText(outcome))
    }
  }

  /** Each event is printed as it comes; nothing is left to print at the end. */
  protected override logJson(json: unknown): void {
    if (json !== undefined) super.logJson(json)
  }
}
