import {describe, expect, it} from 'vitest'

import {
  csvField,
  cutText,
  displayWidth,
  getPath,
  listColumns,
  parseColumns,
  project,
  renderTable,
  sortRows,
  streamTable,
  tableCell,
  toCsv,
  toKeyValue,
  toTable,
} from '../../src/cli/render.js'
import {demandLine} from '../../src/cli/demands.js'
import {eventLine} from '../../src/cli/watch.js'
import {webhookLine} from '../../src/cli/webhooks.js'
import type {DemandRecord, WebhookRecord} from '../../src/schemas/read/types.js'

const rows = [
  {orderNumber: 2, customer: {city: 'Lyon'}, priceTotal: 10.5, note: 'a, "quoted" note'},
  {orderNumber: 10, customer: {city: 'Berlin'}, priceTotal: 3},
  {orderNumber: 1, customer: {}, priceTotal: 99, note: 'two\nlines'},
]

describe('render', () => {
  it('reads dotted field paths, including array indexes', () => {
    expect(getPath(rows[0], 'customer.city')).toBe('Lyon')
    expect(getPath({a: [{b: 'x'}]}, 'a.0.b')).toBe('x')
    expect(getPath(rows[2], 'customer.city')).toBeUndefined()
    expect(getPath(null, 'x')).toBeUndefined()
  })

  it('sorts numbers numerically, - descends, missing values last', () => {
    expect(sortRows(rows, 'orderNumber').map((r) => r.orderNumber)).toEqual([1, 2, 10])
    expect(sortRows(rows, '-priceTotal').map((r) => r.orderNumber)).toEqual([1, 2, 10])
    expect(sortRows(rows, 'customer.city').map((r) => r.orderNumber)).toEqual([10, 2, 1])
    expect(sortRows(rows, undefined)).toEqual(rows)
  })

  it('quotes CSV fields as RFC 4180 says', () => {
    expect(csvField('plain')).toBe('plain')
    expect(csvField('a,b')).toBe('"a,b"')
    expect(csvField('say "hi"')).toBe('"say ""hi"""')
    expect(csvField('two\nlines')).toBe('"two\nlines"')
    const csv = toCsv(rows, ['orderNumber', 'customer.city', 'note'])
    expect(csv.split('\r\n')).toEqual([
      'orderNumber,customer.city,note',
      '2,Lyon,"a, ""quoted"" note"',
      '10,Berlin,',
      '1,,"two\nlines"',
    ])
    expect(toCsv(rows, ['orderNumber'], false)).toBe('2\r\n10\r\n1')
  })

  it('renders a borderless table with or without header', () => {
    const table = toTable(rows, ['orderNumber', 'customer.city'])
    const lines = table.split('\n')
    expect(lines[0]).toMatch(/^orderNumber\s+customer\.city$/)
    expect(lines[1]).toMatch(/^2\s+Lyon$/)
    expect(lines).toHaveLength(4)
    expect(toTable(rows, ['orderNumber'], false).split('\n')).toEqual(['2', '10', '1'])
  })

  it('parses --columns with defaults and projects rows', () => {
    expect(parseColumns(undefined, ['a'])).toEqual(['a'])
    expect(parseColumns(' x , y.z ,', ['a'])).toEqual(['x', 'y.z'])
    expect(project(rows[1], ['orderNumber', 'customer.city', 'nope'])).toEqual({
      orderNumber: 10,
      'customer.city': 'Berlin',
      nope: null,
    })
  })

  it('flattens a record into key/value lines', () => {
    const text = toKeyValue({
      _id: 'x',
      shippingAddress: {city: 'Lyon'},
      tracking: [{status: 'quote sent'}],
      tags: ['a', 'b'],
    })
    expect(text).toMatch(/^_id\s+x$/m)
    expect(text).toMatch(/^shippingAddress\.city\s+Lyon$/m)
    expect(text).toMatch(/^tracking\s+1 item$/m)
    expect(text).toMatch(/^tags\s+a, b$/m)
  })

  it('shows date-times in tables in UTC to the second, whatever zone and precision they came in', () => {
    expect(tableCell('2025-01-18T09:00:00.000Z')).toBe('2025-01-18T09:00:00Z')
    expect(tableCell('2025-01-18T11:00:00.123+02:00')).toBe('2025-01-18T09:00:00Z')
    expect(tableCell('2025-01-18T11:00+0200')).toBe('2025-01-18T09:00:00Z')
    // Not a date-time with a zone: as it is.
    expect(tableCell('2025-01-18')).toBe('2025-01-18')
    expect(tableCell('2025-01-18T09:00:00')).toBe('2025-01-18T09:00:00')
    expect(tableCell(1737190800000)).toBe('1737190800000')
    // Legacy DD/MM/YYYY dates as ISO 8601 dates; a text that only looks like one stays.
    expect(tableCell('18/12/2024')).toBe('2024-12-18')
    expect(tableCell('31/13/2024')).toBe('31/13/2024')
    expect(tableCell('a 18/12/2024')).toBe('a 18/12/2024')
    // CSV keeps the raw value.
    expect(toCsv([{d: '2025-01-18T09:00:00.000Z'}], ['d'], false)).toBe('2025-01-18T09:00:00.000Z')
  })

  it('shows a UTC date-time as Date would, at the edges where Date.parse carries a field over', () => {
    const viaDate = (t: string) => `${new Date(Date.parse(t)).toISOString().slice(0, 19)}Z`
    // Hours 24 and days past a month's end roll over (as Date reads them); lower-case t and z are read.
    expect(tableCell('2025-01-18T24:00:00Z')).toBe('2025-01-19T00:00:00Z')
    expect(tableCell('2025-02-30T10:00:00Z')).toBe(viaDate('2025-02-30T10:00:00Z'))
    expect(tableCell('2025-01-18t09:00:00.5z')).toBe('2025-01-18T09:00:00Z')
    // Every day of a leap and a common year, at hours 0 to 23, the same as through Date.
    for (const year of [2024, 2025])
      for (let month = 1; month <= 12; month++)
        for (let day = 1; day <= 31; day++)
          for (const hour of [0, 9, 23]) {
            const text = `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:30:59.999Z`
            expect(tableCell(text), text).toBe(Number.isNaN(Date.parse(text)) ? text : viaDate(text))
          }
  })

  it('keeps each row on one line: newlines and tabs flattened, control characters escaped', () => {
    expect(tableCell('two\nlines\r\nand\ta tab')).toBe('two lines and a tab')
    expect(tableCell('\u001b[31mred\u001b[0m')).toBe('\\u001b[31mred\\u001b[0m')
    const lines = toTable(rows, ['orderNumber', 'note']).split('\n')
    expect(lines).toHaveLength(4)
    expect(lines[3]).toMatch(/^1\s+two lines$/)
  })

  it('counts display width: wide characters as two, escape codes and combining marks as none', () => {
    expect(displayWidth('abc')).toBe(3)
    expect(displayWidth('日本語')).toBe(6)
    expect(displayWidth('\u001b[1mbold\u001b[22m')).toBe(4)
    expect(displayWidth('e\u0301')).toBe(1)
    expect(cutText('abcdefghij', 5)).toBe('abcd…')
    expect(cutText('abc', 5)).toBe('abc')
    expect(cutText('日本語テキスト', 7)).toBe('日本語…')
    expect(displayWidth(cutText('日本語テキスト', 7))).toBeLessThanOrEqual(7)
  })

  it('counts and cuts what a terminal draws: emoji pictures, flags, ZWJ sequences, accents, zero-width marks', () => {
    expect(displayWidth('\u{1f680}\u2705')).toBe(4)
    expect(displayWidth('\u{1f1e9}\u{1f1ea}')).toBe(2)
    expect(displayWidth('\u{1f469}\u200d\u{1f469}\u200d\u{1f467}')).toBe(2)
    expect(displayWidth('a\ufeffb\u2060c')).toBe(3)
    expect(cutText('\u{1f1e9}\u{1f1ea}\u{1f1eb}\u{1f1f7}x', 4)).toBe('\u{1f1e9}\u{1f1ea}…')
    expect(cutText('e\u0301e\u0301e\u0301x', 3)).toBe('e\u0301e\u0301…')
    expect(tableCell('\u202eevil\u202c \u2067x\u2069')).toBe('\\u202eevil\\u202c \\u2067x\\u2069')
  })

  it('aligns columns by display width', () => {
    const lines = toTable(
      [
        {a: '日本', b: 'x'},
        {a: 'ab', b: 'y'},
      ],
      ['a', 'b'],
      false,
    ).split('\n')
    expect(lines).toEqual(['日本  x', 'ab    y'])
  })

  const wideRows = [
    {id: 'a1', name: 'A short name', description: 'x'.repeat(120), kind: 'reads', extra: 'e'},
    {id: 'b2', name: 'Another name that is rather long', description: 'y'.repeat(40), kind: 'changes', extra: 'f'},
  ]
  const cols = ['id', 'name', 'description', 'kind', 'extra']

  it('never cuts without a width (piped output, --no-truncate)', () => {
    const {text, dropped} = renderTable(wideRows, cols)
    expect(dropped).toEqual([])
    expect(text).toContain('x'.repeat(120))
    expect(text).not.toContain('…')
  })

  it('fits a width: long cells cut with an ellipsis, nothing wider than the width', () => {
    // 41: every column at its header or 8 characters (below that, records: the next test).
    for (const width of [100, 60, 41]) {
      const {text, dropped} = renderTable(wideRows, cols, {width})
      expect(dropped).toEqual([])
      for (const line of text.split('\n')) expect(displayWidth(line), line).toBeLessThanOrEqual(width)
      expect(text).toContain('…')
      // Short columns keep their whole cells; the long ones are cut first.
      expect(text).toMatch(/^b2\s/m)
      expect(text).toContain('changes')
    }
  })

  it('leaves out the least important columns first when cutting is not enough', () => {
    const {text, dropped} = renderTable(wideRows, cols, {width: 30, drop: ['extra', 'kind', 'description']})
    expect(dropped).toEqual(['kind', 'extra'])
    // A little wider: only the least important one goes.
    expect(renderTable(wideRows, cols, {width: 36, drop: ['extra', 'kind', 'description']}).dropped).toEqual(['extra'])
    expect(text.split('\n')[0]).toMatch(/^id\s+name\s+descrip/)
    for (const line of text.split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(30)
    // Nothing may go and the columns cannot all have 8 characters: the rows are shown as records.
    const squeezed = renderTable(wideRows, cols, {width: 30})
    expect(squeezed.dropped).toEqual([])
    expect(squeezed.records).toBe(true)
    for (const line of squeezed.text.split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(30)
  })

  it('shows rows as records from the first width where a column would get under 8 characters', () => {
    const rows = [{a: 'alpha-one', b: 'bravo-two', c: 'charlie-3'}]
    // 3 columns of 8 and two gaps of 2: 28 is the least width for a table.
    const table = renderTable(rows, ['a', 'b', 'c'], {width: 28})
    expect(table.records).toBeUndefined()
    expect(table.text).toBe(`${'a'.padEnd(8)}  ${'b'.padEnd(8)}  c\nalpha-o…  bravo-t…  charlie…`)
    const records = renderTable([...rows, {a: 'x', b: 'y', c: 'z'}], ['a', 'b', 'c'], {width: 27})
    expect(records.records).toBe(true)
    expect(records.text.split('\n')).toEqual([
      `-[ 1 ]${'-'.repeat(21)}`,
      'a  alpha-one',
      'b  bravo-two',
      'c  charlie-3',
      `-[ 2 ]${'-'.repeat(21)}`,
      'a  x',
      'b  y',
      'c  z',
    ])
    // Values cut to the width, a long key cut to what the width leaves; an id column kept whole where it can be.
    const long = renderTable(
      [{identifier: 'f'.repeat(24), 'a rather long column name': 'v'.repeat(40)}],
      ['identifier', 'a rather long column name'],
      {
        width: 33,
        keep: ['identifier'],
      },
    )
    expect(long.records).toBe(true)
    expect(long.text.split('\n').slice(1)).toEqual([`identi…  ${'f'.repeat(24)}`, `a rath…  ${'v'.repeat(23)}…`])
    // Without a header (--no-header) as well: lines of cells cut to 'a…' would say nothing either.
    const bare = renderTable(rows, ['a', 'b', 'c'], {width: 12, header: false})
    expect(bare.records).toBe(true)
    for (const line of bare.text.split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(12)
  })

  it('shows records rather than cut a column below its header (or 8 characters): one column more than fits', () => {
    const rows = [{name: 'n'.repeat(20), description: 'd'.repeat(20), kind: 'k'.repeat(20)}]
    // name may go to 8, description no narrower than its header (11): 8 + 2 + 11 = 21 is the least width for a table.
    const table = renderTable(rows, ['name', 'description'], {width: 21})
    expect(table.records).toBeUndefined()
    expect(table.text.split('\n')).toEqual(['name      description', `${'n'.repeat(7)}…  ${'d'.repeat(10)}…`])
    // One character less would cut the header to "descrip…": records instead.
    expect(renderTable(rows, ['name', 'description'], {width: 20}).records).toBe(true)
    // One column more than fits: records, every column shown...
    const more = renderTable(rows, ['name', 'description', 'kind'], {width: 21})
    expect(more.records).toBe(true)
    expect(more.text.split('\n').slice(1)).toEqual([
      'name        nnnnnnnn…',
      'descripti…  dddddddd…',
      'kind        kkkkkkkk…',
    ])
    // ...unless that column may be left out.
    const dropped = renderTable(rows, ['name', 'description', 'kind'], {width: 21, drop: ['kind']})
    expect(dropped.records).toBeUndefined()
    expect(dropped.dropped).toEqual(['kind'])
    expect(dropped.text).toBe(table.text)
  })

  it('writes a record as a numbered rule and aligned key/value lines cut to the width, field paths told apart', () => {
    const row = {
      orderNumber: 7,
      _id: '65f000060000000000000014',
      shippingAddress: {city: 'Malmö', country: 'SE'},
      note: 'v'.repeat(30),
    }
    const columns = ['orderNumber', '_id', 'shippingAddress.city', 'shippingAddress.country', 'note']
    const {text, records} = renderTable([row, {...row, orderNumber: 8, note: ''}], columns, {width: 40, keep: ['_id']})
    expect(records).toBe(true)
    // Keys take what the whole _id leaves (14): a field path keeps its end, so city and country stay apart.
    expect(text.split('\n')).toEqual([
      `-[ 1 ]${'-'.repeat(34)}`,
      'orderNumber     7',
      '_id             65f000060000000000000014',
      '…gAddress.city  Malmö',
      '…dress.country  SE',
      `note            ${'v'.repeat(23)}…`,
      `-[ 2 ]${'-'.repeat(34)}`,
      'orderNumber     8',
      '_id             65f000060000000000000014',
      '…gAddress.city  Malmö',
      '…dress.country  SE',
      'note',
    ])
    for (const line of text.split('\n')) expect(displayWidth(line), line).toBeLessThanOrEqual(40)
    // Wider, the keys are whole and aligned as toKeyValue aligns them.
    const wide = renderTable([row], columns, {width: 60, keep: ['_id']}).text.split('\n')
    expect(wide.slice(1, 5)).toEqual([
      'orderNumber              7',
      '_id                      65f000060000000000000014',
      'shippingAddress.city     Malmö',
      'shippingAddress.country  SE',
    ])
  })

  it('keeps id columns whole while other columns can go', () => {
    const {text, dropped} = renderTable(wideRows, cols, {width: 50, keep: ['name'], drop: ['extra', 'kind']})
    expect(dropped).toEqual(['kind', 'extra'])
    expect(text).toContain('Another name that is rather long')
    // Without keep, the same width cuts the name like any long cell.
    expect(renderTable(wideRows, cols, {width: 50, drop: ['extra', 'kind']}).text).not.toContain('rather long')
  })

  it('cuts a table of one column as far as needed, an id column only when even that is not enough', () => {
    // One column is never shown as records: with nothing beside it, its cells are cut to the width.
    const one = renderTable(wideRows, ['description'], {width: 5})
    expect(one.records).toBeUndefined()
    expect(one.text.split('\n')).toEqual(['desc…', 'xxxx…', 'yyyy…'])
    // An id is cut too where it cannot fit, and the table still fits.
    const id = renderTable(wideRows, ['name'], {width: 10, keep: ['name'], header: false})
    expect(id.records).toBeUndefined()
    expect(id.text.split('\n')).toEqual(['A short n…', 'Another n…'])
  })

  it('one-line views of a record (demand update, demand stage, webhook update, demand watch) show values as cells', () => {
    const hostile = 'x\u001b]0;owned\u0007\nFORGED'
    const shown = 'x\\u001b]0;owned\\u0007 FORGED'
    const demand = {_id: 'd1', orderNumber: 7, status: hostile} as unknown as DemandRecord
    expect(demandLine(demand, hostile)).toBe(`d1  order 7  ${shown} (${shown})`)
    const hook = {
      _id: 'h1',
      url: `https://a.example/${hostile}`,
      events: ['order_placed'],
      useSecret: false,
      secret: '****',
    }
    expect(webhookLine(hook as unknown as WebhookRecord)).toBe(
      `h1  https://a.example/${shown}  order_placed  useSecret=false  secret ****`,
    )
    const watched = eventLine({
      event: 'stage',
      id: 'd1',
      orderNumber: 7,
      stage: hostile,
      previousStage: 'quote_sent',
      at: '2025-01-06T10:00:00.000+01:00',
      via: 'poll',
    })
    // The date as a table shows it.
    expect(watched).toBe(`2025-01-06T09:00:00Z  stage    d1  order 7  quote_sent → ${shown}  (poll)`)
  })

  it('picks columns: --columns as given, --wide adds the extra ones', () => {
    const layout = {wide: ['w1', 'w2'], drop: ['b']}
    expect(listColumns({}, ['a', 'b'], layout)).toEqual(['a', 'b'])
    expect(listColumns({wide: true}, ['a', 'b'], layout)).toEqual(['a', 'b', 'w1', 'w2'])
    expect(listColumns({columns: 'x,a'}, ['a', 'b'], layout)).toEqual(['x', 'a'])
  })

  it('streams a table: widths from the first block, later rows written at once at those widths', () => {
    const written: string[] = []
    const out = {line: (t: string) => written.push(t), flush: () => undefined}
    const layouts: string[][] = []
    const t = streamTable(['id', 'name'], {block: 2}, (d) => layouts.push(d), out)
    t.row({id: 1, name: 'ab'})
    expect(written).toEqual([])
    t.row({id: 2, name: 'abcd'})
    expect(written).toEqual(['id  name', '1   ab', '2   abcd'])
    t.row({id: 333, name: 'x'})
    // Piped: a wider cell is written whole (nothing is cut), pushing its row right.
    expect(written.at(-1)).toBe('333  x')
    expect(t.end()).toBe(3)
    expect(layouts).toEqual([[]])
  })

  it("streams a table on a terminal: later cells cut to the first block's widths", () => {
    const written: string[] = []
    const out = {line: (t: string) => written.push(t), flush: () => undefined}
    const t = streamTable(['id', 'note'], {block: 1, width: 20, header: false}, undefined, out)
    t.row({id: 1, note: 'short'})
    t.row({id: 2, note: 'a much longer note than the first'})
    expect(t.end()).toBe(2)
    expect(written).toEqual(['1  short', '2  a mu…'])
    // Fewer rows than a block: written at the end.
    const few: string[] = []
    const t2 = streamTable(['id'], {block: 10}, undefined, {line: (x: string) => few.push(x), flush: () => undefined})
    t2.row({id: 7})
    expect(few).toEqual([])
    expect(t2.end()).toBe(1)
    expect(few).toEqual(['id', '7'])
  })
})
