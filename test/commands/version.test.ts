// `mfg version`: what a bug report needs, without contacting the service and without secrets.
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {json, runBuiltCli, runCli} from '../helpers/cli.js'

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

  it('still answers with a config file that is not JSON, saying where it breaks', async () => {
    const broken = join(home, 'broken')
    mkdirSync(broken)
    const file = join(broken, 'config.json')
    writeFileSync(file, '{"current": "x",\n "profiles": {,}}', {mode: 0o600})
    const reason = `the config file ${file} is not valid JSON (Expected property name or '}' in JSON at position 31 (line 2 column 15)). Fix it or delete it to start over.`
    const r = await runCli(['version'], {env: {MFG_HOME: broken}})
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stdout).toContain(`node       ${process.version}`)
    expect(r.stdout).toContain(`config     ${reason}`)
    const j = await runCli(['version', '--json'], {env: {MFG_HOME: broken}})
    expect(json(j)).toMatchObject({mfg: expect.any(String), node: process.version, configError: reason})
    const flag = await runBuiltCli(['--version'], {env: {MFG_HOME: broken}})
    expect(flag.exitCode, flag.stderr).toBe(0)
    expect(flag.stdout).toMatch(/^mfg\/\d/)
    // Any other command: one message, exit 2 (the file's content is the input at fault).
    const list = await runCli(['profile', 'list'], {env: {MFG_HOME: broken}})
    expect(list.exitCode).toBe(2)
    expect(list.stderr.trim()).toBe(`Error: ${reason}`)
  })
})
