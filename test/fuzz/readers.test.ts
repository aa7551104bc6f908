// Property-based fuzzing of the CLI's input readers: JSON, NDJSON and CSV rows, and
// the part-file readers (STL, OBJ, 3MF). Whatever the bytes, a reader returns or
// throws its own typed error (InputError, MeshError); never a TypeError, a
// RangeError or a stack overflow. End to end, the commands exit 2 with one
// `Error:` line and no stack trace.
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Readable} from 'node:stream'

import {parse as parseCsv} from 'csv-parse/sync'
import fc from 'fast-check'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {csvRecords} from '../../src/cli/csv.js'
import {parseObject, parseRows} from '../../src/cli/input.js'
import {MAX_JSON_DEPTH, jsonErrorOffset} from '../../src/cli/json-locate.js'
import {csvRows, jsonValues, ndjsonRows, openRowSource} from '../../src/cli/rows.js'
import {MeshError, measureMesh, readMesh} from '../../src/mesh/index.js'
import {createSchema} from '../../src/services/demands/batch-validate.js'
import type {InputRow} from '../../src/services/demands/batch-validate.js'
import {InputError} from '../../src/services/errors.js'
import {runCli} from '../helpers/cli.js'
import {RELS, binaryStl, boxObject, makeZip, meshBytes, modelXml} from '../mesh/helpers.js'
import {DANGEROUS_KEYS, MALFORMED_JSON, damaged, deepText, jsonTree, nastyString, oddNumber} from './arbitraries.js'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mfg-fuzz-readers-'))
})
afterAll(() => rmSync(dir, {recursive: true, force: true}))

let fileNo = 0
function writeTemp(ext: string, content: string | Uint8Array): string {
  const path = join(dir, `f${++fileNo}${ext}`)
  writeFileSync(path, content)
  return path
}

/** Runs `f`; a throw must be of `type` (the reader's own error), with a message. */
async function returnsOrThrows(type: abstract new (...args: never[]) => Error, f: () => unknown): Promise<void> {
  try {
    await f()
  } catch (error) {
    if (!(error instanceof type)) {
      throw new Error(`expected ${type.name} or success, got ${(error as Error)?.stack ?? String(error)}`, {
        cause: error,
      })
    }
    expect(error.message.length).toBeGreaterThan(0)
  }
}

/**
 * readMesh turns anything its readers throw into a MeshError "cannot read the file: ..."
 * as a last resort; a message with that prefix means a reader itself threw something else.
 */
const SAFETY_NET = /^cannot read the file: /

async function readsOrMeshError(bytes: Uint8Array, fileName?: string, measure = false): Promise<void> {
  await returnsOrThrows(MeshError, () => {
    try {
      const mesh = readMesh(bytes, fileName === undefined ? {} : {fileName})
      expect(mesh.triangleCount).toBeGreaterThan(0)
      expect(mesh.triangles.length).toBe(mesh.triangleCount * 3)
      if (measure) measureMesh(mesh, {hull: false})
    } catch (error) {
      if (error instanceof MeshError) expect(error.message, 'a reader threw a non-MeshError').not.toMatch(SAFETY_NET)
      throw error
    }
  })
}

const collect = async <T>(it: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = []
  for await (const x of it) out.push(x)
  return out
}

/** Splits text or bytes into pieces at the given cut points. */
function split<T extends string | Uint8Array>(whole: T, cuts: number[]): T[] {
  const points = [...new Set(cuts.map((c) => c % (whole.length + 1)))].sort((a, b) => a - b)
  const out: T[] = []
  let at = 0
  for (const p of [...points, whole.length]) {
    if (p > at) out.push(whole.slice(at, p) as T)
    at = p
  }
  return out
}

async function* pieces<T>(list: T[]): AsyncGenerator<T> {
  for (const p of list) yield p
}

// ---------------------------------------------------------------- generated row inputs

const lineEnd = fc.constantFrom('\n', '\r\n', '\n\n', '\r')

const jsonObjectText = jsonTree.map((v) => JSON.stringify(v && typeof v === 'object' && !Array.isArray(v) ? v : {v}))

const ndjsonText = fc
  .array(fc.oneof({weight: 4, arbitrary: jsonObjectText}, {weight: 1, arbitrary: fc.constantFrom(...MALFORMED_JSON)}), {
    maxLength: 8,
  })
  .chain((lines) =>
    fc
      .array(lineEnd, {minLength: lines.length, maxLength: lines.length})
      .map((ends) => lines.map((l, i) => l + ends[i]).join('')),
  )

const csvCell = fc.oneof(
  fc.string({maxLength: 8}),
  nastyString,
  fc.constantFrom('"', '""', '"a,b"', '"x""y"', '"open', 'a"b', '1', '2.5', 'yes', '[1,2]', '{"a":1}', '{bad', ''),
)
const csvHeader = fc.oneof(
  fc.constantFrom(
    'technique',
    'material',
    'quantity',
    'jobDetails.takenAs',
    'quoteModel.0.fileName',
    'quoteModel.1.quantity',
  ),
  fc.constantFrom('shippingAddress.zip', 'remark', 'isCompany', 'priceTotal', 'quoteModel.0.slicingData'),
  fc.constantFrom(...DANGEROUS_KEYS, '__proto__.x', 'a.__proto__.b', 'constructor.prototype.x', 'a..b', '.', ''),
  fc.string({maxLength: 10}),
)
const csvText = fc
  .tuple(
    fc.array(csvHeader, {minLength: 1, maxLength: 5}),
    fc.array(fc.array(csvCell, {maxLength: 6}), {maxLength: 6}),
    lineEnd,
  )
  .map(([header, rows, end]) => [header.join(','), ...rows.map((r) => r.join(','))].join(end))

/** Any text a user might feed `--file`: JSON, NDJSON, CSV, deep, broken, binary-ish. */
const rowsText: fc.Arbitrary<string> = fc.oneof(
  {weight: 3, arbitrary: jsonTree.map((v) => JSON.stringify(v))},
  {weight: 2, arbitrary: fc.array(jsonTree, {maxLength: 5}).map((v) => JSON.stringify(v, null, 1))},
  {weight: 3, arbitrary: ndjsonText},
  {weight: 3, arbitrary: csvText},
  {weight: 2, arbitrary: fc.constantFrom(...MALFORMED_JSON)},
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom(500, 20_000, 200_000),
        fc.constantFrom('array', 'object', 'field') as fc.Arbitrary<'array' | 'object' | 'field'>,
        fc.boolean(),
      )
      .map(([depth, shape, cut]) => {
        const t = deepText(depth, shape)
        return cut ? t.slice(0, t.length - 3) : t
      }),
  },
  {weight: 1, arbitrary: fc.string({unit: 'binary', maxLength: 60})},
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('\ufeff', ' \n', ''), jsonObjectText, fc.string({maxLength: 5}))
      .map((p) => p.join('')),
  },
)

const schema = await createSchema(false)

// ---------------------------------------------------------------- JSON, NDJSON, CSV

describe('row readers', () => {
  it('parseRows (demand order --file) returns rows or throws InputError', async () => {
    await fc.assert(
      fc.asyncProperty(
        rowsText,
        fc.constantFrom('in.json', 'in.ndjson', 'in.jsonl', 'stdin', 'in.txt'),
        async (text, source) => {
          await returnsOrThrows(InputError, () => parseRows(text, source))
        },
      ),
      {numRuns: 200},
    )
  })

  it('parseObject (update and create --file bodies) returns an object or throws InputError', async () => {
    await fc.assert(
      fc.asyncProperty(rowsText, async (text) => {
        await returnsOrThrows(InputError, () => parseObject(text, 'body.json'))
      }),
      {numRuns: 200},
    )
  })

  it('jsonErrorOffset never throws, and finds no error exactly when JSON.parse succeeds', () => {
    fc.assert(
      fc.property(rowsText, (text) => {
        let valid = true
        try {
          JSON.parse(text)
        } catch {
          valid = false
        }
        const found = jsonErrorOffset(text)
        expect(found === undefined, JSON.stringify(text.slice(0, 200))).toBe(valid)
        if (found) expect(found.offset).toBeLessThanOrEqual(text.length)
      }),
      {numRuns: 300},
    )
  })

  it('openRowSource streams any input in any pieces to rows or an InputError, on both passes', async () => {
    await fc.assert(
      fc.asyncProperty(
        rowsText,
        fc.array(fc.nat(), {maxLength: 6}),
        fc.constantFrom(undefined, 'json', 'ndjson', 'csv') as fc.Arbitrary<'json' | 'ndjson' | 'csv' | undefined>,
        async (text, cuts, format) => {
          const bytes = new Uint8Array(Buffer.from(text, 'utf8'))
          const source = openRowSource('-', {
            schema,
            ...(format ? {format} : {}),
            stdin: Readable.from(split(bytes, cuts)),
          })
          try {
            let firstRows: Awaited<ReturnType<typeof collect<InputRow>>> = []
            let read = false
            await returnsOrThrows(InputError, async () => {
              firstRows = await collect(source.read())
              read = true
            })
            if (read) {
              // The spool replays the same rows (compared by shape: rows may nest deeply).
              const shape = (rows: {row: number; line?: number; problems?: unknown[]}[]) =>
                rows.map((r) => [r.row, r.line, r.problems?.length ?? 0])
              expect(shape(await collect(source.read()))).toEqual(shape(firstRows))
              expect(source.contentHash()).toMatch(/^[0-9a-f]{64}$/)
            }
          } finally {
            source.close()
          }
        },
      ),
      {numRuns: 120},
    )
  })

  it('openRowSource on files picks the format from the extension and never fails otherwise', async () => {
    await fc.assert(
      fc.asyncProperty(
        rowsText,
        fc.constantFrom('.json', '.ndjson', '.jsonl', '.csv', '.txt', ''),
        async (text, ext) => {
          const source = openRowSource(writeTemp(ext, text), {schema})
          try {
            await returnsOrThrows(InputError, () => collect(source.read()))
          } finally {
            source.close()
          }
        },
      ),
      {numRuns: 80},
    )
  })

  it('jsonValues reads a JSON array the way JSON.parse does, whatever the pieces', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.jsonValue(), {maxLength: 6}),
        fc.array(fc.nat(), {maxLength: 8}),
        fc.nat(2),
        async (values, cuts, indent) => {
          const text = JSON.stringify(values, null, indent)
          const rows = await collect(jsonValues(pieces(split(text, cuts)), 'array', 'in.json'))
          expect(rows.map((r) => r.value)).toEqual(JSON.parse(text))
        },
      ),
      {numRuns: 150},
    )
  })

  it('ndjsonRows gives one row per non-empty line, whatever the pieces', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(jsonObjectText, {maxLength: 6}),
        fc.array(fc.nat(), {maxLength: 8}),
        lineEnd,
        async (lines, cuts, end) => {
          const text = lines.join(end === '\r' ? '\n' : end)
          const rows = await collect(ndjsonRows(pieces(split(text, cuts)), 'in.ndjson'))
          expect(rows.map((r) => r.value)).toEqual(lines.map((l) => JSON.parse(l) as unknown))
        },
      ),
      {numRuns: 150},
    )
  })

  it('the CSV reader reads back what an RFC 4180 writer wrote, whatever the pieces', async () => {
    const cell = fc.string({unit: fc.constantFrom('a', ',', '"', '\n', '\r', ' ', 'é', '\u0000'), maxLength: 6})
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(cell, {minLength: 1, maxLength: 4}), {minLength: 1, maxLength: 5}),
        fc.array(fc.nat(), {maxLength: 8}),
        fc.constantFrom('\n', '\r\n'),
        fc.boolean(),
        async (records, cuts, end, trailing) => {
          const quote = (c: string, alone: boolean) =>
            /[",\r\n]/.test(c) || (alone && c === '') ? `"${c.replace(/"/g, '""')}"` : c
          const text =
            records.map((r) => r.map((c) => quote(c, r.length === 1)).join(',')).join(end) + (trailing ? end : '')
          const got = (await collect(csvRecords(pieces(split(text, cuts))))).flat()
          expect(got.map((r) => r.cells)).toEqual(records)
        },
      ),
      {numRuns: 200},
    )
  })

  it('the CSV reader gives the records and lines csv-parse gives for the whole text, quoted or not, whatever the pieces', async () => {
    // Text without a quote is cut into records by csv.ts itself until a piece holds one:
    // both ways must read every text as csv-parse alone does.
    const unit = fc.constantFrom('a', 'b', ',', '\n', '\r', ' ', 'é', '\uFEFF', '"')
    await fc.assert(
      fc.asyncProperty(
        fc.string({unit, maxLength: 40}),
        fc.array(fc.nat(), {maxLength: 8}),
        fc.boolean(),
        async (body, cuts, bom) => {
          const text = (bom ? '\uFEFF' : '') + body
          const expected = (() => {
            const records: {cells: string[]; line: number}[] = []
            try {
              const parsed = parseCsv(text, {
                bom: true,
                record_delimiter: ['\r\n', '\n', '\r'],
                skip_empty_lines: true,
                relax_column_count: true,
                relax_quotes: true,
                info: true,
              }) as unknown as {record: string[]; info: {lines: number}}[]
              // csv-parse's line count is right where no quote is (a CRLF inside quotes counts twice).
              for (const {record, info} of parsed) records.push({cells: record, line: info.lines})
              return {records}
            } catch {
              return {error: true as const}
            }
          })()
          let got: {records: {cells: string[]; line: number}[]} | {error: true}
          try {
            got = {records: (await collect(csvRecords(pieces(split(text, cuts))))).flat()}
          } catch {
            got = {error: true}
          }
          if ('error' in expected || 'error' in got) expect('error' in got).toBe('error' in expected)
          else if (text.includes('"'))
            expect(got.records.map((r) => r.cells)).toEqual(expected.records.map((r) => r.cells))
          else expect(got.records).toEqual(expected.records)
        },
      ),
      {numRuns: 400},
    )
  })

  it('csvRows turns any CSV into typed rows (problems listed per row) or one InputError for the header', async () => {
    await fc.assert(
      fc.asyncProperty(csvText, fc.array(fc.nat(), {maxLength: 5}), async (text, cuts) => {
        await returnsOrThrows(InputError, () => collect(csvRows(pieces(split(text, cuts)), 'in.csv', schema)))
        expect(({} as Record<string, unknown>).x).toBeUndefined()
        expect(Object.keys(Object.prototype)).toEqual([])
      }),
      {numRuns: 200},
    )
  })
})

describe('row reader regressions', () => {
  it('deeply nested broken JSON is located without exhausting the stack', async () => {
    // Counterexample: parseRows("[".repeat(100000), "x.json") threw RangeError (recursive error locator).
    const deep = '['.repeat(100_000)
    expect(() => parseRows(deep, 'x.json')).toThrow(InputError)
    expect(() => parseRows(deep, 'x.json')).toThrow(/line 1, column 100001: unexpected end of input/)
    expect(() => parseObject('{"a":'.repeat(100_000) + '1', 'b.json')).toThrow(/after property value, got end of input/)
    expect(jsonErrorOffset(`${'['.repeat(50_000)}1,]${']'.repeat(49_999)}`)).toEqual({
      offset: 50_002,
      reason: 'unexpected "]"',
    })
    expect(jsonErrorOffset(deepText(200_000, 'object'))).toBeUndefined()
    await expect(collect(jsonValues(pieces([`[${'['.repeat(100_000)}]`]), 'array', 'd.json'))).rejects.toThrow(
      InputError,
    )
  })
})

describe('rows nested deeper than the service takes', () => {
  // Counterexample: a row {"remark": [[[...200000 levels...]]]} was read as is; validation
  // let it through (remark holds anything), and JSON.stringify of the request overflowed.
  const deepRow = (levels: number) =>
    `{"technique": "3D_PRINTING", "material": "PLA", "remark": ${deepText(levels, 'array')}}`

  it('parseRows and parseObject refuse them with InputError; 100 levels are fine', () => {
    expect(() => parseRows(`[${deepRow(200_000)}]`, 'in.json')).toThrow(
      /row 1 nests objects and arrays more than 100 levels/,
    )
    expect(() => parseRows(`${deepRow(1)}\n${deepRow(5000)}\n`, 'in.ndjson')).toThrow(/line 2 nests/)
    expect(() => parseObject(deepRow(200), 'b.json')).toThrow(InputError)
    expect(parseObject(deepRow(MAX_JSON_DEPTH - 1), 'b.json')).toHaveProperty('technique')
    expect(() => parseObject(deepRow(MAX_JSON_DEPTH), 'b.json')).toThrow(/more than 100 levels/)
  })

  it('the streaming readers turn them into invalid rows with a reason', async () => {
    const array = await collect(jsonValues(pieces([`[${deepRow(1)}, ${deepRow(300)}]`]), 'array', 'in.json'))
    expect(array.map((r) => r.problems?.[0]?.reason)).toEqual([
      undefined,
      'nests objects and arrays more than 100 levels deep',
    ])
    const lines = await collect(ndjsonRows(pieces([`${deepRow(300)}\n${deepRow(2)}\n`]), 'in.ndjson'))
    expect(lines.map((r) => r.problems?.length ?? 0)).toEqual([1, 0])
    const csv = await collect(
      csvRows(pieces([`technique,material,remark\n3D_PRINTING,PLA,${deepText(300, 'array')}\n`]), 'in.csv', schema),
    )
    expect(csv[0]?.problems).toEqual([{path: 'remark', reason: 'expected JSON nested at most 100 levels deep'}])
  })

  it('demand create --dry-run and demand update --file exit 2 on them', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mfg-fuzz-home-'))
    try {
      const create = await runCli(
        ['demand', 'create', '--file', writeTemp('.json', `[${deepRow(200_000)}]`), '--dry-run'],
        {
          env: {MFG_HOME: home},
        },
      )
      expectOneCleanError(create, 'create')
      expect(create.stderr).toMatch(/row 1.*100 levels/s)
      const update = await runCli(['demand', 'update', 'x', '--file', writeTemp('.json', deepRow(200_000))], {
        env: {MFG_HOME: home, MFG_BASE_URL: 'http://127.0.0.1:9', MFG_API_KEY: 'pk_business_x'},
      })
      expectOneCleanError(update, 'update')
      expect(update.stderr).toMatch(/100 levels/)
    } finally {
      rmSync(home, {recursive: true, force: true})
    }
  })
})

// ---------------------------------------------------------------- part files

const MESH_FILES = ['cube20.stl', 'example001.stl', 'logo.obj', 'logo-prusa.3mf', 'logo-openscad.3mf', 'edge-touch.stl']

const num = fc.oneof(
  fc.constantFrom('0', '1', '-1', '1e3', '1e309', '-0', 'NaN', 'inf', '0x10', '1.', '.5', '', '1,5', '١'),
  oddNumber.map(String),
)

const objText = fc
  .array(
    fc.oneof(
      fc.tuple(num, num, num).map(([x, y, z]) => `v ${x} ${y} ${z}`),
      fc
        .array(
          fc.oneof(
            fc.integer({min: -6, max: 8}).map(String),
            fc.constantFrom('1/2', '2//3', '-1/-1/-1', '/', 'x', '99999999999'),
          ),
          {
            maxLength: 5,
          },
        )
        .map((refs) => `f ${refs.join(' ')}`),
      fc.constantFrom(
        '# c',
        '',
        'o part',
        'g',
        'vn 0 0 1',
        'vt 0 0',
        'usemtl x',
        's off',
        '\tv 1 2 3',
        'fo 1 2 3',
        'v',
      ),
      fc.string({maxLength: 12}),
    ),
    {maxLength: 14},
  )
  .map((lines) => lines.join('\n'))

const asciiStlText = fc
  .array(
    fc.oneof(
      fc.constantFrom('solid a', 'endsolid a', 'facet normal 0 0 1', 'outer loop', 'endloop', 'endfacet', 'SOLID', ''),
      fc.tuple(num, num, num).map(([x, y, z]) => `vertex ${x} ${y} ${z}`),
      fc.string({maxLength: 10}),
    ),
    {maxLength: 20},
  )
  .map((lines) => lines.join('\n'))

const xmlAttr = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('x', 'y', 'z', 'v1', 'v2', 'v3', 'id', 'objectid', 'unit', 'transform', 'p:path', 'name'),
      fc.oneof(
        num,
        nastyString,
        fc.constantFrom(
          '&amp;',
          '&#x110000;',
          '&#0;',
          '&#xD800;',
          '&bogus;',
          '1 0 0 0 1 0 0 0 1 0 0 0',
          'inch',
          'parsec',
          '/3D/other.model',
        ),
      ),
    )
    .map(([k, v]) => `${k}="${v.replace(/"/g, '&quot;')}"`),
  fc.constantFrom('a', 'b=', "c='x'", 'd="unterminated', '=', '/'),
)
const xmlTag = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(
        'model',
        'resources',
        'object',
        'mesh',
        'vertices',
        'vertex',
        'triangles',
        'triangle',
        'components',
        'component',
        'build',
        'item',
        'p:x',
        '',
      ),
      fc.array(xmlAttr, {maxLength: 4}),
      fc.constantFrom('<', '</', '<'),
      fc.constantFrom('>', '/>', ''),
    )
    .map(([name, attrs, open, close]) =>
      open === '</' ? `</${name}>` : `<${name}${attrs.map((a) => ` ${a}`).join('')}${close}`,
    ),
  fc.constantFrom(
    '<!-- c -->',
    '<!--',
    '<?xml version="1.0"?>',
    '<?',
    '<![CDATA[x]]>',
    '<!DOCTYPE x>',
    'text',
    '&',
    '<',
  ),
)
const modelText = fc.oneof(
  fc.array(xmlTag, {maxLength: 30}).map((tags) => tags.join('\n')),
  fc
    .tuple(
      fc.array(fc.integer({min: 1, max: 4}), {minLength: 1, maxLength: 4}),
      fc.array(xmlTag, {maxLength: 5}),
      fc.nat(4),
    )
    .map(([ids, noise, at]) => {
      const resources = ids.map((id, i) =>
        i === 0
          ? boxObject(id, 10, 10, 10)
          : `<object id="${id}"><components><component objectid="${ids[i - 1]}"/></components></object>`,
      )
      const parts = [...resources, ...noise]
      parts.splice(at % (parts.length + 1), 0, ...noise.slice(0, 1))
      return modelXml(parts.join(''), ids.map((id) => `<item objectid="${id}"/>`).join(''))
    }),
)

const threeMf = fc
  .record({
    model: modelText,
    rels: fc.oneof(
      fc.constant(RELS),
      fc.constant(undefined),
      fc.constantFrom(
        '<Relationships/>',
        '<Relationship Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel" Target="/nope.model"/>',
        '<',
      ),
    ),
    name: fc.constantFrom('3D/3dmodel.model', '3d/3DMODEL.MODEL', 'other.model', '3D/x.txt', '/3D/3dmodel.model'),
    store: fc.boolean(),
    extra: fc.option(
      fc.tuple(fc.constantFrom('3D/other.model', '__proto__', 'constructor'), fc.string({maxLength: 20})),
    ),
  })
  .map(({model, rels, name, store, extra}) => {
    const files: Record<string, string> = {[name]: model}
    if (rels !== undefined) files['_rels/.rels'] = rels
    if (extra) Object.defineProperty(files, extra[0], {value: extra[1], enumerable: true})
    return makeZip(files, {store})
  })

/** A valid one-box 3MF package. */
const BOX_3MF = Buffer.from(
  makeZip({'_rels/.rels': RELS, '3D/3dmodel.model': modelXml(boxObject(1, 5, 5, 5), '<item objectid="1"/>')}),
)

/** Where each numeric field of a zip's records is: local headers, central records, end record. */
function zipFields(zip: Buffer): {at: number; size: 2 | 4}[] {
  const fields: {at: number; size: 2 | 4}[] = []
  const eocd = zip.length - 22
  for (const [o, size] of [
    [8, 2],
    [10, 2],
    [12, 4],
    [16, 4],
    [20, 2],
  ] as const)
    fields.push({at: eocd + o, size})
  let p = zip.readUInt32LE(eocd + 16)
  for (let i = 0; i < zip.readUInt16LE(eocd + 10); i++) {
    for (const [o, size] of [
      [10, 2],
      [16, 4],
      [20, 4],
      [24, 4],
      [28, 2],
      [30, 2],
      [32, 2],
      [42, 4],
    ] as const)
      fields.push({at: p + o, size})
    const local = zip.readUInt32LE(p + 42)
    for (const [o, size] of [
      [8, 2],
      [14, 4],
      [18, 4],
      [22, 4],
      [26, 2],
      [28, 2],
    ] as const)
      fields.push({at: local + o, size})
    p += 46 + zip.readUInt16LE(p + 28) + zip.readUInt16LE(p + 30) + zip.readUInt16LE(p + 32)
  }
  return fields
}

/** Adds an extra field (id, declared size, data) to central record `index` of a zip. */
function withCentralExtra(zip: Buffer, index: number, id: number, declared: number, data: Uint8Array): Buffer {
  const eocd = zip.length - 22
  let p = zip.readUInt32LE(eocd + 16)
  for (let i = 0; i < index % zip.readUInt16LE(eocd + 10); i++)
    p += 46 + zip.readUInt16LE(p + 28) + zip.readUInt16LE(p + 30) + zip.readUInt16LE(p + 32)
  const nameEnd = p + 46 + zip.readUInt16LE(p + 28)
  const extra = Buffer.alloc(4 + data.length)
  extra.writeUInt16LE(id, 0)
  extra.writeUInt16LE(declared, 2)
  extra.set(data, 4)
  const out = Buffer.concat([zip.subarray(0, nameEnd), extra, zip.subarray(nameEnd)])
  out.writeUInt16LE(zip.readUInt16LE(p + 30) + extra.length, p + 30)
  out.writeUInt32LE(zip.readUInt32LE(eocd + 12) + extra.length, out.length - 22 + 12)
  return out
}

const FIELD_VALUES = [0, 1, 2, 22, 46, 0xffff, 0xfffe, 0xffffffff, 0x7fffffff, BOX_3MF.length, BOX_3MF.length - 1]

/** A valid package with header fields set to boundary values, and maybe a (zip64) extra field. */
const zipStructure = fc
  .record({
    edits: fc.array(fc.tuple(fc.nat(), fc.oneof(fc.constantFrom(...FIELD_VALUES), fc.nat())), {
      minLength: 1,
      maxLength: 3,
    }),
    extra: fc.option(
      fc.record({
        index: fc.nat(),
        id: fc.oneof(fc.constant(1), fc.nat(0xffff)),
        declared: fc.oneof(fc.constantFrom(0, 8, 16, 24, 0xffff), fc.nat(0xffff)),
        data: fc.uint8Array({maxLength: 24}),
        saturate: fc.subarray([20, 24, 42]),
      }),
    ),
  })
  .map(({edits, extra}) => {
    let zip: Buffer = Buffer.from(BOX_3MF)
    if (extra) {
      zip = withCentralExtra(zip, extra.index, extra.id, extra.declared, extra.data)
      // Saturate 32-bit fields of the records so the zip64 values are read.
      let p = zip.readUInt32LE(zip.length - 22 + 16)
      for (let i = 0; i < 2; i++) {
        for (const o of extra.saturate) zip.writeUInt32LE(0xffffffff, p + o)
        p += 46 + zip.readUInt16LE(p + 28) + zip.readUInt16LE(p + 30) + zip.readUInt16LE(p + 32)
        if (p + 46 > zip.length - 22) break
      }
    }
    const fields = zipFields(Buffer.from(BOX_3MF))
    for (const [which, value] of edits) {
      const field = fields[which % fields.length]!
      if (field.at + field.size > zip.length) continue
      if (field.size === 2) zip.writeUInt16LE(value & 0xffff, field.at)
      else zip.writeUInt32LE(value >>> 0, field.at)
    }
    return new Uint8Array(zip)
  })

describe('part-file readers', () => {
  it('random bytes with any name: a mesh or a MeshError', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({maxLength: 300}),
          fc
            .tuple(
              fc.constantFrom('PK\u0003\u0004', 'PK\u0005\u0006', 'solid ', 'v ', 'f '),
              fc.uint8Array({maxLength: 200}),
            )
            .map(([head, tail]) => new Uint8Array(Buffer.concat([Buffer.from(head, 'latin1'), tail]))),
        ),
        fc.constantFrom(undefined, 'a.stl', 'a.obj', 'a.3mf', 'a.STL', 'a', 'a.txt'),
        async (bytes, name) => readsOrMeshError(bytes, name),
      ),
      {numRuns: 300},
    )
  })

  it.each(MESH_FILES)('%s cut, overwritten, spliced or extended: a mesh or a MeshError', async (file) => {
    const original = meshBytes(file)
    await fc.assert(
      fc.asyncProperty(damaged(original), async (bytes) => readsOrMeshError(bytes, file, true)),
      {numRuns: 25},
    )
  })

  it('binary STL with any triangle count in the header: a mesh or a MeshError', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat(6),
        fc.oneof(fc.nat(10), fc.constantFrom(0xffffffff, 0x7fffffff, 0x80000000, 2 ** 26)),
        fc.nat(60),
        fc.array(fc.constantFrom(Number.NaN, Infinity, -Infinity, 3.4e38, -0, 1e-45), {maxLength: 3}),
        async (n, claimed, pad, odd) => {
          const tris = Array.from({length: n}, (_, i) => [
            [i, 0, 0],
            [i + 1, 0, 0],
            [i, 1, odd[i % Math.max(1, odd.length)] ?? 0],
          ])
          const bytes = Buffer.concat([Buffer.from(binaryStl(tris)), Buffer.alloc(pad)])
          bytes.writeUInt32LE(claimed, 80)
          await readsOrMeshError(new Uint8Array(bytes), 'part.stl')
        },
      ),
      {numRuns: 150},
    )
  })

  it('generated OBJ text: a mesh or a MeshError', async () => {
    await fc.assert(
      fc.asyncProperty(objText, async (text) => readsOrMeshError(new Uint8Array(Buffer.from(text, 'latin1')), 'p.obj')),
      {numRuns: 300},
    )
  })

  it('generated ASCII STL text: a mesh or a MeshError', async () => {
    await fc.assert(
      fc.asyncProperty(asciiStlText, async (text) =>
        readsOrMeshError(new Uint8Array(Buffer.from(text, 'latin1')), 'p.stl'),
      ),
      {numRuns: 300},
    )
  })

  it('3MF zip records with boundary values in their fields and zip64 extras: a mesh or a MeshError', async () => {
    await fc.assert(
      fc.asyncProperty(zipStructure, async (zip) => readsOrMeshError(zip, 'p.3mf')),
      {numRuns: 300},
    )
  })

  it('generated 3MF packages (hostile XML, missing parts, odd names): a mesh or a MeshError', async () => {
    await fc.assert(
      fc.asyncProperty(
        threeMf,
        fc.option(
          damaged(
            makeZip({'_rels/.rels': RELS, '3D/3dmodel.model': modelXml(boxObject(1, 5, 5, 5), '<item objectid="1"/>')}),
          ),
        ),
        async (zip, broken) => {
          await readsOrMeshError(zip, 'p.3mf')
          if (broken) await readsOrMeshError(broken, 'p.3mf')
        },
      ),
      {numRuns: 300},
    )
  })
})

// ---------------------------------------------------------------- 3MF regressions

/** A 3MF package around one model document. */
const package3mf = (model: string, opts: {store?: boolean} = {}) =>
  makeZip({'_rels/.rels': RELS, '3D/3dmodel.model': model}, opts)

describe('3MF regressions', () => {
  it('an invalid character reference is not a crash', async () => {
    // Counterexample: name="&#x110000;" threw RangeError: Invalid code point (caught only by the safety net).
    const model = modelXml(
      boxObject(1, 10, 10, 10).replace('name="box1"', 'name="&#x110000;&#xD800;&#0;"'),
      '<item objectid="1"/>',
    )
    const mesh = readMesh(package3mf(model))
    expect(mesh.triangleCount).toBe(12)
    expect(() => readMesh(package3mf(model.replace('x="10"', 'x="&#x110000;"')))).toThrow(/bad coordinate/)
  })

  it('components that repeat an object exponentially are refused before the work, not expanded', () => {
    // Counterexample: 40 objects each holding the previous one twice: 2^40 triangles (hangs).
    let resources = boxObject(1, 1, 1, 1)
    for (let id = 2; id <= 40; id++) {
      resources += `<object id="${id}"><components><component objectid="${id - 1}"/><component objectid="${id - 1}" transform="1 0 0 0 1 0 0 0 1 2 0 0"/></components></object>`
    }
    const bytes = package3mf(modelXml(resources, '<item objectid="40"/>'))
    expect(() => readMesh(bytes)).toThrow(MeshError)
    expect(() => readMesh(bytes)).toThrow(/expands to more than 5000000 triangles.*--max-triangles/)
    // A few repetitions are fine.
    const small = package3mf(modelXml(resources.split('<object id="5"')[0]!, '<item objectid="4"/>'))
    expect(readMesh(small).triangleCount).toBe(12 * 8)
  })

  it('a zip entry that claims more than a string can hold is refused before inflating', () => {
    const buf = Buffer.from(package3mf(modelXml(boxObject(1, 1, 1, 1), '<item objectid="1"/>')))
    // The model's uncompressed size in the central directory (the second entry), rewritten to 3 GiB.
    const central = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]))
    buf.writeUInt32LE(3 * 1024 ** 3, central + 24)
    expect(() => readMesh(new Uint8Array(buf))).toThrow(/3221225472 bytes uncompressed.*at most/)
  })

  it('a zip bomb (16 MiB of zeros in a small entry) ends in a MeshError', () => {
    const zeros = new Uint8Array(16 * 1024 * 1024)
    const bytes = package3mf(Buffer.from(zeros).toString('latin1'))
    expect(bytes.length).toBeLessThan(256 * 1024)
    expect(() => readMesh(bytes)).toThrow(/no <model> element/)
  })

  it('a zip64 extra field is read only within the extra block', () => {
    // Its declared size (0xffff) reaches past the block; the 8 bytes after it belong to the next record.
    const zip = withCentralExtra(Buffer.from(BOX_3MF), 1, 1, 0xffff, new Uint8Array(0))
    const second =
      zip.readUInt32LE(zip.length - 22 + 16) + 46 + zip.readUInt16LE(zip.readUInt32LE(zip.length - 22 + 16) + 28)
    zip.writeUInt32LE(0xffffffff, second + 24)
    expect(() => readMesh(new Uint8Array(zip))).toThrow(/4294967295 bytes uncompressed/)
  })

  it('XML nested a million levels deep ends in a MeshError', () => {
    const deep = `<model>${'<a>'.repeat(1_000_000)}</model>`
    expect(() => readMesh(package3mf(deep))).toThrow(/does not close|truncated|no <model>|items/)
  })
})

// ---------------------------------------------------------------- end to end

function expectOneCleanError(result: {stdout: string; stderr: string; exitCode: number}, what: string): void {
  expect(result.exitCode, `${what}\n${result.stderr}`).toBe(2)
  const errorLines = result.stderr.split('\n').filter((l) => /^Error:/.test(l))
  expect(errorLines.length, `${what}: ${result.stderr.slice(0, 500)}`).toBe(1)
  expect(result.stderr, what).not.toMatch(/^\s+at /m)
  expect(result.stderr, what).not.toMatch(/\[runCli\] uncaught/)
}

describe('commands on fuzzed files', () => {
  let home: string
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'mfg-fuzz-home-'))
  })
  afterAll(() => rmSync(home, {recursive: true, force: true}))

  it('demand create --file X --dry-run: exit 0, or exit 2 with one Error: line and no stack trace', async () => {
    await fc.assert(
      fc.asyncProperty(rowsText, fc.constantFrom('.json', '.ndjson', '.csv', '.txt'), async (text, ext) => {
        const file = writeTemp(ext, text)
        const result = await runCli(['demand', 'create', '--file', file, '--dry-run'], {env: {MFG_HOME: home}})
        if (result.exitCode === 0) return
        expectOneCleanError(result, `${file}: ${JSON.stringify(text.slice(0, 200))}`)
      }),
      {numRuns: 25},
    )
  })

  it('price measure X: exit 0, or exit 2 with one Error: line and no stack trace', async () => {
    const originals = MESH_FILES.map((f) => ({name: f, bytes: meshBytes(f)}))
    await fc.assert(
      fc.asyncProperty(
        fc
          .constantFrom(...originals)
          .chain(({name, bytes}) =>
            fc.tuple(
              fc.constant(name.slice(name.lastIndexOf('.'))),
              fc.oneof(damaged(bytes), fc.uint8Array({maxLength: 200})),
            ),
          ),
        async ([ext, bytes]) => {
          const file = writeTemp(ext, bytes)
          const result = await runCli(['price', 'measure', file], {env: {MFG_HOME: home}})
          if (result.exitCode === 0) return
          expectOneCleanError(result, `${file} (${bytes.length} bytes)`)
        },
      ),
      {numRuns: 25},
    )
  })

  it('a deeply nested --file and a 3MF bomb exit 2 cleanly', async () => {
    const deep = await runCli(['demand', 'create', '--file', writeTemp('.json', '['.repeat(100_000)), '--dry-run'], {
      env: {MFG_HOME: home},
    })
    expectOneCleanError(deep, 'deep JSON')
    let resources = boxObject(1, 1, 1, 1)
    for (let id = 2; id <= 40; id++)
      resources += `<object id="${id}"><components><component objectid="${id - 1}"/><component objectid="${id - 1}"/></components></object>`
    const bomb = await runCli(
      ['price', 'measure', writeTemp('.3mf', package3mf(modelXml(resources, '<item objectid="40"/>')))],
      {
        env: {MFG_HOME: home},
      },
    )
    expectOneCleanError(bomb, '3MF bomb')
    expect(bomb.stderr).toMatch(/triangles/)
  })
})
