import {Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {writeOut} from '../../cli/output.js'
import {maskUrlPassword} from '../../schemas/secrets.js'
import {WEBHOOK_EVENTS} from '../../schemas/webhooks.js'
import type {Confirmation} from '../../cli/written.js'
import type {ShownWebhook} from '../../services/webhooks/subscriptions.js'
import {defined} from '../../util/fields.js'

export default class WebhookCreate extends BaseCommand {
  static override summary = 'Subscribe a URL to events.'
  static override description = `Sends POST /api/v2/integrations_ms/webhooks. --events takes a comma-separated list of ${WEBHOOK_EVENTS.join(', ')} (the documented spelling quote_request_recieved is accepted).

The secret comes from --secret, else the MFG_WEBHOOK_SECRET environment variable, else a hidden prompt in a terminal. It is never printed: outputs, --json included, show it masked. It must be printable ASCII, as it travels in a header.

The service sends the secret to the receiver only with --use-secret: then every delivery carries it in the service-signature header, for the receiver to compare with its own copy. Without --use-secret the real service's deliveries carry no secret, so a receiver that checks one (mfg webhook listen --secret) refuses them. The mfg sandbox also signs each delivery with an HMAC of its body in service-signature-sha256; that header is the sandbox's own, and the real service does not send it.

The business needs webhook access, requested from the service first; without it the service answers 403.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> --url https://example.com/hooks/mfg --events order_placed,order_updated --secret s3cr3t',
    'MFG_WEBHOOK_SECRET=s3cr3t <%= config.bin %> <%= command.id %> --url http://127.0.0.1:4848/ --events quote_request_received --use-secret --json',
  ]
  static override flags = {
    url: Flags.string({description: 'Where events are sent (http or https).', required: true}),
    events: Flags.string({description: `Comma-separated events: ${WEBHOOK_EVENTS.join(', ')}.`, required: true}),
    secret: Flags.string({
      description: 'The signing secret (prefer the hidden prompt or MFG_WEBHOOK_SECRET: flags show in process lists).',
    }),
    'use-secret': Flags.boolean({
      description:
        'Send the secret in the service-signature header of each delivery (needed by receivers that check it).',
    }),
  }

  async run(): Promise<ShownWebhook | Confirmation> {
    const {flags} = await this.parse(WebhookCreate)
    this.keepSecret(flags.secret)
    const {createWebhook, parseEvents} = await import('../../services/webhooks/subscriptions.js')
    const events = parseEvents(flags.events)
    const {secretNotSent, subscribedNote, webhookSecret} = await import('../../cli/webhooks.js')
    const secret = this.keepSecret(await webhookSecret({flag: flags.secret, required: true}))!
    const ctx = await this.context(flags).service()
    const useSecret = flags['use-secret'] || undefined
    const {hook, status} = await createWebhook(ctx, defined({url: flags.url, secret, events, useSecret}))
    if (!hook) {
      const done = `Subscribed ${maskUrlPassword(flags.url)} to ${events.join(', ')}`
      const confirmed = this.confirmedWithout(status, done, 'the subscription; find its id with mfg webhook list')
      // Not asked for, useSecret is off (the interface's default) whether or not the answer says so.
      if (!useSecret) this.note(`Its secret is ${secretNotSent('ID')}.`)
      return confirmed
    }
    if (!this.jsonEnabled()) {
      writeOut(hook._id)
      this.note(subscribedNote(hook, maskUrlPassword(flags.url)))
    }
    return hook
  }
}
