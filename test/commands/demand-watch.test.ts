// mfg demand watch, outside in: the built CLI (bin/run.js) runs as a child process
// against a real sandbox on port 0 (in this process, so its webhook deliveries reach
// the CLI's receiver on 127.0.0.1). Demands are created and moved over HTTP as
// another client would; the test reads what the watch prints.
import {spawn, type ChildProcess} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {createServer, type AddressInfo} from 'node:net'
import {join, resolve} from 'node:path'
import {stripVTControlCharacters} from 'node:util'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {json, runCli, startCliSandbox, type CliSandbox} from '../helpers/cli.js'
import {meshPath} from '../helpers/meshes.js'
import {json as answer, startServer} from '../api/server.js'

const root = resolve(import.meta.dirname, '../..')
const bin = join(root, 'bin/run.js')

interface Watch {
  child: ChildProcess
  /** Parsed stdout lines so far. */
  events: Record<string, unknown>[]
  stderr(): string
  /** Resolves when a line matching `test` was printed; rejects after `ms` or if the CLI exits. */
  waitFor(test: (e: Record<string, unknown>) => boolean, ms?: number): Promise<Record<string, unknown>>
  waitForErr(text: string, ms?: number): Promise<void>
  exited: Promise<number | null>
}

let sb: CliSandbox

function startWatch(args: string[], env: Record<string, string> = sb.env()): Watch {
  const childEnv: NodeJS.ProcessEnv = {...process.env, ...env, CI: 'true'}
  const child = spawn(process.execPath, [bin, 'demand', 'watch', '--json', ...args], {env: childEnv})
  const events: Record<string, unknown>[] = []
  let out = ''
  let err = ''
  const listeners = new Set<() => void>()
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk
    const lines = out.split('\n')
    out = lines.pop()!
    for (const line of lines) if (line.trim()) events.push(JSON.parse(line) as Record<string, unknown>)
    for (const l of [...listeners]) l()
  })
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk
    for (const l of [...listeners]) l()
  })
  let code: number | null | undefined
  const exited = new Promise<number | null>((res) =>
    child.on('close', (c) => {
      code = c
      for (const l of [...listeners]) l()
      res(c)
    }),
  )
  const until = <T>(check: () => T | undefined, what: string, ms: number): Promise<T> =>
    new Promise((res, rej) => {
      const timer = setTimeout(() => done(new Error(`no ${what} within ${ms} ms; stderr:\n${err}`)), ms)
      const done = (e?: Error, v?: T) => {
        clearTimeout(timer)
        listeners.delete(probe)
        if (e) rej(e)
        else res(v as T)
      }
      const probe = () => {
        const v = check()
        if (v !== undefined) done(undefined, v)
        else if (code !== undefined) done(new Error(`the watch exited (${code}) before ${what}; stderr:\n${err}`))
      }
      listeners.add(probe)
      probe()
    })
  return {
    child,
    events,
    stderr: () => err,
    waitFor: (test, ms = 15_000) => until(() => events.find(test), 'matching event', ms),
    waitForErr: async (text, ms = 15_000) => {
      await until(() => (err.includes(text) ? true : undefined), JSON.stringify(text), ms)
    },
    exited,
  }
}

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const b = sb.businesses[0]!
  const res = await fetch(`${sb.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${b.apiKey}`,
      'x-auth-token': b.authToken,
      ...(body === undefined ? {} : {'content-type': 'application/json'}),
    },
    ...(body === undefined ? {} : {body: JSON.stringify(body)}),
  })
  expect(res.status, await res.clone().text()).toBeLessThan(300)
  return (await res.json()) as T
}

async function createQuote(): Promise<string> {
  const [created] = await api<{_id: string}[]>('POST', `/api/public/v1/demand/create-quotes/${sb.businesses[0]!.id}`, [
    {technique: 'PCB', material: 'FR4', quantity: 2, jobDetails: {takenAs: 'QUOTE'}},
  ])
  return created!._id
}

async function subscriptions(): Promise<{_id: string; url: string}[]> {
  return (
    await api<{data: {_id: string; url: string}[]}>('GET', `/api/v2/integrations_ms/webhooks/${sb.businesses[0]!.id}`)
  ).data
}

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res))
  const {port} = server.address() as AddressInfo
  await new Promise((res) => server.close(res))
  return port
}

const of = (w: Watch, id: string, event?: string) =>
  w.events.filter((e) => e.id === id && (event === undefined || e.event === event))

beforeAll(async () => {
  sb = await startCliSandbox()
})
afterAll(async () => {
  await sb.close()
})

describe('mfg demand watch', () => {
  it('shows a new demand once and its stage change, through the webhook receiver', async () => {
    // Polls 30 s apart: within the test only the receiver can report the changes.
    const w = startWatch(['--interval', '30'])
    let id = ''
    try {
      await w.waitForErr('Receiving demand events at http://127.0.0.1:')
      await w.waitForErr('Caught up: ')
      // The first run records the seeded demands without a line.
      expect(w.events).toEqual([])
      id = await createQuote()
      const created = await w.waitFor((e) => e.id === id && e.event === 'created')
      expect(created).toMatchObject({stage: 'quote_sent', takenAs: 'QUOTE'})
      await api('PUT', `/api/public/v1/demand/${id}`, {demandStatusInfo: {status: 'special_verified'}})
      const moved = await w.waitFor((e) => e.id === id && e.event === 'stage')
      expect(moved).toMatchObject({stage: 'special_verified', previousStage: 'quote_sent', via: 'webhook'})
      expect(created.via).toBe('webhook')
      expect(of(w, id)).toHaveLength(2)
    } finally {
      w.child.kill('SIGINT')
    }
    expect(await w.exited).toBe(130)
    // A poll of the same demands (a restart) prints nothing seen through the webhook again.
    const again = startWatch(['--once', '--no-webhook'])
    expect(await again.exited).toBe(0)
    expect(of(again, id)).toEqual([])
  })

  it('after a restart shows what arrived meanwhile, nothing twice, and reuses its subscription', async () => {
    const before = await subscriptions()
    expect(before).toHaveLength(1)
    const a = await createQuote()
    const b = await createQuote()
    const w = startWatch(['--interval', '0.3', '--exit-after', '2'])
    expect(await w.exited).toBe(0)
    expect(w.events.map((e) => [e.id, e.event]).sort()).toEqual(
      [
        [a, 'created'],
        [b, 'created'],
      ].sort(),
    )
    const again = startWatch(['--once'])
    expect(await again.exited).toBe(0)
    expect(again.events).toEqual([])
    // One subscription for this profile and service, re-pointed at each start.
    const after = await subscriptions()
    expect(after.map((s) => s._id)).toEqual(before.map((s) => s._id))
  })

  it('polls only when the receiver is off, and --since shows recent demands on a first run', async () => {
    await createQuote()
    const env = {...sb.env(), MFG_HOME: join(sb.home, 'poll-only')}
    const w = startWatch(['--no-webhook', '--interval', '0.3', '--since', '1h', '--exit-after', '1'], env)
    const first = await w.waitFor(() => true)
    expect(await w.exited).toBe(0)
    expect(w.stderr()).not.toContain('Receiving demand events')
    // The oldest demand of the last hour comes first; the others are told by the next run.
    expect(first).toMatchObject({event: 'created', via: 'poll'})
    const id = (first as {id: string}).id
    const later = startWatch(['--no-webhook', '--interval', '0.3'], env)
    try {
      await later.waitForErr('Caught up: ')
      const fresh = await createQuote()
      const seen = await later.waitFor((e) => e.id === fresh)
      expect(seen).toMatchObject({event: 'created', via: 'poll'})
      expect(of(later, id)).toHaveLength(0)
    } finally {
      later.child.kill('SIGINT')
    }
    expect(await later.exited).toBe(130)
  })

  it('stops with exit 0 once the reader of its output has gone, and the event it could not print is printed by the next watch', async () => {
    const env = {...sb.env(), MFG_HOME: join(sb.home, 'reader-gone')}
    const w = startWatch(['--no-webhook', '--interval', '0.3'], env)
    await w.waitForErr('Caught up: ')
    // The reader goes away (`| head -1` once head has ended, a handler that died).
    w.child.stdout!.destroy()
    const missed = await createQuote()
    expect(await w.exited).toBe(0)
    const next = await runCli(['demand', 'watch', '--once', '--no-webhook', '--json'], {env})
    expect(next.exitCode, next.stderr).toBe(0)
    expect(next.stdout).toContain(`"id":"${missed}"`)
  })

  it('a poll tells the changes it finds oldest first, as they happened, though the list is newest first', async () => {
    const env = {...sb.env(), MFG_HOME: join(sb.home, 'poll-order')}
    const first = await runCli(['demand', 'watch', '--once', '--no-webhook'], {env})
    expect(first.exitCode, first.stderr).toBe(0)
    const made: string[] = []
    for (let i = 0; i < 3; i++) made.push(await createQuote())
    const again = await runCli(['demand', 'watch', '--once', '--no-webhook', '--json'], {env})
    expect(again.exitCode, again.stderr).toBe(0)
    const events = again.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as {id: string; event: string})
    expect(events.map((e) => e.id)).toEqual(made)
    expect(events.every((e) => e.event === 'created')).toBe(true)
  })

  it('a polling watch reports a demand cancelled with demand delete, and one archived, though they leave the list', async () => {
    const env = {...sb.env(), MFG_HOME: join(sb.home, 'poll-archived')}
    const cancelled = await createQuote()
    const archived = await createQuote()
    const first = await runCli(['demand', 'watch', '--once', '--no-webhook', '--since', '1h', '--json'], {env})
    expect(first.exitCode, first.stderr).toBe(0)
    await api('DELETE', `/api/v2/ms-machine-owner/demand/${cancelled}`)
    const update = await runCli(['demand', 'update', archived, '--archive'], {env})
    expect(update.exitCode, update.stderr).toBe(0)
    const again = await runCli(['demand', 'watch', '--once', '--no-webhook'], {env})
    expect(again.exitCode, again.stderr).toBe(0)
    const lines = again.stdout.trim().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines.find((l) => l.includes(cancelled))).toMatch(
      / stage +\S+ {2}order \d+ {2}quote {2}quote_sent → cancelled, archived {2}\(poll\)$/,
    )
    expect(lines.find((l) => l.includes(archived))).toMatch(
      / changed +\S+ {2}order \d+ {2}quote {2}quote_sent, archived {2}\(poll\)$/,
    )
    // Reported once: the next poll neither lists them nor looks them up again.
    const third = await runCli(['demand', 'watch', '--once', '--no-webhook', '--verbose'], {env})
    expect(third.exitCode, third.stderr).toBe(0)
    expect(third.stdout).toBe('')
    expect(third.stderr).not.toContain(cancelled)
  })

  it('waits what a rate limit (429) asks for before polling again, and says so', async () => {
    const list = {data: [], page: 1, pageSize: 100, total: 0, totalPages: 0}
    const server = await startServer((_req, res, i) =>
      i === 0 ? answer(res, 200, list) : answer(res, 429, {message: 'slow down'}, {'retry-after': '60'}),
    )
    const b = sb.businesses[0]!
    const env = {
      MFG_HOME: join(sb.home, 'rate-limited'),
      MFG_BASE_URL: server.url,
      MFG_API_KEY: b.apiKey,
      MFG_AUTH_TOKEN: b.authToken,
      MFG_BUSINESS_ID: b.id,
    }
    const w = startWatch(['--no-webhook', '--interval', '0.2'], env)
    try {
      await w.waitForErr('Polling failed: slow down; rate limited; polling again in 60 s.')
    } finally {
      w.child.kill('SIGINT')
    }
    expect(await w.exited).toBe(130)
    expect(server.requests).toHaveLength(2)
    await server.close()
  })

  it('--jq runs on each event line, as on any JSON output', async () => {
    await createQuote()
    const env = {...sb.env(), MFG_HOME: join(sb.home, 'jq-once')}
    const r = await runCli(['demand', 'watch', '--once', '--no-webhook', '--since', '1h', '--jq', '.event'], {env})
    expect(r.exitCode, r.stderr).toBe(0)
    const lines = r.stdout.split('\n').filter((l) => l !== '')
    expect(lines.length).toBeGreaterThan(0)
    for (const l of lines) expect(l).toBe('created')
  })

  it('--since on a run that has a saved state says it is for a first run only, and shows no demand again', async () => {
    await createQuote()
    const env = {...sb.env(), MFG_HOME: join(sb.home, 'since-again')}
    const first = await runCli(['demand', 'watch', '--once', '--no-webhook'], {env})
    expect(first.exitCode, first.stderr).toBe(0)
    const again = await runCli(['demand', 'watch', '--once', '--no-webhook', '--since', '1d'], {env})
    expect(again.exitCode, again.stderr).toBe(0)
    expect(again.stdout).toBe('')
    expect(again.stderr).toMatch(
      /--since applies to a first run only: this run catches up from the saved state \S+since-again\/watch\/\S+\.json, showing what changed since the last run/,
    )
  })

  it('subscribes the --public-url address (a tunnel) and receives through it', async () => {
    const port = await freePort()
    const publicUrl = `http://localhost:${port}/hook`
    const w = startWatch(['--interval', '30', '--public-url', publicUrl, '--port', String(port)])
    try {
      await w.waitForErr(`Receiving demand events at ${publicUrl}`)
      await w.waitForErr('Caught up: ')
      expect((await subscriptions()).map((s) => s.url)).toEqual([publicUrl])
      const id = await createQuote()
      expect(await w.waitFor((e) => e.id === id)).toMatchObject({event: 'created', via: 'webhook'})
    } finally {
      w.child.kill('SIGINT')
    }
    expect(await w.exited).toBe(130)
  })

  it('refuses a bad --since, --interval or a plain-http --public-url, naming the flag', async () => {
    for (const [flag, value] of [
      ['--since', 'yesterday'],
      ['--interval', '0'],
      ['--public-url', 'http://watch.example.net/hook'],
    ] as const) {
      const w = startWatch([flag, value, '--port', '4999'])
      expect(await w.exited).toBe(2)
      expect(w.stderr()).toContain(flag)
    }
  })

  it('stops on Ctrl-C in a terminal with exit 130 and leaves no new subscription', async () => {
    const before = await subscriptions()
    const env: NodeJS.ProcessEnv = {...process.env, ...sb.env(), TERM: 'xterm'}
    delete env.CI
    const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
    const command = [process.execPath, bin, 'demand', 'watch', '--interval', '0.5'].map(quote).join(' ')
    const child = spawn('script', ['--quiet', '--return', '--command', command, '/dev/null'], {
      env,
      stdio: ['pipe', 'pipe', 'inherit'],
    })
    let shown = ''
    child.stdout.setEncoding('utf8').on('data', (c: string) => (shown += c))
    const exited = new Promise<number | null>((res) => child.on('close', res))
    const deadline = Date.now() + 15_000
    while (!stripVTControlCharacters(shown).includes('Caught up: ') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(stripVTControlCharacters(shown)).toContain('Receiving demand events')
    // A person's line: when, what, which demand, its stage, and how it came.
    const id = await createQuote()
    const line = new RegExp(`^\\S+Z  created  ${id}  order \\d+  quote  quote_sent  \\(webhook\\)\\r?$`, 'm')
    while (!line.test(stripVTControlCharacters(shown)) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(stripVTControlCharacters(shown)).toMatch(line)
    child.stdin.write('\u0003')
    expect(await exited).toBe(130)
    const text = stripVTControlCharacters(shown)
    expect(text).toContain('Stopping the watch...')
    expect(text).not.toMatch(/Error|at .*\.js:\d+/)
    expect((await subscriptions()).map((s) => s._id)).toEqual(before.map((s) => s._id))
  })

  it('with --quote, quotes each new request once, with the guards, and writes the prices', async () => {
    const up = await runCli(['post', 'upload', meshPath('cube20.stl'), '--json'], {env: sb.env()})
    expect(up.exitCode, up.stderr).toBe(0)
    const [file] = json<{url: string}[]>(up)
    const w = startWatch(['--interval', '30', '--quote', '--apply', '--max-total', '100000'])
    try {
      await w.waitForErr('Caught up: ')
      const rows = join(sb.home, 'watch-quote.json')
      const part = {fileName: 'cube20.stl', fileLink: file!.url, service: '3D_PRINTING', technology: 'FDM'}
      writeFileSync(
        rows,
        JSON.stringify([{technique: '3D_PRINTING', quoteModel: [{...part, material: 'PLA', quantity: 3}]}]),
      )
      const made = await runCli(['demand', 'create', '--file', rows, '--json'], {env: sb.env()})
      expect(made.exitCode, made.stderr).toBe(0)
      const id = json<{results: {id: string}[]}>(made).results[0]!.id
      const quoted = await w.waitFor((e) => e.id === id && e.event === 'quote', 30_000)
      expect(quoted).toMatchObject({status: 'quoted', written: true, sent: false})
      expect(quoted.partsTotal).toBeGreaterThan(0)
      // Writing the prices changed the demand: a changed line, and no second quote.
      await w.waitFor((e) => e.id === id && e.event === 'changed')
      expect(of(w, id, 'quote')).toHaveLength(1)
      const held = json<{subtotal: number}>(await runCli(['demand', 'get', id, '--json'], {env: sb.env()}))
      // The demand holds the quote (unit prices rounded to the cent, so within a few cents).
      expect(Math.abs(held.subtotal - (quoted.partsTotal as number))).toBeLessThan(0.05)
    } finally {
      w.child.kill('SIGINT')
    }
    expect(await w.exited).toBe(130)
  })

  it('with --quote off a terminal, asks for --apply or --dry-run before anything runs', async () => {
    const w = startWatch(['--quote', '--once'])
    expect(await w.exited).toBe(2)
    expect(w.stderr()).toContain('pass --apply to write them, or --dry-run to only show them')
    // The watch's own flags, not in another command's name.
    expect(w.stderr()).not.toContain('demand quote')
    expect(w.events).toEqual([])
  })
})
