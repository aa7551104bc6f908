// The sandbox's quirks (src/sandbox/quirks.ts): each one against a real sandbox on
// port 0, asserting the shape of what it answers, and that what is stored is what a
// faithful sandbox stores.
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {FaultPlan, QUIRK_SEED, parseQuirkList, type QuirkName, type RunningSandbox} from '../../src/sandbox/index.js'
import {QUIRK_FAULT_RATE} from '../../src/schemas/quirks.js'
import {sandboxClient, startTestSandbox, type SandboxClient} from '../helpers/sandbox.js'

/* eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are inspected freely */
type Json = Record<string, any>

const running: RunningSandbox[] = []
let faithful: RunningSandbox
let plain: SandboxClient

beforeAll(async () => {
  faithful = await startTestSandbox()
  plain = sandboxClient(faithful)
})
afterAll(async () => {
  await faithful.close()
})
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()))
})

async function quirky(names: QuirkName[], opts: {dataDir?: string; slowMs?: number} = {}): Promise<SandboxClient> {
  const sandbox = await startTestSandbox({...opts, quirks: {names, ...(opts.slowMs ? {slowMs: opts.slowMs} : {})}})
  running.push(sandbox)
  return sandboxClient(sandbox)
}

const createQuotes = (c: SandboxClient) => `/api/public/v1/demand/create-quotes/${c.business.id}`
const v1List = (c: SandboxClient, query = '') => `/api/public/v1/demand/${c.business.id}/all${query}`
const postList = (c: SandboxClient) => `/api/v2/ms-post/post/user-posts/${c.business.id}?pageSize=2`
const HOOKS = '/api/v2/integrations_ms/webhooks'
const quote = (draftId: string, extra: Json = {}) => ({technique: '3D_PRINTING', material: 'PLA', draftId, ...extra})
const POST_BODY = {
  service: '3D_PRINTING',
  title: 'Bracket',
  price: {priceMachine: 4},
  materials: [{title: 'PLA', type: 'plastic', price: 25, currency: 'EUR'}],
}
const hook = (c: SandboxClient) => ({
  businessId: c.business.id,
  url: 'https://hooks.example.com/mfg',
  secret: 'whsec_quirks',
  events: ['order_placed'],
})

/** The demands stored with this draftId, read through a filter that works (the sandbox's own list). */
async function stored(c: SandboxClient, draftId: string): Promise<Json[]> {
  const answer = await c.get(v1List(c, `?draftId=${draftId}&pageSize=100`))
  expect(answer.status).toBe(200)
  return Array.isArray(answer.body) ? answer.body : answer.body.data
}

describe('the quirk list', () => {
  it('all turns on every quirk and one of each group; a named member replaces the group default', () => {
    const all = parseQuirkList('all', '--quirks')
    expect(all).toContain('create-object')
    expect(all).toContain('list-bare')
    expect(all).toContain('error-nested')
    expect(all).not.toContain('create-ids')
    expect(all).toContain('slow')
    const mixed = parseQuirkList('all, create-ids ,-slow,error-html', '--quirks')
    expect(mixed).toContain('create-ids')
    expect(mixed).not.toContain('create-object')
    expect(mixed).toContain('error-html')
    expect(mixed).not.toContain('error-nested')
    expect(mixed).not.toContain('slow')
    expect(mixed).toHaveLength(all.length - 1)
  })

  it('refuses unknown names, two alternatives and an empty list, naming the source and the allowed values', () => {
    expect(() => parseQuirkList('nulls,bogus', 'MFG_SANDBOX_QUIRKS')).toThrow(
      /^MFG_SANDBOX_QUIRKS: unknown quirk "bogus"; allowed: all, create-object, .*slow/,
    )
    expect(() => parseQuirkList('create-ids,create-data', '--quirks')).toThrow(
      '--quirks: create-ids and create-data are alternatives (how creates answer); name one.',
    )
    expect(() => parseQuirkList(' , ', '--quirks')).toThrow(/^--quirks is empty: allowed: all, /)
    expect(() => parseQuirkList('-slow', '--quirks')).toThrow(/^--quirks leaves no quirk on/)
  })
})

describe('create answers', () => {
  it('create-object: one demand made answers its record alone; several still answer an array', async () => {
    const c = await quirky(['create-object'])
    const one = await c.post(createQuotes(c), [quote('obj-1')])
    expect(one.status).toBe(201)
    expect(Array.isArray(one.body)).toBe(false)
    expect(one.body).toMatchObject({
      draftId: 'obj-1',
      orderNumber: expect.any(Number),
      paymentAuthToken: expect.any(String),
    })
    const two = await c.post(createQuotes(c), [quote('obj-2'), quote('obj-3')])
    expect(two.body.map((r: Json) => r.draftId)).toEqual(['obj-2', 'obj-3'])
    expect(await stored(c, 'obj-1')).toHaveLength(1)
  })

  it('create-data and create-ids wrap or reduce the records, in the order sent', async () => {
    const data = await quirky(['create-data'])
    const wrapped = await data.post(createQuotes(data), [quote('d-1'), quote('d-2')])
    expect(Object.keys(wrapped.body)).toEqual(['data'])
    expect(wrapped.body.data.map((r: Json) => r.draftId)).toEqual(['d-1', 'd-2'])
    const ids = await quirky(['create-ids'])
    const legacy = await ids.post('/api/v2/ms-machine-owner/demand/create-demands', [quote('i-1'), quote('i-2')])
    expect(legacy.status).toBe(201)
    expect(legacy.body).toHaveLength(2)
    for (const r of legacy.body) expect(Object.keys(r)).toEqual(['_id'])
    const [first] = await stored(ids, 'i-1')
    expect(legacy.body[0]._id).toBe(first!._id)
  })

  it.each([
    ['create-empty', 201],
    ['create-accepted', 202],
    ['create-no-content', 204],
  ] as const)('%s: every create answers %i with no body, and stores what it was sent', async (name, status) => {
    const c = await quirky([name])
    const demand = await c.post(createQuotes(c), [quote(`${name}-1`)])
    expect([demand.status, demand.text, demand.headers.get('content-type')]).toEqual([status, '', null])
    expect(await stored(c, `${name}-1`)).toHaveLength(1)
    const post = await c.post(`/api/v2/ms-post/post/${c.business.id}`, POST_BODY)
    expect([post.status, post.text]).toEqual([status, ''])
    const webhook = await c.post(HOOKS, hook(c))
    expect([webhook.status, webhook.text]).toEqual([status, ''])
    const hooks = await c.get(`${HOOKS}/${c.business.id}`)
    expect(hooks.body.data.map((w: Json) => w.url)).toEqual([hook(c).url])
    // Reads and errors are answered as ever.
    expect((await c.post(createQuotes(c), [{technique: 'LASER'}])).body.statusCode).toBe(400)
  })
})

describe('records', () => {
  it('no-draft-echo: records leave out their draftId, which is still stored and found by the filter', async () => {
    const c = await quirky(['no-draft-echo'])
    const [created] = (await c.post(createQuotes(c), [quote('echo-1')])).body
    expect(created).not.toHaveProperty('draftId')
    expect((await c.get(`/api/public/v1/demand/${created._id}`)).body).not.toHaveProperty('draftId')
    expect((await c.get(`/api/v2/ms-machine-owner/demand/${created._id}`)).body).not.toHaveProperty('draftId')
    const found = await stored(c, 'echo-1')
    expect(found.map((d) => d._id)).toEqual([created._id])
    expect(found[0]).not.toHaveProperty('draftId')
  })

  it('draft-filter-ignored: the v1 list answers every demand whatever ?draftId= says', async () => {
    const c = await quirky(['draft-filter-ignored'])
    await c.post(createQuotes(c), [quote('filter-1')])
    const all = (await c.get(v1List(c, '?pageSize=100'))).body
    const filtered = (await c.get(v1List(c, '?pageSize=100&draftId=filter-1'))).body
    expect(all.total).toBe(8)
    expect(filtered.total).toBe(all.total)
    expect(filtered.data.map((d: Json) => d._id)).toEqual(all.data.map((d: Json) => d._id))
    // The other filters still apply.
    expect((await c.get(v1List(c, '?status=delivered&draftId=filter-1'))).body.total).toBe(1)
  })

  it('numeric-strings: amounts with two decimals and counts as strings, in records, items, posts and paging', async () => {
    const c = await quirky(['numeric-strings'])
    const list = (await c.get(v1List(c, '?pageSize=2'))).body
    expect(list).toMatchObject({page: '1', pageSize: '2', total: '7', totalPages: '4'})
    const faithfulList = (await plain.get(v1List(plain, '?pageSize=2'))).body
    const [d, f] = [list.data[0], faithfulList.data[0]]
    expect(d.orderNumber).toBe(String(f.orderNumber))
    expect(d.priceTotal).toBe(f.priceTotal.toFixed(2))
    expect(d.quantity).toBe(String(f.quantity))
    expect(d.quoteModel[0].priceExtra).toBe(f.quoteModel[0].priceExtra.toFixed(2))
    expect(d.tracking[0].date).toBe(f.tracking[0].date)
    const legacy = (await c.get(`/api/v2/ms-machine-owner/demand/${d._id}`)).body
    expect(legacy.priceDelivery).toMatch(/^\d+\.\d\d$/)
    const posts = (await c.get(postList(c))).body
    expect(posts.currentPage).toBe('1')
    expect(posts.posts[0].views).toMatch(/^\d+$/)
    expect(posts.posts[0].materials[0].price).toMatch(/^\d+\.\d\d$/)
  })

  it('nulls: empty strings, empty lists, unset dates and an empty address are null', async () => {
    const c = await quirky(['nulls'])
    const [created] = (await c.post(createQuotes(c), [quote('nulls-1')])).body
    expect(created).toMatchObject({
      color: null,
      shippingAddress: null,
      billingAddress: null,
      quoteModel: null,
      fabricatedDate: null,
      dateAccepted: null,
      deliveredAt: null,
      draftId: 'nulls-1',
      demandStatusInfo: {status: 'quote_sent', substatus: null},
    })
    const seeded = (await c.get(v1List(c, '?pageSize=100'))).body.data.find((d: Json) => d.draftId === 'seed-cancelled')
    expect(seeded.shippingAddress.region).toBeNull()
    expect(seeded.shippingAddress.city).toEqual(expect.any(String))
  })

  it('unknown-fields: extra fields on records and list envelopes; the documented ones are all there', async () => {
    const c = await quirky(['unknown-fields'])
    const list = (await c.get(v1List(c, '?pageSize=1'))).body
    const faithfulList = (await plain.get(v1List(plain, '?pageSize=1'))).body
    expect(list).toMatchObject({took: 3, region: 'eu-west-1'})
    expect(list.data[0]).toEqual({
      ...faithfulList.data[0],
      __v: 0,
      tenant: {region: 'eu-west-1', shard: 3},
      labels: ['sandbox-quirk'],
    })
    expect((await c.get(postList(c))).body.posts[0].__v).toBe(0)
  })

  it('unknown-enums: values the interface does not list, in demands, posts and webhooks', async () => {
    const c = await quirky(['unknown-enums'])
    const d = (await c.get(v1List(c, '?pageSize=1'))).body.data[0]
    expect(d).toMatchObject({type: 'STANDARD', paymentStatus: 'AWAITING_PAYMENT'})
    const legacy = (await c.get(`/api/v2/ms-machine-owner/demand/${d._id}`)).body
    expect(legacy.typeDelivery).toBe('home delivery (tracked)')
    expect((await c.get(postList(c))).body.posts[0].type).toBe('LISTING')
    await c.post(HOOKS, hook(c))
    expect((await c.get(`${HOOKS}/${c.business.id}`)).body.data[0].events).toEqual(['order_placed', 'invoice_paid'])
  })

  it('date-forms: other ISO 8601 forms for the same instants, one form per record', async () => {
    const c = await quirky(['date-forms'])
    const ours = (await c.get(v1List(c, '?pageSize=7'))).body.data as Json[]
    const theirs = (await plain.get(v1List(plain, '?pageSize=7'))).body.data as Json[]
    const forms = new Set<string>()
    ours.forEach((d, i) => {
      expect(d.createdAt).not.toBe(theirs[i]!.createdAt)
      expect(Date.parse(d.createdAt)).toBe(Date.parse(theirs[i]!.createdAt))
      expect(Date.parse(d.updatedAt)).toBe(Date.parse(theirs[i]!.updatedAt))
      forms.add(d.createdAt.slice(19))
    })
    expect(forms.size).toBeGreaterThanOrEqual(3)
    const delivered = ours.find((d) => d.fabricatedDate)!
    expect(delivered.fabricatedDate).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00Z$/)
    const post = (await c.get(postList(c))).body.posts[0]
    expect(post.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00/)
  })
})

describe('lists', () => {
  it('list-bare: every list is its array, paging still honoured', async () => {
    const c = await quirky(['list-bare'])
    const page2 = (await c.get(v1List(c, '?pageSize=3&page=3'))).body
    expect(page2).toHaveLength(1)
    expect((await c.get(postList(c))).body).toHaveLength(2)
    expect((await c.get(`${HOOKS}/${c.business.id}`)).body).toEqual([])
  })

  it('list-data: {data} without paging fields, posts included', async () => {
    const c = await quirky(['list-data'])
    const list = (await c.get(v1List(c, '?pageSize=3'))).body
    expect(Object.keys(list)).toEqual(['data'])
    expect(list.data).toHaveLength(3)
    expect(Object.keys((await c.get(postList(c))).body)).toEqual(['data'])
    expect(Object.keys((await c.get(`${HOOKS}/${c.business.id}`)).body)).toEqual(['data'])
  })

  it('list-no-paging: the documented key without the paging fields', async () => {
    const c = await quirky(['list-no-paging'])
    expect(Object.keys((await c.get(v1List(c, '?pageSize=3'))).body)).toEqual(['data'])
    expect(Object.keys((await c.get(postList(c))).body)).toEqual(['posts'])
    expect(Object.keys((await c.get(`${HOOKS}/${c.business.id}`)).body).sort()).toEqual(['data', 'message'])
  })
})

describe('errors', () => {
  const invalid = (c: SandboxClient) => c.post(createQuotes(c), [{technique: 'LASER', material: 'PLA'}])

  it('error-nested: {"error": {"message", "code", "details"}} for every error status', async () => {
    const c = await quirky(['error-nested'])
    const bad = await invalid(c)
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({
      error: {
        message: expect.stringContaining('nothing was created'),
        code: 'BAD_REQUEST',
        details: [expect.objectContaining({path: '0.technique'})],
      },
    })
    const missing = await c.get('/api/public/v1/demand/65f0000600000000000000ff')
    expect(missing.body).toEqual({
      error: {message: expect.stringContaining('65f0000600000000000000ff'), code: 'NOT_FOUND'},
    })
    const anonymous = await c.get(v1List(c), {as: null})
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'UNAUTHORIZED'])
  })

  it('error-array: {"errors": [{"message"}, {"message", "field"}...]}', async () => {
    const c = await quirky(['error-array'])
    const bad = await invalid(c)
    expect(bad.body.errors[0]).toEqual({message: expect.stringContaining('nothing was created')})
    expect(bad.body.errors[1]).toEqual({message: expect.any(String), field: '0.technique'})
  })

  it('error-problem: RFC 9457 application/problem+json', async () => {
    const c = await quirky(['error-problem'])
    const bad = await invalid(c)
    expect(bad.headers.get('content-type')).toBe('application/problem+json; charset=utf-8')
    expect(bad.body).toMatchObject({
      type: 'about:blank',
      title: 'Bad Request',
      status: 400,
      detail: expect.stringContaining('nothing was created'),
      instance: createQuotes(c),
      errors: [{detail: expect.any(String), pointer: '/0/technique'}],
    })
  })

  it('error-html: an HTML page with the status, its reason and the message escaped', async () => {
    const c = await quirky(['error-html'])
    const missing = await c.get('/api/public/v1/demand/<b>nope')
    expect(missing.status).toBe(404)
    expect(missing.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(missing.text).toContain('<title>404 Not Found</title>')
    expect(missing.text).toContain('&#60;b&#62;nope')
    expect(missing.text).not.toContain('<b>')
  })
})

describe('refusals and slowness', () => {
  /** What the seeded plan of a quirk says of the next n requests that draw from it. */
  const plan = (kind: 'rate_limited' | 'unavailable', offset: number, n: number) => {
    const p = new FaultPlan({rate: QUIRK_FAULT_RATE, seed: QUIRK_SEED + offset, kinds: [kind]})
    return Array.from({length: n}, () => p.next())
  }

  it('rate-limit: the seeded requests get 429 with Retry-After: 1 before any work; the others are served', async () => {
    const c = await quirky(['rate-limit'])
    const expected = plan('rate_limited', 0, 40)
    expect(expected).toContain('rate_limited')
    const seen: (string | undefined)[] = []
    for (let i = 0; i < 40; i++) {
      // Every other request a create: a refused one stores nothing.
      const answer =
        i % 2 === 0 ? await c.get(v1List(c, '?pageSize=1')) : await c.post(createQuotes(c), [quote(`rl-${i}`)])
      seen.push(answer.status === 429 ? 'rate_limited' : undefined)
      if (answer.status === 429) {
        expect(answer.headers.get('retry-after')).toBe('1')
        expect(answer.body.message).toContain('sandbox quirk rate-limit')
      } else expect(answer.status).toBe(i % 2 === 0 ? 200 : 201)
    }
    expect(seen).toEqual(expected)
    const refusedCreates = expected.filter((k, i) => k && i % 2 === 1).length
    const list = (await plain.get(v1List(plain))).body.total
    const demands = await quirkyTotal(c)
    expect(demands).toBe(list + 20 - refusedCreates)
  })

  it('unavailable: only reads draw, and the seeded ones get 503', async () => {
    const c = await quirky(['unavailable'])
    const expected = plan('unavailable', 1, 30)
    expect(expected).toContain('unavailable')
    const reads: (string | undefined)[] = []
    for (let i = 0; i < 30; i++) {
      const created = await c.post(createQuotes(c), [quote(`un-${i}`)])
      expect(created.status).toBe(201)
      const answer = await c.get(`/api/public/v1/demand/${created.body[0]._id}`)
      reads.push(answer.status === 503 ? 'unavailable' : undefined)
      if (answer.status !== 503) expect(answer.body.draftId).toBe(`un-${i}`)
    }
    expect(reads).toEqual(expected)
  })

  it('slow: an answer is held before its first byte, and then given whole', async () => {
    const c = await quirky(['slow'], {slowMs: 1500})
    let settled = false
    const pending = c.get(v1List(c, '?pageSize=1')).then((answer) => {
      settled = true
      return answer
    })
    const stats = await heldStats(c)
    expect(stats.slowed).toBe(1)
    expect(settled).toBe(false)
    const answer = await pending
    expect(answer.status).toBe(200)
    expect(answer.body.data).toHaveLength(1)
  })
})

describe('what the quirks leave alone', () => {
  it('with every quirk on, what is stored is what a faithful sandbox reads back', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mfg-quirks-'))
    try {
      const names = parseQuirkList('all,-slow,-rate-limit,-unavailable', 'test')
      const c = await quirky(names, {dataDir})
      const created = await c.post(createQuotes(c), [quote('kept-1', {quantity: 3, color: 'Blue'})])
      expect(created.status).toBe(201)
      await Promise.all(running.splice(0).map((s) => s.close()))
      const reopened = await startTestSandbox({dataDir})
      running.push(reopened)
      const after = sandboxClient(reopened)
      const [record] = await stored(after, 'kept-1')
      expect(record).toMatchObject({
        _id: created.body._id,
        draftId: 'kept-1',
        quantity: 3,
        color: 'Blue',
        type: 'NORMAL',
      })
      expect(typeof record!.orderNumber).toBe('number')
      expect(record).not.toHaveProperty('__v')
    } finally {
      rmSync(dataDir, {recursive: true, force: true})
    }
  })

  it('MCP, sandbox-only routes and the stats route answer as without quirks; the stats count the quirks', async () => {
    const names = parseQuirkList('all,-slow,-rate-limit,-unavailable', 'test')
    const c = await quirky(names)
    const mcp = await c.post(
      '/api/v2/ms-integrations/api/public/v1/mcp/protocol',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
      },
      {headers: {accept: 'application/json, text/event-stream'}},
    )
    expect(mcp.status).toBe(200)
    expect(mcp.text).not.toContain('sandbox-quirk')
    const trigger = await c.post(`${HOOKS}/${c.business.id}/trigger`, {type: 'order_placed'})
    expect([trigger.status, trigger.body.data]).toEqual([202, []])
    const stats = (await c.get('/__sandbox/stats', {as: null})).body
    expect(stats.quirks).toEqual({names, answers: 0, reshaped: 0, rateLimited: 0, unavailable: 0, slowed: 0})
    await c.get(v1List(c))
    expect((await c.get('/__sandbox/stats', {as: null})).body.quirks).toMatchObject({answers: 1, reshaped: 1})
  })
})

/** Every demand of the business (the list's total), asked again while the rate limit refuses. */
async function quirkyTotal(c: SandboxClient): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const answer = await c.get(v1List(c, '?pageSize=100'))
    if (answer.status === 200) return answer.body.total
  }
  throw new Error('the list was refused 20 times in a row')
}

/** The stats once the one slowed answer is being held. */
async function heldStats(c: SandboxClient): Promise<Json> {
  for (let attempt = 0; attempt < 1000; attempt++) {
    const stats = (await c.get('/__sandbox/stats', {as: null})).body.quirks
    if (stats.slowed > 0) return stats
  }
  throw new Error('no answer was held')
}
