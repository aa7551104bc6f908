// bin/dev.js runs mfg from its TypeScript sources (tsx, oclif's development mode,
// the manifest ignored): every command's help, and real commands. Its help pages are
// the reference's (docs/commands.md, checked against the built CLI in
// reference.test.ts), and what it loads comes from src/, not dist/. Each run reads
// every command's source (about 1 s of CPU), so the pages are asked in one process.
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'

import {afterAll, describe, expect, it} from 'vitest'

const root = resolve(import.meta.dirname, '../..')
const dev = join(root, 'bin/dev.js')
const home = mkdtempSync(join(tmpdir(), 'mfg-dev-'))
afterAll(() => rmSync(home, {recursive: true, force: true}))

const env = {...process.env, MFG_HOME: home, NO_COLOR: '1', COLUMNS: '120'}
// As the file's first line asks: node --import tsx bin/dev.js.
const node = [process.execPath, '--import', 'tsx']

/** The reference's page per command: its words and what `--help` prints. */
function referencePages(): Map<string, string> {
  const text = readFileSync(join(root, 'docs/commands.md'), 'utf8')
  const pages = new Map<string, string>()
  for (const m of text.matchAll(/^## `mfg ([^`]*)`\n\n(.*)\n\n```\n([\s\S]*?)\n```$/gm)) {
    const words = m[1]!.split(' ').filter((w, i, all) => all.slice(0, i + 1).every((x) => /^[a-z][a-z-]*$/.test(x)))
    pages.set(words.join(' '), `${m[2]}\n\n${m[3]}\n`)
  }
  return pages
}

// bin/dev.js is the development set-up, run with the repository's own Node.js (24): CI checks it
// on that line only (MFG_TEST_REPEAT_LINE=1 on the others, .ci/run).
describe.skipIf(process.env.MFG_TEST_REPEAT_LINE === '1')('bin/dev.js, from the sources', () => {
  it("prints every command's --help as the reference has it", () => {
    const pages = [...referencePages()]
    expect(pages.length).toBeGreaterThan(30)
    // Every page through bin/dev.js's path in one process (dev-pages.ts)…
    const helper = join(root, 'test/help/dev-pages.ts')
    const lines = pages.map(([words]) => [...words.split(' '), '--help'])
    const r = spawnSync(node[0]!, [...node.slice(1), helper, JSON.stringify(lines)], {env, cwd: root, encoding: 'utf8'})
    expect(r.status, r.stderr).toBe(0)
    const printed = JSON.parse(r.stdout) as string[]
    expect(printed).toHaveLength(pages.length)
    expect(pages.filter(([, page], i) => printed[i] !== page).map(([words]) => words)).toEqual([])
    // …and bin/dev.js itself for the first, a middle and the last page.
    for (const [words, page] of [pages[0]!, pages[Math.floor(pages.length / 2)]!, pages.at(-1)!]) {
      const own = spawnSync(node[0]!, [...node.slice(1), dev, ...words.split(' '), '--help'], {
        env,
        cwd: root,
        encoding: 'utf8',
      })
      expect(own.status, own.stderr).toBe(0)
      expect(own.stdout, words).toBe(page)
    }
  }, 120_000)

  it('runs commands from src/ (not dist/), printing what the built CLI prints', () => {
    const tracer = pathToFileURL(join(root, 'test/startup/trace-loads.mjs')).href
    for (const args of [
      ['profile', 'list', '--json'],
      ['price', 'measure', 'examples/part.stl', '--json'],
      ['help', 'exit-codes'],
    ]) {
      const trace = join(home, `trace-${args[0]}.txt`)
      const fromSource = spawnSync(node[0]!, [...node.slice(1), '--import', tracer, dev, ...args], {
        cwd: root,
        env: {...env, MFG_TRACE_LOADS: trace},
        encoding: 'utf8',
      })
      const built = spawnSync(process.execPath, [join(root, 'bin/run.js'), ...args], {cwd: root, env, encoding: 'utf8'})
      expect(fromSource.status, fromSource.stderr).toBe(0)
      expect(built.status, built.stderr).toBe(0)
      expect(fromSource.stdout, args.join(' ')).toBe(built.stdout)
      const loaded = readFileSync(trace, 'utf8')
      expect(loaded, args.join(' ')).toContain(`${root}/src/`)
      expect(loaded, args.join(' ')).not.toContain(`${root}/dist/`)
    }
  }, 120_000)
})
