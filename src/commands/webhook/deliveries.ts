import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {listFlags} from '../../cli/flags.js'
import {DELIVERY_COLUMNS, DELIVERY_LAYOUT, deliveryRow, shownDelivery} from '../../cli/webhooks.js'
import type {ShownDelivery} from '../../schemas/webhooks.js'

export default class WebhookDeliveries extends BaseCommand {
  static override summary = 'Show the delivery log of a webhook subscription (sandbox).'
  static override description = `Reads the sandbox's log of deliveries to one subscription, newest first: each event, its status (pending, delivered, failed), its attempts (counted in the table; --json has each one's status code, error and time) and lastStatusCode, the last attempt's status code or error.

The log is an extension of the mfg sandbox; against a service without it the command says so (exit 1).`
  static override examples = [
    `<%= config.bin %> <%= command.id %> "$(<%= config.bin %> webhook list --json | jq -r '.[0]._id')"`,
    `<%= config.bin %> <%= command.id %> "$(<%= config.bin %> webhook list --json | jq -r '.[0]._id')" --limit 10 --json`,
    `<%= config.bin %> <%= command.id %> "$(<%= config.bin %> webhook list --json | jq -r '.[0]._id')" --all --columns eventId,status`,
  ]
  static override outputFields = async () => (await import('../../schemas/webhooks.js')).ShownDelivery
  static override args = {id: Args.string({description: 'Webhook id (_id).', required: true})}
  static override flags = {
    limit: Flags.integer({
      description: 'Most deliveries to show, the newest (default 100; past 500 it reads several pages).',
      min: 1,
      exclusive: ['all'],
    }),
    all: Flags.boolean({description: 'Every delivery of the subscription, 500 a request.', exclusive: ['limit']}),
    ...listFlags(DELIVERY_COLUMNS, DELIVERY_LAYOUT.wide),
  }

  async run(): Promise<ShownDelivery[]> {
    const {args, flags} = await this.parse(WebhookDeliveries)
    const ctx = await this.context(flags).service()
    const {listDeliveries} = await import('../../services/webhooks/subscriptions.js')
    const render = await import('../../cli/render.js')
    const limit = flags.all ? Number.POSITIVE_INFINITY : (flags.limit ?? 100)
    const found = (await listDeliveries(ctx, args.id, limit)).map(shownDelivery)
    const deliveries = sortDeliveries(found, flags.sort, render.sortRows)
    // Only the newest deliveries up to --limit are read: a sort of a full answer covers only those.
    if (flags.sort && found.length >= limit)
      this.notice(`Sorted the ${limit} newest deliveries only; older ones may exist (raise --limit, or --all).`)
    if (!this.jsonEnabled()) {
      const columns = render.listColumns(flags, DELIVERY_COLUMNS, DELIVERY_LAYOUT)
      const rows = flags.ndjson ? deliveries : deliveries.map((d) => deliveryRow(d, columns))
      render.printList(rows, flags, DELIVERY_COLUMNS, undefined, DELIVERY_LAYOUT)
      if (deliveries.length === 0) this.note(`No deliveries to webhook ${args.id} yet.`)
    }
    return deliveries
  }
}

/** Deliveries in --sort order; `attempts` sorts by how many, as the table shows them. */
function sortDeliveries(
  list: ShownDelivery[],
  spec: string | undefined,
  sortRows: <T>(rows: readonly T[], spec: string | undefined) => T[],
): ShownDelivery[] {
  if (spec?.replace(/^-/, '') !== 'attempts') return sortRows(list, spec)
  return sortRows(
    list.map((d) => ({attempts: d.attempts.length, d})),
    spec,
  ).map((r) => r.d)
}
