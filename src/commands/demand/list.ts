import {Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {DEMAND_LIST_COLUMNS, displayRecord} from '../../cli/demands.js'
import {listFlags} from '../../cli/flags.js'
import {writeOut} from '../../cli/output.js'
import {LIST_TYPES, STAGES, type DemandRecord, type ListType} from '../../schemas/demand.js'
import {listDemandPage, streamDemands} from '../../services/demands/list.js'

export default class DemandList extends BaseCommand {
  static override summary = 'List demands (quote requests and orders).'
  static override description = `Shows one page of the business's demands, newest first, or every page with --all. --limit is the page size (at most 100), or with --all the most demands to fetch.

With --all --ndjson each demand is printed as soon as its page arrives, so long lists stream. --json prints one array.`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --type quotes --status quote_sent --limit 50',
    '<%= config.bin %> <%= command.id %> --all --columns orderNumber,shippingAddress.city,priceTotal --sort -priceTotal',
    '<%= config.bin %> <%= command.id %> --all --ndjson | jq .orderNumber',
    '<%= config.bin %> <%= command.id %> --all --csv --no-header > demands.csv',
  ]
  static override flags = {
    type: Flags.string({description: 'Which demands.', options: [...LIST_TYPES], default: 'all'}),
    status: Flags.string({description: 'Only demands in this stage.', options: [...STAGES]}),
    page: Flags.integer({description: 'Page to show (1-based).', min: 1, exclusive: ['all']}),
    limit: Flags.integer({description: 'Page size (1 to 100); with --all, the most demands to fetch.', min: 1}),
    all: Flags.boolean({description: 'Follow every page.'}),
    archived: Flags.boolean({description: 'List archived demands instead.'}),
    ...listFlags(DEMAND_LIST_COLUMNS),
  }

  async run(): Promise<DemandRecord[]> {
    const {flags} = await this.parse(DemandList)
    const ctx = await this.context(flags).service()
    const input = {
      type: flags.type as ListType,
      ...(flags.status ? {status: flags.status} : {}),
      ...(flags.archived ? {archived: true} : {}),
      ...(flags.page === undefined ? {} : {page: flags.page}),
      ...(flags.limit === undefined ? {} : {limit: flags.limit}),
    }
    const render = await import('../../cli/render.js')
    let records: DemandRecord[]
    let more: {page: number; totalPages: number; total: number} | undefined
    if (flags.all) {
      records = []
      // Stream: with --ndjson print each item as it arrives, unless a sort needs them all first.
      const streaming = flags.ndjson && !flags.sort
      for await (const record of streamDemands(ctx, input)) {
        const shown = displayRecord(record)
        // Streamed items are not kept, so memory stays flat however long the list.
        if (streaming) writeOut(render.ndjsonLine(shown, flags, DEMAND_LIST_COLUMNS))
        else records.push(shown)
      }
      if (streaming) return records
    } else {
      const page = await listDemandPage(ctx, input)
      records = page.records.map(displayRecord)
      if (page.totalPages > page.page) more = page
    }
    records = render.sortRows(records, flags.sort)
    if (!this.jsonEnabled()) render.printList(records, flags, DEMAND_LIST_COLUMNS)
    if (more)
      this.note(
        `Page ${more.page} of ${more.totalPages} (${more.total} demands); --page ${more.page + 1} or --all for more.`,
      )
    return records
  }
}
