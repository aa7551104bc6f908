// demand create builds the legacy (v2) create schema only with --legacy: the
// built chunk that defines it (found by taxType, a field only that schema has) is loaded
// by a --legacy run and by no other. Nothing here is timed.
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {root, traced} from './traced.js'

/** The loaded built chunks that define the legacy create schema. */
const legacySchema = (loaded: string[]) =>
  loaded.filter((f) => f.startsWith('dist/') && /\btaxType:/.test(readFileSync(join(root, f), 'utf8')))

describe('demand create: the legacy schemas are loaded only by --legacy', () => {
  const file = join(root, 'examples/quotes.json')

  it('a v1 batch loads nothing of them', () => {
    const r = traced(['demand', 'create', '--file', file, '--dry-run'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('5 row(s) valid')
    expect(r.loaded.filter((f) => f.startsWith('dist/')).length).toBeGreaterThan(5)
    expect(legacySchema(r.loaded)).toEqual([])
  })

  it('a --legacy batch loads them, and validates against them', () => {
    const r = traced(['demand', 'create', '--file', file, '--dry-run', '--legacy'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('5 row(s) valid')
    expect(legacySchema(r.loaded)).toHaveLength(1)
  })
})
