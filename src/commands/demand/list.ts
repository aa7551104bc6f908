import {Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {DEMAND_LIST_COLUMNS, LEGACY_LIST_COLUMNS, displayRecord, notFoundLine} from '../../cli/demands.js'
import {DEMAND_LIST_LAYOUT, LEGACY_LIST_LAYOUT} from '../../cli/demands.js'
import {listFlags, type ListOutputFlags} from '../../cli/flags.js'
import {streamOrCollect, writeErr} from '../../cli/output.js'
import {LIST_TYPES, STAGES, type ListType} from '../../schemas/demand.js'
import {listDemandPage, streamDemands} from '../../services/demands/list.js'
import {given} from '../../util/fields.js'
import type {DemandRecord, LegacyDemandRecord} from '../../schemas/read/types.js'

export default class DemandList extends BaseCommand {
  static override summary = 'List demands (quote requests and orders).'
  static override description = `Shows one page of the business's demands, newest first, or every page with --all. --limit is the page size (at most 100), or with --all the most demands to fetch.

With --all --ndjson each demand is printed as soon as its page arrives, so long lists stream. --json prints one array.

--ids a,b,c or --ids-file FILE (ids separated by commas, spaces or lines; - reads stdin) reads stored demand ids through the legacy list call instead, 500 ids a request, in the order given and in the legacy record shape. Ids the service does not know are listed on stderr.`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --type quotes --status quote_sent --limit 50',
    '<%= config.bin %> <%= command.id %> --all --columns orderNumber,shippingAddress.city,priceTotal --sort -priceTotal',
    '<%= config.bin %> <%= command.id %> --all --ndjson | jq .orderNumber',
    '<%= config.bin %> <%= command.id %> --all --csv --no-header > demands.csv',
    '<%= config.bin %> <%= command.id %> --ids 65f000060000000000000002,65f000060000000000000005',
    '<%= config.bin %> <%= command.id %> --ids-file examples/stored-ids.txt --ndjson',
  ]
  static override flags = {
    type: Flags.string({description: 'Which demands.', options: [...LIST_TYPES], default: 'all'}),
    status: Flags.string({description: 'Only demands in this stage.', options: [...STAGES]}),
    page: Flags.integer({description: 'Page to show (1-based).', min: 1, exclusive: ['all']}),
    limit: Flags.integer({description: 'Page size (1 to 100); with --all, the most demands to fetch.', min: 1}),
    all: Flags.boolean({description: 'Follow every page.'}),
    archived: Flags.boolean({description: 'List archived demands instead.'}),
    ids: Flags.string({
      description: 'Comma-separated demand ids to read through the legacy list call.',
      exclusive: ['ids-file', 'type', 'status', 'page', 'all', 'archived', 'limit'],
      helpGroup: 'BY ID (LEGACY)',
    }),
    'ids-file': Flags.string({
      description: 'File of demand ids (one a line, or comma-separated); - reads stdin.',
      exclusive: ['ids', 'type', 'status', 'page', 'all', 'archived', 'limit'],
      helpGroup: 'BY ID (LEGACY)',
      helpValue: 'FILE|-',
    }),
    ...listFlags(DEMAND_LIST_COLUMNS, DEMAND_LIST_LAYOUT.wide),
  }

  async run(): Promise<DemandRecord[] | LegacyDemandRecord[]> {
    const {flags} = await this.parse(DemandList)
    if (flags.ids !== undefined || flags['ids-file'] !== undefined) return this.byIds(flags)
    const ctx = await this.context(flags).service()
    const input = given({
      type: flags.type as ListType,
      status: flags.status,
      archived: flags.archived || undefined,
      page: flags.page,
      limit: flags.limit,
    })
    // The table renderer is only loaded when a table, CSV, NDJSON or a sort is asked for.
    const render = this.jsonEnabled() && !flags.sort ? undefined : await import('../../cli/render.js')
    let records: DemandRecord[]
    let more: string | undefined
    // A filter that matched nothing is told apart from a business with no demands.
    const filtered = flags.status !== undefined || flags.archived || flags.type !== 'all'
    const empty = filtered ? 'No demands match.' : 'No demands.'
    if (flags.all && render && !flags.sort && !this.jsonEnabled() && !flags.csv && !flags.ndjson) {
      // A table of --all streams too: widths from the first 1,000 rows, no more held (render.streamTable).
      const layout = {...DEMAND_LIST_LAYOUT, empty}
      await render.printTableStream(streamDemands(ctx, input), displayRecord, flags, DEMAND_LIST_COLUMNS, layout)
      return []
    }
    if (flags.all) {
      // Stream: with --ndjson print each item as it arrives, unless a sort needs them all first.
      const streaming = flags.ndjson && !flags.sort
      const line =
        streaming && render
          ? (r: DemandRecord) => render.ndjsonLine(displayRecord(r), flags, DEMAND_LIST_COLUMNS)
          : undefined
      records = (await streamOrCollect(streamDemands(ctx, input), line)).map(displayRecord)
      if (streaming) return records
    } else {
      const page = await listDemandPage(ctx, input)
      records = page.records.map(displayRecord)
      more = render?.morePagesNote(page, 'demands')
    }
    if (render) {
      records = render.sortRows(records, flags.sort)
      if (!this.jsonEnabled()) render.printList(records, flags, DEMAND_LIST_COLUMNS, empty, DEMAND_LIST_LAYOUT)
    }
    if (more) this.note(more)
    return records
  }

  /** The legacy flow: stored ids in, records out in the same order, missing ids on stderr. */
  private async byIds(
    flags: ListOutputFlags & {ids?: string; 'ids-file'?: string; profile?: string; verbose?: boolean},
  ): Promise<LegacyDemandRecord[]> {
    const {listLegacyByIds, splitIds} = await import('../../services/demands/legacy.js')
    let text = flags.ids ?? ''
    if (flags['ids-file'] !== undefined) {
      const {readTextInput} = await import('../../cli/input.js')
      text = (await readTextInput(flags['ids-file'], '--ids-file')).text
    }
    const ids = splitIds(text)
    const {client} = await this.context(flags).session()
    const render = await import('../../cli/render.js')
    const streaming = flags.ndjson && !flags.sort
    const missing: string[] = []
    const line = streaming ? (r: LegacyDemandRecord) => render.ndjsonLine(r, flags, LEGACY_LIST_COLUMNS) : undefined
    let records = await streamOrCollect(listLegacyByIds({client}, ids, missing), line)
    if (!streaming) {
      records = render.sortRows(records, flags.sort)
      if (!this.jsonEnabled()) render.printList(records, flags, LEGACY_LIST_COLUMNS, 'No demands.', LEGACY_LIST_LAYOUT)
    }
    if (missing.length > 0) writeErr(notFoundLine(missing, ids.length))
    return records
  }
}
