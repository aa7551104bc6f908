// --jq's jq (jq-wasm, 1 MB of WebAssembly) is loaded only when the flag is given:
// a command without it loads nothing of it, and neither does --json FIELDS.
import {describe, expect, it} from 'vitest'

import {traced} from './traced.js'

const jqFiles = (loaded: string[]) => loaded.filter((f) => /node_modules\/jq-wasm\/|dist\/cli\/jq\.js/.test(f))

describe('jq is loaded only by --jq', () => {
  it('demand list --json and --json FIELDS load nothing of jq', () => {
    for (const args of [
      ['demand', 'list', '--json'],
      ['demand', 'list', '--json', 'orderNumber'],
    ]) {
      const r = traced(args)
      expect(r.code, r.stderr).toBe(0)
      expect(r.loaded.length).toBeGreaterThan(5)
      expect(jqFiles(r.loaded), args.join(' ')).toEqual([])
    }
  })

  it('demand list --jq loads jq-wasm, and prints what jq made', () => {
    const r = traced(['demand', 'list', '--jq', '.[0].orderNumber'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.trim()).toMatch(/^\d+$/)
    expect(jqFiles(r.loaded).some((f) => f.includes('node_modules/jq-wasm/'))).toBe(true)
  })
})
