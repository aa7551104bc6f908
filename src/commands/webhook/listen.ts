import {Flags} from '@oclif/core'

import {BaseCommand, withoutJq} from '../../cli/base-command.js'
import {EXIT_INTERRUPTED} from '../../cli/errors.js'
import {untilStopped} from '../../cli/interrupt.js'
import {writeErr} from '../../cli/output.js'
import {onStdoutClosed, writeOutConfirmed} from '../../cli/stdio.js'
import {WEBHOOK_EVENTS} from '../../schemas/webhooks.js'
import {defined} from '../../util/fields.js'

export default class WebhookListen extends BaseCommand {
  static override jqOutput = false
  static override baseFlags = withoutJq
  static override summary = 'Receive webhook events on this machine, check them, print and forward them.'
  static override description = `Starts a local receiver on 127.0.0.1 (--port, default 4848) and prints its URL on stderr; subscribe it with mfg webhook create --url URL. Runs until Ctrl-C (SIGINT) or SIGTERM, then closes cleanly and exits 130 (143 for SIGTERM), as a command stopped by a signal does; forwards still under way get 2 s, then are cut off, and each event not forwarded is named on stderr. When the reader of stdout goes away (| head -1), it stops with exit 0. On the embedded sandbox (no profile set up), which delivers only while an mfg command runs it, listen runs it while it listens: deliveries other commands queued keep arriving.

With a secret (--secret, or MFG_WEBHOOK_SECRET) every delivery must prove it knows the secret, or gets 401. The service proves it with the service-signature header, which must equal the secret (compared in constant time); it sends that header only for subscriptions with useSecret on, so subscribe this receiver with mfg webhook create --use-secret (or turn it on with mfg webhook update ID --use-secret). The mfg sandbox also sends a header of its own, service-signature-sha256 (t=<unix s>,v1=<HMAC-SHA256 of "<t>.<body>">), which the real service does not: when present it must match the body and be at most 5 minutes old. A body over 1 MiB gets 413. Refusals are reported on stderr. Without a secret nothing is checked.

Each accepted event of the --events types (default: all) is printed on stdout, one line each (with --json one JSON object a line: id, type, createdAt, data, receivedAt, signature, redelivered; id and createdAt absent when the service sent none, as the interface promises only type and data), then acknowledged (200) and sent on to --forward-to with its original headers and body, in order. The service delivers at least once: an event whose id this receiver passed on before (its 200 lost, say) is printed again marked "(again: delivered before)" (redelivered: true) and forwarded again, for the receiver behind it deduplicates by id as it must in production. An event that could not be printed gets 503, so the service sends it again later. A failed forward is reported on stderr; the sender still gets 200. While 100 events wait for a slow --forward-to target, further deliveries get 503 unprinted (said on stderr), so the service sends them again later rather than the receiver holding them in memory.`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --port 4848 --secret s3cr3t --forward-to http://localhost:3000/webhooks',
    '<%= config.bin %> <%= command.id %> --events order_placed,order_updated --json | jq .data.orderNumber',
  ]
  static override flags = {
    port: Flags.integer({description: 'Port on 127.0.0.1; 0 picks a free one.', default: 4848, min: 0, max: 65_535}),
    secret: Flags.string({
      description:
        'Secret to check deliveries with (default: MFG_WEBHOOK_SECRET); the subscription needs --use-secret.',
    }),
    'forward-to': Flags.string({description: 'URL to send each accepted event on to.'}),
    events: Flags.string({description: `Only these events (comma-separated): ${WEBHOOK_EVENTS.join(', ')}.`}),
  }

  protected override handlesInterrupt = false

  async run(): Promise<void> {
    const {flags} = await this.parse(WebhookListen)
    this.keepSecret(flags.secret)
    const {parseEvents} = await import('../../services/webhooks/subscriptions.js')
    const events = flags.events === undefined ? undefined : parseEvents(flags.events)
    const forwardTo = flags['forward-to']
    const {checkForwardTo, eventLine, listeningNote, webhookSecret} = await import('../../cli/webhooks.js')
    await checkForwardTo(forwardTo, flags.insecure)
    const secret = this.keepSecret(await webhookSecret({flag: flags.secret, required: false}))
    const json = this.jsonEnabled()
    const {eventName, startListener} = await import('../../services/webhooks/listen.js')
    const {redact} = await import('../../schemas/secrets.js')
    const listener = await startListener({
      port: flags.port,
      ...defined({secret, events, forwardTo}),
      onEvent: (e) => writeOutConfirmed(json ? JSON.stringify(e) : eventLine(e)),
      onRejected: (r) => writeErr(redact(`Refused a delivery (${r.status}): ${r.reason}`, this.secrets())),
      onForwardError: (e, message) => writeErr(`Forwarding ${eventName(e)} failed: ${message}`),
    })
    // The embedded sandbox (no profile set up) delivers only while an mfg command runs it:
    // this one runs it while it listens, so what other commands queued keeps arriving.
    const ctx = this.context(flags)
    if ((await ctx.profile()).embedded) await ctx.session()
    const stopped = untilStopped()
    writeErr(listeningNote(listener.url, defined({secret, events, forwardTo})))
    if (!json) writeErr('Press Ctrl-C to stop.')
    const signal = await Promise.race([stopped, readerGone()])
    await listener.close()
    // Its reader gone, it stops as a listing does: exit 0, nothing more said.
    if (signal === undefined) return
    writeErr(`Stopped (${signal}).`)
    // As every command a signal stops (help exit-codes): 130 for Ctrl-C, 143 for SIGTERM.
    process.exitCode = signal === 'SIGTERM' ? 143 : EXIT_INTERRUPTED
  }
}

/** Resolves when stdout's reader has gone (`mfg webhook listen | head -1` once head has ended). */
function readerGone(): Promise<undefined> {
  const closed = onStdoutClosed()
  return new Promise((resolve) => {
    if (closed.aborted) resolve(undefined)
    else closed.addEventListener('abort', () => resolve(undefined), {once: true})
  })
}
