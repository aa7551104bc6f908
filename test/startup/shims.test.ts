// The build gives an output file the require/__filename/__dirname shims only when
// it names one of them (scripts/build.mjs): the others start with an empty line.
// A file that needs them without having them would fail when loaded, which every
// command test would show; this says the rest are spared them. Nothing is timed.
import {readFileSync, readdirSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {root} from './traced.js'

const dist = join(root, 'dist')
const files = readdirSync(dist, {recursive: true, encoding: 'utf8'}).filter((f) => f.endsWith('.js'))

describe('build: the CommonJS shims go only where they are named', () => {
  it('each output file has them exactly when the rest of it names require, __filename or __dirname', () => {
    let withShims = 0
    for (const file of files.filter((f) => f !== 'engines.js')) {
      const text = readFileSync(join(dist, file), 'utf8')
      const [first, ...rest] = text.split('\n')
      const names = /\b(require|__filename|__dirname)\b/.test(rest.join('\n'))
      expect(first!.includes('createRequire'), file).toBe(names)
      if (names) withShims++
      else expect(first, file).toBe('')
    }
    // esbuild's __require (in one runtime chunk) still reads require; most files need nothing.
    expect(withShims).toBeGreaterThan(0)
    expect(withShims).toBeLessThan(files.length / 4)
  })
})
