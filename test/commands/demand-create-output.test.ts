// `demand create` writes its result lines a chunk at a time: to stdout, or to
// --out FILE, one line per row either way, the rows of an earlier run included.
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCli} from '../helpers/cli.js'
import {startProxy} from '../helpers/proxy.js'
import {startTestSandbox} from '../helpers/sandbox.js'
import type {RunningSandbox} from '../../src/sandbox/index.js'

interface Line {
  row: number
  id?: string
  draftId: string
  error?: string
}

const parse = (text: string): Line[] =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line)

describe('demand create result lines', () => {
  let sandbox: RunningSandbox
  let home: string
  let env: Record<string, string>
  beforeAll(async () => {
    sandbox = await startTestSandbox()
    home = mkdtempSync(join(tmpdir(), 'mfg-create-out-'))
    const b = sandbox.businesses[0]!
    env = {MFG_HOME: home, MFG_BASE_URL: sandbox.url, MFG_API_KEY: b.apiKey, MFG_BUSINESS_ID: b.id}
  })
  afterAll(async () => {
    await sandbox.close()
    rmSync(home, {recursive: true, force: true})
  })

  const csv = (n: number, tag: string) =>
    [
      'technique,material,quantity,email',
      ...Array.from({length: n}, (_, i) => `3D_PRINTING,PLA,${(i % 3) + 1},${tag}-${i}@example.com`),
    ].join('\n')

  it('writes one line per row to --out and nothing to stdout', async () => {
    const file = join(home, 'out.csv')
    writeFileSync(file, csv(230, 'out'))
    const out = join(home, 'results.ndjson')
    const r = await runCli(['demand', 'create', '--file', file, '--out', out], {env})
    expect(r.exitCode).toBe(0)
    expect(r.stdout).toBe('')
    const lines = parse(readFileSync(out, 'utf8'))
    expect(lines.map((l) => l.row).sort((a, b) => a - b)).toEqual(Array.from({length: 230}, (_, i) => i + 1))
    expect(lines.every((l) => typeof l.id === 'string' && l.error === undefined)).toBe(true)
    expect(new Set(lines.map((l) => l.id)).size).toBe(230)
  })

  it('prints every row on stdout, again on a re-run answered from the journal', async () => {
    const file = join(home, 'again.csv')
    writeFileSync(file, csv(150, 'again'))
    const first = await runCli(['demand', 'create', '--file', file], {env})
    expect(first.exitCode).toBe(0)
    const created = parse(first.stdout)
    expect(created).toHaveLength(150)
    const second = await runCli(['demand', 'create', '--file', file], {env})
    expect(second.exitCode).toBe(0)
    expect(second.stderr).toMatch(/150 already created by an earlier run/)
    const resumed = parse(second.stdout)
    expect(resumed.sort((a, b) => a.row - b.row)).toEqual(created.sort((a, b) => a.row - b.row))
  })

  it('--json answers one shape whatever the path: a file, a re-run, --dry-run, --out, a quote from flags', async () => {
    const file = join(home, 'shape.csv')
    writeFileSync(file, csv(3, 'shape'))
    const runs = {
      file: await runCli(['demand', 'create', '--file', file, '--json'], {env}),
      again: await runCli(['demand', 'create', '--file', file, '--json'], {env}),
      dryRun: await runCli(['demand', 'create', '--file', file, '--dry-run', '--json'], {env}),
      out: await runCli(
        ['demand', 'create', '--file', file, '--fresh', '--out', join(home, 'shape.ndjson'), '--json'],
        {
          env,
        },
      ),
      flags: await runCli(['demand', 'create', '--technique', 'PCB', '--material', 'FR4', '--json'], {env}),
    }
    const shapes = Object.fromEntries(
      Object.entries(runs).map(([name, r]) => {
        expect(r.exitCode, `${name}: ${r.stderr}`).toBe(0)
        const value = JSON.parse(r.stdout) as Record<string, unknown> & {validation: Record<string, unknown>}
        return [name, {value, keys: [...Object.keys(value), ...Object.keys(value.validation)].sort()}]
      }),
    )
    for (const name of Object.keys(runs)) expect(shapes[name]!.keys, name).toEqual(shapes.file!.keys)
    const results = (name: string) => shapes[name]!.value.results as Line[]
    expect(results('file')).toHaveLength(3)
    expect(results('again')).toEqual(results('file'))
    expect(shapes.again!.value).toMatchObject({created: 0, resumed: 3, requests: 0})
    expect(shapes.dryRun!.value).toMatchObject({dryRun: true, results: [], journal: null, out: null})
    // --fresh sends the rows again; the sandbox answers the demands the first run made: not this run's.
    expect(shapes.out!.value).toMatchObject({created: 0, resumed: 3, results: [], out: join(home, 'shape.ndjson')})
    // A quote from flags has a journal too: the same quote the same day is the same demand.
    expect(shapes.flags!.value).toMatchObject({created: 1, journal: expect.stringContaining(home)})
    expect(results('flags')).toEqual([expect.objectContaining({row: 1, id: expect.any(String)})])
  })

  it('a key refused mid-way: --json still reports every row and the rows not sent, the error and exit 3 follow, and a re-run sends the rest once', async () => {
    const file = join(home, 'revoked.csv')
    writeFileSync(file, csv(300, 'revoked'))
    // The key is revoked after the first chunk is created: every later request gets 401.
    let creates = 0
    const gateway = await startProxy(sandbox.url, (req) =>
      req.method === 'POST' && ++creates > 1 ? {status: 401} : undefined,
    )
    try {
      const argv = ['demand', 'create', '--file', file, '--concurrency', '1', '--json']
      const cut = await runCli(argv, {env: {...env, MFG_BASE_URL: gateway.url}})
      expect(cut.exitCode, cut.stderr).toBe(3)
      const error = JSON.parse(cut.stderr.trim().split('\n').at(-1)!) as {error: {code: string; message: string}}
      expect(error.error.message).toMatch(/^creating quotes: /)
      const report = JSON.parse(cut.stdout) as {
        created: number
        pending: number
        stoppedBy: string | null
        results: Line[]
      }
      expect(report).toMatchObject({created: 100, pending: 200, failed: 0, stoppedBy: error.error.message})
      expect(report.results.map((l) => l.row)).toEqual(Array.from({length: 300}, (_, i) => i + 1))
      expect(report.results.slice(0, 100).every((l) => typeof l.id === 'string')).toBe(true)
      for (const l of report.results.slice(100)) {
        expect(l.error).toBe(
          `not sent: the run stopped: ${error.error.message}; once that is fixed, running the same command again sends it`,
        )
      }
      expect(cut.stderr).not.toContain(env.MFG_API_KEY!)

      // Without --json: one line a row on stdout, the summary and the error on stderr.
      const lines = await runCli(argv.slice(0, -1), {env: {...env, MFG_BASE_URL: gateway.url}})
      expect(lines.exitCode).toBe(3)
      expect(parse(lines.stdout)).toHaveLength(300)
      expect(lines.stderr).toContain('Stopped by the error below: 200 row(s) not sent.')
      expect(lines.stderr).toMatch(/Error: creating quotes: /)

      // The key fixed: the same command sends the 200 rows left, once.
      const rerun = await runCli(argv, {env})
      expect(rerun.exitCode, rerun.stderr).toBe(0)
      const again = JSON.parse(rerun.stdout) as {results: Line[]}
      expect(again).toMatchObject({created: 200, resumed: 100, pending: 0, stoppedBy: null})
      expect(again.results.slice(0, 100).map((l) => l.id)).toEqual(report.results.slice(0, 100).map((l) => l.id))
      expect(new Set(again.results.map((l) => l.id)).size).toBe(300)
    } finally {
      await gateway.close()
    }
  })

  it('rows in flight when an error stops the run are reported as unknown, not as unsent, and a re-run finds them', async () => {
    const file = join(home, 'in-flight.csv')
    writeFileSync(file, csv(300, 'in-flight'))
    // Two chunks go out together: the first to arrive is stored and its answer lost
    // (the connection drops) after the second was refused with 401.
    let creates = 0
    const gateway = await startProxy(
      sandbox.url,
      (req) => {
        if (req.method !== 'POST') return undefined
        creates++
        return creates === 1 ? 300 : {status: 401}
      },
      {after: (req) => (req.method === 'POST' ? 'drop' : undefined)},
    )
    try {
      const argv = ['demand', 'create', '--file', file, '--concurrency', '2', '--json']
      const cut = await runCli(argv, {env: {...env, MFG_BASE_URL: gateway.url}})
      expect(cut.exitCode, cut.stderr).toBe(3)
      const report = JSON.parse(cut.stdout) as {results: (Line & {outcome?: string})[]}
      expect(report).toMatchObject({created: 0, failed: 100, unknown: 100, pending: 200})
      const unknown = report.results.filter((l) => l.outcome === 'unknown')
      expect(unknown).toHaveLength(100)
      expect(unknown[0]!.error).toMatch(/outcome unknown .*a re-run looks it up first$/)
      expect(report.results.filter((l) => l.error?.startsWith('not sent: the run stopped: '))).toHaveLength(200)

      const rerun = await runCli(argv, {env})
      expect(rerun.exitCode, rerun.stderr).toBe(0)
      const again = JSON.parse(rerun.stdout) as {results: Line[]}
      expect(again).toMatchObject({created: 200, failed: 0, pending: 0})
      expect(new Set(again.results.map((l) => l.id)).size).toBe(300)
      const found = again.results.filter((l) => unknown.some((u) => u.row === l.row))
      expect(found.every((l) => typeof l.id === 'string')).toBe(true)
    } finally {
      await gateway.close()
    }
  })

  it('a key refused while looking up rows whose answer was lost names the look-up, and the rows stay unknown', async () => {
    const file = join(home, 'lookup-refused.csv')
    writeFileSync(file, csv(100, 'lookup-refused'))
    const gateway = await startProxy(sandbox.url, (req) => (req.method === 'GET' ? {status: 401} : undefined), {
      after: (req) => (req.method === 'POST' ? 'drop' : undefined),
    })
    try {
      const cut = await runCli(['demand', 'create', '--file', file, '--json'], {
        env: {...env, MFG_BASE_URL: gateway.url},
      })
      expect(cut.exitCode, cut.stderr).toBe(3)
      const report = JSON.parse(cut.stdout) as {stoppedBy: string; results: (Line & {outcome?: string})[]}
      expect(report.stoppedBy).toMatch(/^looking up rows that may have been created: /)
      expect(report).toMatchObject({created: 0, unknown: 100, pending: 0})
      expect(report.results.every((l) => l.outcome === 'unknown')).toBe(true)
    } finally {
      await gateway.close()
    }
  })
})
