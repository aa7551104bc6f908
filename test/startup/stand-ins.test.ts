// The build replaces packages that the bundled @oclif/core and got load but mfg
// never exercises (or only for tracing) with small stand-ins (scripts/stand-ins, src/api/no-*.ts);
// they must do what is asked of them there, and fail loudly otherwise. It edits no
// dependency's code; where mfg turns off work of a dependency through its own switch,
// a test here fails when the switch stops doing that.
import {spawnSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import CacheableRequest, {CacheError} from '../../src/api/no-cache.js'

const require = createRequire(import.meta.url)
const repo = join(import.meta.dirname, '../..')
const load = (name: string): Record<string, (...args: unknown[]) => unknown> =>
  require(`../../scripts/stand-ins/${name}.cjs`) as Record<string, (...args: unknown[]) => unknown>

describe('build stand-ins', () => {
  it('minimatch: plugin names exactly, or with * and ? globs that stop at /', () => {
    const {minimatch} = load('minimatch')
    expect(minimatch!('@oclif/plugin-autocomplete', '@oclif/plugin-autocomplete')).toBe(true)
    expect(minimatch!('@oclif/plugin-autocomplete', '@oclif/plugin-*')).toBe(true)
    expect(minimatch!('@oclif/plugin-autocomplete', '@oclif/*')).toBe(true)
    expect(minimatch!('@oclif/plugin-autocomplete', '*')).toBe(false)
    expect(minimatch!('@oclif/core', '@oclif/plugin-*')).toBe(false)
    expect(minimatch!('got', 'go?')).toBe(true)
    expect(minimatch!('got.x', 'got')).toBe(false)
    expect(minimatch!('gotx', 'got.')).toBe(false)
  })

  it('ejs: fills <%= path %> and refuses other template syntax', () => {
    const {render} = load('ejs')
    expect(render!('<%= config.bin %> <%= command.id %>', {config: {bin: 'mfg'}, command: {id: 'demand list'}})).toBe(
      'mfg demand list',
    )
    expect(render!('<%= missing.path %>!', {})).toBe('!')
    expect(() => render!('<% for (;;) {} %>', {})).toThrow(/not built into mfg/)
    expect(() => render!('<%= a + b %>', {a: 1, b: 2})).toThrow(/not built into mfg/)
  })

  it('tinyglobby: a missing manifest is reported, not globbed', async () => {
    const {glob} = load('tinyglobby')
    await expect(glob!(['**/*.js'], {cwd: '.'}) as Promise<unknown>).rejects.toThrow(/oclif\.manifest\.json is missing/)
  })

  it('debug: DEBUG patterns (commas or spaces, * and -exclusions) turn namespaces on; lines go to stderr', () => {
    const createDebug = load('debug') as unknown as ((ns: string) => ((...args: unknown[]) => void) & {
      enabled: boolean
      extend(sub: string): {namespace: string; enabled: boolean}
    }) & {enabled(ns: string): boolean}
    const saved = process.env.DEBUG
    const write = process.stderr.write.bind(process.stderr)
    let written = ''
    process.stderr.write = ((chunk: string) => {
      written += chunk
      return true
    }) as typeof process.stderr.write
    try {
      process.env.DEBUG = 'oclif:*, -oclif:config:mfg other'
      expect(createDebug.enabled('oclif:config')).toBe(true)
      expect(createDebug.enabled('oclif:config:mfg')).toBe(false)
      expect(createDebug.enabled('other')).toBe(true)
      expect(createDebug.enabled('oclifx')).toBe(false)
      const on = createDebug('oclif:config')
      const child = on.extend('plugin')
      expect([child.namespace, child.enabled]).toEqual(['oclif:config:plugin', true])
      on('loaded %d plugins from %s', 2, 'here')
      // The command line oclif traces: secrets masked, as util.format lays an array out and as --flag=value.
      on('argv: %O', ['webhook', 'create', '--secret', 'DBGSECRET5555', '--api-key=pk_business_abcdefghijkl'])
      createDebug('oclif:config:mfg')('never shown')
      delete process.env.DEBUG
      const off = createDebug('oclif:config')
      expect(off.enabled).toBe(false)
      off('never shown either')
    } finally {
      process.stderr.write = write
      if (saved === undefined) delete process.env.DEBUG
      else process.env.DEBUG = saved
    }
    expect(written).toMatch(/^oclif:config loaded 2 plugins from here\noclif:config argv: /)
    expect(written).toMatch(/'--secret',\s+'\*\*\*\*5555'/)
    expect(written).toContain("'--api-key=****ijkl'")
    expect(written).not.toMatch(/DBGSECRET|abcdefgh/)
  })

  it('cli-spinners: the names oclif asks for', () => {
    const spinners = load('cli-spinners') as unknown as Record<string, {interval: number; frames: string[]}>
    for (const name of ['line', 'dots2']) expect(spinners[name]!.frames.length).toBeGreaterThan(1)
  })
})

describe("got's stand-in", () => {
  it('response cache: constructing it fails with a clear message; its error class exists for instanceof', () => {
    expect(() => new CacheableRequest()).toThrow(/caching is not built into mfg/)
    expect(new CacheError('x')).toBeInstanceOf(Error)
  })
})

describe("oclif's engine check", () => {
  // bin/run.js checks mfg's own engines and sets OCLIF_DISABLE_ENGINE_WARNING, so that
  // @oclif/core does not load semver at load time to check its own (docs/benchmarks.md).
  const semverLoaded = (env: NodeJS.ProcessEnv): boolean => {
    const script = [
      "require('@oclif/core')",
      'const loaded = Object.keys(require.cache).some((f) => /[\\\\/]node_modules[\\\\/]semver[\\\\/]/.test(f))',
      'process.stdout.write(String(loaded))',
    ].join(';')
    const r = spawnSync(process.execPath, ['-e', script], {cwd: repo, env, encoding: 'utf8'})
    expect(r.status, r.stderr).toBe(0)
    return r.stdout === 'true'
  }
  const env = {...process.env}
  delete env.OCLIF_DISABLE_ENGINE_WARNING

  it('loads semver at load time unless OCLIF_DISABLE_ENGINE_WARNING is set, and not when it is', () => {
    expect(semverLoaded(env)).toBe(true)
    expect(semverLoaded({...env, OCLIF_DISABLE_ENGINE_WARNING: '1'})).toBe(false)
  })

  it('bin/run.js sets the switch for oclif, leaving a value the user set', () => {
    const text = readFileSync(join(repo, 'bin/run.js'), 'utf8')
    expect(text).toContain("process.env.OCLIF_DISABLE_ENGINE_WARNING ??= '1'")
  })
})
