import {afterEach, describe, expect, it} from 'vitest'

import {ApiError, NotFoundError, ValidationError, exitCodeFor} from '../../src/api/errors.js'
import {createClient} from '../../src/api/http.js'
import {createQuotes, getDemand, iterateDemands, listDemands, updateDemand} from '../../src/api/v1/demands.js'
import {getLegacyDemand} from '../../src/api/v2/demands.js'
import {listWebhooks} from '../../src/api/v2/webhooks.js'
import {errorBody, json, startServer, type Handler, type TestServer} from './server.js'

const KEY = 'pk_business_endpointKey42'
const TOKEN = 'auth-token-endpoints-77'

let server: TestServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function setup(handler: Handler) {
  server = await startServer(handler)
  return {server, client: createClient({baseUrl: server.url, apiKey: KEY, authToken: TOKEN, retryBaseMs: 5})}
}

const record = (id: string, extra: Record<string, unknown> = {}) => ({
  _id: id,
  orderNumber: 1,
  type: 'NORMAL',
  status: 'Quote Sent',
  demandStatusInfo: {status: 'quote_sent'},
  ...extra,
})

describe('v1 demands', () => {
  it('createQuotes posts the items as given to the business path and answers parsed records with unknown fields kept', async () => {
    const {server, client} = await setup((req, res) => {
      const items = JSON.parse(req.body) as unknown[]
      json(
        res,
        201,
        items.map((_, i) => record(`d${i}`, {paymentAuthToken: 'pat', futureField: 42})),
      )
    })
    const items = [
      {technique: '3D_PRINTING', material: 'PLA', draftId: 'draft-1'},
      {quoteModel: [{fileName: 'a.stl', quantity: 2}], jobDetails: {takenAs: 'ORDER'}},
    ]
    const out = await createQuotes(client, 'biz/1', items, {idempotencyKey: 'idem-1'})
    expect(out.map((d) => d._id)).toEqual(['d0', 'd1'])
    expect(out[0]?.futureField).toBe(42)
    const sent = server.requests[0]
    expect(sent?.method).toBe('POST')
    expect(sent?.url).toBe('/api/public/v1/demand/create-quotes/biz%2F1')
    expect(sent?.headers['idempotency-key']).toBe('idem-1')
    expect(JSON.parse(sent?.body ?? '')).toEqual(items)
  })

  it('createQuotes refuses invalid items before sending, listing each problem with its item index', async () => {
    const {server, client} = await setup((_req, res) => json(res, 201, []))
    const err = await createQuotes(client, 'biz', [
      {technique: '3D_PRINTING', material: 'PLA'},
      {technique: 'LASER', material: 'PLA'},
      {quantity: 0, technique: 'CNC_MACHINING', material: 'ALU'},
    ]).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ValidationError)
    const v = err as ValidationError
    expect(v.clientSide).toBe(true)
    expect(v.details?.map((d) => d.path)).toEqual(['1.technique', '2.quantity'])
    expect(exitCodeFor(v)).toBe(2)
    expect(server.requests).toHaveLength(0)
  })

  it('a response that fails the schema is a bad_response error naming the field', async () => {
    const {client} = await setup((_req, res) => json(res, 201, [{orderNumber: 3}]))
    const err = await createQuotes(client, 'biz', [{technique: 'PCB', material: 'FR4'}]).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).code).toBe('bad_response')
    expect((err as ApiError).message).toContain('0._id')
  })

  it('listDemands sends the query and parses a page', async () => {
    const {server, client} = await setup((_req, res) =>
      json(res, 200, {data: [record('a'), record('b')], page: 2, pageSize: 2, total: 6, totalPages: 3}),
    )
    const page = await listDemands(client, 'biz', 'quotes', {
      page: 2,
      pageSize: 2,
      status: 'quote_sent',
      archived: false,
      sort: 'createdAt',
    })
    expect(page.data.map((d) => d._id)).toEqual(['a', 'b'])
    expect(page.totalPages).toBe(3)
    expect(server.requests[0]?.url).toBe(
      '/api/public/v1/demand/biz/quotes?page=2&pageSize=2&status=quote_sent&archived=false&sort=createdAt',
    )
  })

  it('listDemands refuses a pageSize above 100 before sending', async () => {
    const {server, client} = await setup((_req, res) => json(res, 200, {}))
    await expect(listDemands(client, 'biz', 'all', {pageSize: 500})).rejects.toSatisfy(
      (e: unknown) => e instanceof ValidationError && e.clientSide && /pageSize/.test(e.message),
    )
    expect(server.requests).toHaveLength(0)
  })

  it('iterateDemands walks the pages up to limit', async () => {
    const {server, client} = await setup((req, res) => {
      const page = Number(new URL(req.url, 'http://x').searchParams.get('page'))
      json(res, 200, {data: [record(`p${page}a`), record(`p${page}b`)], page, pageSize: 2, total: 6, totalPages: 3})
    })
    const ids: string[] = []
    for await (const d of iterateDemands(client, 'biz', 'orders', {pageSize: 2, archived: true}, {limit: 5}))
      ids.push(d._id)
    expect(ids).toEqual(['p1a', 'p1b', 'p2a', 'p2b', 'p3a'])
    expect(server.requests.map((r) => r.url)).toEqual([
      '/api/public/v1/demand/biz/orders?archived=true&page=1&pageSize=2',
      '/api/public/v1/demand/biz/orders?archived=true&page=2&pageSize=2',
      '/api/public/v1/demand/biz/orders?archived=true&page=3&pageSize=2',
    ])
  })

  it('getDemand encodes the id and maps 404', async () => {
    const {server, client} = await setup((req, res) =>
      req.url.endsWith('/ok')
        ? json(res, 200, record('ok'))
        : json(res, 404, errorBody(404, 'Not Found', 'no demand a/b')),
    )
    expect((await getDemand(client, 'ok'))._id).toBe('ok')
    const err = await getDemand(client, 'a/b').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(NotFoundError)
    expect(server.requests[1]?.url).toBe('/api/public/v1/demand/a%2Fb')
    await expect(getDemand(client, ' ')).rejects.toBeInstanceOf(ValidationError)
  })

  it('updateDemand PUTs the body and answers the updated record', async () => {
    const {server, client} = await setup((req, res) =>
      json(res, 200, record('d1', JSON.parse(req.body) as Record<string, unknown>)),
    )
    const out = await updateDemand(client, 'd1', {demandStatusInfo: {status: 'special_verified'}})
    expect(out.status).toBe(200)
    expect(out.record?.demandStatusInfo?.status).toBe('special_verified')
    expect(server.requests[0]?.method).toBe('PUT')
    await expect(updateDemand(client, 'd1', {quantity: -1})).rejects.toSatisfy(
      (e: unknown) => e instanceof ValidationError && e.clientSide && e.details?.[0]?.path === 'quantity',
    )
    expect(server.requests).toHaveLength(1)
  })
})

describe('v2', () => {
  it('listWebhooks sends both credentials and parses {message, data}', async () => {
    const {server, client} = await setup((_req, res) =>
      json(res, 200, {
        message: 'ok',
        data: [{_id: 'w1', url: 'https://h/x', events: ['order_placed'], useSecret: false}],
      }),
    )
    const out = await listWebhooks(client, 'biz')
    expect(out.data[0]?._id).toBe('w1')
    expect(server.requests[0]?.url).toBe('/api/v2/integrations_ms/webhooks/biz')
    expect(server.requests[0]?.headers['x-auth-token']).toBe(TOKEN)
  })

  it('getLegacyDemand reads the legacy record', async () => {
    const {server, client} = await setup((_req, res) =>
      json(res, 200, {_id: 'L1', status: 'Quote Sent', priceToMachnieOwner: '12'}),
    )
    const out = await getLegacyDemand(client, 'L1')
    expect(out.status).toBe('Quote Sent')
    expect(out.priceToMachnieOwner).toBe('12')
    expect(server.requests[0]?.url).toBe('/api/v2/ms-machine-owner/demand/L1')
  })
})
