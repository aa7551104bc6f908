// `demand create` against services that are not ours (issue 16): a create is sent
// again only with proof that nothing was created, and whatever the service answers
// is counted, once. The service here is the foreign server (test/foreign/server.ts),
// often behind a small proxy that breaks one create request on demand, so every
// test can count what was sent and what was stored.
import {mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync} from 'node:fs'
import http, {type IncomingMessage, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {json, runCli, type CliResult} from '../helpers/cli.js'
import {nginxPage, startForeignServer, type ForeignServer, type Quirks} from '../foreign/server.js'
import {startTestSandbox} from '../helpers/sandbox.js'

interface Row {
  row: number
  id?: string
  draftId: string
  error?: string
  outcome?: 'unknown' | 'ambiguous' | 'confirmed'
  ids?: string[]
}

interface Result {
  created: number
  resumed: number
  confirmed: number
  failed: number
  unknown: number
  ambiguous: number
  requests: number
  retries: number
  reconciled: number
  lookups: number
  journal: string | null
  results: Row[]
}

interface Seen {
  method: string
  path: string
  status: number | 'dropped'
  /** Draft ids of a create's body. */
  draftIds?: string[]
}

type CreateFault = '503-before' | 'drop-after'

/** A proxy in front of a service that breaks the next create request when asked: before it reaches the service, or after. */
interface FaultProxy {
  url: string
  seen: Seen[]
  breakNextCreate(fault: CreateFault): void
  close(): Promise<void>
}

const CREATE = /\/(create-quotes\/[^/]+|create-demands)$/

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<http.Server> {
  const server = http.createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return server
}

const urlOf = (server: http.Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`

const closeServer = (server: http.Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })

const readBody = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })

async function faultProxy(target: string): Promise<FaultProxy> {
  const seen: Seen[] = []
  let next: CreateFault | undefined
  const server = await listen((req, res) => {
    void (async () => {
      const body = await readBody(req)
      const path = new URL(req.url ?? '/', 'http://x').pathname
      const entry: Seen = {method: req.method ?? 'GET', path, status: 0}
      if (CREATE.test(path))
        entry.draftIds = (JSON.parse(body.toString('utf8')) as {draftId: string}[]).map((i) => i.draftId)
      seen.push(entry)
      const fault = CREATE.test(path) ? next : undefined
      if (fault) next = undefined
      if (fault === '503-before') {
        entry.status = 503
        res.writeHead(503, {'content-type': 'application/json'})
        res.end(JSON.stringify({statusCode: 503, error: 'Service Unavailable', message: 'upstream busy'}))
        return
      }
      const headers: Record<string, string> = {}
      for (const [k, v] of Object.entries(req.headers)) {
        if (typeof v === 'string' && !['host', 'content-length', 'connection'].includes(k)) headers[k] = v
      }
      const answer = await fetch(`${target}${req.url}`, {
        method: req.method,
        headers,
        ...(body.length > 0 ? {body} : {}),
      })
      const text = Buffer.from(await answer.arrayBuffer())
      if (fault === 'drop-after') {
        // The service did the work; its answer never arrives.
        entry.status = 'dropped'
        req.socket.destroy()
        return
      }
      entry.status = answer.status
      const type = answer.headers.get('content-type')
      res.writeHead(answer.status, type ? {'content-type': type} : {})
      res.end(text)
    })()
  })
  return {
    url: urlOf(server),
    seen,
    breakNextCreate(fault) {
      next = fault
    },
    close: () => closeServer(server),
  }
}

/** A foreign server, perhaps behind a fault proxy, a fresh MFG_HOME, and `mfg` pointed at them. */
interface Setup {
  server: ForeignServer
  proxy?: FaultProxy
  home: string
  run(argv: string[], home?: string): Promise<CliResult>
  file(name: string, rows: object[]): string
  stored(): number
}

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function setup(quirks: Quirks = {}, opts: {proxy?: boolean} = {}): Promise<Setup> {
  const server = await startForeignServer(quirks)
  cleanups.push(() => server.close())
  const proxy = opts.proxy ? await faultProxy(server.url) : undefined
  if (proxy) cleanups.push(() => proxy.close())
  const home = tempDir('mfg-proof-')
  const {apiKey, authToken, businessId} = server.credentials
  return {
    server,
    ...(proxy ? {proxy} : {}),
    home,
    run: (argv, other) =>
      runCli(argv, {
        env: {
          MFG_HOME: other ?? home,
          MFG_BASE_URL: proxy?.url ?? server.url,
          MFG_API_KEY: apiKey,
          MFG_AUTH_TOKEN: authToken,
          MFG_BUSINESS_ID: businessId,
        },
      }),
    file(name, rows) {
      const path = join(home, name)
      writeFileSync(path, JSON.stringify(rows))
      return path
    },
    stored: () => server.stats().created.demands,
  }
}

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  cleanups.push(() => rmSync(dir, {recursive: true, force: true}))
  return dir
}

const quotes = (tag: string, n = 3) =>
  Array.from({length: n}, (_, i) => ({
    technique: '3D_PRINTING',
    material: 'PLA',
    quantity: i + 1,
    email: `${tag}-${i}@example.com`,
  }))

const posts = (seen: readonly Seen[]) => seen.filter((s) => s.method === 'POST')
const gets = (seen: readonly Seen[]) => seen.filter((s) => s.method === 'GET')
const LOOKUP = /\/api\/public\/v1\/demand\/[^/\s]+\/all\b/

describe('no proof, no resend', () => {
  it('a lost answer on a service without a proven look-up: every row "outcome unknown", nothing sent twice, on a re-run neither', async () => {
    const s = await setup({first: {kind: 'drop', afterWork: true}, echoDraftId: false, draftIdFilter: false})
    const path = s.file('blind.json', quotes('blind'))
    const first = await s.run(['demand', 'create', '--file', path])
    expect(first.exitCode).toBe(1)
    expect(s.stored()).toBe(3)
    expect(first.stderr).toMatch(/3 of them with an unknown outcome/)
    expect(first.stderr).toMatch(/Outcome unknown for 3 row\(s\)/)
    // --all --json prints a record a line: the filter is on each record, not on an array.
    expect(first.stderr).toContain(`mfg demand list --all --json --jq 'select(.draftId == "DRAFT-ID")'`)
    const lines = first.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Row)
    expect(lines.map((l) => l.outcome)).toEqual(['unknown', 'unknown', 'unknown'])
    for (const l of lines) {
      // The row's error names the create that failed, not the look-up.
      expect(l.error).toMatch(/POST \/api\/public\/v1\/demand\/create-quotes\//)
      expect(l.error).not.toMatch(LOOKUP)
    }
    // One create, one look-up (the newest page, which proves nothing here).
    expect(s.server.stats().served).toBe(2)

    const again = await s.run(['demand', 'create', '--file', path, '--json'])
    expect(again.exitCode).toBe(1)
    const result = json<Result>(again)
    expect(result).toMatchObject({created: 0, failed: 3, unknown: 3, requests: 0})
    expect(result.results.map((r) => r.draftId)).toEqual(lines.map((l) => l.draftId))
    expect(s.stored()).toBe(3)
    expect(s.server.stats().log.filter((l) => l.method === 'POST')).toHaveLength(1)
  })

  it('a lost answer on a service whose look-up is proven: rows proven missing go again, once; the proof is kept for the next run', async () => {
    const s = await setup({}, {proxy: true})
    const proxy = s.proxy!
    proxy.breakNextCreate('503-before')
    const first = await s.run(['demand', 'create', '--file', s.file('a.json', quotes('proof-a')), '--json'])
    expect(first.exitCode, first.stderr).toBe(0)
    expect(json<Result>(first)).toMatchObject({created: 3, failed: 0, retries: 1})
    expect(s.stored()).toBe(3)
    // The newest page, the probe (a draftId that exists, a made-up one), one look-up per row, then the resend.
    expect(gets(proxy.seen)).toHaveLength(6)
    expect(posts(proxy.seen).map((p) => p.status)).toEqual([503, 201])
    const proofs = readdirSync(join(s.home, 'journals')).filter((f) => f.startsWith('lookup-proof-'))
    expect(proofs).toHaveLength(1)
    expect(statSync(join(s.home, 'journals', proofs[0]!)).mode & 0o777).toBe(0o600)
    expect(JSON.parse(readFileSync(join(s.home, 'journals', proofs[0]!), 'utf8'))).toMatchObject({
      target: proxy.url,
      draftIdFilter: true,
    })

    const before = proxy.seen.length
    proxy.breakNextCreate('503-before')
    const second = await s.run(['demand', 'create', '--file', s.file('b.json', quotes('proof-b')), '--json'])
    expect(second.exitCode, second.stderr).toBe(0)
    expect(s.stored()).toBe(6)
    // Proven already: one look-up per row, no probe.
    expect(gets(proxy.seen.slice(before))).toHaveLength(3)
  })

  it("finds a lost answer's rows without proof when they are there: no resend", async () => {
    const s = await setup({first: {kind: 'status', status: 500, body: {message: 'boom'}, afterWork: true}})
    const r = await s.run(['demand', 'create', '--file', s.file('found.json', quotes('found')), '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json<Result>(r)).toMatchObject({created: 3, reconciled: 3, retries: 0})
    expect(s.stored()).toBe(3)
    expect(s.server.stats().served).toBe(2)
  })
})

describe('what a create answers, counted once, never claiming what another run made', () => {
  it('2xx without a body, on a service that cannot be looked up: created, "confirmed" without an id, never sent again', async () => {
    const s = await setup({createAnswer: 'empty', createStatus: 202, echoDraftId: false, draftIdFilter: false})
    const path = s.file('accepted.json', quotes('accepted'))
    const r = await s.run(['demand', 'create', '--file', path, '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    const result = json<Result>(r)
    expect(result).toMatchObject({created: 3, confirmed: 3, failed: 0, retries: 0})
    expect(result.results.map((x) => x.outcome)).toEqual(['confirmed', 'confirmed', 'confirmed'])
    expect(result.results.every((x) => x.id === undefined && x.error === undefined)).toBe(true)
    expect(s.stored()).toBe(3)
    const again = await s.run(['demand', 'create', '--file', path, '--json'])
    expect(again.exitCode).toBe(0)
    expect(json<Result>(again)).toMatchObject({created: 0, resumed: 3, requests: 0})
    expect(s.stored()).toBe(3)
  })

  it('2xx without a body on a service that can be looked up: the ids are found', async () => {
    const s = await setup({createAnswer: 'empty', createStatus: 204})
    const r = await s.run(['demand', 'create', '--file', s.file('204.json', quotes('nobody')), '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    const result = json<Result>(r)
    expect(result).toMatchObject({created: 3, confirmed: 0})
    expect(result.results.map((x) => x.id)).toEqual(s.server.stats().createdIds.demands)
    expect(s.stored()).toBe(3)
  })

  it('one object for one row, without draftId: created, sent once', async () => {
    const s = await setup({createAnswer: 'object', echoDraftId: false})
    const r = await s.run(['demand', 'create', '--file', s.file('one.json', quotes('one', 1)), '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json<Result>(r).results).toEqual([expect.objectContaining({id: s.server.stats().createdIds.demands[0]})])
    expect(s.server.stats().served).toBe(1)
  })

  it("a demand an earlier run made is not this run's: found, counted as an earlier run's, and only the missing row goes again", async () => {
    const s = await setup({}, {proxy: true})
    // seed-2 is a demand the service made in 2024 with that draftId.
    const rows = [{...quotes('old', 1)[0], draftId: 'seed-2'}, ...quotes('new', 1)]
    s.proxy!.breakNextCreate('503-before')
    const r = await s.run(['demand', 'create', '--file', s.file('old.json', rows), '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    const result = json<Result>(r)
    expect(result).toMatchObject({created: 1, resumed: 1})
    expect(result.results[0]).toMatchObject({row: 1, id: s.server.seed.demandIds[1], draftId: 'seed-2'})
    expect(s.stored()).toBe(1)
    expect(posts(s.proxy!.seen).map((p) => p.draftIds)).toEqual([
      ['seed-2', result.results[1]!.draftId],
      [result.results[1]!.draftId],
    ])
  })

  it('more than one demand for a draftId: reported with every id, none picked, nothing sent again', async () => {
    const s = await setup({}, {proxy: true})
    s.proxy!.breakNextCreate('drop-after')
    const rows = [{...quotes('twice', 1)[0], draftId: 'seed-1'}]
    const r = await s.run(['demand', 'create', '--file', s.file('twice.json', rows), '--json'])
    expect(r.exitCode).toBe(1)
    const result = json<Result>(r)
    expect(result).toMatchObject({created: 0, failed: 1, ambiguous: 1, unknown: 0})
    const row = result.results[0]!
    expect(row.outcome).toBe('ambiguous')
    expect(new Set(row.ids)).toEqual(new Set([s.server.seed.demandIds[0], ...s.server.stats().createdIds.demands]))
    expect(row.error).toMatch(/2 demands carry this row's draftId/)
    expect(s.stored()).toBe(1)
    expect(posts(s.proxy!.seen)).toHaveLength(1)
  })
})

describe('a quote built from flags', () => {
  const quote = ['demand', 'create', '--technique', 'CNC_MACHINING', '--material', 'Brass', '--quantity', '3']

  it('is one demand however often it is run the same day; --draft-id names another', async () => {
    const s = await setup({createAnswer: 'object', echoDraftId: false})
    const first = await s.run([...quote, '--json'])
    expect(first.exitCode, first.stderr).toBe(0)
    const again = await s.run([...quote, '--json'])
    expect(again.exitCode, again.stderr).toBe(0)
    expect(json<Result>(again)).toMatchObject({created: 0, resumed: 1, requests: 0})
    expect(json<Result>(again).results).toEqual(json<Result>(first).results)
    expect(s.stored()).toBe(1)
    const named = await s.run([...quote, '--draft-id', 'my-second-brass', '--json'])
    expect(named.exitCode, named.stderr).toBe(0)
    expect(json<Result>(named).results[0]).toMatchObject({draftId: 'my-second-brass'})
    expect(s.stored()).toBe(2)
  })

  it('sends the same draftId from any machine the same day, and another for other content', async () => {
    const s = await setup({}, {proxy: true})
    await s.run(quote)
    await s.run(quote, tempDir('mfg-proof-other-'))
    await s.run([...quote.slice(0, -1), '4'], tempDir('mfg-proof-third-'))
    const sent = posts(s.proxy!.seen).map((p) => p.draftIds![0])
    expect(sent).toHaveLength(3)
    expect(sent[1]).toBe(sent[0])
    expect(sent[2]).not.toBe(sent[0])
    expect(sent[0]).toMatch(/^mfg-[0-9a-f]{24}$/)
  })
})

describe('a dead service', () => {
  it('502 every time: at most 4 requests per chunk, no more chunks after two failed, every row names the create', async () => {
    let served = 0
    const dead = await listen((req, res) => {
      served++
      req.resume()
      res.writeHead(502, {'content-type': 'text/html'})
      res.end(nginxPage(502))
    })
    cleanups.push(() => closeServer(dead))
    const home = tempDir('mfg-proof-dead-')
    const path = join(home, 'dead.json')
    writeFileSync(path, JSON.stringify(quotes('dead', 250)))
    const env = {MFG_HOME: home, MFG_BASE_URL: urlOf(dead), MFG_API_KEY: 'k'.repeat(24), MFG_BUSINESS_ID: 'b1'}
    const r = await runCli(['demand', 'create', '--file', path, '--concurrency', '1', '--json'], {env})
    expect(r.exitCode).toBe(1)
    const result = json<Result>(r)
    expect(result).toMatchObject({created: 0, failed: 250, unknown: 200, requests: 2})
    // Two chunks: a create and a look-up tried three times each; the third chunk is never sent.
    expect(served).toBe(8)
    for (const row of result.results) expect(row.error).not.toMatch(LOOKUP)
    expect(result.results[0]!.error).toMatch(
      /^creating quotes: HTTP 502 .*\(POST \/api\/public\/v1\/demand\/create-quotes\/b1\)/,
    )
    expect(result.results[249]!.error).toMatch(/^not sent: the service failed the chunks before it/)
  })

  it('connection refused: not created, a re-run may send them; the error names the create', async () => {
    const gone = await listen(() => undefined)
    const url = urlOf(gone)
    await closeServer(gone)
    const home = tempDir('mfg-proof-refused-')
    const path = join(home, 'refused.json')
    writeFileSync(path, JSON.stringify(quotes('refused', 2)))
    const env = {MFG_HOME: home, MFG_BASE_URL: url, MFG_API_KEY: 'k'.repeat(24), MFG_BUSINESS_ID: 'b1'}
    const r = await runCli(['demand', 'create', '--file', path, '--json'], {env})
    expect(r.exitCode).toBe(1)
    const result = json<Result>(r)
    expect(result).toMatchObject({created: 0, failed: 2, unknown: 0, lookups: 0})
    expect(result.results[0]!.error).toMatch(/create-quotes\/b1.*not created; run the same command again/)
  })
})

describe('v1 and legacy creates of the same rows', () => {
  it('never share an Idempotency-Key: the same file through both succeeds', async () => {
    const sandbox = await startTestSandbox()
    cleanups.push(() => sandbox.close())
    const b = sandbox.businesses[0]!
    const env = {
      MFG_HOME: tempDir('mfg-proof-keys-'),
      MFG_BASE_URL: sandbox.url,
      MFG_API_KEY: b.apiKey,
      MFG_AUTH_TOKEN: b.authToken,
      MFG_BUSINESS_ID: b.id,
    }
    const path = join(env.MFG_HOME, 'both.json')
    writeFileSync(path, JSON.stringify(quotes('both', 2)))
    const v1 = await runCli(['demand', 'create', '--file', path, '--json'], {env})
    expect(v1.exitCode, v1.stderr).toBe(0)
    const legacy = await runCli(['demand', 'create', '--file', path, '--legacy', '--json'], {env})
    expect(legacy.exitCode, legacy.stderr).toBe(0)
    expect(json<Result>(legacy).failed).toBe(0)
  })
})
