import {setFlagsFromString} from 'node:v8'
import {runInNewContext} from 'node:vm'

import {afterEach, describe, expect, it} from 'vitest'

import {ApiError} from '../../src/api/errors.js'
import {createClient} from '../../src/api/http.js'
import {paginateV1} from '../../src/api/paginate.js'
import {json, startServer, type TestServer} from './server.js'

let server: TestServer | undefined

/**
 * A full collection, so that heapUsed counts what is still reachable and not garbage
 * the collector has yet to visit (how much of that piles up between collections
 * differs between Node releases: Node 24 lets 80 MB gather here, Node 20 less).
 */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc')
  ;(runInNewContext('gc') as () => void)()
}
afterEach(async () => {
  await server?.close()
  server = undefined
})

/** A v1 list of `total` items `{n, pad}` served page by page. */
async function listServer(total: number, padBytes = 0) {
  const pad = 'x'.repeat(padBytes)
  server = await startServer((req, res) => {
    const url = new URL(req.url, 'http://x')
    const page = Number(url.searchParams.get('page') ?? 1)
    const pageSize = Number(url.searchParams.get('pageSize') ?? 20)
    const start = (page - 1) * pageSize
    const data = Array.from({length: Math.max(0, Math.min(pageSize, total - start))}, (_, i) =>
      padBytes ? {n: start + i, pad} : {n: start + i},
    )
    json(res, 200, {data, page, pageSize, total, totalPages: Math.ceil(total / pageSize)})
  })
  return {server, client: createClient({baseUrl: server.url, apiKey: 'pk_business_x1', retryBaseMs: 5})}
}

const PATH = '/api/public/v1/demand/b/all'

describe('paginateV1', () => {
  it('yields every item in order, one page request at a time, and stops at totalPages', async () => {
    const {server, client} = await listServer(250)
    const seen: number[] = []
    for await (const item of paginateV1<{n: number}>(client, PATH, {status: 'quote_sent'}, {pageSize: 100}))
      seen.push(item.n)
    expect(seen).toEqual(Array.from({length: 250}, (_, i) => i))
    expect(server.requests.map((r) => r.url)).toEqual([
      `${PATH}?status=quote_sent&page=1&pageSize=100`,
      `${PATH}?status=quote_sent&page=2&pageSize=100`,
      `${PATH}?status=quote_sent&page=3&pageSize=100`,
    ])
  })

  it('fetches lazily and stops at limit without asking for further pages', async () => {
    const {server, client} = await listServer(1000)
    const iterator = paginateV1<{n: number}>(client, PATH, {}, {pageSize: 50, limit: 120})[Symbol.asyncIterator]()
    await iterator.next()
    expect(server.requests).toHaveLength(1)
    let count = 1
    while (!(await iterator.next()).done) count++
    expect(count).toBe(120)
    expect(server.requests).toHaveLength(3)
  })

  it('stops at a short page or a repeated page even when totalPages says more follow', async () => {
    // A service that ignores the page number and overstates totalPages.
    for (const [size, pageSize] of [
      [3, 100],
      [100, 100],
    ] as const) {
      server = await startServer((req, res) => {
        const data = Array.from({length: size}, (_, n) => ({n}))
        json(res, 200, {data, page: 1, pageSize, total: 4000, totalPages: 40})
      })
      const client = createClient({baseUrl: server.url, apiKey: 'pk_business_x1', retryBaseMs: 5})
      const seen: number[] = []
      for await (const item of paginateV1<{n: number}>(client, PATH, {}, {pageSize})) seen.push(item.n)
      expect(seen).toEqual(Array.from({length: size}, (_, n) => n))
      expect(server.requests).toHaveLength(size < pageSize ? 1 : 2)
      await server.close()
      server = undefined
    }
  })

  it('handles an empty list with one request', async () => {
    const {server, client} = await listServer(0)
    const items: unknown[] = []
    for await (const item of paginateV1(client, PATH)) items.push(item)
    expect(items).toEqual([])
    expect(server.requests).toHaveLength(1)
  })

  it('refuses a body that is not a v1 page', async () => {
    server = await startServer((_req, res) => json(res, 200, {items: []}))
    const client = createClient({baseUrl: server.url, apiKey: 'pk_business_x1'})
    const run = async () => {
      for await (const _item of paginateV1(client, PATH)) void _item
    }
    await expect(run()).rejects.toSatisfy(
      (e: unknown) => e instanceof ApiError && e.code === 'bad_response' && /data/.test(e.message),
    )
  })

  it('walks 100,000 items over one connection with flat memory', async () => {
    const {server, client} = await listServer(100_000, 1000)
    let count = 0
    let last = -1
    let ordered = true
    collectGarbage()
    const before = process.memoryUsage().heapUsed
    let peak = before
    for await (const item of paginateV1<{n: number}>(client, PATH, {}, {pageSize: 100})) {
      if (item.n !== last + 1) ordered = false
      last = item.n
      if (++count % 10_000 === 0) {
        collectGarbage()
        peak = Math.max(peak, process.memoryUsage().heapUsed)
      }
    }
    expect(count).toBe(100_000)
    expect(ordered).toBe(true)
    expect(server.requests).toHaveLength(1000)
    expect(server.connections()).toBe(1)
    // Each item carries 1 kB: holding them all would take over 100 MB; what is live
    // at any time is about a page.
    expect(peak - before).toBeLessThan(16 * 1024 * 1024)
  }, 60_000)
})
