// `price measure` through oclif, as the built CLI runs it (under trace-loads.mjs):
// scripts run it on big files, so it is held to what the command prints when run
// in-process (test/helpers/cli.ts), and to what it loads: its own chunk, node:zlib only
// for a 3MF. Ending quietly when the reader goes, and running on a Node.js without
// process.getBuiltinModule, are checked here too.
import {spawnSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {runCli} from '../helpers/cli.js'
import {root, scratch, traced} from './traced.js'
import {meshPath} from '../helpers/meshes.js'

const mesh = meshPath

async function bothWays(argv: string[], env: Record<string, string> = {}) {
  const built = traced(['price', 'measure', ...argv], env)
  const reference = await runCli(['price', 'measure', ...argv], {env})
  return {built, reference}
}

describe('price measure, built', () => {
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
  ])('built CLI runs `price measure %j`, printing what the command prints in-process', async (argv) => {
    const {built, reference} = await bothWays(argv)
    expect(reference.exitCode, reference.stderr).toBe(0)
    expect(built.code, built.stderr).toBe(0)
    expect(built.stdout).toBe(reference.stdout)
    expect(built.stderr).toBe(reference.stderr)
    expect(built.loaded).toContain('dist/commands/price/measure.js')
  })

  it('an STL loads no node:zlib, which only a 3MF needs', () => {
    const stl = traced(['price', 'measure', mesh('cube20.stl'), '--json'])
    expect(stl.code, stl.stderr).toBe(0)
    expect(stl.builtins).toContain('fs')
    expect(stl.builtins).not.toContain('zlib')
    const threemf = traced(['price', 'measure', mesh('logo-prusa.3mf')])
    expect(threemf.code, threemf.stderr).toBe(0)
    expect(threemf.builtins).toContain('zlib')
  })

  it('ends quietly, exit 0, when the reader of its output has gone', () => {
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
    }
  })

  it.each([
    [[mesh('cube20.stl'), '--bogus']],
    [[mesh('cube20.stl'), '--unit', 'ft', '--json']],
    [[mesh('cube20.stl'), '--layer-height', '0']],
    [[mesh('cube20.stl'), '--unit', 'mm', '--unit', 'cm']],
    [[mesh('cube20.stl'), 'extra.stl']],
    [['--json']],
  ])('built CLI refuses `price measure %j` as the command does in-process: exit 2, nothing on stdout', async (argv) => {
    const {built, reference} = await bothWays(argv)
    expect(reference.exitCode).toBe(2)
    expect(built.code).toBe(2)
    expect(built.stdout).toBe('')
    expect(built.stderr).toBe(reference.stderr)
  })

  it('MFG_CONTENT_TYPE=json is honoured: the command prints JSON', async () => {
    const {built, reference} = await bothWays([mesh('cube20.stl')], {MFG_CONTENT_TYPE: 'json'})
    expect(built.code, built.stderr).toBe(0)
    expect(JSON.parse(built.stdout)).toMatchObject({triangles: 12, closed: true})
    expect(built.stdout).toBe(reference.stdout)
  })

  it('a file that cannot be measured is reported once, exit 2', async () => {
    const bad = join(scratch, 'truncated.stl')
    writeFileSync(bad, Buffer.alloc(200, 1))
    for (const argv of [[bad], [bad, '--json'], [join(scratch, 'nope.stl'), '--json']]) {
      const {built, reference} = await bothWays(argv)
      expect(reference.exitCode, argv.join(' ')).toBe(2)
      expect(built.code, argv.join(' ')).toBe(2)
      expect(built.stdout).toBe('')
      expect(built.stderr).toBe(reference.stderr)
      expect(built.stderr.trim().split('\n')).toHaveLength(1)
    }
  })
})
