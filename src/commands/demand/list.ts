import {Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {DEMAND_LIST_COLUMNS, LEGACY_LIST_COLUMNS, displayRecord, notFoundLine} from '../../cli/demands.js'
import {UsageError} from '../../cli/errors.js'
import {listFlags, pagingFlags, parseSort, type ListOutputFlags} from '../../cli/flags.js'
import {streamOrCollect, writeErr} from '../../cli/output.js'
import {onStdoutClosed, settleStdout, type BatchTransform} from '../../cli/stdio.js'
import {LIST_TYPES, STAGES, V1_PAGE_SIZE_MAX, type ListType} from '../../schemas/demand.js'
import {
  DEMAND_SERVICE_SORTS,
  listDemandPage,
  streamDemands,
  type DemandServiceSort,
  type ListDemandsInput,
} from '../../services/demands/list.js'
import {given} from '../../util/fields.js'
import type {DemandRecord, LegacyDemandRecord} from '../../schemas/read/types.js'

export default class DemandList extends BaseCommand {
  static override summary = 'List demands (quote requests and orders).'
  static override description = `Shows one page of the business's demands, newest first, or every page with --all. --page-size is the size of a request (at most 100); --limit the most demands to show, following pages as needed.

--sort createdAt or -createdAt is done by the service. Any other field is sorted by the CLI over the whole list: every page is fetched first (said on stderr), and --limit then keeps the first demands of the sorted list. --page cannot be combined with such a sort.

With --all --json (or --ndjson) each demand is printed as one JSON line as soon as its page arrives, so long lists stream; without --all, --json prints one array. --json FIELDS (or --columns with --json) keeps only those fields; --jq filters the output.

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
    const {DemandRecordRead, LegacyDemandRecordRead} = await import('../../schemas/read/demand.js')
    const byIds = argv.some((a) => /^--ids(-file)?(=|$)/.test(a))
    return byIds ? LegacyDemandRecordRead : DemandRecordRead
  }
  static override flags = {
    type: Flags.string({description: 'Which demands.', options: [...LIST_TYPES], default: 'all'}),
    status: Flags.string({description: 'Only demands in this stage.', options: [...STAGES]}),
    archived: Flags.boolean({description: 'List archived demands instead.'}),
    ...pagingFlags('demands', V1_PAGE_SIZE_MAX, 20),
    ids: Flags.string({
      description: 'Comma-separated demand ids to read through the legacy list call.',
      exclusive: ['ids-file', 'type', 'status', 'page', 'all', 'archived', 'limit', 'page-size'],
      helpGroup: 'BY ID (LEGACY)',
    }),
    'ids-file': Flags.string({
      description: 'File of demand ids (one a line, or comma-separated); - reads stdin.',
      exclusive: ['ids', 'type', 'status', 'page', 'all', 'archived', 'limit', 'page-size'],
      helpGroup: 'BY ID (LEGACY)',
      helpValue: 'FILE|-',
    }),
    ...listFlags(DEMAND_LIST_COLUMNS),
  }

  async run(): Promise<DemandRecord[] | LegacyDemandRecord[] | undefined> {
    const {flags} = await this.parse(DemandList)
    if (flags.ids !== undefined || flags['ids-file'] !== undefined) return this.byIds(flags)
    const sort = parseSort(flags.sort)
    const spec = sort && `${sort.desc ? '-' : ''}${sort.field}`
    const serviceSort = DEMAND_SERVICE_SORTS.find((s) => s === spec) as DemandServiceSort | undefined
    const clientSort = sort !== undefined && serviceSort === undefined
    if (clientSort && flags.page !== undefined) {
      throw new UsageError(
        `--sort ${flags.sort} cannot be used with --page: the service sorts only by createdAt, so the CLI sorts the whole list itself. Leave out --page (every page is then fetched and sorted), or use --all.`,
      )
    }
    const ctx = await this.context(flags).service()
    const signal = onStdoutClosed()
    const input: ListDemandsInput = given({
      type: flags.type as ListType,
      status: flags.status,
      archived: flags.archived || undefined,
      page: flags.page,
      pageSize: flags['page-size'],
      limit: clientSort ? undefined : flags.limit,
      sort: serviceSort,
      signal,
      beforePage: settleStdout,
    })
    const onePage =
      !flags.all &&
      !clientSort &&
      (flags.limit === undefined || flags.limit <= (flags['page-size'] ?? V1_PAGE_SIZE_MAX))
    // The table renderer is only loaded when a table, CSV, NDJSON or a client-side sort is asked for.
    const render = this.jsonEnabled() && !clientSort ? undefined : await import('../../cli/render.js')
    let records: DemandRecord[]
    let more: string | undefined
    if (onePage) {
      const page = await listDemandPage(ctx, input)
      records = page.records.map(displayRecord)
      more = render?.morePagesNote(page, 'demands')
    } else {
      if (clientSort && !flags.all)
        this.notice(`Sorting by ${sort.field}: the service sorts only by createdAt, so every page is fetched first.`)
      // Stream: print each item as it arrives, unless a sort needs them all first.
      const streaming = flags.all && !clientSort && (flags.ndjson || this.jsonEnabled())
      const {line, transform} = streaming ? await this.lineFor(flags, render) : {}
      records = (await streamOrCollect(streamDemands(ctx, input), line, signal, transform)).map(displayRecord)
      if (streaming || signal.aborted) return undefined
    }
    if (clientSort && render) {
      records = render.sortRows(records, flags.sort)
      if (flags.limit !== undefined) records = records.slice(0, flags.limit)
    }
    if (render && !this.jsonEnabled()) {
      // A filter that matched nothing is told apart from a business with no demands.
      const filtered = flags.status !== undefined || flags.archived || flags.type !== 'all'
      render.printList(records, flags, DEMAND_LIST_COLUMNS, filtered ? 'No demands match.' : 'No demands.')
    }
    if (more) this.note(more)
    return records
  }

  /** One streamed demand's line: JSON (fields and --jq applied) or NDJSON with --columns. */
  private async lineFor(
    flags: ListOutputFlags,
    render: typeof import('../../cli/render.js') | undefined,
  ): Promise<{line: (r: DemandRecord) => string; transform?: BatchTransform}> {
    if (this.jsonEnabled() || !render) {
      const {line, transform} = await this.jsonStream()
      return {line: (r) => line(displayRecord(r)), ...(transform ? {transform} : {})}
    }
    return {line: (r) => render.ndjsonLine(displayRecord(r), flags, DEMAND_LIST_COLUMNS)}
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
    // The ids are all read before anything is sorted: the sort covers the whole result.
    const streaming = flags.ndjson && !flags.sort
    const missing: string[] = []
    const line = streaming ? (r: LegacyDemandRecord) => render.ndjsonLine(r, flags, LEGACY_LIST_COLUMNS) : undefined
    let records = await streamOrCollect(listLegacyByIds({client}, ids, missing), line)
    if (!streaming) {
      records = render.sortRows(records, flags.sort)
      if (!this.jsonEnabled()) render.printList(records, flags, LEGACY_LIST_COLUMNS, 'No demands.')
    }
    if (missing.length > 0) writeErr(notFoundLine(missing, ids.length))
    return records
  }
}
