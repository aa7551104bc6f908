// The CLI's commands against a small service written here, apart from the
// sandbox, that answers the way real services often do: nulls, numbers as text,
// unknown enum values, lists without paging fields or as bare arrays, fields
// left out. Each command must still show what it got, with no undefined, NaN,
// null or [object Object] in a table, and --verbose must list what was read
// leniently.
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {json as parseJson, jsonLines, runCli, type CliResult} from '../helpers/cli.js'
import {json, startServer, type Recorded, type TestServer} from './server.js'

const KEY = 'pk_business_tolerantRead42'
const TOKEN = 'auth-token-tolerant-77'
const SIGNATURE = '0123456789abcdef0123456789abcdef'
const HOOK_SECRET = 'whsec-tolerant-reader-secret'

/** A demand as a lax service answers it. */
const laxDemand = (id: string, n: number) => ({
  _id: id,
  orderNumber: String(n),
  type: 'NORMAL',
  status: 'Quote Sent',
  technique: 'LASER_SINTERING',
  material: null,
  priceTotal: null,
  currency: 'EUR',
  createdAt: '2025-01-03T10:00:00+01:00',
  shippingAddress: null,
  tracking: null,
  demandStatusInfo: {status: 'waiting_for_parts', substatus: null},
  futureField: {nested: [1, 2]},
})

/** How each path is answered. `biz` is a lax service, `empty` has nothing, `same` ignores the page number. */
function answer(req: Recorded): {status: number; body: unknown} {
  const url = new URL(req.url, 'http://x')
  const p = url.pathname
  if (p === '/api/public/v1/demand/biz/all')
    return {status: 200, body: {data: [laxDemand('d1', 41), laxDemand('d2', 42)]}}
  if (p === '/api/public/v1/demand/empty/all') return {status: 200, body: []}
  if (p === '/api/public/v1/demand/nobody/all') return {status: 204, body: undefined}
  if (p === '/api/public/v1/demand/same/all')
    return {status: 200, body: Array.from({length: 100}, (_, i) => ({_id: `s${i}`, orderNumber: i}))}
  if (p === '/api/public/v1/demand/d1') return {status: 200, body: laxDemand('d1', 41)}
  if (p === '/api/public/v1/demand/broken')
    return {status: 200, body: {orderNumber: 3, paymentAuthToken: 'pat-very-secret-value', note: `ask ${KEY}`}}
  if (p === '/api/public/v1/demand/create-quotes/biz') {
    const items = JSON.parse(req.body) as {draftId?: string}[]
    return {status: 201, body: items.map((it, i) => ({...laxDemand(`c${i}`, 41 + i), draftId: it.draftId}))}
  }
  if (p === '/api/v2/ms-post/post/user-posts/biz')
    return {status: 200, body: {data: [{_id: 'p1', type: 'VIDEO', service: 'LASER_CUTTING', title: 'Bracket'}]}}
  if (p === '/api/v2/ms-post/post/user-posts/empty') return {status: 200, body: {posts: []}}
  if (p === '/api/v2/integrations_ms/webhooks/biz')
    return {
      status: 200,
      body: [
        {_id: 'w1', url: 'https://hooks.example/in', events: ['order_placed', 'order_shipped'], secret: HOOK_SECRET},
      ],
    }
  if (p === '/api/public/v1/price-estimation/biz')
    return {status: 201, body: {data: {price: '118.40', currency: 'EUR'}}}
  if (p === '/api/public/v1/demand/access/file/d1')
    return {
      status: 200,
      body: {url: `https://files.example/files/bracket.stl?expires=4102444800&signature=${SIGNATURE}`},
    }
  return {status: 404, body: {statusCode: 404, error: 'Not Found', message: `no route ${p}`}}
}

let server: TestServer
let home: string
beforeAll(async () => {
  server = await startServer((req, res) => {
    const {status, body} = answer(req)
    json(res, status, body)
  })
  home = mkdtempSync(join(tmpdir(), 'mfg-tolerant-'))
})
afterAll(async () => {
  await server.close()
  rmSync(home, {recursive: true, force: true})
})

function run(argv: string[], business = 'biz'): Promise<CliResult> {
  return runCli(argv, {
    env: {
      MFG_HOME: home,
      MFG_BASE_URL: server.url,
      MFG_API_KEY: KEY,
      MFG_AUTH_TOKEN: TOKEN,
      MFG_BUSINESS_ID: business,
    },
  })
}

/** What a table or a note must never show, whatever the service left out. */
function expectClean(r: CliResult): void {
  for (const text of [r.stdout, r.stderr]) {
    expect(text).not.toMatch(/\bundefined\b|\bNaN\b|\[object Object\]/)
    expect(text).not.toContain(KEY)
    expect(text).not.toContain(TOKEN)
    expect(text).not.toContain(SIGNATURE)
    expect(text).not.toContain(HOOK_SECRET)
  }
  expect(r.stderr).not.toMatch(/\n\s+at /)
}

function requestsTo(path: string): Recorded[] {
  return server.requests.filter((r) => new URL(r.url, 'http://x').pathname === path)
}

describe('demand list and get against a lax service', () => {
  it('lists demands with nulls, numbers as text and unknown values, in a table with empty cells', async () => {
    const r = await run(['demand', 'list'])
    expect(r.exitCode).toBe(0)
    expectClean(r)
    expect(r.stdout).not.toMatch(/\bnull\b/)
    const lines = r.stdout.trim().split('\n')
    expect(lines).toHaveLength(3)
    expect(lines[1]).toMatch(/^41\s+d1\s+NORMAL\s+Quote Sent\s+LASER_SINTERING\s+EUR\s+2025-01-03T09:00:00Z$/)
    // No paging fields: no "Page 1 of ..." hint.
    expect(r.stderr).not.toContain('Page ')
  })

  it('--json gives the records as read: nulls left out, numbers as numbers, unknown fields and values kept', async () => {
    const records = parseJson<Record<string, unknown>[]>(await run(['demand', 'list', '--json']))
    expect(records.map((d) => d._id)).toEqual(['d1', 'd2'])
    const [first] = records
    expect(first).toMatchObject({
      orderNumber: 41,
      technique: 'LASER_SINTERING',
      demandStatusInfo: {status: 'waiting_for_parts'},
      futureField: {nested: [1, 2]},
      createdAt: '2025-01-03T10:00:00+01:00',
    })
    for (const key of ['priceTotal', 'material', 'shippingAddress', 'tracking']) expect(first).not.toHaveProperty(key)
    expect(first?.demandStatusInfo).not.toHaveProperty('substatus')
  })

  it('--verbose lists every leniency applied, under the request it was read from', async () => {
    const r = await run(['demand', 'list', '--verbose'])
    expect(r.exitCode).toBe(0)
    expectClean(r)
    const read = r.stderr.split('\n').filter((l) => l.startsWith('↳ read GET /api/public/v1/demand/biz/all: '))
    const notes = read.map((l) => l.slice(l.indexOf(': ') + 2))
    expect(notes).toEqual(
      expect.arrayContaining([
        'data[*].orderNumber: "41" read as number, and alike (×2: data[0].orderNumber, data[1].orderNumber)',
        'data[*].priceTotal: null read as absent (×2: data[0].priceTotal, data[1].priceTotal)',
        'data[*].technique: "LASER_SINTERING" is not a value the interface lists, kept as it is (×2: data[0].technique, data[1].technique)',
        'data[*].demandStatusInfo.status: "waiting_for_parts" is not a value the interface lists, kept as it is (×2: data[0].demandStatusInfo.status, data[1].demandStatusInfo.status)',
        'data[*].tracking: null read as absent (×2: data[0].tracking, data[1].tracking)',
      ]),
    )
    // Without --verbose nothing of this is printed.
    const quiet = await run(['demand', 'list'])
    expect(quiet.stderr).not.toContain('↳ read')
  })

  it('demand get shows a record with nulls as a key/value table', async () => {
    const r = await run(['demand', 'get', 'd1'])
    expect(r.exitCode).toBe(0)
    expectClean(r)
    expect(r.stdout).toMatch(/orderNumber\s+41/)
    expect(r.stdout).toMatch(/demandStatusInfo\.status\s+waiting_for_parts/)
    expect(r.stdout).not.toMatch(/priceTotal|\bnull\b/)
  })

  it('an empty list says so on stderr in a table, and is [] with --json', async () => {
    const table = await run(['demand', 'list'], 'empty')
    expect(table.exitCode).toBe(0)
    expect(table.stdout).toBe('')
    expect(table.stderr.trim()).toBe('No demands.')
    const asJson = await run(['demand', 'list', '--json'], 'empty')
    expect(asJson.exitCode).toBe(0)
    expect(parseJson(asJson)).toEqual([])
    expect(asJson.stderr).not.toContain('No demands.')
  })

  it('a list answered 204 with no body is an empty list, in every output', async () => {
    const table = await run(['demand', 'list'], 'nobody')
    expect(table.exitCode, table.stderr).toBe(0)
    expect(table.stdout).toBe('')
    expect(table.stderr.trim()).toBe('No demands.')
    for (const args of [['--json'], ['--all', '--json']]) {
      const r = await run(['demand', 'list', ...args], 'nobody')
      expect(r.exitCode, r.stderr).toBe(0)
      expect(r.stdout.trim()).toBe(args.includes('--all') ? '' : '[]')
    }
    const verbose = await run(['demand', 'list', '--verbose'], 'nobody')
    expect(verbose.stderr).toContain('(answer): no body, read as an empty list')
  })

  it('--all stops on a short page when the service sends no paging fields', async () => {
    const before = requestsTo('/api/public/v1/demand/biz/all').length
    const records = jsonLines(await run(['demand', 'list', '--all', '--json']))
    expect(records).toHaveLength(2)
    expect(requestsTo('/api/public/v1/demand/biz/all').length - before).toBe(1)
  })

  it('--all stops when a service that ignores the page number answers the same page again', async () => {
    const r = await run(['demand', 'list', '--all', '--json'], 'same')
    expect(r.exitCode).toBe(0)
    const records = jsonLines<{_id: string}>(r)
    expect(records).toHaveLength(100)
    expect(new Set(records.map((d) => d._id)).size).toBe(100)
    expect(requestsTo('/api/public/v1/demand/same/all')).toHaveLength(2)
  })

  it('an answer that cannot be used names the field, what was expected and shows what arrived, secrets masked', async () => {
    const r = await run(['demand', 'get', 'broken'])
    expect(r.exitCode).toBe(1)
    expectClean(r)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain('_id is required (string)')
    expect(r.stderr).toMatch(
      /received: \{"orderNumber":3,"paymentAuthToken":"\*\*\*\*alue","note":"ask \*\*\*\*[^"]*"\}/,
    )
    expect(r.stderr).not.toContain('pat-very-secret-value')
  })
})

describe('create, posts, webhooks, estimate and file link against a lax service', () => {
  it('a create answered with orderNumber as text is a success, sent once', async () => {
    const before = requestsTo('/api/public/v1/demand/create-quotes/biz').length
    const r = await run(['demand', 'create', '--technique', '3D_PRINTING', '--material', 'PLA', '--json'])
    expectClean(r)
    expect(r.exitCode).toBe(0)
    expect(requestsTo('/api/public/v1/demand/create-quotes/biz').length - before).toBe(1)
    expect(JSON.stringify(parseJson(r))).toContain('"c0"')
  })

  it('post list without paging fields, price, materials or models, with an unknown type and service', async () => {
    const r = await run(['post', 'list'])
    expect(r.exitCode).toBe(0)
    expectClean(r)
    const lines = r.stdout.trim().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[1]).toMatch(/^p1\s+Bracket\s+LASER_CUTTING\s+0\s+0$/)
    const posts = parseJson<Record<string, unknown>[]>(await run(['post', 'list', '--json']))
    expect(posts).toEqual([{_id: 'p1', type: 'VIDEO', service: 'LASER_CUTTING', title: 'Bracket'}])
    const empty = await run(['post', 'list'], 'empty')
    expect(empty.stdout).toBe('')
    expect(empty.stderr.trim()).toBe('No products.')
  })

  it('webhook list answered as a bare array without message, an unknown event kept, the secret masked', async () => {
    const r = await run(['webhook', 'list'])
    expect(r.exitCode).toBe(0)
    expectClean(r)
    expect(r.stdout).toMatch(/w1\s+https:\/\/hooks\.example\/in\s+order_placed,order_shipped\s+false\s+\*{4}cret/)
    const hooks = parseJson<Record<string, unknown>[]>(await run(['webhook', 'list', '--json']))
    expect(hooks).toEqual([
      {
        _id: 'w1',
        url: 'https://hooks.example/in',
        events: ['order_placed', 'order_shipped'],
        secret: '****cret',
        useSecret: false,
      },
    ])
  })

  it('price estimate answered without message and with the price as text', async () => {
    const r = await run([
      'price',
      'estimate',
      '--service',
      '3D_PRINTING',
      '--technology',
      'FDM',
      '--material',
      'PLA',
      '--volume',
      '1000',
      '--json',
    ])
    expectClean(r)
    expect(r.exitCode).toBe(0)
    expect(parseJson<{price: number}>(r).price).toBe(118.4)
  })

  it('file link answered without token: the link is read from its url', async () => {
    const r = await run(['file', 'link', 'd1', '--json'])
    expect(r.exitCode).toBe(0)
    const link = parseJson<{url: string; token: string; fileName: string}>(r)
    expect(link.fileName).toBe('bracket.stl')
    expect(link.token).toBe(`expires=4102444800&signature=${SIGNATURE}`)
    const plain = await run(['file', 'link', 'd1'])
    expect(plain.exitCode).toBe(0)
    expectClean(plain)
  })
})

describe('paging without a page count', () => {
  it('a listing that never ends stops at the page cap with a clear error', async () => {
    const {paginateV1} = await import('../../src/api/paginate.js')
    const {createClient} = await import('../../src/api/http.js')
    const {parseResponse} = await import('../../src/api/parse.js')
    const {DemandPageRead} = await import('../../src/schemas/read/demand.js')
    const endless = await startServer((req, res) => {
      const page = Number(new URL(req.url, 'http://x').searchParams.get('page'))
      json(
        res,
        200,
        Array.from({length: 10}, (_, i) => ({_id: `p${page}-${i}`})),
      )
    })
    try {
      const client = createClient({baseUrl: endless.url, apiKey: KEY})
      const seen: unknown[] = []
      const walk = async () => {
        for await (const item of paginateV1(
          client,
          '/api/public/v1/demand/b/all',
          {},
          {
            pageSize: 10,
            maxPages: 3,
            parsePage: (body) => parseResponse(DemandPageRead, body, 'GET', '/api/public/v1/demand/b/all'),
          },
        ))
          seen.push(item)
      }
      await expect(walk()).rejects.toThrow(/stopped after 3 pages.*narrow the list with filters or --limit/)
      expect(seen).toHaveLength(30)
      expect(endless.requests).toHaveLength(3)
      // A caller without --limit says what narrows its list, or nothing.
      const capped = (narrow: string | null) =>
        paginateV1(
          client,
          '/api/public/v1/demand/b/all',
          {},
          {
            pageSize: 10,
            maxPages: 1,
            narrow,
            parsePage: (body) => parseResponse(DemandPageRead, body, 'GET', '/api/public/v1/demand/b/all'),
          },
        )[Symbol.asyncIterator]()
      const drain = async (it: AsyncIterator<unknown>) => {
        while (!(await it.next()).done);
      }
      await expect(drain(capped('its query fields'))).rejects.toThrow(
        /full pages; narrow the list with its query fields/,
      )
      const bare = await drain(capped(null)).then(
        () => '',
        (error: Error) => error.message,
      )
      expect(bare).toMatch(/stopped after 1 pages: the service kept answering full pages/)
      expect(bare).not.toMatch(/narrow|--limit/)
    } finally {
      await endless.close()
    }
  })
})
