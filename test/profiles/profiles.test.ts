import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {ProfileError} from '../../src/profiles/errors.js'
import {mfgPaths} from '../../src/profiles/paths.js'
import {LOCAL_PROFILE, resolveProfile} from '../../src/profiles/resolve.js'
import {ProfileStore, maskedProfile} from '../../src/profiles/store.js'

let home: string
let env: NodeJS.ProcessEnv
beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'mfg-profiles-'))
  env = {MFG_HOME: home}
})
afterEach(() => {
  fs.rmSync(home, {recursive: true, force: true})
})

const mode = (p: string) => fs.statSync(p).mode & 0o777
const KEY = 'pk_business_abc123'

function thrown(fn: () => unknown): ProfileError {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(ProfileError)
    return error as ProfileError
  }
  throw new Error('expected a ProfileError')
}

describe('mfgPaths', () => {
  it('puts everything under MFG_HOME when set', () => {
    expect(mfgPaths({MFG_HOME: '/tmp/h'})).toEqual({
      configDir: '/tmp/h',
      dataDir: '/tmp/h',
      sandboxDir: '/tmp/h/sandbox',
      journalDir: '/tmp/h/journals',
    })
  })

  it('follows XDG on Linux, ~/Library on macOS and APPDATA/LOCALAPPDATA on Windows', () => {
    expect(mfgPaths({HOME: '/home/u'}, 'linux')).toMatchObject({
      configDir: '/home/u/.config/mfg',
      dataDir: '/home/u/.local/share/mfg',
    })
    expect(mfgPaths({HOME: '/home/u', XDG_CONFIG_HOME: '/x/c', XDG_DATA_HOME: '/x/d'}, 'linux')).toEqual({
      configDir: '/x/c/mfg',
      dataDir: '/x/d/mfg',
      sandboxDir: '/x/d/mfg/sandbox',
      journalDir: '/x/d/mfg/journals',
    })
    expect(mfgPaths({HOME: '/Users/u'}, 'darwin')).toMatchObject({
      configDir: '/Users/u/Library/Preferences/mfg',
      dataDir: '/Users/u/Library/Application Support/mfg',
    })
    expect(
      mfgPaths({APPDATA: 'C:\\Users\\u\\AppData\\Roaming', LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local'}, 'win32'),
    ).toMatchObject({
      configDir: 'C:\\Users\\u\\AppData\\Roaming\\mfg',
      dataDir: 'C:\\Users\\u\\AppData\\Local\\mfg',
      journalDir: 'C:\\Users\\u\\AppData\\Local\\mfg\\journals',
    })
  })
})

describe('ProfileStore', () => {
  it('writes config.json with mode 0600 in a 0700 directory, and keeps 0600 on every write', () => {
    env = {MFG_HOME: path.join(home, 'nested')}
    const store = new ProfileStore(env)
    expect(fs.existsSync(store.path)).toBe(false)
    expect(store.list()).toEqual([])
    expect(fs.existsSync(path.join(home, 'nested'))).toBe(false) // reading creates nothing
    store.add({name: 'prod', baseUrl: 'https://api.example.com/', apiKey: KEY})
    expect(store.path).toBe(path.join(home, 'nested', 'config.json'))
    expect(mode(store.path)).toBe(0o600)
    expect(mode(path.dirname(store.path))).toBe(0o700)
    fs.chmodSync(store.path, 0o644)
    store.use('prod')
    expect(mode(store.path)).toBe(0o600)
    store.add({name: 'dev', baseUrl: 'http://localhost:3000'})
    expect(mode(store.path)).toBe(0o600)
  })

  it('stores the pk_business_ part of a pasted key and a normalised base URL', () => {
    const store = new ProfileStore(env)
    store.add({
      name: 'prod',
      baseUrl: '  https://api.example.com/v//  ',
      apiKey: `Key: ${KEY} (live)`,
      currency: 'eur',
      businessId: ' b1 ',
    })
    expect(store.get('prod')).toEqual({
      name: 'prod',
      baseUrl: 'https://api.example.com/v',
      apiKey: KEY,
      currency: 'EUR',
      businessId: 'b1',
    })
    const onDisk = JSON.parse(fs.readFileSync(store.path, 'utf8')) as {profiles: Record<string, {apiKey: string}>}
    expect(onDisk.profiles.prod?.apiKey).toBe(KEY)
  })

  it('refuses a base URL that is not http(s), naming --base-url', () => {
    const store = new ProfileStore(env)
    for (const bad of ['api.example.com', 'ftp://x.example.com', 'https://u:p@x.example.com']) {
      const err = thrown(() => store.add({name: 'p', baseUrl: bad}))
      expect(err.message).toContain('--base-url')
      expect(err.exitCode).toBe(2)
    }
    expect(store.list()).toEqual([])
  })

  it('refuses the reserved name local, bad names and unknown currencies', () => {
    const store = new ProfileStore(env)
    expect(thrown(() => store.add({name: LOCAL_PROFILE, baseUrl: 'https://x.example.com'})).message).toMatch(/reserved/)
    expect(thrown(() => store.add({name: 'has space', baseUrl: 'https://x.example.com'})).code).toBe('invalid_name')
    expect(thrown(() => store.add({name: 'p', baseUrl: 'https://x.example.com', currency: 'XYZ'})).message).toContain(
      '--currency',
    )
  })

  it('replaces a profile of the same name, lists sorted, removes and clears current', () => {
    const store = new ProfileStore(env)
    store.add({name: 'zeta', baseUrl: 'https://z.example.com'})
    store.add({name: 'alpha', baseUrl: 'https://a.example.com', apiKey: KEY})
    store.add({name: 'alpha', baseUrl: 'https://a2.example.com'})
    expect(store.list().map((p) => [p.name, p.baseUrl, p.apiKey])).toEqual([
      ['alpha', 'https://a2.example.com', undefined],
      ['zeta', 'https://z.example.com', undefined],
    ])
    store.use('alpha')
    expect(new ProfileStore(env).current()).toBe('alpha')
    expect(store.remove('alpha')).toBe(true)
    expect(store.remove('alpha')).toBe(false)
    expect(store.current()).toBeUndefined()
    expect(store.get('constructor')).toBeUndefined()
  })

  it('use() of an unknown profile lists the existing names', () => {
    const store = new ProfileStore(env)
    store.add({name: 'prod', baseUrl: 'https://x.example.com'})
    const err = thrown(() => store.use('nope'))
    expect(err.message).toContain('"nope"')
    expect(err.message).toContain('prod')
    expect(err.message).toContain('local')
  })

  it('a broken config file gives a clear error naming the file', () => {
    const store = new ProfileStore(env)
    fs.writeFileSync(store.path, '{"profiles": {', {mode: 0o600})
    const err = thrown(() => store.list())
    expect(err.message).toContain(store.path)
    expect(err.message).toMatch(/not valid JSON/)
    expect(err.exitCode).toBe(2)

    fs.writeFileSync(store.path, JSON.stringify({profiles: {prod: {apiKey: 5}}}))
    const err2 = thrown(() => new ProfileStore(env).list())
    expect(err2.message).toContain(store.path)
    expect(err2.message).toContain('profiles.prod')
    expect(err2.exitCode).toBe(2)
  })

  it('reads a config file saved with a byte-order mark (Windows Notepad), and a write keeps its profiles', () => {
    const store = new ProfileStore(env)
    const data = {current: 'shop', profiles: {shop: {baseUrl: 'https://api.example.com', apiKey: KEY}}}
    fs.writeFileSync(store.path, `\uFEFF${JSON.stringify(data, null, 2)}`, {mode: 0o600})
    expect(store.current()).toBe('shop')
    expect(store.list().map((p) => p.name)).toEqual(['shop'])
    expect(resolveProfile({env})).toMatchObject({name: 'shop', apiKey: KEY})
    store.add({name: 'other', baseUrl: 'https://dev.example.com', apiKey: KEY})
    expect(new ProfileStore(env).list().map((p) => p.name)).toEqual(['other', 'shop'])
  })

  it('keeps keys it does not know, at the top and in a profile, for later versions', () => {
    const store = new ProfileStore(env)
    const later = {current: 'a', later: {x: 1}, profiles: {a: {baseUrl: 'https://x.example.com', region: 'eu'}}}
    fs.writeFileSync(store.path, JSON.stringify(later), {mode: 0o600})
    expect(store.list()).toEqual([{name: 'a', baseUrl: 'https://x.example.com'}])
    store.add({name: 'b', baseUrl: 'https://y.example.com'})
    const onDisk = JSON.parse(fs.readFileSync(store.path, 'utf8')) as typeof later
    expect(onDisk.later).toEqual({x: 1})
    expect(onDisk.profiles.a).toEqual({baseUrl: 'https://x.example.com', region: 'eu'})
    expect(onDisk.current).toBe('a')
  })

  it('maskedProfile hides the key and token', () => {
    const shown = maskedProfile({
      name: 'p',
      baseUrl: 'https://x',
      apiKey: 'pk_business_abcdef123456',
      authToken: 'token-secret-9999',
    })
    expect(shown.apiKey).toBe('****3456')
    expect(shown.authToken).toBe('****9999')
    expect(shown.baseUrl).toBe('https://x')
  })
})

describe('resolveProfile', () => {
  function seeded() {
    const store = new ProfileStore(env)
    store.add({
      name: 'prod',
      baseUrl: 'https://prod.example.com',
      apiKey: 'pk_business_prod1',
      authToken: 'tp',
      businessId: 'bp',
    })
    store.add({name: 'stage', baseUrl: 'https://stage.example.com', apiKey: 'pk_business_stage1'})
    return store
  }

  it('falls back to the embedded local profile when nothing is chosen', () => {
    const r = resolveProfile({env})
    expect(r).toMatchObject({name: 'local', embedded: true, overrides: [], source: 'default'})
  })

  it('precedence: --profile, then MFG_PROFILE, then the current profile', () => {
    const store = seeded()
    store.use('stage')
    expect(resolveProfile({env, store}).name).toBe('stage')
    expect(resolveProfile({env: {...env, MFG_PROFILE: 'prod'}, store})).toMatchObject({
      name: 'prod',
      source: 'env',
      embedded: false,
    })
    expect(resolveProfile({flag: 'stage', env: {...env, MFG_PROFILE: 'prod'}, store})).toMatchObject({
      name: 'stage',
      source: 'flag',
    })
    expect(resolveProfile({flag: 'local', env: {...env, MFG_PROFILE: 'prod'}, store})).toMatchObject({
      name: 'local',
      embedded: true,
    })
  })

  it('an unknown profile name is a ProfileError (exit 2) listing the existing names', () => {
    const store = seeded()
    const err = thrown(() => resolveProfile({flag: 'prdo', env, store}))
    expect(err.exitCode).toBe(2)
    expect(err.message).toContain('--profile')
    expect(err.message).toMatch(/prod, stage, local/)
    expect(thrown(() => resolveProfile({env: {...env, MFG_PROFILE: 'gone'}, store})).message).toContain('MFG_PROFILE')
  })

  it('applies env overrides over the chosen profile and records their names', () => {
    const store = seeded()
    const r = resolveProfile({
      flag: 'prod',
      env: {
        ...env,
        MFG_API_KEY: `Key: pk_business_override9 (test)`,
        MFG_AUTH_TOKEN: 'tok2',
        MFG_BUSINESS_ID: 'b2',
        MFG_BASE_URL: 'http://127.0.0.1:9/',
      },
      store,
    })
    expect(r).toMatchObject({
      name: 'prod',
      embedded: false,
      baseUrl: 'http://127.0.0.1:9',
      apiKey: 'pk_business_override9',
      authToken: 'tok2',
      businessId: 'b2',
    })
    expect(r.overrides.sort()).toEqual(['MFG_API_KEY', 'MFG_AUTH_TOKEN', 'MFG_BASE_URL', 'MFG_BUSINESS_ID'])
    expect(store.get('prod')?.apiKey).toBe('pk_business_prod1') // overrides are not stored
  })

  it('MFG_BASE_URL with no profile chosen gives a non-embedded profile named env', () => {
    const r = resolveProfile({env: {...env, MFG_BASE_URL: 'https://api.example.com/', MFG_API_KEY: KEY}})
    expect(r).toMatchObject({name: 'env', embedded: false, baseUrl: 'https://api.example.com', apiKey: KEY})
    expect(r.overrides).toEqual(['MFG_BASE_URL', 'MFG_API_KEY'])
    expect(thrown(() => resolveProfile({env: {...env, MFG_BASE_URL: 'nonsense'}})).message).toContain('MFG_BASE_URL')
  })

  it('the embedded profile takes key, token and business overrides but never MFG_BASE_URL', () => {
    const r = resolveProfile({
      flag: 'local',
      env: {...env, MFG_API_KEY: KEY, MFG_BUSINESS_ID: 'b9', MFG_BASE_URL: 'https://x.example.com'},
    })
    expect(r).toMatchObject({name: 'local', embedded: true, baseUrl: '', apiKey: KEY, businessId: 'b9'})
    expect(r.overrides).toEqual(['MFG_API_KEY', 'MFG_BUSINESS_ID'])
    expect(r.ignored).toEqual(['MFG_BASE_URL'])
    const d = resolveProfile({env: {...env, MFG_AUTH_TOKEN: 'tok'}})
    expect(d).toMatchObject({
      name: 'local',
      embedded: true,
      authToken: 'tok',
      overrides: ['MFG_AUTH_TOKEN'],
      source: 'default',
    })
  })
})
