// Which Node.js releases mfg runs on: package.json's engines, read by src/engines.ts,
// which bin/run.js runs before anything else and `mfg doctor` reports from.
import {spawn, spawnSync} from 'node:child_process'
import {copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {checkNode, unsupportedNodeMessage} from '../../src/engines.js'
import {checkNodeVersion} from '../../src/services/doctor/node.js'

const root = resolve(import.meta.dirname, '../..')
const bin = join(root, 'bin/run.js')
const range = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {engines: {node: string}}).engines.node

describe('the supported range', () => {
  it('is the live lines 22, 24 and 26 at the releases our dependencies need', () => {
    expect(range).toBe('^22.22.2 || ^24.15.0 || >=26')
    const cases: [string, boolean][] = [
      ['v18.20.8', false],
      ['v20.20.2', false],
      ['v22.13.0', false],
      ['v22.22.1', false],
      ['v22.22.2', true],
      ['v22.23.3', true],
      ['v23.11.0', false],
      ['v24.14.1', false],
      ['v24.15.0', true],
      ['v24.21.0', true],
      ['v25.2.0', false],
      ['v26.0.0', true],
      ['v26.12.1', true],
      ['v27.1.0', true],
    ]
    for (const [version, ok] of cases) expect([version, checkNode(version, range).satisfied]).toEqual([version, ok])
    expect(checkNode(process.version, range).satisfied).toBe(true)
  })

  it('is put in words for the one line an unsupported Node gets', () => {
    expect(unsupportedNodeMessage('v20.20.2', range)).toBe(
      'Error: mfg needs Node.js 22.22.2 or a later 22.x, 24.15.0 or a later 24.x, or 26 or later; this is v20.20.2.',
    )
    expect(unsupportedNodeMessage('v24.21.0', range)).toBeUndefined()
  })

  it('reads comparators joined by spaces, and reports a form it does not read instead of guessing', () => {
    expect(checkNode('v22.5.0', '>=22 <22.6').satisfied).toBe(true)
    expect(checkNode('v22.6.0', '>=22 <22.6').satisfied).toBe(false)
    expect(checkNode('v22.6.0', '~22.6').satisfied).toBeUndefined()
    expect(unsupportedNodeMessage('v22.6.0', '22.x')).toBeUndefined()
  })

  it('is what doctor reports', () => {
    expect(checkNodeVersion('24.21.0', range)).toMatchObject({status: 'ok'})
    const old = checkNodeVersion('20.20.2', range)
    expect(old).toMatchObject({status: 'fail'})
    expect(old.message).toContain('22.22.2 or a later 22.x')
    expect(checkNodeVersion('24.21.0', '~24')).toMatchObject({status: 'warn'})
  })
})

/**
 * An installed package as far as the refusal reaches: bin/run.js, dist/engines.js and
 * package.json, without the Node.js a clone of the repository brings in node_modules.
 */
function installedCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mfg-engines-pkg-'))
  for (const file of ['bin/run.js', 'dist/engines.js', 'package.json']) {
    mkdirSync(join(dir, file, '..'), {recursive: true})
    copyFileSync(join(root, file), join(dir, file))
  }
  return dir
}

/** Runs `script` (bin/run.js) with `node`, optionally with process.version replaced before it starts. */
function run(node: string, args: string[], fakeVersion?: string, script = bin) {
  const home = mkdtempSync(join(tmpdir(), 'mfg-engines-'))
  try {
    const preload = fakeVersion
      ? [
          '--import',
          `data:text/javascript,Object.defineProperty(process,'version',{value:${JSON.stringify(fakeVersion)}})`,
        ]
      : []
    return spawnSync(node, [...preload, script, ...args], {
      encoding: 'utf8',
      env: {...process.env, MFG_HOME: home, NODE_OPTIONS: ''},
      stdio: ['ignore', 'pipe', 'pipe'],
    })
  } finally {
    rmSync(home, {recursive: true, force: true})
  }
}

const everyKind = [['--version'], ['--help'], ['demand', 'list', '--json'], ['price', 'machines'], ['nonsense']]
/** The Node.js the repository brings (its devDependency `node`), as `npm ci` installed it. */
const projectNode = JSON.parse(readFileSync(join(root, 'node_modules/node/package.json'), 'utf8')) as {version: string}

describe('bin/run.js on an unsupported Node.js', () => {
  const installed = installedCopy()
  const installedBin = join(installed, 'bin/run.js')
  afterAll(() => rmSync(installed, {recursive: true, force: true}))

  it.each(everyKind)(
    'installed: refuses `%s` with one line naming the releases it needs, exit 1',
    (...args: string[]) => {
      const r = run(process.execPath, args, 'v20.20.2', installedBin)
      expect(r.stdout).toBe('')
      expect(r.stderr).toBe(unsupportedNodeMessage('v20.20.2', range) + '\n')
      expect(r.status).toBe(1)
    },
  )

  it('in a clone: runs the command on the Node.js the repository brings, exit status and output passed through', () => {
    const version = run(process.execPath, ['--version'], 'v20.20.2')
    expect(version.stderr).toBe('')
    expect(version.stdout).toBe(`mfg/0.1.0 ${process.platform}-${process.arch} node-v${projectNode.version}\n`)
    expect(version.status).toBe(0)
    const missing = run(process.execPath, ['demand', 'get', '65f0000600000000000000ff', '--json'], 'v20.20.2')
    expect(missing.status).toBe(1)
    expect(missing.stdout).toBe('')
    expect(JSON.parse(missing.stderr)).toMatchObject({error: {message: expect.stringContaining('not found')}})
  })

  it('in a clone: a SIGINT sent to bin/run.js alone (no terminal) reaches the command it runs', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mfg-engines-'))
    // Its own session, so no terminal sends the signal to the whole group: a supervisor's `kill -INT`.
    const wrapper = spawn(
      process.execPath,
      [
        '--import',
        `data:text/javascript,Object.defineProperty(process,'version',{value:'v20.20.2'})`,
        bin,
        'sandbox',
        'serve',
        '--memory',
        '--port',
        '0',
      ],
      {detached: true, env: {...process.env, MFG_HOME: home, NODE_OPTIONS: ''}, stdio: ['ignore', 'ignore', 'pipe']},
    )
    let stderr = ''
    let signalled = false
    const ended = new Promise<number | null>((done) => wrapper.once('close', (code) => done(code)))
    wrapper.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      if (!signalled && stderr.includes('Press Ctrl-C')) {
        signalled = true
        wrapper.kill('SIGINT')
      }
    })
    // Before the wrapper passed SIGINT on, nothing ended: the whole group is stopped then, and the test fails.
    const guard = setTimeout(() => process.kill(-wrapper.pid!, 'SIGKILL'), 30_000)
    try {
      const code = await ended
      expect(stderr).toContain('Sandbox stopped (SIGINT).')
      expect(code).toBe(0)
    } finally {
      clearTimeout(guard)
      rmSync(home, {recursive: true, force: true})
    }
  }, 40_000)

  it('runs as usual on the Node.js it is tested with', () => {
    const r = run(process.execPath, ['--version'])
    expect(r.stderr).toBe('')
    expect(r.stdout).toBe(`mfg/0.1.0 ${process.platform}-${process.arch} node-${process.version}\n`)
    expect(r.status).toBe(0)
  })

  // A real old release, where CI provides one (.ci/run installs Node.js 20 from the npm
  // registry and names it in MFG_TEST_OLD_NODE): the check must parse and run there too.
  const oldNode = process.env.MFG_TEST_OLD_NODE
  it.runIf(oldNode)('on a real Node.js 20: refuses every command when installed, runs them in a clone', () => {
    for (const args of everyKind) {
      const r = run(oldNode!, args, undefined, installedBin)
      expect(r.stderr).toMatch(/^Error: mfg needs Node\.js 22\.22\.2 or a later 22\.x, .*; this is v20\.\d+\.\d+\.\n$/)
      expect(r.stdout).toBe('')
      expect(r.status).toBe(1)
    }
    const r = run(oldNode!, ['--version'])
    expect(r.stdout).toBe(`mfg/0.1.0 ${process.platform}-${process.arch} node-v${projectNode.version}\n`)
    expect(r.status).toBe(0)
  })
})
