// The built CLI against `mfg sandbox serve --quirks all`, as a user trying a script
// against a realistic service would run it; and the README's commands for quirks,
// run as written. Needs `npm run build` (the tests spawn bin/run.js) and jq.
import {spawn, spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {createInterface} from 'node:readline'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {sandboxClient, startTestSandbox} from '../helpers/sandbox.js'

const root = resolve(import.meta.dirname, '../..')
const bin = join(root, 'bin/run.js')
const SEEDED = 7

interface Served {
  url: string
  businesses: {id: string; apiKey: string; authToken: string}[]
}

/** The environment of a user's shell: no test variables, no profile, MFG_HOME of its own. */
function userEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  // Without vitest's NODE_ENV=test, under which oclif would register tsx to read TypeScript sources.
  const {NODE_ENV: _test, ...env} = process.env
  for (const k of [
    'MFG_PROFILE',
    'MFG_API_KEY',
    'MFG_AUTH_TOKEN',
    'MFG_BASE_URL',
    'MFG_BUSINESS_ID',
    'MFG_SANDBOX_QUIRKS',
  ])
    delete env[k]
  return {...env, MFG_HOME: home, NO_COLOR: '1', CI: 'true', ...extra}
}

function mfg(args: string[], env: NodeJS.ProcessEnv): Promise<{stdout: string; stderr: string; code: number | null}> {
  const child = spawn(process.execPath, [bin, ...args], {cwd: root, env, stdio: ['ignore', 'pipe', 'pipe']})
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')))
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')))
  return new Promise((done) => child.on('close', (code) => done({stdout, stderr, code})))
}

const row = (i: number) => ({
  technique: '3D_PRINTING',
  material: 'PLA',
  quantity: i + 1,
  email: `quirks${i}@example.com`,
  shippingAddress: {city: 'Lyon', country: 'FR'},
})

describe('the CLI against sandbox serve --quirks all', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mfg-quirks-data-'))
  const home = mkdtempSync(join(tmpdir(), 'mfg-quirks-home-'))
  let server: ReturnType<typeof spawn>
  let serverErr = ''
  let env: NodeJS.ProcessEnv

  beforeAll(async () => {
    server = spawn(
      process.execPath,
      [bin, 'sandbox', 'serve', '--data-dir', dataDir, '--port', '0', '--json', '--quirks', 'all'],
      {env: userEnv(home), stdio: ['ignore', 'pipe', 'pipe']},
    )
    server.stderr!.on('data', (c: Buffer) => (serverErr += c.toString('utf8')))
    const lines = createInterface({input: server.stdout!})
    const served = await new Promise<Served>((ok, fail) => {
      server.once('exit', (code) => fail(new Error(`sandbox serve exited with ${code}`)))
      lines.once('line', (line) => ok(JSON.parse(line) as Served))
    })
    const demo = served.businesses[0]!
    env = userEnv(home, {
      MFG_BASE_URL: served.url,
      MFG_API_KEY: demo.apiKey,
      MFG_AUTH_TOKEN: demo.authToken,
      MFG_BUSINESS_ID: demo.id,
    })
  })

  afterAll(async () => {
    if (server && server.exitCode === null) {
      const closed = new Promise((ok) => server.once('exit', ok))
      server.kill('SIGTERM')
      await closed
    }
    rmSync(dataDir, {recursive: true, force: true})
    rmSync(home, {recursive: true, force: true})
  })

  it('lists, creates from a file (one row and three), reads back and reruns, with no duplicate', async () => {
    const listed = await mfg(['demand', 'list', '--all', '--json'], env)
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout.trim().split('\n')).toHaveLength(SEEDED)

    const one = join(home, 'one.json')
    writeFileSync(one, JSON.stringify([row(0)]))
    const three = join(home, 'three.json')
    writeFileSync(three, JSON.stringify([row(1), row(2), row(3)]))
    const drafts: string[] = []
    for (const [file, n] of [
      [one, 1],
      [three, 3],
    ] as const) {
      const created = await mfg(['demand', 'create', '--file', file, '--json'], env)
      expect(created.code, created.stderr).toBe(0)
      const result = JSON.parse(created.stdout)
      expect(result).toMatchObject({created: n, failed: 0, unknown: 0})
      for (const r of result.results) {
        expect(r.id).toMatch(/^[0-9a-f]{24}$/)
        drafts.push(r.draftId)
      }
      // The same command again sends nothing: the journal has every row.
      const rerun = await mfg(['demand', 'create', '--file', file, '--json'], env)
      expect(rerun.code, rerun.stderr).toBe(0)
      expect(JSON.parse(rerun.stdout)).toMatchObject({created: 0, resumed: n, failed: 0})
    }

    const everything = (await mfg(['demand', 'list', '--all', '--json'], env)).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(everything).toHaveLength(SEEDED + 4)
    const newest = everything[0]
    const got = await mfg(['demand', 'get', newest._id, '--json'], env)
    expect(got.code, got.stderr).toBe(0)
    expect(JSON.parse(got.stdout)._id).toBe(newest._id)
    const table = await mfg(['demand', 'get', newest._id], env)
    expect(table.code, table.stderr).toBe(0)
    expect(table.stdout).not.toMatch(/undefined|NaN|\[object Object\]/)

    // What the sandbox stored, read back by a faithful sandbox on the same data: each row once.
    const closed = new Promise((ok) => server.once('exit', ok))
    server.kill('SIGTERM')
    await closed
    // The quirks were on: the stop summary counts the answers they reshaped.
    const summary = /Quirks: (\d+) of (\d+) answers reshaped/.exec(serverErr)
    expect(summary, serverErr).not.toBeNull()
    expect(Number(summary![1])).toBeGreaterThan(0)
    const faithful = await startTestSandbox({dataDir})
    try {
      const c = sandboxClient(faithful)
      const all = (await c.get(`/api/public/v1/demand/${c.business.id}/all?pageSize=100`)).body
      expect(all.total).toBe(SEEDED + 4)
      expect(all.data.filter((d: {draftId?: string}) => drafts.includes(d.draftId ?? '')).length).toBe(4)
    } finally {
      await faithful.close()
    }
  })
})

describe('quirk lists the CLI refuses', () => {
  const home = mkdtempSync(join(tmpdir(), 'mfg-quirks-bad-'))
  afterAll(() => rmSync(home, {recursive: true, force: true}))

  it('sandbox serve --quirks and MFG_SANDBOX_QUIRKS name themselves and the allowed values, exit 2', async () => {
    const flag = await mfg(['sandbox', 'serve', '--memory', '--port', '0', '--quirks', 'nulls,bogus'], userEnv(home))
    expect(flag.code).toBe(2)
    expect(flag.stderr).toContain('--quirks: unknown quirk "bogus"; allowed: all, create-object,')
    const variable = await mfg(['demand', 'list'], userEnv(home, {MFG_SANDBOX_QUIRKS: 'list-bare,list-data'}))
    expect(variable.code).toBe(2)
    expect(variable.stderr).toContain('MFG_SANDBOX_QUIRKS: list-bare and list-data are alternatives')
    expect(variable.stdout).toBe('')
  })
})

describe('errors in other shapes, through the embedded sandbox', () => {
  const home = mkdtempSync(join(tmpdir(), 'mfg-quirks-errors-'))
  afterAll(() => rmSync(home, {recursive: true, force: true}))
  const missing = '65f0000600000000000000ff'

  it.each(['error-nested', 'error-array', 'error-problem', 'error-html'])(
    "%s: demand get of an unknown id says the service's message, without markup, exit 1",
    async (quirk) => {
      const r = await mfg(['demand', 'get', missing], userEnv(home, {MFG_SANDBOX_QUIRKS: quirk}))
      expect(r.code).toBe(1)
      expect(r.stderr).toContain(`Demand ${missing} not found`)
      expect(r.stderr).not.toMatch(/<[a-z!/]/i)
    },
  )
})

describe('the README on quirks, run as written', () => {
  const home = mkdtempSync(join(tmpdir(), 'mfg-quirks-readme-'))
  const shims = mkdtempSync(join(tmpdir(), 'mfg-quirks-bin-'))
  symlinkSync(bin, join(shims, 'mfg'))
  afterAll(() => {
    rmSync(home, {recursive: true, force: true})
    rmSync(shims, {recursive: true, force: true})
  })

  /** The shell lines of the code block under the README's heading. */
  function readmeLines(heading: string): string[] {
    const readme = readFileSync(join(root, 'README.md'), 'utf8')
    const section = readme.slice(readme.indexOf(heading))
    const block = /```sh\n([\s\S]*?)```/.exec(section)
    if (!block) throw new Error(`no code block under ${heading}`)
    return block[1]!
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter((line) => line !== '')
  }

  it('every command of "Try your scripts against a realistic service" succeeds and prints data', () => {
    if (spawnSync('jq', ['--version']).status !== 0) throw new Error('jq is needed for this test')
    const lines = readmeLines('### Try your scripts against a realistic service')
    expect(lines.length).toBeGreaterThanOrEqual(4)
    const env = userEnv(home, {PATH: `${shims}:${process.env.PATH}`})
    const outputs: string[] = []
    for (const line of lines) {
      const r = spawnSync('sh', ['-c', line], {cwd: root, env, encoding: 'utf8', input: '', timeout: 120_000})
      expect([line, r.status, r.stderr]).toEqual([line, 0, expect.any(String)])
      expect(r.stdout.trim(), line).not.toBe('')
      expect(r.stdout, line).not.toMatch(/undefined|NaN|\[object Object\]/)
      outputs.push(r.stdout.trim())
    }
    // The catalogue, the seeded demands, the five quotes of the example, and all of them.
    expect(outputs[0]).toContain('create-object')
    expect(outputs[2]).toBe('5')
    expect(outputs[3]).toBe(String(SEEDED + 5))
  })
})
