// What the built CLI loads to start: --version and every help page must load
// nothing but bin/run.js and the help renderer (no HTTP client, prompts,
// tables, sandbox, MCP or mesh code, and not oclif), and a command loads its
// heavy modules only when it runs. Nothing here is timed; bench/startup.ts
// measures the speed.
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {root, scratch, traced} from './traced.js'

const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, {flags: Record<string, unknown>}>
}
const FAST = ['bin/run.js', 'dist/engines.js', 'dist/help/fast.js']

describe('start-up: what the built CLI loads', () => {
  it('--version loads bin/run.js and the Node.js check alone', () => {
    const r = traced(['--version'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^mfg\/\d+\.\d+\.\d+ /)
    expect(r.loaded.sort()).toEqual(['bin/run.js', 'dist/engines.js'])
  })

  it.each([[[]], [['--help']], [['help']], [['demand']], [['help', 'demand', 'list']], [['demand', 'list', '-h']]])(
    'help (%j) loads only the help renderer',
    (args) => {
      const r = traced(args)
      expect(r.code).toBe(0)
      expect(r.stdout).toContain('USAGE')
      expect(r.loaded.sort()).toEqual(FAST)
    },
  )

  it('every command answers --help from the manifest, loading only the help renderer', () => {
    const ids = Object.keys(manifest.commands)
    expect(ids.length).toBeGreaterThan(30)
    for (const id of ids) {
      const r = traced([...id.split(':'), '--help'])
      expect(r.code, id).toBe(0)
      expect(r.stdout, id).toContain(`$ mfg ${id.replaceAll(':', ' ')}`)
      for (const flag of Object.keys(manifest.commands[id]!.flags)) {
        expect(r.stdout, `${id} --${flag}`).toMatch(new RegExp(`--(\\[no-\\])?${flag}\\b`))
      }
      expect(r.loaded.sort(), id).toEqual(FAST)
    }
  })

  it('an unknown command is answered without oclif: the closest command named, exit 2', () => {
    const r = traced(['demand', 'lst', '--all'])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr.trim()).toBe(
      'Error: mfg has no command "demand lst". Did you mean "demand list"? Run `mfg help` for the list.',
    )
    expect(r.loaded.sort()).toEqual(FAST)
    const json = traced(['prise', '--json'])
    expect(json.code).toBe(2)
    expect(JSON.parse(json.stderr)).toEqual({
      error: {
        code: 'unknown_command',
        message: 'mfg has no command "prise". Did you mean "price"? Run `mfg help` for the list.',
      },
    })
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

  it('`mfg autocomplete` still runs the completion plugin, which bin/run.js registers for that command alone', () => {
    const r = traced(['autocomplete', 'bash'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('mfg autocomplete')
    expect(r.loaded.some((l) => l.includes('node_modules/@oclif/plugin-autocomplete/lib/commands/'))).toBe(true)
    const hidden = traced(['autocomplete:create'])
    expect(hidden.code, hidden.stderr).toBe(0)
  })

  it('the embedded sandbox is loaded from node_modules only by a command that needs it', () => {
    const r = traced(['demand', 'list', '--json'])
    expect(r.code).toBe(0)
    expect(r.builtins).toContain('sqlite')
    expect(r.loaded.some((l) => l.includes('node_modules/fastify/'))).toBe(true)
    // No native module: nothing the sandbox loads is a compiled addon.
    expect(r.loaded.filter((l) => l.endsWith('.node'))).toEqual([])
  })
})
