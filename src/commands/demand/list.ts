import {Flags} from '@oclif/core'

import {byIdsFlags, listByIds} from '../../cli/demand-list.js'
import {DEMAND_LIST_COLUMNS, DEMAND_LIST_LAYOUT, displayRecord} from '../../cli/demands.js'
import {listFlags, pagingFlags} from '../../cli/flags.js'
import {ListCommand} from '../../cli/list-command.js'
import {planSort} from '../../cli/list-sort.js'
import {onStdoutClosed, settleStdout} from '../../cli/stdio.js'
import {LIST_TYPES, STAGES, V1_PAGE_SIZE_MAX, type ListType} from '../../schemas/demand.js'
import {
  DEMAND_SERVICE_SORTS,
  listDemandPage,
  streamDemands,
  type ListDemandsInput,
} from '../../services/demands/list.js'
import {given} from '../../util/fields.js'
import type {DemandRecord, LegacyDemandRecord} from '../../schemas/read/types.js'

/** The flags of the v1 list, which --ids and --ids-file do not take. */
const NOT_BY_IDS = ['type', 'status', 'page', 'all', 'archived', 'limit', 'page-size']

export default class DemandList extends ListCommand {
  static override summary = 'List demands (quote requests and orders).'
  static override description = `Shows one page of the business's demands, newest first, or every page with --all. --page-size is the size of a request (at most 100); --limit the most demands to show, following pages as needed.

--sort createdAt or -createdAt is done by the service. Any other field is sorted by the CLI over the whole list: every page is fetched first (said on stderr), and --limit then keeps the first demands of the sorted list. --page cannot be combined with such a sort.

With --all --json (or --ndjson) each demand is printed as one JSON line as soon as its page arrives, and --all --csv as one CSV line, so long lists stream; without --all, --json prints one array. --json FIELDS (or --columns with --json) keeps only those fields; --jq filters the output.

--ids a,b,c or --ids-file FILE (ids separated by commas, spaces or lines; - reads stdin) reads stored demand ids through the legacy list call instead, 500 ids a request, in the order given and in the legacy record shape. Ids the service does not know are listed on stderr.`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --type quotes --status quote_sent --limit 50',
    '<%= config.bin %> <%= command.id %> --columns orderNumber,shippingAddress.city,priceTotal --sort -priceTotal --limit 10',
    '<%= config.bin %> <%= command.id %> --all --json | jq .orderNumber',
    "<%= config.bin %> <%= command.id %> --json orderNumber,priceTotal --jq '.[] | select(.priceTotal > 100) | .orderNumber'",
    '<%= config.bin %> <%= command.id %> --all --csv --no-header > demands.csv',
    '<%= config.bin %> <%= command.id %> --ids 65f000060000000000000002,65f000060000000000000005',
    '<%= config.bin %> <%= command.id %> --ids-file examples/stored-ids.txt --ndjson',
  ]
  static override outputFields = async (argv: readonly string[]) => {
    const {demandFieldsRead, LegacyDemandRecordRead} = await import('../../schemas/read/demand.js')
    const byIds = argv.some((a) => /^--ids(-file)?(=|$)/.test(a))
    return byIds ? LegacyDemandRecordRead : demandFieldsRead()
  }
  static override flags = {
    type: Flags.string({description: 'Which demands.', options: [...LIST_TYPES], default: 'all'}),
    status: Flags.string({description: 'Only demands in this stage.', options: [...STAGES]}),
    archived: Flags.boolean({description: 'List archived demands instead.'}),
    ...pagingFlags('demands', V1_PAGE_SIZE_MAX, 20),
    ...byIdsFlags(NOT_BY_IDS),
    ...listFlags(DEMAND_LIST_COLUMNS, DEMAND_LIST_LAYOUT.wide),
  }

  async run(): Promise<DemandRecord[] | LegacyDemandRecord[] | undefined> {
    const {flags} = await this.parse(DemandList)
    if (flags.ids !== undefined || flags['ids-file'] !== undefined) {
      const {client} = await this.context(flags).session()
      return listByIds(flags, client, this.jsonEnabled())
    }
    const sort = planSort(flags.sort, DEMAND_SERVICE_SORTS, flags.page, 'createdAt')
    const ctx = await this.context(flags).service()
    const signal = onStdoutClosed()
    const input: ListDemandsInput = given({
      type: flags.type as ListType,
      status: flags.status,
      archived: flags.archived || undefined,
      page: flags.page,
      pageSize: flags['page-size'],
      limit: sort.client ? undefined : flags.limit,
      sort: sort.service,
      signal,
      beforePage: settleStdout,
    })
    // A filter that matched nothing is told apart from a business with no demands.
    const filtered = flags.status !== undefined || flags.archived || flags.type !== 'all'
    const source = {
      page: async () => {
        const page = await listDemandPage(ctx, input)
        return {records: page.records, paging: page}
      },
      stream: () => streamDemands(ctx, input),
    }
    return this.runList(flags, sort, signal, source, {
      columns: DEMAND_LIST_COLUMNS,
      layout: DEMAND_LIST_LAYOUT,
      noun: 'demands',
      empty: filtered ? 'No demands match.' : 'No demands.',
      sortable: 'createdAt',
      pageSizeMax: V1_PAGE_SIZE_MAX,
      display: displayRecord,
    })
  }
}
