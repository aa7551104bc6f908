// The direct path (src/direct): `price measure` in plain form runs without
// loading oclif, and prints exactly what the oclif command prints; every other
// form, and any failure, is left to oclif, which answers as it always has.
// The built CLI (under trace-loads.mjs) is held to the oclif command run
// in-process (test/helpers/cli.ts).
import {spawnSync} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {COMMANDS, parsePlain} from '../../src/direct/index.js'
import {DIRECT_COMMANDS, type ManifestCommand} from '../../src/help/fast.js'
import {runCli} from '../helpers/cli.js'
import {root, scratch, traced} from './traced.js'
import {meshPath} from '../helpers/meshes.js'

const mesh = meshPath
const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, ManifestCommand>
}
const measureManifest = manifest.commands['price:measure']!

/** Whether a run loaded oclif: its entry, or any file of the bundle that holds @oclif/core. */
function loadedOclif(loaded: string[]): boolean {
  return loaded.some(
    (file) =>
      file === 'dist/main.js' ||
      (file.startsWith('dist/') && readFileSync(join(root, file), 'utf8').includes('@oclif/core')),
  )
}

async function bothWays(argv: string[], env: Record<string, string> = {}) {
  const built = traced(['price', 'measure', ...argv], env)
  const reference = await runCli(['price', 'measure', ...argv], {env})
  return {built, reference}
}

describe('direct commands', () => {
  it('src/help/fast.ts and src/direct list the same commands, each in the manifest', () => {
    expect([...DIRECT_COMMANDS].sort()).toEqual(Object.keys(COMMANDS).sort())
    for (const id of DIRECT_COMMANDS) expect(manifest.commands[id], id).toBeDefined()
  })

  it('parses the plain forms as oclif does: values converted, defaults from the manifest', async () => {
    const {values} = await COMMANDS['price:measure']!()
    expect(parsePlain(['part.stl'], measureManifest, values, {})).toEqual({
      args: {file: 'part.stl'},
      flags: {'layer-height': 0.3, 'first-layer-height': 0.35, density: 1.24, unit: 'mm'},
    })
    expect(
      parsePlain(
        ['--unit=cm', 'part.stl', '--layer-height', '0.2', '--no-hull', '--json', '--profile', 'shop'],
        measureManifest,
        values,
        {},
      ),
    ).toEqual({
      args: {file: 'part.stl'},
      flags: {
        unit: 'cm',
        'layer-height': 0.2,
        'no-hull': true,
        json: true,
        profile: 'shop',
        'first-layer-height': 0.35,
        density: 1.24,
      },
    })
  })

  it.each([
    [['part.stl', '--bogus']],
    [['part.stl', '-x']],
    [['part.stl', '--unit', 'mm', '--unit', 'cm']],
    [['part.stl', '--unit', 'ft']],
    [['part.stl', '--layer-height', '0']],
    [['part.stl', '--layer-height=abc']],
    [['part.stl', '--layer-height', '-1']],
    [['part.stl', '--density']],
    [['part.stl', '--no-hull=true']],
    [['part.stl', 'other.stl']],
    [['--', 'part.stl']],
    [['--json']],
    [[]],
  ])('leaves %j to oclif', async (argv) => {
    const {values} = await COMMANDS['price:measure']!()
    expect(parsePlain(argv, measureManifest, values, {})).toBeUndefined()
  })

  it('leaves the command to oclif when a variable changes what oclif does', async () => {
    const {values} = await COMMANDS['price:measure']!()
    for (const name of ['MFG_CONTENT_TYPE', 'MFG_DEBUG', 'DEBUG']) {
      expect(parsePlain(['part.stl'], measureManifest, values, {[name]: '1'}), name).toBeUndefined()
    }
    expect(parsePlain(['part.stl'], measureManifest, values, {OTHER: '1'})).toBeDefined()
  })

  it.each([
    [[mesh('cube20.stl'), '--json']],
    [[mesh('cube20.stl'), '--no-hull', '--json']],
    [['--json', mesh('logo-prusa.3mf'), '--unit=cm', '--layer-height', '0.2']],
    [
      [
        mesh('open-box.stl'),
        '--density=1.27',
        '--first-layer-height',
        '0.25',
        '--no-color',
        '--profile',
        'x',
        '--json',
      ],
    ],
    [[mesh('CSG.stl')]],
    [[mesh('edge-touch.stl'), '--no-hull']],
  ])('built CLI runs `price measure %j` without oclif, printing what the oclif command prints', async (argv) => {
    const {built, reference} = await bothWays(argv)
    expect(reference.exitCode, reference.stderr).toBe(0)
    expect(built.code, built.stderr).toBe(0)
    expect(built.stdout).toBe(reference.stdout)
    expect(built.stderr).toBe(reference.stderr)
    expect(built.loaded).toContain('dist/direct/index.js')
    expect(loadedOclif(built.loaded)).toBe(false)
  })

  it('piped JSON of an STL loads neither colour support (node:tty) nor node:zlib (3MF only)', () => {
    const stl = traced(['price', 'measure', mesh('cube20.stl'), '--json'])
    expect(stl.code, stl.stderr).toBe(0)
    expect(stl.builtins).toContain('fs')
    expect(stl.builtins).not.toContain('tty')
    expect(stl.builtins).not.toContain('zlib')
    const threemf = traced(['price', 'measure', mesh('logo-prusa.3mf')])
    expect(threemf.code, threemf.stderr).toBe(0)
    expect(threemf.builtins).toContain('zlib')
    // Text output colours on a terminal: chalk is loaded, with node:tty.
    expect(threemf.builtins).toContain('tty')
  })

  it('ends quietly, exit 0, when the reader of its output has gone, as the oclif command does', () => {
    const run = (env: string) =>
      spawnSync(
        'bash',
        [
          '-c',
          `${env} "${process.execPath}" bin/run.js price measure "$0" --json | true; exit \${PIPESTATUS[0]}`,
          mesh('torus-100k.stl'),
        ],
        {
          cwd: root,
          encoding: 'utf8',
          env: {...process.env, NODE_EXTRA_CA_CERTS: ''},
        },
      )
    for (const env of ['', 'MFG_CONTENT_TYPE=json']) {
      const r = run(env)
      expect(r.stderr, env).toBe('')
      expect(r.status, env).toBe(0)
    }
  })

  it('works on Node before 20.16, without process.getBuiltinModule (Node modules then come from require)', () => {
    const env = {NODE_OPTIONS: '--import=data:text/javascript,delete%20process.getBuiltinModule'}
    const probe = spawnSync(process.execPath, ['-p', 'typeof process.getBuiltinModule'], {
      env: {...process.env, ...env},
      encoding: 'utf8',
    })
    expect(probe.stdout.trim()).toBe('undefined')
    const version = traced(['--version'], env)
    expect(version.code, version.stderr).toBe(0)
    expect(version.stdout).toMatch(/^mfg\/\d+\.\d+\.\d+ /)
    const help = traced(['price', 'measure', '--help'], env)
    expect(help.code, help.stderr).toBe(0)
    expect(help.stdout).toContain('--no-hull')
    for (const argv of [[mesh('logo-prusa.3mf'), '--json'], [mesh('CSG.stl')]]) {
      const r = traced(['price', 'measure', ...argv], env)
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toMatch(/closed/)
      expect(loadedOclif(r.loaded)).toBe(false)
    }
  })

  it.each([
    [[mesh('cube20.stl'), '--bogus']],
    [[mesh('cube20.stl'), '--unit', 'ft', '--json']],
    [[mesh('cube20.stl'), '--layer-height', '0']],
    [[mesh('cube20.stl'), '--unit', 'mm', '--unit', 'cm']],
    [[mesh('cube20.stl'), 'extra.stl']],
    [['--json']],
  ])('built CLI leaves `price measure %j` to oclif, which answers as the oclif command does', async (argv) => {
    const {built, reference} = await bothWays(argv)
    expect(reference.exitCode).toBe(2)
    expect(built.code).toBe(2)
    expect(built.stdout).toBe('')
    expect(built.stderr).toBe(reference.stderr)
    expect(loadedOclif(built.loaded)).toBe(true)
  })

  it('MFG_CONTENT_TYPE=json is honoured: oclif runs the command and prints JSON', async () => {
    const {built, reference} = await bothWays([mesh('cube20.stl')], {MFG_CONTENT_TYPE: 'json'})
    expect(built.code, built.stderr).toBe(0)
    expect(JSON.parse(built.stdout)).toMatchObject({triangles: 12, closed: true})
    expect(built.stdout).toBe(reference.stdout)
    expect(loadedOclif(built.loaded)).toBe(true)
  })

  it('a file that cannot be measured is run again by oclif, which reports it once, exit 2', async () => {
    const bad = join(scratch, 'truncated.stl')
    writeFileSync(bad, Buffer.alloc(200, 1))
    for (const argv of [[bad], [bad, '--json'], [join(scratch, 'nope.stl'), '--json']]) {
      const {built, reference} = await bothWays(argv)
      expect(reference.exitCode, argv.join(' ')).toBe(2)
      expect(built.code, argv.join(' ')).toBe(2)
      expect(built.stdout).toBe('')
      expect(built.stderr).toBe(reference.stderr)
      expect(built.stderr.trim().split('\n')).toHaveLength(1)
      expect(built.loaded).toContain('dist/direct/index.js')
      expect(loadedOclif(built.loaded)).toBe(true)
    }
  })
})
