// readBatches gives the rows of an input a piece at a time. Whatever the pieces, it
// must give the same rows (numbers, lines, values, problems) and the same errors as
// read(), which the second pass and older callers still use; on stdin and on files.
import {createHash} from 'node:crypto'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Readable} from 'node:stream'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {
  csvBatches,
  csvRows,
  jsonBatches,
  jsonValues,
  memoryRowSource,
  ndjsonBatches,
  ndjsonRows,
  openRowSource,
} from '../../src/cli/rows.js'
import {createSchema} from '../../src/services/demands/batch-validate.js'
import type {InputRow} from '../../src/services/demands/batch-validate.js'

const schema = await createSchema(false)

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mfg-read-batches-'))
})
afterAll(() => rmSync(dir, {recursive: true, force: true}))

/** What a reader gave before it ended: the rows, and the error message if it threw. */
interface Outcome {
  rows: InputRow[]
  error?: string
}

async function rowsOf(it: AsyncIterable<InputRow>): Promise<Outcome> {
  const rows: InputRow[] = []
  try {
    for await (const row of it) rows.push(row)
  } catch (error) {
    return {rows, error: (error as Error).message}
  }
  return {rows}
}

/** Flattens the batches; each batch must hold at least one row. */
async function batchesOf(it: AsyncIterable<InputRow[]>): Promise<Outcome & {sizes: number[]}> {
  const rows: InputRow[] = []
  const sizes: number[] = []
  try {
    for await (const batch of it) {
      sizes.push(batch.length)
      rows.push(...batch)
    }
  } catch (error) {
    return {rows, sizes, error: (error as Error).message}
  }
  return {rows, sizes}
}

async function* pieces(parts: string[]): AsyncGenerator<string> {
  for (const part of parts) yield part
}

interface Sample {
  name: string
  ext: string
  text: string
  expected: Outcome
  /** The rows before the error depend on the pieces: any first part of `expected.rows` may come. */
  partial?: true
}

const samples: Sample[] = [
  {
    name: 'CSV with a BOM, CRLF, a quoted comma and line break, a cell that is not a number and a blank line',
    ext: '.csv',
    text: '\uFEFFtechnique,quantity,quoteModel.0.fileName,firstName\r\n3D_PRINTING,2,"a,b.stl","Zoé\nB"\r\nCNC,x,c.stl,\r\n\r\nSLA,3,d.stl,Ève',
    expected: {
      rows: [
        {
          row: 1,
          line: 2,
          value: {technique: '3D_PRINTING', quantity: 2, quoteModel: [{fileName: 'a,b.stl'}], firstName: 'Zoé\nB'},
        },
        {
          row: 2,
          line: 4,
          value: {technique: 'CNC', quantity: 'x', quoteModel: [{fileName: 'c.stl'}]},
        },
        {row: 3, line: 6, value: {technique: 'SLA', quantity: 3, quoteModel: [{fileName: 'd.stl'}], firstName: 'Ève'}},
      ],
    },
  },
  {
    name: 'CSV whose header is not valid',
    ext: '.csv',
    text: 'technique,,material\nCNC,x,PLA\n',
    expected: {rows: [], error: 'IN: column 2 of the header is empty; every column needs a field path'},
  },
  {
    name: 'CSV with a quote never closed',
    ext: '.csv',
    text: 'technique,material\nCNC,PLA\n"SLA,é\n',
    expected: {
      rows: [{row: 1, line: 2, value: {technique: 'CNC', material: 'PLA'}}],
      error: 'IN: invalid CSV: a quoted field that starts in the record on line 3 is never closed',
    },
  },
  {
    name: 'NDJSON with CRLF, a blank line, a bad line and no final line break',
    ext: '.ndjson',
    text: '{"a":1}\r\n\n{"a":\n  {"b":"é"}',
    expected: {
      rows: [
        {row: 1, line: 1, value: {a: 1}},
        {
          row: 2,
          line: 3,
          raw: '{"a":',
          problems: [{path: '', reason: 'invalid JSON on line 3 of IN (column 6: unexpected end of input)'}],
        },
        {row: 3, line: 4, value: {b: 'é'}},
      ],
    },
  },
  {
    name: 'a JSON array over several lines',
    ext: '.json',
    text: '[{"a": "]}"},\n {"b": [1, {"c": "é\\""}]},\n 7, "x"]\n',
    expected: {
      rows: [
        {row: 1, line: 1, value: {a: ']}'}},
        {row: 2, line: 2, value: {b: [1, {c: 'é"'}]}},
        {row: 3, line: 3, value: 7},
        {row: 4, value: 'x'},
      ],
    },
  },
  {
    name: 'a JSON array broken after its first element',
    ext: '.json',
    text: '[{"a": "é"}\n {"b": 2}]',
    expected: {
      rows: [{row: 1, line: 1, value: {a: 'é'}}],
      error: 'IN: invalid JSON at line 2, column 2: expected , or ]',
    },
    partial: true,
  },
  {
    name: 'JSON objects one after another',
    ext: '.json',
    text: '{"a": 1} {"b": "é"}\n{"c": 3}\n',
    expected: {
      rows: [
        {row: 1, line: 1, value: {a: 1}},
        {row: 2, value: {b: 'é'}},
        {row: 3, line: 2, value: {c: 3}},
      ],
    },
  },
]

const withLabel = (outcome: Outcome, label: string): Outcome => ({
  rows: JSON.parse(JSON.stringify(outcome.rows).replaceAll(' of IN ', ` of ${label} `)) as InputRow[],
  ...(outcome.error === undefined ? {} : {error: outcome.error.replace(/^IN:/, `${label}:`)}),
})

/** `actual` is `expected`, or with `partial` the error after a first part of the rows. */
function expectOutcome(actual: Outcome, expected: Outcome, partial: boolean | undefined, why: string): void {
  if (!partial) {
    expect(actual, why).toStrictEqual(expected)
    return
  }
  expect(actual.error, why).toBe(expected.error)
  expect(actual.rows, why).toStrictEqual(expected.rows.slice(0, actual.rows.length))
}

/** The bytes cut in two at `at` (either half may be empty). */
const cutAt = (bytes: Buffer, at: number): Buffer[] =>
  [bytes.subarray(0, at), bytes.subarray(at)].filter((b) => b.length)

describe.each(samples)('readBatches: $name', ({ext, text, expected, partial}) => {
  const bytes = Buffer.from(text, 'utf8')
  const hash = createHash('sha256').update(bytes).digest('hex')
  const fromStdin = withLabel(expected, 'stdin')

  it('on stdin cut at every byte: the same rows and error as read(), then the spool gives them again', async () => {
    for (let at = 0; at <= bytes.length; at++) {
      const batched = openRowSource('-', {schema, stdin: Readable.from(cutAt(bytes, at))})
      const plain = openRowSource('-', {schema, stdin: Readable.from(cutAt(bytes, at))})
      try {
        const first = await batchesOf(batched.readBatches!())
        expect(
          first.sizes.every((n) => n > 0),
          `cut at byte ${at}`,
        ).toBe(true)
        // Two pieces complete rows at most three times (the second piece, then the end).
        expect(first.sizes.length).toBeLessThanOrEqual(3)
        const {sizes: _sizes, ...outcome} = first
        expectOutcome(outcome, fromStdin, partial, `cut at byte ${at}`)
        // read() stops at the same row with the same error.
        expect(await rowsOf(plain.read()), `cut at byte ${at}`).toStrictEqual(outcome)
        if (fromStdin.error === undefined) {
          expect(batched.contentHash()).toBe(hash)
          expect(await rowsOf(batched.read())).toStrictEqual(fromStdin)
          const again = await batchesOf(batched.readBatches!())
          expect(again.rows).toStrictEqual(fromStdin.rows)
        }
      } finally {
        batched.close()
        plain.close()
      }
    }
  })

  it('on a file: the same rows and error from readBatches and read(), on every read', async () => {
    const file = join(dir, `input-${Math.random().toString(36).slice(2)}${ext}`)
    writeFileSync(file, bytes)
    const fromFile = withLabel(expected, file)
    const source = openRowSource(file, {schema})
    try {
      const {sizes: _sizes, ...first} = await batchesOf(source.readBatches!())
      expectOutcome(first, fromFile, partial, file)
      expect(await rowsOf(source.read())).toStrictEqual(first)
      const {sizes: _again, ...second} = await batchesOf(source.readBatches!())
      expect(second).toStrictEqual(first)
      if (fromFile.error === undefined) expect(source.contentHash()).toBe(hash)
    } finally {
      source.close()
    }
  })

  it('from the reader itself, text cut at every character and in single characters: the same as the row reader', async () => {
    const body = text.replace(/^\uFEFF/, '')
    const kind = ext === '.csv' ? 'csv' : ext === '.ndjson' ? 'ndjson' : body.startsWith('[') ? 'array' : 'sequence'
    const batches = (parts: string[]) =>
      kind === 'csv'
        ? csvBatches(pieces(parts), 'IN', schema)
        : kind === 'ndjson'
          ? ndjsonBatches(pieces(parts), 'IN')
          : jsonBatches(pieces(parts), kind, 'IN')
    const rows = (parts: string[]) =>
      kind === 'csv'
        ? csvRows(pieces(parts), 'IN', schema)
        : kind === 'ndjson'
          ? ndjsonRows(pieces(parts), 'IN')
          : jsonValues(pieces(parts), kind, 'IN')
    const cuts = [...Array.from({length: body.length + 1}, (_, at) => [body.slice(0, at), body.slice(at)]), [...body]]
    for (const parts of cuts) {
      const {sizes, ...batched} = await batchesOf(batches(parts))
      expectOutcome(batched, expected, partial, JSON.stringify(parts))
      expect(sizes.every((n) => n > 0)).toBe(true)
      expect(sizes.length).toBeLessThanOrEqual(parts.length + 1)
      expect(await rowsOf(rows(parts)), JSON.stringify(parts)).toStrictEqual(batched)
    }
  })
})

describe('readBatches hands over the rows each piece completes', () => {
  it('CSV: a row cut between two pieces comes with the second; one ending a piece, with that piece', async () => {
    const out = await batchesOf(
      csvBatches(pieces(['technique,quantity\nCNC,1\nSLA', ',2\nFDM,3\n', 'MJF,4']), 'IN', schema),
    )
    expect(out.sizes).toEqual([1, 2, 1])
    expect(out.rows.map((r) => [r.row, r.line, r.value])).toEqual([
      [1, 2, {technique: 'CNC', quantity: 1}],
      [2, 3, {technique: 'SLA', quantity: 2}],
      [3, 4, {technique: 'FDM', quantity: 3}],
      [4, 5, {technique: 'MJF', quantity: 4}],
    ])
  })

  it('CSV with quotes: csv-parse reads on from the first piece holding one, a line end closing a piece with the next', async () => {
    // csv-parse looks one character past a line end (it may be the CR of a CRLF cut in two),
    // so FDM, whose line end closes the second piece, comes with the third.
    const out = await batchesOf(
      csvBatches(pieces(['technique,quantity\n"CNC",1\nSLA', ',2\nFDM,3\n', 'MJF,4']), 'IN', schema),
    )
    expect(out.sizes).toEqual([1, 1, 1, 1])
    expect(out.rows.map((r) => [r.row, r.line, r.value])).toEqual([
      [1, 2, {technique: 'CNC', quantity: 1}],
      [2, 3, {technique: 'SLA', quantity: 2}],
      [3, 4, {technique: 'FDM', quantity: 3}],
      [4, 5, {technique: 'MJF', quantity: 4}],
    ])
  })

  it('CSV: the line numbers run on where csv-parse takes over, a CRLF cut at the hand-over included', async () => {
    // Pieces without quotes are cut by csv.ts; the CR ending the second piece waits for
    // its LF, and goes to csv-parse with the third piece, which holds the first quote.
    const out = await batchesOf(
      csvBatches(pieces(['technique,material\r', '\nCNC,PLA\r', '\n"SLA\nresin",ABS\r\n\r\nFDM,PETG']), 'IN', schema),
    )
    expect(out.error).toBeUndefined()
    expect(out.rows.map((r) => [r.row, r.line, r.value])).toEqual([
      [1, 2, {technique: 'CNC', material: 'PLA'}],
      [2, 3, {technique: 'SLA\nresin', material: 'ABS'}],
      [3, 6, {technique: 'FDM', material: 'PETG'}],
    ])
  })

  it('NDJSON: lines complete in a piece, the last line at the end', async () => {
    const out = await batchesOf(ndjsonBatches(pieces(['{"a":1}\n{"a":2}\n{"a"', ':3}\n', '\n{"a":4}']), 'IN'))
    expect(out.sizes).toEqual([2, 1, 1])
    expect(out.rows.map((r) => [r.row, r.line, r.value])).toEqual([
      [1, 1, {a: 1}],
      [2, 2, {a: 2}],
      [3, 3, {a: 3}],
      [4, 5, {a: 4}],
    ])
  })

  it('NDJSON: U+2028 and U+2029 inside a string end no line (node:readline would cut the row there)', async () => {
    const rows = [{v: 'a\u2028b'}, {v: 'c\u2029d', w: '\u0085'}]
    const out = await batchesOf(ndjsonBatches(pieces([rows.map((r) => JSON.stringify(r)).join('\n')]), 'IN'))
    expect(out.rows.map((r) => [r.row, r.line, r.value])).toEqual([
      [1, 1, rows[0]],
      [2, 2, rows[1]],
    ])
  })

  it('NDJSON: a reader that stops early lets go of its input', async () => {
    let pulled = 0
    let released = false
    async function* long(): AsyncGenerator<string> {
      try {
        for (; pulled < 100_000; pulled++) yield `{"a":${pulled}}\n`
      } finally {
        released = true
      }
    }
    for await (const batch of ndjsonBatches(long(), 'IN')) {
      expect(batch).toHaveLength(1)
      break
    }
    await new Promise((ok) => setImmediate(ok))
    // Let go of at once: not read on to its end.
    expect(released).toBe(true)
    expect(pulled).toBeLessThan(10)
  })

  it('JSON: a number at the very end of a sequence comes last on its own', async () => {
    const out = await batchesOf(jsonBatches(pieces(['{"a":1} [2', '] 3']), 'sequence', 'IN'))
    expect(out.sizes).toEqual([1, 1, 1])
    expect(out.rows.map((r) => r.value)).toEqual([{a: 1}, [2], 3])
  })

  it('rows given in memory come as one batch, numbered from 1', async () => {
    const source = memoryRowSource([{a: 1}, {b: 2}], 'flags', 'id')
    expect(await batchesOf(source.readBatches!())).toStrictEqual({
      rows: [
        {row: 1, value: {a: 1}},
        {row: 2, value: {b: 2}},
      ],
      sizes: [2],
    })
    expect(await batchesOf(memoryRowSource([], 'flags', 'id').readBatches!())).toStrictEqual({rows: [], sizes: []})
  })
})
