// What a paged list command does once its flags are parsed (`demand list`, `post
// list`): one page, or every page streamed or collected; a sort by the service or,
// over the whole list, by the CLI; and the output as a table, CSV, NDJSON or JSON.
// The command says where the items come from and how they look.
import {BaseCommand} from './base-command.js'
import type {ListOutputFlags} from './flags.js'
import {fetchAllNotice, type SortPlan} from './list-sort.js'
import {streamOrCollect, writeOut} from './output.js'
import type {TableLayout} from './render.js'

type Row = Record<string, unknown>

/** The paged list flags a list command parses (listFlags and pagingFlags). */
export interface ListRunFlags extends ListOutputFlags {
  all?: boolean | undefined
  limit?: number | undefined
  'page-size'?: number | undefined
}

/** Where the items come from. */
export interface ListSource<T> {
  /** One page, and what the service said about the others. */
  page: () => Promise<{records: T[]; paging: {page?: number; totalPages?: number; total?: number}}>
  /** Every item, page after page. */
  stream: () => AsyncIterable<T>
}

/** How the items are shown. */
export interface ListShape<T> {
  columns: readonly string[]
  layout: TableLayout
  /** What the list holds, plural (`demands`), for the more-pages hint. */
  noun: string
  /** Said on stderr when the list is empty. */
  empty: string
  /** The fields the service sorts by, in words, for the notice of a sort by the CLI. */
  sortable: string
  /** The largest page the service serves. */
  pageSizeMax: number
  /** An item as output (masked), in every format. */
  display?: (item: T) => T
  /** An item as a table or CSV row with the default columns. */
  row?: (item: T) => Row
}

export abstract class ListCommand extends BaseCommand {
  /**
   * Lists, prints and answers the items (undefined when they were streamed to
   * stdout, or stdout closed): one page when --limit fits in one and nothing is
   * sorted by the CLI, else every page needed.
   */
  protected async runList<T extends object>(
    flags: ListRunFlags,
    sort: SortPlan<string>,
    signal: AbortSignal,
    source: ListSource<T>,
    shape: ListShape<T>,
  ): Promise<T[] | undefined> {
    const json = this.jsonEnabled()
    const display = shape.display ?? ((item: T) => item)
    const row = (item: T): Row => (flags.columns || !shape.row ? (display(item) as Row) : shape.row(display(item)))
    // The table renderer is only loaded when a table, CSV, NDJSON or a sort by the CLI is asked for.
    const render = json && !sort.client ? undefined : await import('./render.js')
    // A table of --all streams too: widths from the first 1,000 rows, no more held (render.streamTable).
    if (flags.all && render && !sort.client && !json && !flags.csv && !flags.ndjson) {
      const layout = {...shape.layout, empty: shape.empty}
      return void (await render.printTableStream(source.stream(), row, flags, shape.columns, layout, signal))
    }
    let records: T[]
    let more: string | undefined
    const onePage =
      !flags.all &&
      !sort.client &&
      (flags.limit === undefined || flags.limit <= (flags['page-size'] ?? shape.pageSizeMax))
    if (onePage) {
      const page = await source.page()
      records = page.records.map(display)
      more = render?.morePagesNote(page.paging, shape.noun)
    } else {
      if (sort.client && !flags.all) this.notice(fetchAllNotice(sort.client, shape.sortable))
      // Stream: print each item as it arrives, unless a sort needs them all first.
      const streaming = flags.all && !sort.client && (flags.ndjson || flags.csv || json)
      const jsonLines = streaming && json ? await this.jsonStream() : undefined
      const text = streaming && !json ? this.textLine(render!, flags, shape, display, row) : undefined
      const line = jsonLines ? (item: T) => jsonLines.line(display(item)) : text?.line
      records = (await streamOrCollect(source.stream(), line, signal, jsonLines?.transform)).map(display)
      if (text && !signal.aborted) text.ended()
      if (streaming || signal.aborted) return undefined
    }
    if (sort.client && render) {
      records = render.sortRows(records, flags.sort)
      if (flags.limit !== undefined) records = records.slice(0, flags.limit)
      if (flags.all && json) return void (await this.printJsonLines(records))
    }
    if (render && !json) {
      const rows = flags.columns || flags.ndjson || !shape.row ? records : records.map(shape.row)
      render.printList(rows as Row[], flags, shape.columns, shape.empty, shape.layout)
    }
    if (more) this.note(more)
    return records
  }

  /**
   * How a streamed item is written: one NDJSON line, or one CSV line as printList
   * writes it (CRLF-ended; the header, unless --no-header, with the first row, or
   * alone by `ended` when there was none).
   */
  private textLine<T>(
    render: typeof import('./render.js'),
    flags: ListRunFlags,
    shape: ListShape<T>,
    display: (item: T) => T,
    row: (item: T) => Row,
  ): {line: (item: T) => string; ended: () => void} {
    if (!flags.csv) return {line: (item) => render.ndjsonLine(display(item), flags, shape.columns), ended: () => {}}
    const columns = render.listColumns(flags, shape.columns, shape.layout)
    let header = flags['no-header'] ? undefined : `${render.csvHeader(columns)}\r`
    const withHeader = (text: string) => (header === undefined ? text : `${header}\n${text}`)
    return {
      line: (item) => {
        const text = withHeader(`${render.csvLine(row(item), columns)}\r`)
        header = undefined
        return text
      },
      ended: () => header !== undefined && writeOut(header),
    }
  }
}
