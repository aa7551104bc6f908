// Plugins and hooks work the oclif way through the built CLI: a plugin linked into
// mfg's data directory (what `plugins link` writes, read by oclif's user plugin
// loader) registers an `init` and a `command_not_found` hook
// (test/fixtures/hook-plugin), and both run, beside the plugins package.json lists.
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

const root = resolve(import.meta.dirname, '../..')
const plugin = join(root, 'test/fixtures/hook-plugin')
let home: string
let log: string

/** Runs the built CLI with the linked plugin; answers the hooks' records of this run. */
function mfg(args: string[]) {
  rmSync(log, {force: true})
  const r = spawnSync(process.execPath, [join(root, 'bin/run.js'), ...args], {
    env: {...process.env, MFG_HOME: home, MFG_HOOK_LOG: log, NO_COLOR: '1'},
    encoding: 'utf8',
    input: '',
    timeout: 60_000,
  })
  const hooks = existsSync(log)
    ? readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as {hook: string; id: string | null; argv?: string[]})
    : []
  return {code: r.status, stdout: r.stdout, stderr: r.stderr, hooks}
}

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mfg-hooks-'))
  log = join(home, 'hooks.ndjson')
  // bin/run.js puts oclif's data directory under MFG_HOME; this is the file in which
  // oclif keeps the plugins a user installed or linked.
  const data = join(home, 'oclif', 'data')
  mkdirSync(data, {recursive: true})
  writeFileSync(
    join(data, 'package.json'),
    JSON.stringify({
      private: true,
      oclif: {schema: 1, plugins: [{type: 'link', name: 'mfg-hook-fixture', root: plugin}]},
    }),
  )
})
afterAll(() => rmSync(home, {recursive: true, force: true}))

describe('plugins and hooks, through the built CLI', () => {
  it('the init hook runs before a command, which then runs as always', () => {
    const r = mfg(['profile', 'list', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toContainEqual(expect.objectContaining({name: 'local'}))
    expect(r.hooks).toEqual([{hook: 'init', id: 'profile:list', argv: ['--json']}])
  })

  it('the init hook runs before help too', () => {
    const r = mfg(['demand', 'list', '--help'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('$ mfg demand list')
    expect(r.hooks.map((h) => h.hook)).toEqual(['init'])
  })

  it('an unknown command runs every command_not_found hook: the fixture and @oclif/plugin-not-found', () => {
    const r = mfg(['demnd', 'lst'])
    expect(r.hooks).toEqual([
      {hook: 'init', id: 'demnd:lst', argv: []},
      {hook: 'command_not_found', id: 'demnd:lst'},
    ])
    expect(r.code).toBe(127)
    expect(r.stderr).toContain('demnd lst is not a mfg command.')
    // Nobody was asked "Did you mean …?" (no terminal): the error names the closest.
    expect(r.stderr).toContain('Did you mean mfg demand?')
  })

  it('in a script under CI: the closest command, and no colour codes in the pipe', () => {
    const {NO_COLOR: _, FORCE_COLOR: __, ...env} = process.env
    const r = spawnSync(process.execPath, [join(root, 'bin/run.js'), 'demnd', 'list'], {
      env: {...env, MFG_HOME: home, CI: 'true'},
      encoding: 'utf8',
      input: '',
      timeout: 60_000,
    })
    expect(r.status).toBe(127)
    expect(r.stderr).toContain('Did you mean mfg demand list? Run mfg help for a list of available')
    expect(r.stderr).not.toContain('\x1b[')
  })

  it('--version is answered before oclif loads, so no hook runs for it', () => {
    const r = mfg(['--version'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^mfg\/\d+\.\d+\.\d+ /)
    expect(r.hooks).toEqual([])
  })

  it('without the link, no hook runs: the records come from the fixture plugin', () => {
    const other = mkdtempSync(join(tmpdir(), 'mfg-hooks-none-'))
    rmSync(log, {force: true})
    try {
      const r = spawnSync(process.execPath, [join(root, 'bin/run.js'), 'profile', 'list', '--json'], {
        env: {...process.env, MFG_HOME: other, MFG_HOOK_LOG: log},
        encoding: 'utf8',
      })
      expect(r.status, r.stderr).toBe(0)
      expect(existsSync(log)).toBe(false)
    } finally {
      rmSync(other, {recursive: true, force: true})
    }
  })
})
