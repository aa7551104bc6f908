import {describe, expect, it} from 'vitest'

import {defined, given} from '../../src/util/fields.js'

describe('defined and given', () => {
  const fields = {a: 1, b: undefined, c: '', d: 0, e: false, f: null, g: 'x'}

  it('defined drops only the undefined fields, keeping the order of the rest', () => {
    const out = defined(fields)
    expect(Object.keys(out)).toEqual(['a', 'c', 'd', 'e', 'f', 'g'])
    expect(out).toStrictEqual({a: 1, c: '', d: 0, e: false, f: null, g: 'x'})
  })

  it('given also drops empty strings (an empty flag value is no value) but keeps 0, false and null', () => {
    expect(given(fields)).toStrictEqual({a: 1, d: 0, e: false, f: null, g: 'x'})
  })

  it('returns a new object and leaves the argument as it was', () => {
    const copy = {...fields}
    expect(defined(fields)).not.toBe(fields)
    expect(fields).toStrictEqual(copy)
  })
})
