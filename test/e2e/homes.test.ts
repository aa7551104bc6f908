// Where mfg keeps its files, when it cannot keep them there: a home it may not write, a
// data directory under a file, MFG_HOME naming a file. What an installed mfg says then is
// one line naming the directory and what chooses it, never Node's own error or warning.
import {chmodSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {runBuiltCli} from '../helpers/cli.js'
import {useTempDirs} from '../helpers/temp.js'

const tempDir = useTempDirs('mfg-homes-')

/** The environment of a user whose home is `home` and who has not set MFG_HOME (XDG paths under it). */
function homeEnv(home: string): Record<string, string> {
  return {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
  }
}

describe('mfg with nowhere to keep its files', () => {
  it('a data directory under a file: help prints no warning from oclif', async () => {
    const home = tempDir()
    writeFileSync(join(home, 'share'), 'not a directory')
    const r = await runBuiltCli(['help'], {env: {...homeEnv(home), XDG_DATA_HOME: join(home, 'share')}})
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stdout).toContain('TOPICS')
    expect(r.stderr).toBe('')
  })

  it('a home it may not write: the embedded sandbox names its directory and MFG_HOME, exit 1', async () => {
    const home = tempDir()
    chmodSync(home, 0o555)
    const dataDir = join(home, '.local', 'share', 'mfg', 'sandbox')
    for (const args of [
      ['demand', 'list'],
      ['sandbox', 'reset', '--yes'],
    ]) {
      const r = await runBuiltCli(args, {env: homeEnv(home), unprivileged: true})
      expect(r.exitCode, r.stderr).toBe(1)
      expect(r.stdout).toBe('')
      expect(r.stderr).toBe(
        `Error: cannot keep the sandbox data in ${dataDir}: permission denied (MFG_HOME chooses where mfg keeps its files; sandbox serve also takes --data-dir or --memory).\n`,
      )
    }
    const doctor = await runBuiltCli(['doctor', '--json'], {env: homeEnv(home), unprivileged: true})
    expect(doctor.exitCode, doctor.stderr).toBe(1)
    const checks = (JSON.parse(doctor.stdout) as {checks: {check: string; status: string; message: string}[]}).checks
    expect(checks.find((c) => c.check === 'sandbox-db')).toMatchObject({
      status: 'fail',
      message: `not created yet, and the embedded sandbox cannot create it: ${home}: permission denied`,
    })
    chmodSync(home, 0o755)
  })

  it('sandbox serve --data-dir under a file: the same line, under --json as a JSON error', async () => {
    const home = tempDir()
    writeFileSync(join(home, 'file'), '')
    const r = await runBuiltCli(
      ['sandbox', 'serve', '--port', '0', '--data-dir', join(home, 'file', 'data'), '--json'],
      {
        env: homeEnv(home),
      },
    )
    expect(r.exitCode, r.stderr).toBe(1)
    expect(r.stdout).toBe('')
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        code: 'sandbox_data_unwritable',
        message: `cannot keep the sandbox data in ${join(home, 'file', 'data')}: a part of the path is not a directory (MFG_HOME chooses where mfg keeps its files; sandbox serve also takes --data-dir or --memory).`,
      },
    })
  })

  it('MFG_HOME naming a file: every command but help says so in one line, exit 2', async () => {
    const file = join(tempDir(), 'home')
    writeFileSync(file, '')
    const message = `MFG_HOME is ${file}, a file; it must name a directory (mfg makes it when missing) where mfg keeps its profiles, journals and sandbox data, or be unset.`
    for (const args of [['doctor'], ['autocomplete', 'bash'], ['demand', 'list']]) {
      const r = await runBuiltCli(args, {env: {MFG_HOME: file}})
      expect([r.exitCode, r.stdout, r.stderr]).toEqual([2, '', `Error: ${message}\n`])
    }
    const asJson = await runBuiltCli(['profile', 'list', '--json'], {env: {MFG_HOME: join(file, 'below')}})
    expect(asJson.exitCode).toBe(2)
    expect(JSON.parse(asJson.stderr)).toEqual({
      error: {
        code: 'usage',
        message: message.replace(`${file}, a file`, `${join(file, 'below')}, a path under a file`),
      },
    })
    const help = await runBuiltCli(['help', 'environment'], {env: {MFG_HOME: file}})
    expect([help.exitCode, help.stderr]).toEqual([0, ''])
  })

  it("another user's data directory: doctor says it cannot reach the database, not that it is yet to be made", async () => {
    const home = tempDir()
    const env = homeEnv(home)
    expect((await runBuiltCli(['demand', 'list', '--limit', '1'], {env})).exitCode).toBe(0)
    const data = join(home, '.local', 'share', 'mfg')
    chmodSync(data, 0o000)
    const r = await runBuiltCli(['doctor', '--json'], {env, unprivileged: true})
    chmodSync(data, 0o700)
    expect(r.exitCode, r.stderr).toBe(1)
    const checks = (JSON.parse(r.stdout) as {checks: {check: string; status: string; message: string}[]}).checks
    expect(checks.find((c) => c.check === 'sandbox-db')).toMatchObject({
      status: 'fail',
      message: 'cannot reach the database: permission denied',
    })
    // What the directory hides is one warning naming it, not one per file below it.
    const hidden = checks.filter((c) => c.check === 'permissions' && c.status === 'warn')
    expect(hidden).toHaveLength(1)
    expect(hidden[0]!.message).toMatch(
      new RegExp(
        `^cannot inspect \\d+ paths under ${data.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: permission denied \\(`,
      ),
    )
  })
})
