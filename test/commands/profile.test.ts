import {readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {json, runBuiltCli, runCli, secretsOf, startCliSandbox, type CliResult, type CliSandbox} from '../helpers/cli.js'

let sb: CliSandbox
const outputs: CliResult[] = []
const run = async (argv: string[], env: Record<string, string | undefined> = {}) => {
  const r = await runCli(argv, {env: {MFG_HOME: sb.home, ...env}})
  outputs.push(r)
  return r
}

beforeAll(async () => {
  sb = await startCliSandbox()
})
afterAll(async () => {
  await sb.close()
})

describe('mfg profile', () => {
  it('adds a profile from flags only, reducing a pasted key, in a 0600 config', async () => {
    const demo = sb.businesses[0]!
    const r = await run([
      'profile',
      'add',
      'shop',
      '--base-url',
      `${sb.url}/`,
      '--api-key',
      `Key: ${demo.apiKey} (copy me)`,
      '--auth-token',
      demo.authToken,
      '--business-id',
      demo.id,
      '--currency',
      'eur',
      '--json',
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    const shown = json<Record<string, unknown>>(r)
    expect(shown).toMatchObject({name: 'shop', baseUrl: sb.url, businessId: demo.id, currency: 'EUR', current: false})
    expect(shown.apiKey).toBe(`****${demo.apiKey.slice(-4)}`)
    const file = join(sb.home, 'config.json')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const stored = JSON.parse(readFileSync(file, 'utf8'))
    expect(stored.profiles.shop.apiKey).toBe(demo.apiKey)
  })

  it('fails without a terminal when a required value is missing, naming the flag', async () => {
    const r = await run(['profile', 'add', 'half', '--base-url', sb.url])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toMatch(/--api-key/)
    expect(r.stderr).not.toMatch(/\n\s+at /)
  })

  it('refuses a bad base URL with exit 2', async () => {
    const r = await run([
      'profile',
      'add',
      'bad',
      '--base-url',
      'ftp://x',
      '--api-key',
      'pk_business_abc123456',
      '--business-id',
      'b',
    ])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toMatch(/--base-url must be an http\(s\) URL/)
  })

  it('refuses an empty key or business id (a variable that is not set), saving nothing', async () => {
    const url = ['--base-url', 'https://api.example.com']
    for (const [flag, args] of [
      ['--api-key', ['--api-key', '', '--business-id', 'b']],
      ['--business-id', ['--api-key', 'pk_business_abc123456', '--business-id', ' ']],
    ] as const) {
      const r = await run(['profile', 'add', 'empty', ...url, ...args])
      expect(r.exitCode, flag).toBe(2)
      expect(r.stderr).toContain(`${flag} is empty (was it given from a variable that is not set?); nothing was saved.`)
    }
    const listed = await run(['profile', 'list', '--json'])
    expect(listed.stdout).not.toContain('"empty"')
  })

  it('reads the key or the token from stdin with -, out of the command line; one line, one of the two', async () => {
    const demo = sb.businesses[0]!
    const add = (args: string[], stdin: string) =>
      runCli(['profile', 'add', 'piped', '--base-url', sb.url, '--business-id', demo.id, ...args], {
        env: {MFG_HOME: sb.home},
        stdin,
      })
    // As a password manager prints it: the key, its newline, spaces around.
    const r = await add(['--api-key', '-', '--json'], `  ${demo.apiKey}  \n`)
    expect(r.exitCode, r.stderr).toBe(0)
    const stored = () => JSON.parse(readFileSync(join(sb.home, 'config.json'), 'utf8')).profiles.piped
    expect(stored().apiKey).toBe(demo.apiKey)
    expect(r.stdout + r.stderr).not.toContain(demo.apiKey)
    const token = await add(['--auth-token', '-'], `${demo.authToken}\n`)
    expect(token.exitCode, token.stderr).toBe(0)
    expect(stored()).toMatchObject({apiKey: demo.apiKey, authToken: demo.authToken})
    // The stored profile works: the key read from stdin is the one the service knows.
    const status = await run(['auth', 'status', '--profile', 'piped', '--json'])
    expect(status.exitCode, status.stderr).toBe(0)
    for (const [args, stdin, said] of [
      [['--api-key', '-'], '', '--api-key - reads one line from stdin, and stdin was empty; nothing was saved.'],
      [['--api-key', '-'], 'pk_business_one\npk_business_two\n', 'stdin had 2 lines'],
      [
        ['--api-key', '-', '--auth-token', '-'],
        'x\n',
        'Only one of --api-key and --auth-token can be - (read from stdin).',
      ],
    ] as const) {
      const refused = await add([...args], stdin)
      expect(refused.exitCode, refused.stderr).toBe(2)
      expect(refused.stderr).toContain(said)
    }
    expect(stored()).toMatchObject({apiKey: demo.apiKey, authToken: demo.authToken})
    expect((await run(['profile', 'remove', 'piped', '--yes'])).exitCode).toBe(0)
  })

  it('warns of a base URL that ends where the service paths begin (/api/api/... then), and not of a root or a gateway path', async () => {
    const demo = sb.businesses[0]!
    const add = (baseUrl: string, json = false) =>
      run([
        'profile',
        'add',
        'doubled',
        '--base-url',
        baseUrl,
        '--api-key',
        demo.apiKey,
        '--business-id',
        demo.id,
        ...(json ? ['--json'] : []),
      ])
    const doubled = await add(`${sb.url}/api/`)
    expect(doubled.exitCode, doubled.stderr).toBe(0)
    expect(doubled.stderr).toContain(
      `Warning: The base URL ends in /api, and mfg adds the service's paths to it: requests go to /api/api/public/v1/… instead of /api/public/v1/…; the base URL is where those paths start, probably ${sb.url} (mfg profile add doubled --base-url ${sb.url}).`,
    )
    // What it warns of: every request of that profile answers 404.
    expect((await run(['demand', 'list', '--profile', 'doubled'])).exitCode).toBe(1)
    const json = await add('https://gw.example.com/mfg/api/v2', true)
    expect(JSON.parse(json.stderr.trim().split('\n').at(-1)!)).toEqual({
      warning: expect.stringContaining(
        'probably https://gw.example.com/mfg (mfg profile add doubled --base-url https://gw.example.com/mfg)',
      ),
    })
    for (const fine of [sb.url, 'https://gw.example.com/mfg', 'https://gw.example.com/apis']) {
      expect((await add(fine)).stderr, fine).not.toContain('Warning')
    }
    expect((await run(['profile', 'remove', 'doubled', '--yes'])).exitCode).toBe(0)
  })

  it('warns when saving a plain http:// base URL on another machine, which every command would refuse', async () => {
    const demo = sb.businesses[0]!
    const add = (baseUrl: string) =>
      run(['profile', 'add', 'clear', '--base-url', baseUrl, '--api-key', demo.apiKey, '--business-id', demo.id])
    const remote = await add('http://api.example.com/mfg/')
    expect(remote.exitCode, remote.stderr).toBe(0)
    expect(remote.stderr).toContain(
      "Warning: The base URL is plain http:// to api.example.com, not this machine: commands refuse to send the API key and auth token there in clear. Use the service's https:// address (mfg profile add clear --base-url https://api.example.com/mfg), or pass --insecure (or set MFG_INSECURE=1) on a network you trust.",
    )
    // What it warns of.
    const refused = await run(['demand', 'list', '--profile', 'clear'])
    expect(refused.exitCode).toBe(2)
    expect(refused.stderr).toContain('refusing to send the API key over plain http to api.example.com')
    for (const fine of [sb.url, 'http://localhost:8787', 'http://[::1]:8787', 'https://api.example.com']) {
      expect((await add(fine)).stderr, fine).not.toContain('Warning')
    }
    expect((await run(['profile', 'remove', 'clear', '--yes'])).exitCode).toBe(0)
  })

  it('says a config file it cannot write is where it goes, not broken: no "delete it"', async () => {
    const {writeFileSync, mkdtempSync} = await import('node:fs')
    const {tmpdir} = await import('node:os')
    const file = join(mkdtempSync(join(tmpdir(), 'mfg-nodir-')), 'a-file')
    writeFileSync(file, '')
    const r = await run(
      [
        'profile',
        'add',
        'x',
        '--base-url',
        'https://api.example.com',
        '--api-key',
        'pk_business_abc123456',
        '--business-id',
        'b',
      ],
      {MFG_HOME: join(file, 'home')},
    )
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toContain(
      `cannot write the config file ${join(file, 'home', 'config.json')}: a part of the path is not a directory; nothing was saved`,
    )
    expect(r.stderr).not.toMatch(/delete it|ENOTDIR|\n\s+at /)
  })

  it('keeps every profile when several are added at the same time', async () => {
    const {mkdtempSync} = await import('node:fs')
    const {tmpdir} = await import('node:os')
    const home = mkdtempSync(join(tmpdir(), 'mfg-concurrent-'))
    const names = Array.from({length: 12}, (_, i) => `p${i}`)
    const added = await Promise.all(
      names.map((name) =>
        runBuiltCli(
          ['profile', 'add', name, '--base-url', sb.url, '--api-key', 'pk_business_abc123456', '--business-id', 'b'],
          {env: {MFG_HOME: home}},
        ),
      ),
    )
    for (const r of added) expect(r.exitCode, r.stderr).toBe(0)
    const listed = await run(['profile', 'list', '--json'], {MFG_HOME: home})
    expect(json<{name: string}[]>(listed).map((x) => x.name)).toEqual([...names].sort().concat('local'))
    expect(statSync(join(home, 'config.json')).mode & 0o777).toBe(0o600)
  })

  it('lists profiles with masked keys and marks the current one', async () => {
    const other = sb.businesses[1]!
    await run(['profile', 'add', 'other', '--base-url', sb.url, '--api-key', other.apiKey, '--business-id', other.id])
    let r = await run(['profile', 'list'])
    expect(r.exitCode).toBe(0)
    const lines = r.stdout.trim().split('\n')
    expect(lines[0]).toMatch(/^current\s+name\s+baseUrl\s+businessId\s+apiKey/)
    expect(r.stdout).toMatch(/\*\s+local\s+\(embedded sandbox\)/)
    expect(r.stdout).toContain(`****${other.apiKey.slice(-4)}`)

    r = await run(['profile', 'use', 'shop'])
    expect(r.exitCode).toBe(0)
    r = await run(['profile', 'list', '--json'])
    const rows = json<{name: string; current: boolean; apiKey?: string}[]>(r)
    expect(rows.map((x) => x.name)).toEqual(['other', 'shop', 'local'])
    expect(rows.find((x) => x.current)?.name).toBe('shop')
    expect(rows[0]!.apiKey).toBe(`****${other.apiKey.slice(-4)}`)
  })

  it('shows the active profile masked, with env overrides listed', async () => {
    let r = await run(['profile', 'show', '--json'])
    expect(json(r)).toMatchObject({name: 'shop', current: true, embedded: false, overrides: []})
    r = await run(['profile', 'show', '--json'], {MFG_BUSINESS_ID: 'from-env'})
    expect(json(r)).toMatchObject({name: 'shop', businessId: 'from-env', overrides: ['MFG_BUSINESS_ID']})
    r = await run(['profile', 'show', 'other'])
    expect(r.stdout).toMatch(/^name\s+other$/m)
    expect(r.stdout).toMatch(/^apiKey\s+\*\*\*\*\w{4}$/m)
  })

  it('uses the current profile for commands, and --profile overrides it', async () => {
    let r = await run(['auth', 'status', '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json(r)).toMatchObject({profile: 'shop', businessId: sb.businesses[0]!.id, v1: {ok: true}, v2: {ok: true}})
    r = await run(['auth', 'status', '--json', '--profile', 'other'])
    expect(json(r)).toMatchObject({profile: 'other', v1: {ok: true}})
  })

  it('refuses a stored profile whose baseUrl was edited into something else, naming the profile and field', async () => {
    const {mkdtempSync, writeFileSync} = await import('node:fs')
    const {tmpdir} = await import('node:os')
    const home = mkdtempSync(join(tmpdir(), 'mfg-badurl-'))
    const file = join(home, 'config.json')
    writeFileSync(
      file,
      JSON.stringify({
        current: 'typo',
        profiles: {typo: {baseUrl: 'htps//x', apiKey: 'pk_business_abc123456', businessId: 'b'}},
      }),
      {mode: 0o600},
    )
    const r = await run(['demand', 'list'], {MFG_HOME: home})
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain(
      `the baseUrl of profile "typo" in ${file} must be an http(s) URL such as https://api.example.com; got "htps//x". Correct it in the file, or add the profile again: mfg profile add typo --base-url URL`,
    )
    expect(r.stderr).not.toMatch(/Invalid URL|\(- -\)|\n\s+at /)
  })

  it('reads a hand-edited key, token and business id with the line break or spaces pasted along', async () => {
    const {mkdtempSync, writeFileSync} = await import('node:fs')
    const {tmpdir} = await import('node:os')
    const demo = sb.businesses[0]!
    const home = mkdtempSync(join(tmpdir(), 'mfg-pasted-'))
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        current: 'pasted',
        profiles: {
          pasted: {
            baseUrl: ` ${sb.url}/ `,
            apiKey: `${demo.apiKey}\n`,
            authToken: ` ${demo.authToken}\r\n`,
            businessId: `${demo.id} `,
          },
        },
      }),
      {mode: 0o600},
    )
    const status = await run(['auth', 'status', '--json'], {MFG_HOME: home})
    expect(status.exitCode, status.stdout + status.stderr).toBe(0)
    expect(json(status)).toMatchObject({businessId: demo.id, v1: {ok: true}, v2: {ok: true}})
    const list = await run(['demand', 'list', '--limit', '1', '--json'], {MFG_HOME: home})
    expect(list.exitCode, list.stderr).toBe(0)
    expect(json<unknown[]>(list)).toHaveLength(1)
  })

  it('says an https:// base URL reaches a plain http server, and that nothing was sent (a batch row is not "unknown")', async () => {
    const {mkdtempSync} = await import('node:fs')
    const {tmpdir} = await import('node:os')
    const demo = sb.businesses[0]!
    const env = {
      MFG_HOME: mkdtempSync(join(tmpdir(), 'mfg-https-')),
      MFG_BASE_URL: sb.url.replace('http://', 'https://'),
      MFG_API_KEY: demo.apiKey,
      MFG_BUSINESS_ID: demo.id,
    }
    const list = await run(['demand', 'list'], env)
    expect(list.exitCode).toBe(1)
    expect(list.stderr).toContain('check whether the base URL should start with http:// instead of https://')
    expect(list.stderr).toContain('the request was not sent')
    expect(list.stderr).not.toMatch(/SSL routines|openssl|may have been sent/)
    const create = await run(
      ['demand', 'create', '--technique', 'PCB', '--material', 'FR4', '--quantity', '1', '--email', 'b@example.com'],
      env,
    )
    expect(create.exitCode).toBe(1)
    expect(create.stdout).toContain('not created; run the same command again to retry')
    expect(create.stdout + create.stderr).not.toMatch(/outcome unknown|may have been sent/i)
  })

  it('warns when a misspelt "current" leaves commands on the embedded sandbox, naming the key', async () => {
    const {mkdtempSync, writeFileSync} = await import('node:fs')
    const {tmpdir} = await import('node:os')
    const home = mkdtempSync(join(tmpdir(), 'mfg-typo-'))
    const file = join(home, 'config.json')
    const shop = {baseUrl: sb.url, apiKey: sb.businesses[0]!.apiKey, businessId: sb.businesses[0]!.id}
    writeFileSync(file, JSON.stringify({curent: 'shop', profiles: {shop}}), {mode: 0o600})
    let r = await run(['profile', 'show', '--json'], {MFG_HOME: home})
    expect(json(r)).toMatchObject({name: 'local', embedded: true})
    r = await run(['auth', 'status'], {MFG_HOME: home})
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stderr).toContain(
      `Warning: ${file} sets no current profile but has an unknown key "curent" (did you mean "current"?): using the embedded sandbox (local).`,
    )
    // Spelt right, or with --profile, nothing is said.
    r = await run(['auth', 'status', '--profile', 'shop'], {MFG_HOME: home})
    expect(r.stderr).not.toContain('curent')
  })

  it('names a misspelt key of the profile in use (apikey), which is not read, instead of only "no API key"', async () => {
    const {mkdtempSync, writeFileSync} = await import('node:fs')
    const {tmpdir} = await import('node:os')
    const home = mkdtempSync(join(tmpdir(), 'mfg-keytypo-'))
    const file = join(home, 'config.json')
    const demo = sb.businesses[0]!
    const shop = {baseUrl: sb.url, apikey: demo.apiKey, businessId: demo.id, region: 'eu'}
    writeFileSync(file, JSON.stringify({current: 'shop', profiles: {shop, other: {baseUrl: sb.url, apiKee: 'x'}}}), {
      mode: 0o600,
    })
    const r = await run(['demand', 'list'], {MFG_HOME: home})
    expect(r.exitCode).toBe(3)
    expect(r.stderr).toContain(
      `Warning: ${file} has an unknown key "profiles.shop.apikey" (did you mean "profiles.shop.apiKey"?) in profile "shop", which mfg does not read: correct it in the file.`,
    )
    // A key no known one resembles (a later version's) and another profile's typo are not said.
    expect(r.stderr).not.toMatch(/region|apiKee/)
    expect(r.stderr).not.toContain(demo.apiKey)
  })

  it('keeps the stored values a re-add does not give, and says so', async () => {
    const demo = sb.businesses[0]!
    const home = join(sb.home, 'readd')
    const add = (args: string[]) => run(['profile', 'add', 'shop', ...args], {MFG_HOME: home})
    let r = await add([
      '--base-url',
      sb.url,
      '--api-key',
      'pk_business_old0000001',
      '--auth-token',
      demo.authToken,
      '--business-id',
      demo.id,
      '--currency',
      'EUR',
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stderr).not.toContain('Kept')
    r = await add(['--api-key', demo.apiKey, '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json(r)).toMatchObject({
      baseUrl: sb.url,
      businessId: demo.id,
      currency: 'EUR',
      authToken: `****${demo.authToken.slice(-4)}`,
    })
    const stored = JSON.parse(readFileSync(join(home, 'config.json'), 'utf8')).profiles.shop
    expect(stored).toEqual({
      baseUrl: sb.url,
      apiKey: demo.apiKey,
      authToken: demo.authToken,
      businessId: demo.id,
      currency: 'EUR',
    })
    r = await add(['--currency', ''])
    expect(r.stderr).toContain(
      'Kept its stored base URL, API key, auth token and business id; give the flag to change one (--auth-token "" or --currency "" removes it).',
    )
    expect(JSON.parse(readFileSync(join(home, 'config.json'), 'utf8')).profiles.shop.currency).toBeUndefined()
  })

  it('names the known profiles for an unknown one (exit 2)', async () => {
    const r = await run(['profile', 'use', 'nope'])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toMatch(/no profile named "nope".*other, shop, local/)
    for (const [typed, meant] of [
      ['locl', 'local'],
      ['shpo', 'shop'],
    ]) {
      const near = await run(['profile', 'use', typed!])
      expect(near.exitCode).toBe(2)
      expect(near.stderr).toContain(
        `no profile named "${typed}" (from mfg profile use); existing profiles: other, shop, local (embedded sandbox). Did you mean ${meant}?`,
      )
    }
  })

  it('removes only with --yes when there is no terminal', async () => {
    const local = await run(['profile', 'remove', 'local', '--yes'])
    expect(local.exitCode).toBe(2)
    expect(local.stderr).toContain('"local" is the embedded sandbox, not a stored profile: there is nothing to remove')
    let r = await run(['profile', 'remove', 'other'])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toMatch(/--yes/)
    r = await run(['profile', 'remove', 'other', '--yes', '--json'])
    expect(r.exitCode).toBe(0)
    expect(json(r)).toEqual({removed: 'other', wasCurrent: false})
    r = await run(['profile', 'list', '--json'])
    expect(json<{name: string}[]>(r).map((x) => x.name)).toEqual(['shop', 'local'])
    // The current profile: where commands go from now on is said, not left to be found out.
    r = await run(['profile', 'remove', 'shop', '--yes'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stderr).toContain(
      'Removed profile "shop", the current one: commands now use the embedded sandbox (local) until mfg profile use NAME.',
    )
    // A script is told too: under --json the note is not written.
    const demo = sb.businesses[0]!
    const add = ['profile', 'add', 'shop', '--base-url', sb.url, '--api-key', demo.apiKey, '--business-id', demo.id]
    expect((await run([...add, '--use'])).exitCode).toBe(0)
    r = await run(['profile', 'remove', 'shop', '--yes', '--json'])
    expect(json(r)).toEqual({removed: 'shop', wasCurrent: true})
  })

  it('never shows a full key or token', () => {
    const all = outputs.map((o) => o.stdout + o.stderr).join('\n')
    expect(outputs.length).toBeGreaterThan(10)
    for (const secret of secretsOf(sb)) expect(all).not.toContain(secret)
  })
})
