import {describe, expect, it} from 'vitest'

import {csvField, getPath, parseColumns, project, sortRows, toCsv, toKeyValue, toTable} from '../../src/cli/render.js'

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
})
