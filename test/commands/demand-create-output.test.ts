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
})
