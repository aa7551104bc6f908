// `mfg version`: what a bug report needs, without contacting the service and without secrets.
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {json, runCli} from '../helpers/cli.js'

const KEY = 'pk_business_5ecret0000000000000000000000007c1e'
const TOKEN = 'tok_version_test_secret_9a8b'
let home: string
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mfg-version-'))
})
afterAll(() => rmSync(home, {recursive: true, force: true}))

describe('mfg version', () => {
  it('on a fresh home: the versions, the platform and the embedded sandbox', async () => {
    const r = await runCli(['version'], {env: {MFG_HOME: home}})
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stdout).toContain(`node       ${process.version}`)
    expect(r.stdout).toContain(`platform   ${process.platform}-${process.arch}`)
    expect(r.stdout).toMatch(/^mfg {8}\d+\.\d+\.\d+/m)
    expect(r.stdout).toContain('profile    local (no profile configured)')
    expect(r.stdout).toContain('the embedded sandbox')
    expect(r.stderr).toBe('')

    const j = await runCli(['version', '--json'], {env: {MFG_HOME: home}})
    expect(json(j)).toMatchObject({
      node: process.version,
      platform: process.platform,
      arch: process.arch,
      profile: 'local',
      embedded: true,
      overrides: [],
    })
  })

  it('names the profile and base URL a command would use, secrets masked', async () => {
    const add = await runCli(
      [
        'profile',
        'add',
        'shop',
        '--base-url',
        'https://api.example.com',
        '--api-key',
        KEY,
        '--auth-token',
        TOKEN,
        '--business-id',
        'b1',
      ],
      {env: {MFG_HOME: home}},
    )
    expect(add.exitCode, add.stderr).toBe(0)
    const r = await runCli(['version', '--profile', 'shop', '--json'], {env: {MFG_HOME: home}})
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json(r)).toMatchObject({
      profile: 'shop',
      profileSource: '--profile',
      embedded: false,
      baseUrl: 'https://api.example.com',
      apiKey: `****${KEY.slice(-4)}`,
      authToken: `****${TOKEN.slice(-4)}`,
    })
    const table = await runCli(['version'], {
      env: {MFG_HOME: home, MFG_PROFILE: 'shop', MFG_BASE_URL: 'https://other.example.com'},
    })
    expect(table.stdout).toContain('profile    shop (MFG_PROFILE)')
    expect(table.stdout).toContain('base URL   https://other.example.com')
    expect(table.stdout).toContain('overrides  MFG_BASE_URL')
    for (const out of [r, table]) {
      expect(out.stdout + out.stderr).not.toContain(KEY)
      expect(out.stdout + out.stderr).not.toContain(TOKEN)
    }
  })
})
