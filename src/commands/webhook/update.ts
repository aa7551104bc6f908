import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {writeOut} from '../../cli/output.js'
import {WEBHOOK_EVENTS} from '../../schemas/webhooks.js'
import type {Confirmation} from '../../cli/written.js'
import type {ShownWebhook, UpdateWebhookInput} from '../../services/webhooks/subscriptions.js'
import {defined} from '../../util/fields.js'

export default class WebhookUpdate extends BaseCommand {
  static override summary = 'Change a webhook subscription.'
  static override description = `Sends POST /api/v2/integrations_ms/webhooks/{businessId}/{webhookId} with any of url, secret, events and useSecret. --events replaces the list.

A new secret comes from --secret, or with --prompt-secret from MFG_WEBHOOK_SECRET or a hidden prompt. It is never printed.`
  static override examples = [
    `<%= config.bin %> <%= command.id %> "$(<%= config.bin %> webhook list --json | jq -r '.[0]._id')" --url https://example.com/hooks/v2`,
    `<%= config.bin %> <%= command.id %> "$(<%= config.bin %> webhook list --json | jq -r '.[0]._id')" --events order_placed --no-use-secret`,
    `<%= config.bin %> <%= command.id %> "$(<%= config.bin %> webhook list --json | jq -r '.[0]._id')" --prompt-secret`,
  ]
  static override args = {id: Args.string({description: 'Webhook id (_id).', required: true})}
  static override flags = {
    url: Flags.string({description: 'New destination URL.'}),
    events: Flags.string({description: `Comma-separated events (replaces the list): ${WEBHOOK_EVENTS.join(', ')}.`}),
    secret: Flags.string({description: 'New signing secret.', exclusive: ['prompt-secret']}),
    'prompt-secret': Flags.boolean({description: 'Set a new secret from MFG_WEBHOOK_SECRET or a hidden prompt.'}),
    'use-secret': Flags.boolean({
      description: 'Send the secret in service-signature (--no-use-secret: stop).',
      allowNo: true,
    }),
  }

  async run(): Promise<ShownWebhook | Confirmation> {
    const {args, flags} = await this.parse(WebhookUpdate)
    this.keepSecret(flags.secret)
    const {parseEvents, updateWebhook} = await import('../../services/webhooks/subscriptions.js')
    const input: UpdateWebhookInput = defined({
      url: flags.url,
      events: flags.events === undefined ? undefined : parseEvents(flags.events),
      useSecret: flags['use-secret'],
    })
    const {webhookLine, webhookSecret} = await import('../../cli/webhooks.js')
    if (flags.secret !== undefined || flags['prompt-secret'])
      input.secret = this.keepSecret(await webhookSecret({flag: flags.secret, required: true}))
    const ctx = await this.context(flags).service()
    const {hook, status} = await updateWebhook(ctx, args.id, input)
    const changed = Object.keys(input).join(', ')
    if (!hook) return this.confirmedWithout(status, `Updated ${changed}`, 'the subscription', args.id)
    if (!this.jsonEnabled()) {
      writeOut(webhookLine(hook))
      this.note(`Updated ${changed}.`)
    }
    return hook
  }
}
