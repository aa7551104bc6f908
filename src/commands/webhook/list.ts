import {BaseCommand} from '../../cli/base-command.js'
import {listFlags} from '../../cli/flags.js'
import {webhookRow} from '../../cli/webhooks.js'
import type {ShownWebhook} from '../../services/webhooks/subscriptions.js'

const COLUMNS = ['_id', 'url', 'events', 'useSecret', 'secret', 'createdAt'] as const
/** What --wide adds, what goes first on a narrow terminal, what is not cut. */
const LAYOUT = {
  wide: ['updatedAt'],
  drop: ['createdAt', 'useSecret', 'secret', 'events'],
  keep: ['_id', 'url'],
} as const

export default class WebhookList extends BaseCommand {
  static override summary = 'List webhook subscriptions.'
  static override description =
    "Shows the business's subscriptions, oldest first. Secrets are always masked, --json included."
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']
  static override flags = {...listFlags(COLUMNS, LAYOUT.wide)}
  static override outputFields = async () => (await import('../../schemas/read/webhooks.js')).WebhookRecordRead

  async run(): Promise<ShownWebhook[]> {
    const {flags} = await this.parse(WebhookList)
    const ctx = await this.context(flags).service()
    const {listWebhooks} = await import('../../services/webhooks/subscriptions.js')
    const render = await import('../../cli/render.js')
    const hooks = render.sortRows(await listWebhooks(ctx), flags.sort)
    if (!this.jsonEnabled()) {
      const rows = flags.ndjson || flags.csv ? hooks : hooks.map(webhookRow)
      render.printList(rows, flags, COLUMNS, undefined, LAYOUT)
      if (hooks.length === 0) this.note('No webhook subscriptions; create one with mfg webhook create.')
    }
    return hooks
  }
}
