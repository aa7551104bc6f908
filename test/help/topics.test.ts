// The help topics `environment` and `exit-codes` (src/help/topics.ts) are lists of
// what the code really reads and returns: each variable the sources name is listed,
// each exit code they set is explained, and neither lists anything the code does not do.
import {readFileSync, readdirSync, statSync} from 'node:fs'
import {join, resolve} from 'node:path'

import {describe, expect, it} from 'vitest'

import {GUIDES} from '../../src/help/topics.js'

const root = resolve(import.meta.dirname, '../..')

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return name.endsWith('.ts') && path !== join(root, 'src/help/topics.ts') ? [path] : []
  })
}

const code = [...sources(join(root, 'src')), join(root, 'bin/run.js')].map((f) => readFileSync(f, 'utf8')).join('\n')
const rows = (name: string) => GUIDES[name]!.sections.flatMap((s) => s.rows)

/** Variables oclif reads under mfg's name (Config.scopedEnvVar; bin/run.js sets the directories from MFG_HOME). */
const OCLIF_VARIABLES = ['MFG_CONTENT_TYPE', 'MFG_DEBUG', 'DEBUG', 'MFG_CACHE_DIR', 'MFG_DATA_DIR', 'MFG_CONFIG_DIR']

describe('mfg help environment', () => {
  const listed = new Set(rows('environment').flatMap(([names]) => names.split(', ')))

  it('lists every MFG_ variable the sources read', () => {
    // Not `$MFG_KEY` in an example: a variable of the user's shell.
    const read = new Set(code.match(/(?<!\$)\bMFG_[A-Z_]+[A-Z]\b/g))
    expect(read.size).toBeGreaterThan(10)
    for (const name of read) expect(listed, name).toContain(name)
  })

  it('lists the general variables the sources read', () => {
    for (const name of ['NO_COLOR', 'CI', 'COLUMNS', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME']) {
      expect(code, name).toMatch(new RegExp(`env\\.${name}\\b|env\\[['"]${name}`))
      expect(listed, name).toContain(name)
    }
  })

  it('lists nothing that neither the sources nor oclif read', () => {
    for (const name of listed) {
      if (OCLIF_VARIABLES.includes(name)) continue
      expect(code, name).toMatch(new RegExp(`\\b${name}\\b`))
    }
  })
})

describe('mfg help exit-codes', () => {
  const listed = rows('exit-codes').map(([c]) => Number(c))

  it("explains every exit code the sources set, and oclif's 127 for an unknown command", () => {
    const set = new Set<number>()
    for (const m of code.matchAll(/(?:exitCode\s*[=:]\s*|EXIT_[A-Z]+\s*=\s*|exit\([^()]*\?\s*)(\d+)/g))
      set.add(Number(m[1]))
    // exitCodeFor (src/api/errors.ts) maps the API's errors to codes.
    const mapping = /export function exitCodeFor[\s\S]*?\n}/.exec(code)![0]
    for (const m of mapping.matchAll(/return (\d+)/g)) set.add(Number(m[1]))
    expect([...set].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 130, 143])
    expect(listed).toEqual([0, ...set, 127].sort((a, b) => a - b).filter((c, i, all) => all.indexOf(c) === i))
  })
})
