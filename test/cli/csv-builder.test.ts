// CsvRowBuilder turns a header of field paths and a record's cells into one object
// typed for the create schema. Every case writes its expected value out in full;
// key order is compared too (it is the order of the JSON that is sent).
import {describe, expect, it} from 'vitest'

import {CsvRowBuilder, FaultyRow} from '../../src/cli/csv.js'
import {MAX_JSON_DEPTH} from '../../src/cli/json-locate.js'
import type {FieldProblem} from '../../src/services/demands/batch-validate.js'
import {CreateDemandItem} from '../../src/schemas/demand.js'
import {CreateLegacyDemandItem} from '../../src/schemas/legacy-demand.js'

interface Case {
  name: string
  header: string[]
  cells: string[]
  value: Record<string, unknown>
  problems?: FieldProblem[]
}

const BENCH_HEADER = [
  'technique',
  'material',
  'quantity',
  'email',
  'firstName',
  'lastName',
  'shippingAddress.city',
  'shippingAddress.country',
  'jobDetails.takenAs',
  'quoteModel.0.fileName',
  'quoteModel.0.service',
  'quoteModel.0.quantity',
]

const cases: Case[] = [
  {
    name: 'the benchmark row: nested objects and one array element, numbers converted',
    header: BENCH_HEADER,
    cells: ['3D_PRINTING', 'PLA', '3', 'b@example.com', 'Ada', 'Client 7', 'Lyon', 'FR', 'QUOTE', 'p.stl', 'CNC', '2'],
    value: {
      technique: '3D_PRINTING',
      material: 'PLA',
      quantity: 3,
      email: 'b@example.com',
      firstName: 'Ada',
      lastName: 'Client 7',
      shippingAddress: {city: 'Lyon', country: 'FR'},
      jobDetails: {takenAs: 'QUOTE'},
      quoteModel: [{fileName: 'p.stl', service: 'CNC', quantity: 2}],
    },
  },
  {
    name: 'empty cells are left out, also inside nested paths',
    header: BENCH_HEADER,
    cells: ['', 'PLA', '', '', '', '', '', 'FR', '', '', '', ''],
    value: {material: 'PLA', shippingAddress: {country: 'FR'}},
  },
  {
    name: 'a later element without the earlier one closes the hole',
    header: ['quoteModel.1.fileName'],
    cells: ['b.stl'],
    value: {quoteModel: [{fileName: 'b.stl'}]},
  },
  {
    name: 'an empty earlier element leaves no hole',
    header: ['quoteModel.0.fileName', 'quoteModel.1.fileName', 'quoteModel.2.fileName'],
    cells: ['', 'b.stl', 'c.stl'],
    value: {quoteModel: [{fileName: 'b.stl'}, {fileName: 'c.stl'}]},
  },
  {
    name: 'elements written out of order keep their index order',
    header: ['quoteModel.2.fileName', 'quoteModel.0.fileName'],
    cells: ['c.stl', 'a.stl'],
    value: {quoteModel: [{fileName: 'a.stl'}, {fileName: 'c.stl'}]},
  },
  {
    name: 'a hole inside an array inside an array',
    header: ['meta.0.1', 'meta.1.0'],
    cells: ['x', 'y'],
    value: {meta: [['x'], ['y']]},
  },
  {
    name: 'arrays made at their first element, at every level, grow as later cells fill them',
    header: ['grid.0.0', 'grid.0.1', 'grid.1.0', 'tags.0', 'tags.1', 'grid.0.2'],
    cells: ['a', 'b', 'c', 'x', 'y', 'd'],
    value: {grid: [['a', 'b', 'd'], ['c']], tags: ['x', 'y']},
  },
  {
    name: 'an index with leading zeros is the same element',
    header: ['quoteModel.0.fileName', 'quoteModel.00.service', 'quoteModel.03.scale'],
    cells: ['a.stl', 'CNC', '1.5'],
    value: {quoteModel: [{fileName: 'a.stl', service: 'CNC'}, {scale: 1.5}]},
  },
  {
    name: 'a path into an array given as JSON appends to it',
    header: ['quoteModel', 'quoteModel.1.fileName', 'quoteModel.0.scale'],
    cells: ['[{"fileName":"a.stl"}]', 'b.stl', '2'],
    value: {quoteModel: [{fileName: 'a.stl', scale: 2}, {fileName: 'b.stl'}]},
  },
  {
    name: 'a path past the end of an array given as JSON closes the hole',
    header: ['quoteModel', 'quoteModel.3.fileName'],
    cells: ['[]', 'z.stl'],
    value: {quoteModel: [{fileName: 'z.stl'}]},
  },
  {
    name: 'a key that is no index into an array given as JSON is dropped',
    header: ['quoteModel', 'quoteModel.x'],
    cells: ['[{"fileName":"a.stl"}]', 'lost'],
    value: {quoteModel: [{fileName: 'a.stl'}]},
  },
  {
    name: 'a whole JSON cell after a path replaces what the path made',
    header: ['quoteModel.0.fileName', 'quoteModel'],
    cells: ['a.stl', '[{"fileName":"j.stl"}]'],
    value: {quoteModel: [{fileName: 'j.stl'}]},
  },
  {
    name: 'a JSON object cell is kept as parsed, arrays inside it too',
    header: ['shippingAddress', 'remark'],
    cells: [' {"city": "Lyon", "lines": [1, [2, 3]]} ', '["x", {"y": null}]'],
    value: {shippingAddress: {city: 'Lyon', lines: [1, [2, 3]]}, remark: ['x', {y: null}]},
  },
  {
    name: 'text in a JSON column that does not start like JSON stays text, spaces and all',
    header: ['remark'],
    cells: [' plain '],
    value: {remark: ' plain '},
  },
  {
    name: 'string cells keep their spaces; number and boolean cells are trimmed',
    header: ['firstName', 'quantity', 'priceTotal', 'isCompany'],
    cells: [' Ada ', ' 3 ', ' -1.5e2 ', ' Yes '],
    value: {firstName: ' Ada ', quantity: 3, priceTotal: -150, isCompany: true},
  },
  {
    name: 'every spelling of a boolean',
    header: ['isCompany', 'quoteModel.0.isSupported', 'quoteModel.1.isSupported', 'quoteModel.2.machineCanPrint'],
    cells: ['n', 'Y', '0', 'FALSE'],
    value: {isCompany: false, quoteModel: [{isSupported: true}, {isSupported: false}, {machineCanPrint: false}]},
  },
  {
    name: 'a field the schema does not know stays a string, nested or not',
    header: ['colour', 'extra.weight', 'extra.tags.0'],
    cells: ['12', '3.5', 'true'],
    value: {colour: '12', extra: {weight: '3.5', tags: ['true']}},
  },
  {
    name: 'a name of an Object.prototype member is an ordinary key',
    header: ['toString.x', 'valueOf'],
    cells: ['v', 'w'],
    value: {toString: {x: 'v'}, valueOf: 'w'},
  },
  {
    name: 'cells that do not read as their type stay text; only bad JSON cells are problems, named by path',
    header: ['quantity', 'priceTotal', 'isCompany', 'quoteModel.0.quantity', 'remark', 'shippingAddress', 'lastName'],
    cells: ['2.5', 'x', 'maybe', 'NaN', '{', `[${'0,'.repeat(30)}0`, 'Lovelace'],
    value: {quantity: 2.5, priceTotal: 'x', isCompany: 'maybe', quoteModel: [{quantity: 'NaN'}], lastName: 'Lovelace'},
    problems: [
      {path: 'remark', reason: 'expected JSON, got "{"'},
      {path: 'shippingAddress', reason: `expected JSON, got "[${'0,'.repeat(19)}0…"`},
    ],
  },
  {
    name: 'numbers that are not finite, and a blank number, stay text',
    header: ['priceTotal', 'quantity', 'quoteModel.0.scale'],
    cells: ['Infinity', ' ', '1e999'],
    value: {priceTotal: 'Infinity', quantity: ' ', quoteModel: [{scale: '1e999'}]},
  },
  {
    name: 'JSON nested too deeply',
    header: ['remark'],
    cells: [`${'['.repeat(MAX_JSON_DEPTH + 2)}${']'.repeat(MAX_JSON_DEPTH + 2)}`],
    value: {},
    problems: [{path: 'remark', reason: `expected JSON nested at most ${MAX_JSON_DEPTH} levels deep`}],
  },
  {
    name: 'fewer cells than the header: a problem for the row, the cells there converted',
    header: ['technique', 'material', 'quantity'],
    cells: ['CNC'],
    value: {technique: 'CNC'},
    problems: [{path: '', reason: 'has 1 cells; the header has 3'}],
  },
  {
    name: 'more cells than the header: a problem for the row, the extra cells ignored',
    header: ['technique', 'quantity'],
    cells: ['CNC', 'x', 'extra'],
    value: {technique: 'CNC', quantity: 'x'},
    problems: [{path: '', reason: 'has 3 cells; the header has 2'}],
  },
  {
    name: 'a header path is trimmed',
    header: [' quantity ', ' shippingAddress.city'],
    cells: ['q', 'Lyon'],
    value: {quantity: 'q', shippingAddress: {city: 'Lyon'}},
  },
]

/** A built row as its object and its problems (none for a row without a FaultyRow). */
function parts(built: Record<string, unknown> | FaultyRow): {value: Record<string, unknown>; problems: FieldProblem[]} {
  return built instanceof FaultyRow ? {value: built.value, problems: built.problems} : {value: built, problems: []}
}

describe('CsvRowBuilder', () => {
  it.each(cases)('$name', ({header, cells, value, problems}) => {
    const built = parts(new CsvRowBuilder(header, CreateDemandItem).build(cells))
    expect(built.value).toStrictEqual(value)
    // The same keys in the same order, at every level.
    expect(JSON.stringify(built.value)).toBe(JSON.stringify(value))
    expect(built.problems).toStrictEqual(problems ?? [])
  })

  it('converts for the legacy schema as well (its integer and number fields)', () => {
    const built = new CsvRowBuilder(['quantity', 'quoteModel.0.fileName', 'quoteModel.0.scale'], CreateLegacyDemandItem)
    // A good row is its object itself, no wrapper.
    expect(built.build(['4', 'a.stl', '0.5'])).toStrictEqual({
      quantity: 4,
      quoteModel: [{fileName: 'a.stl', scale: 0.5}],
    })
    expect(built.build(['4.5', '', ''])).toStrictEqual({quantity: 4.5})
  })

  it('gives every row objects of its own (rows built one after another share nothing)', () => {
    const builder = new CsvRowBuilder(BENCH_HEADER, CreateDemandItem)
    const cells = ['3D_PRINTING', 'PLA', '1', 'e@x.io', 'A', 'B', 'Lyon', 'FR', 'QUOTE', 'a.stl', 'CNC', '1']
    const first = parts(builder.build(cells)).value
    const second = parts(builder.build([...cells.slice(0, 9), 'b.stl', 'CNC', '2'])).value
    expect(first.quoteModel).toStrictEqual([{fileName: 'a.stl', service: 'CNC', quantity: 1}])
    expect(second.quoteModel).toStrictEqual([{fileName: 'b.stl', service: 'CNC', quantity: 2}])
    expect(first.shippingAddress).not.toBe(second.shippingAddress)
    // Plain objects, as JSON.parse makes them: the quick check and zod take nothing else for an object.
    expect(Object.getPrototypeOf(first)).toBe(Object.prototype)
    expect(Object.getPrototypeOf(first.shippingAddress)).toBe(Object.prototype)
    expect(first.constructor).toBe(Object)
  })

  it.each([
    [['technique', ' '], 'column 2 of the header is empty; every column needs a field path'],
    [['quantity', ' quantity'], 'the header names "quantity" twice'],
    [['quoteModel..fileName'], `the header's field path "quoteModel..fileName" is not valid`],
    [['__proto__.x'], `the header's field path "__proto__.x" is not valid`],
    [['quoteModel.0.constructor'], `the header's field path "quoteModel.0.constructor" is not valid`],
    [['a.prototype'], `the header's field path "a.prototype" is not valid`],
  ])('refuses the header %j', (header, message) => {
    expect(() => new CsvRowBuilder(header, CreateDemandItem)).toThrow(new Error(message))
  })
})
