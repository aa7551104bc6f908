// The files the README's commands name ship in examples/, and those commands work on
// them as written, on a fresh home (the embedded sandbox).
import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {json, runCli} from '../helpers/cli.js'

const root = resolve(import.meta.dirname, '../..')
const readme = readFileSync(join(root, 'README.md'), 'utf8')
const home = mkdtempSync(join(tmpdir(), 'mfg-examples-'))
const out = mkdtempSync(join(tmpdir(), 'mfg-examples-out-'))
afterAll(() => {
  rmSync(home, {recursive: true, force: true})
  rmSync(out, {recursive: true, force: true})
})
const mfg = (...argv: string[]) => runCli(argv, {env: {MFG_HOME: home}})

describe('the README and examples/', () => {
  it('every examples/ file a README command names is in the repository', () => {
    const named = new Set([...readme.matchAll(/\bexamples\/[\w.-]+/g)].map((m) => m[0]))
    expect(named.size).toBeGreaterThan(5)
    for (const file of named) expect(existsSync(join(root, file)), file).toBe(true)
  })

  it('measures and prices examples/part.stl, and uploads examples/bracket.stl', async () => {
    const measured = json<{triangles: number; closed: boolean}>(
      await mfg('price', 'measure', 'examples/part.stl', '--json'),
    )
    expect(measured).toMatchObject({triangles: 1264, closed: true})
    const bracket = json<{volume: number}>(await mfg('price', 'measure', 'examples/bracket.stl', '--json'))
    expect(bracket.volume).toBeCloseTo(14250, 3)
    const priced = await mfg(
      'price',
      'estimate',
      '--part',
      'examples/part.stl',
      '--material',
      'PLA',
      '--quantity',
      '10',
      '--json',
    )
    expect(priced.exitCode, priced.stderr).toBe(0)
    const uploaded = await mfg('post', 'upload', 'examples/bracket.stl', '--json')
    expect(uploaded.exitCode, uploaded.stderr).toBe(0)
    expect(uploaded.stdout).toContain('bracket.stl')
  })

  it('asks the estimate_price tool with examples/part.json', async () => {
    const r = await mfg('mcp', 'call', 'estimate_price', '--input', 'examples/part.json', '--json')
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json<{price: number}>(r).price).toBeGreaterThan(0)
  })

  it('creates the batches of examples/: orders.csv, rows.csv with its two bad rows, big.ndjson in shards', async () => {
    const orders = await mfg(
      'demand',
      'create',
      '--file',
      'examples/orders.csv',
      '--out',
      join(out, 'results.ndjson'),
      '--json',
    )
    expect(json<{created: number}>(orders).created).toBe(3)
    const rows = await mfg(
      'demand',
      'create',
      '--file',
      'examples/rows.csv',
      '--skip-invalid',
      '--errors',
      join(out, 'rejected.ndjson'),
      '--json',
    )
    expect(json<{created: number}>(rows).created).toBe(3)
    expect(readFileSync(join(out, 'rejected.ndjson'), 'utf8').trim().split('\n')).toHaveLength(2)
    const dry = await mfg('demand', 'create', '--file', 'examples/big.ndjson', '--dry-run', '--json')
    expect(json<{validation: {valid: number}}>(dry).validation.valid).toBe(300)
    const shard = await mfg('demand', 'create', '--file', 'examples/big.ndjson', '--shard', '2/3', '--json')
    expect(json<{created: number}>(shard).created).toBe(100)
  })
})
