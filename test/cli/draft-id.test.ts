// draftIds and Idempotency-Keys are hashes an earlier run (and the server) already
// holds: however they are computed, their text must not change. (Keys changed once,
// on purpose, to carry the operation: issue 18.)
import {createHash} from 'node:crypto'

import {describe, expect, it} from 'vitest'

import {draftIdFor, idempotencyKeyFor, quoteIdentity} from '../../src/services/demands/create.js'

const KEY_V1_AB = 'mfg-e0748273ff186de0a27e21c0f6d0dfede1934dac'

describe('draftIdFor and idempotencyKeyFor', () => {
  it('give the same text as before', () => {
    expect(draftIdFor('abc', 0)).toBe('mfg-bfcf0b9cbe9d8208b2cddd9a')
    // A non-ASCII identity is hashed as UTF-8.
    expect(draftIdFor('é', 9999)).toBe('mfg-9c4d4fbdd1576259ad452871')
    expect(idempotencyKeyFor('v1 create-quotes', ['mfg-a', 'mfg-b'])).toBe(KEY_V1_AB)
  })

  it('are the sha256 of "identity:row" and of the operation and draftIds one per line, as a Hash object computes it', () => {
    const hex = (text: string) => createHash('sha256').update(text).digest('hex')
    for (const [identity, index] of [
      ['0'.repeat(64), 0],
      ['x', 41],
      ['', 123_456],
    ] as const) {
      expect(draftIdFor(identity, index)).toBe(`mfg-${hex(`${identity}:${index + 1}`).slice(0, 24)}`)
    }
    const ids = Array.from({length: 100}, (_, i) => draftIdFor('id', i))
    expect(new Set(ids).size).toBe(100)
    for (const operation of ['v1 create-quotes', 'v2 create-demands'] as const) {
      expect(idempotencyKeyFor(operation, ids)).toBe(`mfg-${hex([operation, ...ids].join('\n')).slice(0, 40)}`)
    }
  })

  it('never give the same rows the same key on create-quotes (v1) and create-demands (legacy)', () => {
    const ids = ['mfg-a', 'mfg-b']
    expect(idempotencyKeyFor('v2 create-demands', ids)).not.toBe(idempotencyKeyFor('v1 create-quotes', ids))
  })

  it('name a quote from flags by its content and the UTC day, whatever the order of its fields', () => {
    const day = new Date('2025-03-04T23:59:00Z')
    const a = quoteIdentity({technique: 'PCB', material: 'FR4', quantity: 2, jobDetails: {takenAs: 'ORDER'}}, day)
    const b = quoteIdentity({jobDetails: {takenAs: 'ORDER'}, quantity: 2, material: 'FR4', technique: 'PCB'}, day)
    expect(b).toBe(a)
    expect(a).toMatch(/^quote-2025-03-04-[0-9a-f]{32}$/)
    expect(quoteIdentity({technique: 'PCB', draftId: 'mine'}, day)).toBe(
      quoteIdentity({draftId: 'mine'}, nextDayOf(day)),
    )
    expect(
      quoteIdentity({technique: 'PCB', material: 'FR4', quantity: 3, jobDetails: {takenAs: 'ORDER'}}, day),
    ).not.toBe(a)
    const nextDay = new Date('2025-03-05T00:00:01Z')
    expect(
      quoteIdentity({technique: 'PCB', material: 'FR4', quantity: 2, jobDetails: {takenAs: 'ORDER'}}, nextDay),
    ).not.toBe(a)
  })
})

function nextDayOf(day: Date): Date {
  return new Date(day.getTime() + 24 * 60 * 60 * 1000)
}
