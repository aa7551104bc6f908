// Shell completion after an upgrade: @oclif/plugin-autocomplete builds its scripts once,
// with the commands and flags of the mfg that built them; mfg has them built again when
// it finds them built for another version (src/cli/completion-cache.ts).
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir, userInfo} from 'node:os'
import {basename, join, resolve} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {refreshIfStale} from '../../src/cli/completion-cache.js'
import {waitFor} from '../sandbox/receiver.js'

const root = resolve(import.meta.dirname, '../..')
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {version: string}).version
const home = mkdtempSync(join(tmpdir(), 'mfg-completion-'))
const cache = join(home, 'oclif', 'cache', 'autocomplete')
const bashScript = join(cache, 'functions', 'bash', 'mfg.bash')
const stampFile = join(cache, '.mfg-version')

/** `shell`: SHELL for the command; null leaves it unset. */
function mfg(args: string[], shell: string | null = '/bin/bash') {
  const r = spawnSync(process.execPath, [join(root, 'bin/run.js'), ...args], {
    env: {...process.env, MFG_HOME: home, NO_COLOR: '1', SHELL: shell ?? undefined},
    encoding: 'utf8',
    input: '',
    timeout: 60_000,
  })
  return {code: r.status, stdout: r.stdout, stderr: r.stderr}
}

const read = (file: string) => {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return ''
  }
}

afterAll(() => rmSync(home, {recursive: true, force: true}))

describe('the shell completion cache', () => {
  it('is stamped with the version that built it, and built again in the background by the next command after an upgrade', async () => {
    // No cache yet: commands leave completion alone.
    expect(mfg(['profile', 'list']).code).toBe(0)
    expect(read(stampFile)).toBe('')
    const built = mfg(['autocomplete', 'bash'])
    expect(built.code, built.stderr).toBe(0)
    expect(read(bashScript)).toMatch(/^demand:list .*--wide/m)
    expect(read(stampFile)).toBe(`${version}\n`)
    // The current version's cache is not built again.
    writeFileSync(bashScript, 'kept\n')
    expect(mfg(['profile', 'list']).code).toBe(0)
    expect(read(bashScript)).toBe('kept\n')

    // Built by an older mfg, whose commands differ: the next command has it rebuilt, printing nothing of it.
    writeFileSync(stampFile, '0.0.1\n')
    writeFileSync(bashScript, 'old\n')
    const next = mfg(['profile', 'list', '--json'])
    expect(next.code, next.stderr).toBe(0)
    expect(next.stderr).toBe('')
    expect(JSON.parse(next.stdout)).toEqual(expect.any(Array))
    await waitFor(() => /^demand:list /m.test(read(bashScript)), 'the completion script rebuilt', 30_000)
    expect(read(stampFile)).toBe(`${version}\n`)
  }, 90_000)

  it('is not taken for current after `mfg autocomplete --help`, which builds nothing', async () => {
    expect(mfg(['autocomplete', 'bash']).code).toBe(0)
    writeFileSync(stampFile, '0.0.1\n')
    writeFileSync(bashScript, 'old\n')
    for (const help of ['--help', '-h']) {
      const shown = mfg(['autocomplete', help])
      expect(shown.code, shown.stderr).toBe(0)
      expect(shown.stdout).toMatch(/autocomplete/)
    }
    // The stale cache is still rebuilt (by the help's own check or the next command's), and stamped after that.
    expect(mfg(['profile', 'list']).code).toBe(0)
    await waitFor(() => /^demand:list /m.test(read(bashScript)), 'the completion script rebuilt', 30_000)
    expect(read(stampFile)).toBe(`${version}\n`)
  }, 90_000)

  it('is refused, not set up with a heading and nothing under it, for a shell the plugin has no completion for', () => {
    const r = mfg(['autocomplete'], '/usr/bin/fish')
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr.trim()).toBe(
      'Error: mfg autocomplete cannot set up fish (SHELL=/usr/bin/fish): completion is written for bash, zsh and PowerShell; name one, as in mfg autocomplete bash',
    )
    // SHELL unset: the account's login shell, as oclif reads it, decides.
    const login = basename(userInfo().shell ?? '')
    expect(mfg(['autocomplete'], null).code).toBe(['bash', 'zsh'].includes(login) ? 0 : 2)
    // A shell named, or only the cache rebuilt (what the background refresh runs), still works from fish.
    const named = mfg(['autocomplete', 'bash'], '/usr/bin/fish')
    expect(named.code, named.stderr).toBe(0)
    expect(named.stdout).toContain('mfg autocomplete script bash')
    expect(mfg(['autocomplete', '--refresh-cache'], '/usr/bin/fish').code).toBe(0)
    expect(mfg(['autocomplete'], '/usr/bin/zsh').code).toBe(0)
  })

  it("is not rebuilt when its stamp cannot be written (another user's cache): no process at every command", () => {
    const file = join(home, 'not-a-directory')
    writeFileSync(file, '')
    expect(refreshIfStale({dir: file, root, version})).toBe(false)
    // Where it can be written, a stale one is.
    const dir = mkdtempSync(join(tmpdir(), 'mfg-completion-stale-'))
    try {
      writeFileSync(join(dir, '.mfg-version'), '0.0.1\n')
      expect(refreshIfStale({dir, root: join(dir, 'no-mfg-here'), version})).toBe(true)
      expect(read(join(dir, '.mfg-version'))).toBe(`${version}\n`)
      expect(refreshIfStale({dir, root, version})).toBe(false)
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })
})
