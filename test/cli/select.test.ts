// --json FIELDS taken from the arguments, and paths checked against a read schema.
import * as z from 'zod'
import {describe, expect, it} from 'vitest'

import {checkPaths, fieldPaths, pathProblem} from '../../src/cli/field-paths.js'
import {select, takeJsonFields} from '../../src/cli/select.js'
import {DemandRecordRead} from '../../src/schemas/read/demand.js'

describe('takeJsonFields', () => {
  const names = ['orderNumber', 'status', 'shippingAddress']

  it('takes --json a,b and --json=a,b, leaving a bare --json', () => {
    expect(takeJsonFields(['--json', 'orderNumber,status', '--all'], names, false)).toEqual({
      argv: ['--json', '--all'],
      fields: ['orderNumber', 'status'],
    })
    expect(takeJsonFields(['--all', '--json=shippingAddress.city'], names, false)).toEqual({
      argv: ['--all', '--json'],
      fields: ['shippingAddress.city'],
    })
  })

  it('leaves a bare --json and what follows it alone when that is a flag', () => {
    expect(takeJsonFields(['--json', '--all'], names, false)).toEqual({argv: ['--json', '--all']})
  })

  it('with arguments, takes the word only when it names known fields (demand get --json ID)', () => {
    expect(takeJsonFields(['--json', 'a65f0000'], names, true)).toEqual({argv: ['--json', 'a65f0000']})
    expect(takeJsonFields(['--json', 'status', 'a65f0000'], names, true)).toEqual({
      argv: ['--json', 'a65f0000'],
      fields: ['status'],
    })
    // Without arguments any field list is taken, so that an unknown name is reported rather than ignored.
    expect(takeJsonFields(['--json', 'bogus'], names, false).fields).toEqual(['bogus'])
  })

  it('leaves everything after -- alone', () => {
    expect(takeJsonFields(['--', '--json', 'status'], names, false)).toEqual({argv: ['--', '--json', 'status']})
  })
})

describe('paths against a read schema', () => {
  it('knows nested fields and list items by index', () => {
    expect(pathProblem(DemandRecordRead, 'shippingAddress.city')).toBeUndefined()
    expect(pathProblem(DemandRecordRead, 'quoteModel.0.fileName')).toBeUndefined()
    expect(pathProblem(DemandRecordRead, 'quoteModel.fileName')).toMatch(/is a list/)
    expect(pathProblem(DemandRecordRead, 'orderNumber.x')).toMatch(/single value/)
    expect(pathProblem(DemandRecordRead, 'nope')).toMatch(/not a field/)
    expect(fieldPaths(DemandRecordRead)).toContain('quoteModel.N.fileName')
  })

  it('reads through unions, and names the sub-fields when a path went wrong below a known field', () => {
    const u = z.union([z.looseObject({a: z.object({b: z.number()})}), z.looseObject({c: z.string()})])
    expect(pathProblem(u, 'a.b')).toBeUndefined()
    expect(pathProblem(u, 'c')).toBeUndefined()
    expect(() => checkPaths(u, ['a.x'], '--columns')).toThrow(/--columns: unknown field "a.x".*Valid fields: a\.b\./)
  })

  it('cuts records down to the fields, keyed by path, missing ones null', () => {
    expect(select([{a: {b: 1}, c: 2}], ['a.b', 'd'])).toEqual([{'a.b': 1, d: null}])
    expect(select({a: {b: 1}}, ['a.b'])).toEqual({'a.b': 1})
  })
})
