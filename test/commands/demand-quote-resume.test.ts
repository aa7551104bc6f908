// An interrupted `mfg demand quote --all --apply` resumes from its journal, against a real
// sandbox over HTTP behind a counting proxy: the rerun does not list again, does not read
// or price the demands already done, writes each demand exactly once and reports every
// demand. Ctrl-C (SIGINT) and kill -9 reach the built CLI as a child process.
import {spawn, type ChildProcess} from 'node:child_process'
import {existsSync, readdirSync, writeFileSync} from 'node:fs'
import {join, resolve} from 'node:path'
import type http from 'node:http'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {QuoteOutcome} from '../../src/services/quote/types.js'
import {json, jsonLines, secretsOf, useCliSandbox, type CliResult} from '../helpers/cli.js'
import {meshPath} from '../helpers/meshes.js'
import {startProxy, type Proxy} from '../helpers/proxy.js'

const root = resolve(import.meta.dirname, '../..')
const built = existsSync(join(root, 'dist/commands/demand/quote.js'))
const {sb, outputs, run} = useCliSandbox()

/** What the proxy saw, per kind of request, since the last reset. */
interface Seen {
  lists: number
  estimates: number
  /** Demand reads (GET /demand/{id}) by id. */
  reads: Map<string, number>
  /** Updates that reached the sandbox (PUT /demand/{id}) by id; those the proxy failed are not here. */
  writes: Map<string, number>
}
let seen: Seen
const reset = () => (seen = {lists: 0, estimates: 0, reads: new Map(), writes: new Map()})
reset()
/** Set by a test: the proxy answers it itself (a failing service) or holds it (a slow one). */
let failWrite: ((id: string) => boolean) | undefined
/**
 * The status a failed write gets: 500 is retried by the client, 501 is not. The
 * failure asks for its retries at once (Retry-After: 0), so they are made without
 * the back-off's seconds of waiting.
 */
let failStatus = 500
let slowEstimateMs = 0
/** Set by a test: estimates are held until it settles (a run kept at its first estimate). */
let holdEstimates: Promise<void> | undefined

const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1)
function watch(
  req: http.IncomingMessage,
): number | Promise<void> | {status: number; headers: Record<string, string>} | void {
  const path = (req.url ?? '').replace(/\?.*$/, '')
  const demand = /^\/api\/public\/v1\/demand\/([0-9a-f]{24})$/.exec(path)
  if (req.method === 'GET' && /^\/api\/public\/v1\/demand\/[^/]+\/(quotes|orders|all)$/.test(path)) seen.lists++
  else if (path.startsWith('/api/public/v1/price-estimation/')) {
    seen.estimates++
    return holdEstimates ?? slowEstimateMs
  } else if (demand && req.method === 'GET') bump(seen.reads, demand[1]!)
  else if (demand && req.method === 'PUT') {
    if (failWrite?.(demand[1]!)) return {status: failStatus, headers: {'retry-after': '0'}}
    bump(seen.writes, demand[1]!)
  }
}

let proxy: Proxy
let url = ''
const lines = (r: {stdout: string}): QuoteOutcome[] => jsonLines<QuoteOutcome>(r as CliResult)
/** The selection every run here uses: the newest four new requests (the demands a test just made). */
const ALL = ['demand', 'quote', '--all', '--status', 'quote_request_received', '--limit', '4', '--apply', '--json']
const quote = (extra: string[] = [], args = ALL) => run([...args, ...extra], {env: {MFG_BASE_URL: proxy.url}})
/** The same selection, printed for a person: a block per demand and a summary on stderr. */
const TEXT = ALL.filter((a) => a !== '--json')
const journals = () => {
  const dir = join(sb.home, 'journals')
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.startsWith('quote-')) : []
}

/** Makes four new requests with one STL part each; they are the newest, so `ALL` selects them. */
async function fourDemands(tag: string): Promise<string[]> {
  const rows = [1, 2, 3, 4].map((n) => ({
    draftId: `resume-${tag}-${n}`,
    technique: '3D_PRINTING',
    quoteModel: [
      {fileName: 'cube20.stl', fileLink: url, service: '3D_PRINTING', technology: 'FDM', material: 'PLA', quantity: n},
    ],
  }))
  const file = join(sb.home, `${tag}.json`)
  writeFileSync(file, JSON.stringify(rows))
  const created = await run(['demand', 'create', '--file', file, '--json'])
  expect(created.exitCode, created.stderr).toBe(0)
  const made = json<{results: {id: string}[]}>(created).results.map((r) => r.id)
  // The selection is these four, newest first: the order a run quotes them in.
  const listed = lines(await run([...ALL.filter((a) => a !== '--apply'), '--dry-run'])).map((o) => o.demandId)
  expect(new Set(listed)).toEqual(new Set(made))
  return listed
}

/** Runs the built CLI through the proxy; `onLine` sees each stdout line as it comes. */
function child(args: string[], onLine?: (line: string, p: ChildProcess) => void) {
  const env = {...process.env, ...sb.env(), MFG_BASE_URL: proxy.url, CI: 'true', NO_COLOR: '1'}
  const p = spawn(process.execPath, [join(root, 'bin/run.js'), ...args], {
    env,
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  p.stdout!.setEncoding('utf8').on('data', (text: string) => {
    stdout += text
    const all = stdout.split('\n').slice(0, -1)
    onLine?.(all.at(-1) ?? '', p)
  })
  p.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text))
  const done = new Promise<{code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string}>(
    (ok, fail) => {
      p.on('error', fail)
      p.on('close', (code, signal) => ok({code, signal, stdout, stderr}))
    },
  )
  return {process: p, done}
}

beforeAll(async () => {
  const up = await run(['post', 'upload', meshPath('cube20.stl'), '--json'])
  expect(up.exitCode, up.stderr).toBe(0)
  url = json<{url: string}[]>(up)[0]!.url
  proxy = await startProxy(sb.url, watch)
})
afterAll(async () => {
  await proxy?.close()
  for (const r of outputs) for (const secret of secretsOf(sb)) expect(r.stdout + r.stderr).not.toContain(secret)
})

describe('demand quote --all --apply resumes an interrupted run', () => {
  it('after a service failure (exit 1) the rerun quotes only the failed demand, without listing or pricing the others', async () => {
    const ids = await fourDemands('fail')
    const broken = ids[1]!
    failWrite = (id) => id === broken
    reset()
    const first = await quote()
    failWrite = undefined
    expect(first.exitCode, first.stderr).toBe(1)
    const out = lines(first)
    expect(out.map((o) => o.demandId)).toEqual(ids)
    expect(out.map((o) => o.status)).toEqual(['quoted', 'failed', 'quoted', 'quoted'])
    expect(first.stderr).toContain('1 of 4 demands not quoted: run the same command again to quote only those')
    expect(journals()).toHaveLength(1)

    reset()
    const second = await quote()
    expect(second.exitCode, second.stderr).toBe(0)
    expect(second.stderr).toContain('Resuming the interrupted run of this command: 3 of 4 demands done')
    // No list, and only the failed demand read, priced (one part) and written.
    expect(seen.lists).toBe(0)
    expect(seen.estimates).toBe(1)
    expect([...seen.reads.keys()]).toEqual([broken])
    expect([...seen.writes.entries()]).toEqual([[broken, 1]])
    // Every demand reported, in list order; the done ones from the journal, as the first run had them.
    const again = lines(second)
    expect(again.map((o) => o.demandId)).toEqual(ids)
    expect(again.map((o) => o.status)).toEqual(['quoted', 'quoted', 'quoted', 'quoted'])
    expect(again.map((o) => o.resumed ?? false)).toEqual([true, false, true, true])
    expect(again[0]).toEqual({...out[0], resumed: true})
    // A completed run leaves no journal; the next run lists again (and finds nothing changed).
    expect(journals()).toHaveLength(0)
    reset()
    const third = await quote()
    expect(third.stderr).not.toContain('Resuming')
    expect(seen.lists).toBe(1)
    expect(lines(third).map((o) => o.status)).toEqual(['unchanged', 'unchanged', 'unchanged', 'unchanged'])
    expect(seen.writes.size).toBe(0)
  })

  it('stops when the service fails on three demands in a row; the rerun quotes them and the one not tried', async () => {
    const ids = await fourDemands('down')
    failWrite = () => true
    failStatus = 501
    reset()
    const first = await quote()
    failWrite = undefined
    failStatus = 500
    expect(first.exitCode, first.stderr).toBe(1)
    expect(lines(first).map((o) => [o.demandId, o.status])).toEqual(ids.slice(0, 3).map((id) => [id, 'failed']))
    expect(first.stderr).toContain('Stopped: the service failed on 3 demands in a row; the 1 after them are not tried.')
    expect(first.stderr).toContain('4 of 4 demands not quoted: run the same command again')
    expect(seen.reads.get(ids[3]!)).toBeUndefined()
    reset()
    const second = await quote()
    expect(second.exitCode, second.stderr).toBe(0)
    expect(second.stderr).toContain('Resuming the interrupted run of this command: 0 of 4 demands done')
    expect(seen.lists).toBe(0)
    expect(lines(second).map((o) => [o.demandId, o.status])).toEqual(ids.map((id) => [id, 'quoted']))
    for (const id of ids) expect(seen.writes.get(id), id).toBe(1)
    expect(journals()).toHaveLength(0)
  })

  it('--force starts afresh, and a run with other options keeps the interrupted one for its own command', async () => {
    const ids = await fourDemands('force')
    failWrite = (id) => id === ids[3]
    const first = await quote()
    failWrite = undefined
    expect(first.exitCode).toBe(1)
    expect(journals()).toHaveLength(1)
    // Other pricing options: another run, which says the interrupted one is kept.
    const other = await quote(['--max-total', '100000'])
    expect(other.exitCode, other.stderr).toBe(0)
    expect(other.stderr).toContain('An interrupted run with other filters or pricing options is kept')
    expect(other.stderr).not.toContain('Resuming')
    expect(journals()).toHaveLength(1)
    reset()
    const forced = await quote(['--force'])
    expect(forced.exitCode, forced.stderr).toBe(0)
    expect(forced.stderr).toContain(
      '--force: starting afresh; the interrupted run of this command (3 of 4 demands done)',
    )
    expect(seen.lists).toBe(1)
    expect(seen.estimates).toBe(4)
    expect(lines(forced).every((o) => o.status === 'quoted' && !o.resumed)).toBe(true)
    expect(journals()).toHaveLength(0)
  })

  it('a dry run keeps no journal', async () => {
    const r = await run([...ALL.filter((a) => a !== '--apply'), '--dry-run'], {env: {MFG_BASE_URL: proxy.url}})
    expect(r.exitCode, r.stderr).toBe(0)
    expect(journals()).toHaveLength(0)
  })
})

describe.skipIf(!built)('demand quote --all --apply stopped by a signal (the built CLI)', () => {
  for (const signal of ['SIGINT', 'SIGKILL'] as const) {
    it(`${signal} after the first demand; the rerun quotes the rest, each demand written once`, async () => {
      const ids = await fourDemands(signal)
      reset()
      slowEstimateMs = 400
      let stopped = false
      const first = await child(ALL, (line, p) => {
        if (line && !stopped) {
          stopped = true
          p.kill(signal)
        }
      }).done
      slowEstimateMs = 0
      if (signal === 'SIGINT') {
        expect(first.code, first.stderr).toBe(130)
        expect(first.stderr).toMatch(/of 4 demands not quoted \(interrupted\): run the same command again/)
      } else expect(first.signal).toBe('SIGKILL')
      const done = lines(first).map((o) => o.demandId)
      expect(done.length).toBeGreaterThanOrEqual(1)
      expect(done.length).toBeLessThan(4)
      const firstWrites = new Map(seen.writes)

      reset()
      // The rerun as a person reads it: every demand, the earlier run's marked, and a summary.
      const second = await quote([], TEXT)
      expect(second.exitCode, second.stderr).toBe(0)
      expect(second.stderr).toContain(`Resuming the interrupted run of this command: ${done.length} of 4 demands done`)
      expect(second.stderr).toContain(
        `4 quoted, 0 unchanged, 0 skipped (${done.length} of them done by the interrupted run, not quoted again).`,
      )
      expect(seen.lists).toBe(0)
      expect(seen.estimates).toBe(4 - done.length)
      for (const id of done) expect(seen.reads.get(id)).toBeUndefined()
      // Each demand written exactly once over both runs.
      for (const id of ids) expect((firstWrites.get(id) ?? 0) + (seen.writes.get(id) ?? 0), id).toBe(1)
      const heads = second.stdout.split('\n').filter((l) => /^[0-9a-f]{24} /.test(l))
      expect(heads.map((l) => l.slice(0, 24))).toEqual(ids)
      expect(heads.filter((l) => l.includes('quoted (by the interrupted run)')).map((l) => l.slice(0, 24))).toEqual(
        done,
      )
      expect(heads.every((l) => / quoted/.test(l))).toBe(true)
      expect(journals()).toHaveLength(0)
    })
  }

  it('a second run of the same selection is refused, naming the pid of the first', async () => {
    const ids = await fourDemands('busy')
    // The first run is held at its first estimate (the proxy keeps it until the second
    // run has been refused), its lock taken.
    let release = () => {}
    holdEstimates = new Promise((ok) => (release = ok))
    reset()
    const first = child(ALL)
    while (seen.estimates === 0 && first.process.exitCode === null) await new Promise((ok) => setTimeout(ok, 20))
    expect(first.process.exitCode, 'the first run ended before its first estimate').toBeNull()
    expect(readdirSync(join(sb.home, 'journals')).filter((f) => f.endsWith('.lock'))).toHaveLength(1)
    reset()
    const second = await quote().finally(() => {
      holdEstimates = undefined
      release()
    })
    expect(second.exitCode).toBe(1)
    expect(second.stderr).toContain(
      `another run of this command (same filters and pricing options) is in progress (pid ${first.process.pid}`,
    )
    expect(second.stdout).toBe('')
    expect(seen.lists + seen.estimates + seen.writes.size).toBe(0)
    const ended = await first.done
    expect(ended.code, ended.stderr).toBe(0)
    expect(lines(ended).map((o) => o.demandId)).toEqual(ids)
    expect(journals()).toHaveLength(0)
  })
})
