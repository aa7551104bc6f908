/* eslint-disable @typescript-eslint/no-explicit-any -- records are arbitrary JSON that tests inspect freely */
// Runs the built CLI (`node bin/run.js`, after `npm run build`) as a child process, so a
// real SIGINT reaches it, against a sandbox in this process without replay: a
// duplicate would show up as an extra demand.
import {spawn} from 'node:child_process'
import {existsSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {RunningSandbox} from '../../src/sandbox/index.js'
import {cliEnv} from '../helpers/cli.js'
import {sandboxClient, startTestSandbox} from '../helpers/sandbox.js'

const root = resolve(import.meta.dirname, '../..')
const bin = join(root, 'bin/run.js')
const built = existsSync(join(root, 'dist/commands/demand/create.js'))

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

let sandbox: RunningSandbox
let home: string
let env: NodeJS.ProcessEnv

beforeAll(async () => {
  // Some faults (429 with Retry-After: 1 among them) keep the batch slow enough to stop mid-way.
  sandbox = await startTestSandbox({replay: false, faults: {rate: 0.1, seed: 99}})
  home = mkdtempSync(join(tmpdir(), 'mfg-sigint-'))
  env = {
    ...process.env,
    ...cliEnv(sandbox, home),
    CI: 'true',
    NO_COLOR: '1',
  }
})
afterAll(async () => {
  await sandbox.close()
  rmSync(home, {recursive: true, force: true})
})

/** Runs the CLI; with `interruptAfterFirstLine`, sends SIGINT once the first result line is out. */
function cli(args: string[], interruptAfterFirstLine = false): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {env, cwd: root, stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    let sent = false
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text
      if (interruptAfterFirstLine && !sent && stdout.includes('\n')) {
        sent = true
        child.kill('SIGINT')
      }
    })
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text
    })
    child.on('error', reject)
    child.on('close', (code) => resolvePromise({code, stdout, stderr}))
  })
}

const parse = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as {row: number; id?: string; draftId: string; error?: string})

describe.skipIf(!built)('demand create interrupted with SIGINT', () => {
  it('exits 130 mid-batch; the re-run resumes: exactly N demands, no duplicates, every row in the output', async () => {
    const n = 1200
    const rows = Array.from({length: n}, (_, i) => ({technique: 'PCB', material: 'FR4', email: `sig${i}@example.com`}))
    const file = join(home, 'big.ndjson')
    writeFileSync(file, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`)
    const args = ['demand', 'create', '--file', file, '--concurrency', '2']

    const first = await cli(args, true)
    expect(first.code, first.stderr).toBe(130)
    expect(first.stderr).toMatch(/Run the same command again to resume/)
    const partial = parse(first.stdout)
    // Every row has its line: those never sent say so, and the summary counts them.
    expect(partial.map((o) => o.row).sort((a, b) => a - b)).toEqual(Array.from({length: n}, (_, i) => i + 1))
    const unsent = partial.filter((o) => o.error === 'not sent: the run was interrupted; running it again sends it')
    expect(unsent.length).toBeGreaterThan(0)
    expect(partial.filter((o) => o.id).length).toBeGreaterThan(0)
    expect(first.stderr).toContain(`Interrupted: ${unsent.length} row(s) not sent.`)

    const second = await cli(args)
    expect(second.code, second.stderr).toBe(0)
    expect(second.stderr).toMatch(/already created by an earlier run/)
    const all = parse(second.stdout)
    expect(all.map((o) => o.row).sort((a, b) => a - b)).toEqual(Array.from({length: n}, (_, i) => i + 1))
    expect(all.every((o) => o.id && !o.error)).toBe(true)
    // Rows the first run reported keep their demand.
    const byRow = new Map(all.map((o) => [o.row, o.id]))
    for (const o of partial) if (o.id) expect(byRow.get(o.row)).toBe(o.id)

    const draftIds = new Set(all.map((o) => o.draftId))
    const client = sandboxClient(sandbox)
    const stored: any[] = []
    for (let page = 1; ; page++) {
      const r = await client.get(`/api/public/v1/demand/${sandbox.businesses[0]!.id}/all?pageSize=100&page=${page}`)
      for (const d of r.body.data) if (draftIds.has(d.draftId)) stored.push(d)
      if (page >= r.body.totalPages) break
    }
    expect(stored).toHaveLength(n)
    expect(new Set(stored.map((d) => d.draftId)).size).toBe(n)
  })
})
