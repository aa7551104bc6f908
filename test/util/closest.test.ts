import {describe, expect, it} from 'vitest'

import {closest, editDistance} from '../../src/util/closest.js'

describe('editDistance', () => {
  it.each([
    ['email', 'email', 0],
    ['emial', 'email', 1],
    ['cty', 'city', 1],
    ['materail', 'material', 1],
    ['takenAss', 'takenAs', 1],
    ['nope', 'type', 2],
    ['', 'abc', 3],
    ['abc', '', 3],
    ['ca', 'abc', 3],
  ])('%s → %s is %i', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d)
    expect(editDistance(b, a)).toBe(d)
  })
})

describe('closest', () => {
  const names = ['_id', 'email', 'material', 'type', 'technique', 'Email2']
  it('names what was probably meant, closest first', () => {
    expect(closest('id', names)).toEqual(['_id'])
    expect(closest('emial', names, 1)).toEqual(['email'])
    expect(closest('EMAIL', names, 1)).toEqual(['email'])
    expect(closest('materail', names)).toEqual(['material'])
  })
  it('names nothing when nothing is close: a third of the length in edits, at least one', () => {
    expect(closest('nope', names)).toEqual([])
    expect(closest('zzzzzz', names)).toEqual([])
    expect(closest('email', ['email'])).toEqual([])
  })
  it('breaks ties in code-unit order and keeps at most max', () => {
    expect(closest('ab', ['ac', 'aa', 'ad', 'zz'], 2)).toEqual(['aa', 'ac'])
  })
})
