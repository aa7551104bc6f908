// `demand create` writes its result lines a chunk at a time: to stdout, or to
// --out FILE, one line per row either way, the rows of an earlier run included.
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCli} from '../helpers/cli.js'
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
})
