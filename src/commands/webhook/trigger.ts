import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {writeOut} from '../../cli/output.js'
import type {TriggerAnswer} from '../../api/v2/webhooks.js'
import {WEBHOOK_EVENTS} from '../../schemas/webhooks.js'

export default class WebhookTrigger extends BaseCommand {
  static override summary = 'Make the sandbox send a sample event (sandbox).'
  static override description = `Asks the sandbox to queue a sample event of a type (${WEBHOOK_EVENTS.join(', ')}) to the business's subscriptions that listen to it, or only to --webhook. The event's data is the business's newest demand. Pair it with mfg webhook listen to try a receiver.

This is an extension of the mfg sandbox; against a service without it the command says so (exit 1).`
  static override examples = [
    '<%= config.bin %> <%= command.id %> order_placed',
    `<%= config.bin %> <%= command.id %> quote_request_received --webhook "$(<%= config.bin %> webhook list --json | jq -r '.[0]._id')" --json`,
  ]
  static override args = {event: Args.string({description: 'Event type.', required: true})}
  static override flags = {webhook: Flags.string({description: 'Only to this subscription (its _id).'})}

  async run(): Promise<TriggerAnswer> {
    const {args, flags} = await this.parse(WebhookTrigger)
    const {parseEvents, triggerEvent} = await import('../../services/webhooks/subscriptions.js')
    const [type] = parseEvents(args.event, 'EVENT')
    const ctx = await this.context(flags).service()
    const answer = await triggerEvent(ctx, type!, flags.webhook)
    if (!this.jsonEnabled()) {
      for (const e of answer.data)
        writeOut(`${e.id}  ${e.type}  ${e.deliveries} deliver${e.deliveries === 1 ? 'y' : 'ies'}`)
      this.note(answer.message)
    }
    return answer
  }
}
