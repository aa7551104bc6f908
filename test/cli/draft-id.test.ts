// draftIds and Idempotency-Keys are hashes an earlier run (and the server) already
// holds: however they are computed, their text must not change.
import {createHash} from 'node:crypto'

import {describe, expect, it} from 'vitest'

import {draftIdFor, idempotencyKeyFor} from '../../src/services/demands/create.js'

describe('draftIdFor and idempotencyKeyFor', () => {
  it('give the same text as before', () => {
    expect(draftIdFor('abc', 0)).toBe('mfg-bfcf0b9cbe9d8208b2cddd9a')
    // A non-ASCII identity is hashed as UTF-8.
    expect(draftIdFor('é', 9999)).toBe('mfg-9c4d4fbdd1576259ad452871')
    expect(idempotencyKeyFor(['mfg-a', 'mfg-b'])).toBe('mfg-e8df081f9d585db368cfd4963938f9d887689cf7')
  })

  it('are the sha256 of "identity:row" and of the draftIds one per line, as a Hash object computes it', () => {
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
    expect(idempotencyKeyFor(ids)).toBe(`mfg-${hex(ids.join('\n')).slice(0, 40)}`)
  })
})
