// The quick check must never vouch for a value zod refuses: where it says true,
// zod accepts. On the rows our schemas describe it must also vouch wherever zod
// accepts, or the batch loses its speed. Rows it does not vouch for go to zod,
// whose issues make the messages.
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {z} from 'zod'

import {csvRows} from '../../src/cli/rows.js'
import {CreateDemandItem} from '../../src/schemas/demand.js'
import {CreateLegacyDemandItem} from '../../src/schemas/legacy-demand.js'
import {checkRow} from '../../src/services/demands/batch-validate.js'
import {droppedFields, fieldTree, unknownFields, withoutFields} from '../../src/schemas/unknown-fields.js'
import {issueProblems} from '../../src/schemas/issue-reason.js'
import {quickCheck} from '../../src/services/validate.js'

/** The public parts of a zod schema the generator reads. */
interface Node {
  def: {
    type: string
    innerType?: Node
    element?: Node
    options?: Node[]
    shape?: Record<string, Node>
    valueType?: Node
    entries?: Record<string, unknown>
    values?: unknown[]
  }
  minLength?: number | null
  maxLength?: number | null
}

const ASTRAL = '😀'
/** Values that are wrong almost anywhere, or right in surprising places. */
const odd = fc.constantFrom<unknown>(
  null,
  undefined,
  0,
  -0,
  -1,
  1,
  1.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  2 ** 53,
  '',
  ' ',
  'x',
  '1',
  true,
  false,
  [],
  {},
  [{}],
  ASTRAL.repeat(101),
)

function stringArb(node: Node): fc.Arbitrary<string> {
  const min = node.minLength ?? undefined
  const max = node.maxLength ?? undefined
  const plain = fc.string({maxLength: 12})
  if (min === undefined && max === undefined) {
    return fc.oneof(plain, fc.constantFrom('PLA', '3D_PRINTING', 'QUOTE', ' 7 ', '12', '-3.5', ASTRAL))
  }
  // Around the bounds, in UTF-16 units and in code points (zod counts code points).
  const lengths = [min ?? 0, max ?? 0].flatMap((n) => [n - 1, n, n + 1]).filter((n) => n >= 0)
  return fc.oneof(
    plain,
    fc.constantFrom(...lengths).map((n) => 'a'.repeat(n)),
    fc.constantFrom(...lengths).map((n) => ASTRAL.repeat(n)),
    fc.constantFrom(...lengths).map((n) => `${ASTRAL.repeat(Math.floor(n / 2))}${'b'.repeat(Math.ceil(n / 2))}`),
  )
}

const numberArb = fc.oneof(
  {weight: 8, arbitrary: fc.integer({min: 0, max: 12})},
  {weight: 1, arbitrary: fc.double({noNaN: false})},
  {
    weight: 1,
    arbitrary: fc.constantFrom(-1, 0, -0, 1, 1.5, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, -(2 ** 60)),
  },
)

const EXTRA_KEYS = ['foo', 'Email', 'quote_model', 'x.y', '0', '12']

/**
 * Rows shaped by the schema itself: mostly valid values, a few odd ones, some
 * unknown keys, keys in any order. `depth` keeps nested objects small.
 */
function arb(node: Node, depth = 0): fc.Arbitrary<unknown> {
  const valid = validArb(node, depth)
  return fc.oneof({weight: 40, arbitrary: valid}, {weight: 1, arbitrary: odd})
}

function validArb(node: Node, depth: number): fc.Arbitrary<unknown> {
  const def = node.def
  switch (def.type) {
    case 'string':
      return stringArb(node)
    case 'number':
      return numberArb
    case 'boolean':
      return fc.boolean()
    case 'enum':
    case 'literal': {
      const values = def.type === 'enum' ? Object.values(def.entries ?? {}) : (def.values ?? [])
      const near = values.filter((v): v is string => typeof v === 'string').map((v) => v.toLowerCase())
      return fc.oneof(
        {weight: 20, arbitrary: fc.constantFrom(...values)},
        {weight: 1, arbitrary: fc.constantFrom(...near)},
      )
    }
    case 'unknown':
    case 'any':
      return fc.jsonValue({maxDepth: 1})
    case 'optional':
      return fc.oneof(
        {weight: 20, arbitrary: arb(def.innerType!, depth)},
        {weight: 1, arbitrary: fc.constant(undefined)},
      )
    case 'nullable':
      return fc.oneof(arb(def.innerType!, depth), fc.constant(null))
    case 'array':
      return fc.array(arb(def.element!, depth + 1), {maxLength: depth > 1 ? 1 : 3})
    case 'record':
      return fc.dictionary(fc.constantFrom('a', 'b', 'size', '1', ''), arb(def.valueType!, depth + 1), {maxKeys: 3})
    case 'union':
      return fc.oneof(...def.options!.map((o) => arb(o, depth)))
    case 'object': {
      const shape = def.shape!
      const keys = Object.keys(shape)
      // The refinement's fields are drawn more often than the others, so both of its branches come up.
      const favoured = keys.filter((k) => ['technique', 'material', 'quoteModel'].includes(k))
      const chosen = fc
        .tuple(
          fc.shuffledSubarray(favoured),
          fc.shuffledSubarray(keys, {maxLength: Math.min(keys.length, depth === 0 ? 8 : 3)}),
        )
        .map(([a, b]) => [...new Set([...b, ...a])])
      const extra = fc.dictionary(fc.constantFrom(...EXTRA_KEYS), fc.jsonValue({maxDepth: 1}), {maxKeys: 2})
      return fc
        .tuple(
          chosen.chain((ks) =>
            ks.length === 0
              ? fc.constant([] as [string, unknown][])
              : fc.tuple(...ks.map((k) => arb(shape[k]!, depth + 1).map((v) => [k, v] as [string, unknown]))),
          ),
          fc.option(extra, {freq: 4}),
          fc.boolean(),
        )
        .map(([entries, more, extraFirst]) => {
          const known = Object.fromEntries(entries)
          return more && extraFirst ? {...more, ...known} : {...known, ...more}
        })
    }
    default:
      throw new Error(`the test generator has no case for ${def.type}`)
  }
}

/** The quick check never vouches where zod refuses; with `complete`, it vouches wherever zod accepts. */
function agrees(schema: z.ZodType, value: unknown, complete = true): void {
  const quick = quickCheck(schema)(value)
  const zod = schema.safeParse(value).success
  if (quick) expect(zod, 'vouched for a value zod refuses').toBe(true)
  else if (complete) expect(zod, 'left to zod a value it accepts').toBe(false)
}

const schemas = [
  ['create-quotes item', CreateDemandItem],
  ['legacy create-demands item', CreateLegacyDemandItem],
] as const

describe.each(schemas)('quick check of the %s', (_name, schema) => {
  it('agrees with zod on generated rows', () => {
    fc.assert(
      fc.property(arb(schema as unknown as Node), (row) => agrees(schema, row)),
      {numRuns: 3000},
    )
  })

  it('reports, through checkRow, what zod reports: verdict and problems', () => {
    // Rows that are objects: checkRow answers the others itself, before any schema.
    fc.assert(
      fc.property(validArb(schema as unknown as Node, 0), (value) => {
        const checked = checkRow({row: 1, value}, schema)
        const zod = schema.safeParse(value, {reportInput: true})
        expect(checked.ok).toBe(zod.success)
        expect(checked.problems).toStrictEqual(zod.success ? [] : issueProblems(zod.error))
      }),
      {numRuns: 500},
    )
  })

  it('leaves out of a valid row exactly the fields zod drops, at any depth', () => {
    const tree = fieldTree(schema)
    let dropped = 0
    let kept = 0
    fc.assert(
      fc.property(validArb(schema as unknown as Node, 0), fc.boolean(), (value, nested) => {
        const row = withUnknownFields(value, nested)
        const zod = schema.safeParse(row)
        // A strict object refuses what it does not name: zod's issue, not a field left out.
        fc.pre(zod.success)
        const paths = droppedFields(row, tree)
        dropped += paths.length
        // checkRow finds the same, and what loose objects keep, walking again only a row where its quick check met one.
        const found = unknownFields(row, tree)
        kept += found.kept.length
        const checked = checkRow({row: 1, value: row}, schema)
        expect(checked.unknownFields).toStrictEqual(paths)
        expect(checked.keptFields).toStrictEqual(found.kept)
        const plain = checkRow({row: 1, value}, schema)
        expect([plain.unknownFields, plain.keptFields]).toStrictEqual([
          droppedFields(value, tree),
          unknownFields(value, tree).kept,
        ])
        // Compared as sent, as JSON: zod rebuilds records on plain objects.
        const sent = (v: unknown): unknown => JSON.parse(JSON.stringify(v))
        expect(sent(withoutFields(row as Record<string, unknown>, paths))).toStrictEqual(sent(zod.data))
        // The row as read is left as it was.
        expect(row).toStrictEqual(withUnknownFields(value, nested))
      }),
      {numRuns: 300},
    )
    expect(dropped).toBeGreaterThan(300)
    expect(kept).toBeGreaterThan(0)
  })
})

/** A copy of `value` with a field no schema names in each object (only the top one unless `nested`). */
function withUnknownFields(value: unknown, nested: boolean, depth = 0): unknown {
  if (Array.isArray(value)) return value.map((v) => withUnknownFields(v, nested, depth + 1))
  if (typeof value !== 'object' || value === null) return value
  if (depth > 0 && !nested) return value
  const out: Record<string, unknown> = {zzUnknown: depth}
  for (const [k, v] of Object.entries(value)) out[k] = withUnknownFields(v, nested, depth + 1)
  return out
}

describe('quick check on rows converted from CSV', () => {
  const PATHS = [
    'technique',
    'material',
    'quantity',
    'email',
    'draftId',
    'client',
    'isCompany',
    'maxEstimatedPrice',
    'dateAccepted',
    'remark',
    'quoteFileModel',
    'shippingAddress.city',
    'shippingAddress.zip',
    'jobDetails.takenAs',
    'jobDetails.allowedNetworks',
    'quoteModel.0.fileName',
    'quoteModel.0.quantity',
    'quoteModel.0.service',
    'quoteModel.0.priceMachine',
    'quoteModel.0.modelSizes.width',
    'quoteModel.1.fileName',
    'quoteModel.1.material',
    'unknownColumn',
  ]
  const CELLS = [
    '',
    '1',
    '0',
    '-2',
    '1.5',
    ' 7 ',
    '2e3',
    'yes',
    'no',
    'true',
    'PLA',
    'pla',
    '3D_PRINTING',
    'PCB',
    'QUOTE',
    'order',
    '{"a":1}',
    '[1,"x"]',
    '[',
    'null',
    'x,y',
    'say "hi"',
    ASTRAL,
    'd'.repeat(201),
  ]
  const quote = (cell: string) => (/[",\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell)
  const table = fc.shuffledSubarray(PATHS, {minLength: 1}).chain((header) =>
    fc.tuple(
      fc.constant(header),
      fc.array(fc.array(fc.constantFrom(...CELLS), {minLength: header.length, maxLength: header.length}), {
        minLength: 1,
        maxLength: 8,
      }),
    ),
  )

  it.each(schemas)('agrees with zod on every converted %s', async (_name, schema) => {
    await fc.assert(
      fc.asyncProperty(table, async ([header, rows]) => {
        const text = [header, ...rows].map((r) => r.map(quote).join(',')).join('\n')
        async function* one(): AsyncGenerator<string> {
          yield text
        }
        for await (const input of csvRows(one(), 'test.csv', schema)) {
          if (input.problems) continue
          agrees(schema, input.value)
        }
      }),
      {numRuns: 400},
    )
  })
})

describe('quick check on unusual values', () => {
  const quick = quickCheck(CreateDemandItem)
  const base = {technique: '3D_PRINTING', material: 'PLA'}

  it('leaves to zod what it cannot vouch for, and never disagrees', () => {
    class Row {
      technique = '3D_PRINTING'
      material = 'PLA'
    }
    const nullProto = Object.assign(Object.create(null) as object, base)
    // A hole where the first part should be.
    const holed: unknown[] = []
    holed[1] = {fileName: 'a'}
    const cases: unknown[] = [
      JSON.parse('{"technique":"PCB","material":"x","__proto__":{"quantity":0}}'),
      {...base, quoteFileModel: JSON.parse('{"constructor":1}')},
      {...base, quoteFileModel: JSON.parse('{"__proto__":1}')},
      {...base, shippingAddress: new Date(0)},
      {...base, quoteModel: holed},
      {...base, [Symbol('s')]: 1},
      new Row(),
      nullProto,
      {...base, draftId: ASTRAL.repeat(200)},
      {...base, draftId: ASTRAL.repeat(201)},
      {...base, quantity: 2 ** 53},
      {...base, quantity: undefined},
      {...base, client: null},
      {...base, packingSlipData: undefined},
      {quoteModel: []},
      {quoteModel: [{}]},
      {technique: '', material: 'PLA'},
    ]
    for (const value of cases) agrees(CreateDemandItem, value, false)
    expect(quick(nullProto)).toBe(true)
    expect(quick({...base, draftId: ASTRAL.repeat(200)})).toBe(true)
    expect(quick({...base, draftId: ASTRAL.repeat(201)})).toBe(false)
    expect(quick({quoteModel: [{}]})).toBe(true)
    expect(quick({quoteModel: []})).toBe(false)
  })

  it('lets unknown keys through where zod strips or keeps them', () => {
    expect(
      quick({...base, foo: 1, shippingAddress: {city: 'Lyon', zz: 2}, quoteModel: [{fileName: 'a', kept: 3}]}),
    ).toBe(true)
  })
})

describe('quick check compiler', () => {
  it('never vouches for a value a rewriting schema would change, and agrees on the rest', () => {
    const cases: [z.ZodType, unknown[]][] = [
      [z.object({a: z.string().trim()}), [{a: 'x'}, {a: ' x '}, {a: 1}]],
      [z.object({a: z.string().default('x')}), [{}, {a: 'y'}, {a: 2}]],
      [z.object({a: z.string().transform((s) => s.length)}), [{a: 'xy'}, {a: 1}]],
      [z.object({a: z.coerce.number()}), [{a: '1'}, {a: 1}, {a: 'x'}]],
      [z.union([z.object({a: z.string()}), z.string()]), [{a: 'x'}, 'x', 1]],
      [z.object({a: z.date()}), [{a: new Date(0)}, {a: 'x'}]],
    ]
    for (const [schema, values] of cases) {
      for (const value of values) {
        agrees(schema, value, false)
        const r = schema.safeParse(value)
        // A vouched value goes out as it was read: zod's output must be the same.
        if (quickCheck(schema)(value)) expect(r.data).toStrictEqual(value)
      }
    }
    expect(quickCheck(z.object({a: z.string().trim()}))({a: 'x'})).toBe(true)
    expect(quickCheck(z.object({a: z.string().trim()}))({a: ' x '})).toBe(false)
  })

  it('runs refinements and format checks through zod', () => {
    const refined = quickCheck(z.object({a: z.string()}).refine((v) => v.a !== 'no'))
    expect(refined({a: 'yes'})).toBe(true)
    expect(refined({a: 'no'})).toBe(false)
    const email = quickCheck(z.object({e: z.email()}))
    expect(email({e: 'a@example.com'})).toBe(true)
    expect(email({e: 'not an address'})).toBe(false)
  })

  it('refuses unknown keys of a strict object and requires its required keys', () => {
    const strict = quickCheck(z.strictObject({a: z.string(), b: z.number().optional()}))
    expect(strict({a: 'x'})).toBe(true)
    expect(strict({a: 'x', c: 1})).toBe(false)
    expect(strict({b: 1})).toBe(false)
    expect(strict({b: 1, a: 'x'})).toBe(true)
  })

  it('checks arrays, records, nested objects and their own checks as zod does', () => {
    const schema = z
      .object({
        a: z.string(),
        inner: z.strictObject({n: z.number().min(1)}).optional(),
        list: z
          .array(z.object({id: z.string()}))
          .min(1)
          .optional(),
        tags: z.record(z.string(), z.boolean()).optional(),
      })
      .refine((v) => v.a !== 'no')
    const values: unknown[] = [
      {a: 'x'},
      {a: 'x', extra: 1},
      {},
      {a: 'no'},
      {a: 'x', inner: {n: 1}},
      {a: 'x', inner: {n: 0}},
      {a: 'x', inner: {n: 1, m: 2}},
      {a: 'x', list: [{id: 'p'}, {id: 'q', more: true}]},
      {a: 'x', list: []},
      {a: 'x', list: [{}]},
      {a: 'x', tags: {hot: true}},
      {a: 'x', tags: {hot: 'yes'}},
    ]
    for (const value of values) agrees(schema, value)
  })
})
