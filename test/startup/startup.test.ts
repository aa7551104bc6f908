// What the built CLI loads to start: --version nothing but bin/run.js and the
// Node.js check; help goes through oclif and its help class and loads no command
// (no HTTP client, prompts, tables, sandbox, MCP or mesh code); a command loads its
// heavy modules only when it runs. Nothing here is timed; bench/startup.ts
// measures the speed.
import {mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {root, scratch, traced} from './traced.js'

const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {version: string}).version

const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, {flags: Record<string, {hidden?: boolean}>}>
}

/**
 * What a help page loaded beyond oclif's bundle, the help class, the `help` command and
 * the plugins' entries (which oclif resolves to find their roots): nothing, it should be.
 */
function helpOnly(loaded: string[]): string[] {
  return loaded.filter(
    (file) =>
      (file.startsWith('dist/commands/') && file !== 'dist/commands/help.js') ||
      /node_modules\/(?!@oclif\/plugin-)/.test(file),
  )
}

describe('start-up: what the built CLI loads', () => {
  it('--version loads bin/run.js and the Node.js check alone', () => {
    const r = traced(['--version'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^mfg\/\d+\.\d+\.\d+ /)
    expect(r.loaded.sort()).toEqual(['bin/run.js', 'dist/engines.js'])
  })

  it.each([
    [[]],
    [['--help']],
    [['help']],
    [['demand']],
    [['help', 'demand', 'list']],
    [['demand', 'list', '-h']],
    [['help', 'environment']],
  ])('help (%j) goes through oclif to the help class, loading no command', (args) => {
    const r = traced(args)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/USAGE|ENVIRONMENT|CONNECTION/)
    expect(r.loaded).toContain('dist/main.js')
    expect(r.loaded).toContain('dist/help/index.js')
    expect(helpOnly(r.loaded)).toEqual([])
  })

  it('every command answers --help through the help class, loading no command', () => {
    const ids = Object.keys(manifest.commands)
    expect(ids.length).toBeGreaterThan(30)
    for (const id of ids.filter((_, i) => i % 8 === 0)) {
      const r = traced([...id.split(':'), '--help'])
      expect(r.code, id).toBe(0)
      expect(r.stdout, id).toContain(`$ mfg ${id.replaceAll(':', ' ')}`)
      for (const [flag, about] of Object.entries(manifest.commands[id]!.flags)) {
        // A hidden flag (--jq where it is refused) is not listed.
        if (!about.hidden) expect(r.stdout, `${id} --${flag}`).toMatch(new RegExp(`--(\\[no-\\])?${flag}\\b`))
      }
      expect(helpOnly(r.loaded), id).toEqual([])
    }
  })

  it("an unknown command goes to oclif's command_not_found hook (@oclif/plugin-not-found): exit 127", () => {
    const r = traced(['demand', 'lst', '--all'])
    expect(r.code).toBe(127)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain('demand lst is not a mfg command.')
    // oclif wraps its error lines (each under its ›).
    expect(r.stderr.replace(/\s*\n\s*›\s+/g, ' ')).toContain(
      'Did you mean mfg demand list or mfg demand get? Run mfg help demand for a list of available commands.',
    )
    expect(r.loaded).toContain('node_modules/@oclif/plugin-not-found/lib/utils.js')
  })

  it('an unknown command close to a help topic names the command that shows it (mfg help environment)', () => {
    const r = traced(['enviroment'])
    expect(r.code).toBe(127)
    expect(r.stderr.replace(/\s*\n\s*›\s+/g, ' ')).toContain('Did you mean mfg help environment? Run mfg help')
  })

  it('help for an unknown command or topic names the closest ones, exit 2', () => {
    for (const args of [
      ['help', 'demand', 'lst'],
      ['demand', 'lst', '--help'],
    ]) {
      const r = traced(args)
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stdout).toBe('')
      expect(r.stderr).toContain('mfg has no command or help topic "demand lst".')
      expect(r.stderr).toMatch(/Did you mean:\n.*mfg demand list\n/)
    }
    const r = traced(['help', 'nosuch'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('mfg has no command or help topic "nosuch".')
    expect(r.stderr).not.toContain('Did you mean')
    const flag = traced(['help', '--bogus'])
    expect(flag.code).toBe(2)
    expect(flag.stderr).toContain('Nonexistent flag: --bogus')
    // No page of oclif's built-in Help after it: mfg's pages come from its help class only.
    expect(flag.stderr + flag.stdout).not.toContain('USAGE')
    const guide = traced(['help', 'enviroment'])
    expect(guide.code).toBe(2)
    expect(guide.stderr).toMatch(/Did you mean:\n.*mfg help environment\n/)
  })

  it('a command loads its heavy modules only when it runs: profile list loads no HTTP client, sandbox or mesh', () => {
    const r = traced(['profile', 'list', '--json'])
    expect(r.code).toBe(0)
    expect(r.loaded).toContain('dist/commands/profile/list.js')
    const packages = r.loaded.filter((l) => l.includes('node_modules/'))
    for (const heavy of ['fastify', '@fastify/multipart']) {
      expect(
        packages.some((p) => p.includes(`node_modules/${heavy}/`)),
        heavy,
      ).toBe(false)
    }
    // The sandbox's SQLite is Node's own node:sqlite, loaded by the store on first use.
    expect(r.builtins).toContain('internal/modules/esm/loader')
    expect(r.builtins).not.toContain('sqlite')
  })

  it.each(['development', 'test'])(
    'with NODE_ENV=%s the built CLI still runs its bundle, loading neither tsx nor the TypeScript compiler',
    (nodeEnv) => {
      const r = traced(['profile', 'list', '--json'], {NODE_ENV: nodeEnv})
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr).toBe('')
      expect(r.loaded).toContain('dist/commands/profile/list.js')
      expect(r.loaded.filter((l) => /node_modules\/(tsx|ts-node|typescript)\//.test(l))).toEqual([])
    },
  )

  it("a JSON request does not load Node's fetch implementation (undici), which only a multipart upload or webhook forwarding needs", () => {
    const csv = join(scratch, 'one.csv')
    writeFileSync(csv, 'technique,material,quantity\n3D_PRINTING,PLA,2\n')
    const r = traced(['demand', 'create', '--file', csv, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect((JSON.parse(r.stdout) as {results: unknown[]}).results).toHaveLength(1)
    // The list is real: it holds the modules every run loads.
    expect(r.builtins).toContain('internal/modules/esm/loader')
    expect(r.builtins.filter((b) => b.includes('undici'))).toEqual([])
  })

  it("imports of Node's modules read only the exports they name (no ES facade reading every export)", () => {
    // node:util's TextDecoder (worker_threads), node:process's report, node:crypto's
    // webcrypto: what reading every export loads, and no command here uses.
    const unread = ['worker_threads', 'internal/process/report', 'internal/crypto/webcrypto']
    const csv = join(scratch, 'one-dry.csv')
    writeFileSync(csv, 'technique,material,quantity\n3D_PRINTING,PLA,2\n')
    const runs = [
      ['demand', 'list', '--help'],
      ['profile', 'list'],
      ['demand', 'create', '--file', csv, '--dry-run'],
    ]
    for (const args of runs) {
      const r = traced(args)
      expect(r.code, r.stderr).toBe(0)
      // The lists are real: node:util and node:process are loaded, and the batch
      // command (which hashes its input) loads node:crypto.
      expect(r.builtins, args.join(' ')).toEqual(expect.arrayContaining(['util', 'internal/process/per_thread']))
      if (args[1] === 'create') expect(r.builtins).toContain('crypto')
      expect(
        r.builtins.filter((b) => unread.includes(b)),
        args.join(' '),
      ).toEqual([])
    }
  })

  it("keeps Node's compile cache in oclif's cache directory: under MFG_HOME, or MFG_CACHE_DIR when set", () => {
    const home = join(scratch, 'compile-home')
    // Without the test run's shared cache (vitest.config.ts), which Node would use instead.
    const r = traced(['profile', 'list', '--json'], {MFG_HOME: home, NODE_COMPILE_CACHE: undefined})
    expect(r.code, r.stderr).toBe(0)
    const compile = join(home, 'oclif', 'cache', 'compile')
    expect(readdirSync(compile)).toEqual([version])
    expect(readdirSync(join(compile, version)).length).toBeGreaterThan(0)
    // After an upgrade the first run removes the other releases' caches (and the layout before releases had one);
    // later runs keep the current one.
    mkdirSync(join(compile, '0.0.1', 'v8-hash'), {recursive: true})
    writeFileSync(join(compile, '0.0.1', 'v8-hash', 'entry'), 'old')
    mkdirSync(join(compile, 'a1b2c3d4'), {recursive: true})
    rmSync(join(compile, version), {recursive: true})
    expect(traced(['profile', 'list', '--json'], {MFG_HOME: home, NODE_COMPILE_CACHE: undefined}).code).toBe(0)
    expect(readdirSync(compile)).toEqual([version])
    mkdirSync(join(compile, '0.0.2'))
    expect(traced(['profile', 'list', '--json'], {MFG_HOME: home, NODE_COMPILE_CACHE: undefined}).code).toBe(0)
    expect(readdirSync(compile).sort()).toEqual(['0.0.2', version].sort())
    const cache = join(scratch, 'own-cache')
    const own = traced(['profile', 'list', '--json'], {
      MFG_HOME: home,
      MFG_CACHE_DIR: cache,
      NODE_COMPILE_CACHE: undefined,
    })
    expect(own.code, own.stderr).toBe(0)
    expect(readdirSync(join(cache, 'compile')).length).toBeGreaterThan(0)
  })

  it('`mfg autocomplete` runs the completion plugin, listed in oclif.plugins', () => {
    const r = traced(['autocomplete', 'bash'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('mfg autocomplete')
    expect(r.loaded.some((l) => l.includes('node_modules/@oclif/plugin-autocomplete/lib/commands/'))).toBe(true)
    const hidden = traced(['autocomplete:create'])
    expect(hidden.code, hidden.stderr).toBe(0)
  })

  it('the embedded sandbox is loaded only by a command that needs it, from the bundle', () => {
    const r = traced(['demand', 'list', '--json'])
    expect(r.code).toBe(0)
    expect(r.builtins).toContain('sqlite')
    // fastify is bundled into the sandbox's chunk (bench/startup's figure): nothing from node_modules.
    expect(r.loaded.filter((l) => l.includes('node_modules/fastify/') || l.includes('node_modules/@fastify/'))).toEqual(
      [],
    )
    expect(r.loaded.some((l) => /^dist\/chunks\/sandbox-/.test(l))).toBe(true)
    // No native module: nothing the sandbox loads is a compiled addon.
    expect(r.loaded.filter((l) => l.endsWith('.node'))).toEqual([])
  })
})
