import {describe, expect, it} from 'vitest'

import {CsvRowBuilder, csvRecords, FaultyRow} from '../../src/cli/csv.js'
import {jsonValues, ndjsonRows} from '../../src/cli/rows.js'
import {CreateDemandItem} from '../../src/schemas/demand.js'

async function* pieces(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size)
}
const collect = async <T>(it: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = []
  for await (const x of it) out.push(x)
  return out
}

describe('CSV records (RFC 4180, through csv-parse)', () => {
  const text = 'a,b,c\r\n"x, y","he said ""hi""","line1\r\nline2"\r\n,,\nlast,"",z'
  const records = async (pieces: AsyncIterable<string>) => (await collect(csvRecords(pieces))).flat()
  it.each([1, 2, 3, 7, 1000])('gives the same records whatever the piece size (%i)', async (size) => {
    expect(await records(pieces(text, size))).toEqual([
      {cells: ['a', 'b', 'c'], line: 1},
      {cells: ['x, y', 'he said "hi"', 'line1\r\nline2'], line: 2},
      {cells: ['', '', ''], line: 4},
      {cells: ['last', '', 'z'], line: 5},
    ])
  })

  it('numbers the lines of records after empty lines and multi-line fields, whatever the line ends', async () => {
    const mixed = 'h\r\n\r\n"a\r\nb\nc"\n\n\nd\r\re\n"f\rg"\r\nh'
    expect(await records(pieces(mixed, 1))).toEqual([
      {cells: ['h'], line: 1},
      {cells: ['a\r\nb\nc'], line: 3},
      {cells: ['d'], line: 8},
      {cells: ['e'], line: 10},
      {cells: ['f\rg'], line: 11},
      {cells: ['h'], line: 13},
    ])
  })

  it('refuses a quote that is never closed, naming the line its record starts on', async () => {
    await expect(records(pieces('a\n\n"open\nmore', 2))).rejects.toThrow(
      'a quoted field that starts in the record on line 3 is never closed',
    )
  })

  it('keeps a quote inside an unquoted field, and text after a closing quote, as text', async () => {
    expect(await records(pieces('a\nx"y\n"x"y\n', 3))).toEqual([
      {cells: ['a'], line: 1},
      {cells: ['x"y'], line: 2},
      {cells: ['"x"y'], line: 3},
    ])
  })
})

describe('CSV rows typed by the schema', () => {
  it('converts numbers, integers, booleans and nested paths, and leaves empty cells out', () => {
    const b = new CsvRowBuilder(
      [
        'quantity',
        'priceTotal',
        'isCompany',
        'shippingAddress.zip',
        'quoteModel.0.scale',
        'quoteModel.1.fileName',
        'remark',
      ],
      CreateDemandItem,
    )
    expect(b.build(['3', '12.5', 'Yes', '01000', '', 'b.stl', '["x"]'])).toEqual({
      quantity: 3,
      priceTotal: 12.5,
      isCompany: true,
      shippingAddress: {zip: '01000'},
      quoteModel: [{fileName: 'b.stl'}],
      remark: ['x'],
    })
    // A cell that does not read as its type stays text, for validation to refuse in the words it uses for JSON.
    expect(b.build(['2.5', 'x', 'maybe', '', '', '', ''])).toEqual({quantity: 2.5, priceTotal: 'x', isCompany: 'maybe'})
    // Numbers in decimal notation only, as JSON writes them: hex, binary and Infinity stay text.
    expect(b.build([' 1e3 ', '.5', '', '', '', '', ''])).toEqual({quantity: 1000, priceTotal: 0.5})
    expect(b.build(['0x10', 'Infinity', '', '', '', '', ''])).toEqual({quantity: '0x10', priceTotal: 'Infinity'})
    const short = b.build(['1'])
    expect(short).toBeInstanceOf(FaultyRow)
    expect(short).toEqual(new FaultyRow({quantity: 1}, [{path: '', reason: 'has 1 cells; the header has 7'}]))
  })
})

describe('streamed JSON', () => {
  it.each([1, 5, 64])('reads a JSON array element by element across pieces of %i characters', async (size) => {
    const text = '[{"a": "]}"}, {"b": [1, {"c": "\\""}]},\n 7]'
    const rows = await collect(jsonValues(pieces(text, size), 'array', 'in'))
    expect(rows.map((r) => r.value)).toEqual([{a: ']}'}, {b: [1, {c: '"'}]}, 7])
    expect(rows.map((r) => r.row)).toEqual([1, 2, 3])
  })

  it('names the line and column of broken JSON', async () => {
    await expect(collect(jsonValues(pieces('[\n {"a": 1}\n {"b": 2}]', 4), 'array', 'f.json'))).rejects.toThrow(
      /f\.json: invalid JSON at line 3, column 2: expected , or ]/,
    )
  })

  it('keeps going past a bad NDJSON line, reporting it as an invalid row', async () => {
    const rows = await collect(ndjsonRows(pieces('{"a":1}\r\n\n{"a":\n{"b":2}', 3), 'in'))
    expect(rows.map((r) => [r.row, r.line, r.value ?? r.problems?.[0]?.reason])).toEqual([
      [1, 1, {a: 1}],
      [2, 3, expect.stringMatching(/^invalid JSON on line 3 of in/)],
      [3, 4, {b: 2}],
    ])
  })
})
