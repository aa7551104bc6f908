/* eslint-disable @typescript-eslint/no-explicit-any -- answers are arbitrary JSON that the checks inspect freely */
// Property-based fuzzing of every sandbox endpoint: generated bodies, query strings
// and path parameters, sent with valid credentials. Whatever arrives, the answer is
// below 500, a 4xx carries exactly the contract's error body, nothing lands on
// Object.prototype, and the sandbox still answers a normal request afterwards.
import {request as httpRequest} from 'node:http'
import {STATUS_CODES} from 'node:http'

import fc from 'fast-check'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'

import {MAX_BODY_DEPTH, SANDBOX_ROUTES_PREFIX, buildApp} from '../../src/sandbox/app.js'
import {BODY_LIMIT} from '../../src/schemas/common.js'
import {nestedDeeperThan} from '../../src/schemas/depth.js'
import {openSeededStore, type RunningSandbox} from '../../src/sandbox/index.js'
import {TOOL_NAMES} from '../../src/sandbox/mcp/server.js'
import {MCP_ROUTE} from '../../src/sandbox/routes/mcp.js'
import {PRODUCTS} from '../../src/sandbox/seed.js'
import {sandboxClient, startTestSandbox, type HttpAnswer, type SandboxClient} from '../helpers/sandbox.js'
import {
  CONTENT_TYPES,
  MALFORMED_JSON,
  POLLUTION_MARK,
  anyBody,
  deepText,
  extraHeaders,
  jsonTree,
  multipartBody,
  mutatedSample,
  nastyString,
  pathSegment,
  protoPayloads,
  queryString,
  wrongValue,
  type BodyCase,
} from './arbitraries.js'

// ---------------------------------------------------------------- the answers' contract

/** The contract's error body, exactly: no other keys, details only when there are some. */
const ContractError = z.strictObject({
  statusCode: z.number().int(),
  error: z.string().min(1),
  message: z.string().min(1),
  details: z
    .array(z.strictObject({path: z.string(), message: z.string().min(1)}))
    .min(1)
    .optional(),
})

/** A JSON-RPC error answer (the MCP transport's own refusals). */
const JsonRpcError = z.strictObject({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number(), z.null()]),
  error: z.looseObject({code: z.number().int(), message: z.string().min(1)}),
})

let secrets: string[] = []

function describeCall(method: string, path: string, body?: BodyCase): string {
  const shown = body
    ? ` [${body.contentType}] ${typeof body.body === 'string' ? JSON.stringify(body.body.slice(0, 200)) : `${body.body.length} bytes`}`
    : ''
  return `${method} ${path.slice(0, 300)}${shown}`
}

function expectContractError(what: string, answer: HttpAnswer): void {
  const parsed = ContractError.safeParse(answer.body)
  expect(parsed.success, `${what} → ${answer.status} not the contract error body: ${answer.text.slice(0, 500)}`).toBe(
    true,
  )
  expect(answer.body.statusCode, what).toBe(answer.status)
  expect(answer.body.error, what).toBe(STATUS_CODES[answer.status])
  expect(answer.headers.get('content-type'), what).toMatch(/^application\/json/)
}

/** Every answer: no 5xx, the contract's body on 4xx, no secret echoed in an error. */
function expectSound(what: string, method: string, answer: HttpAnswer, mcp = false): void {
  expect(answer.status, `${what} → ${answer.status}: ${answer.text.slice(0, 500)}`).toBeLessThan(500)
  expect(answer.status, what).toBeGreaterThanOrEqual(200)
  if (answer.status >= 400) {
    for (const secret of secrets) expect(answer.text.includes(secret), `${what} echoes a credential`).toBe(false)
    if (method === 'HEAD') return
    if (mcp && JsonRpcError.safeParse(answer.body).success) return
    expectContractError(what, answer)
  }
}

const PROTOTYPES: [string, object][] = [
  ['Object', Object.prototype],
  ['Array', Array.prototype],
  ['Function', Function.prototype],
  ['String', String.prototype],
]
const pristine = new Map(PROTOTYPES.map(([name, proto]) => [name, Reflect.ownKeys(proto).map(String).sort()]))

/** Nothing planted on the built-in prototypes of this process (the sandbox runs in it). */
function expectNoPollution(what: string): void {
  expect(({} as Record<string, unknown>)[POLLUTION_MARK], what).toBeUndefined()
  expect(({} as Record<string, unknown>).polluted, what).toBeUndefined()
  for (const [name, proto] of PROTOTYPES) {
    expect(Reflect.ownKeys(proto).map(String).sort(), `${name}.prototype after ${what}`).toEqual(pristine.get(name))
  }
}

// ---------------------------------------------------------------- the sandbox and its data

let sandbox: RunningSandbox
let demo: SandboxClient
let ids: Ids

interface Ids {
  businessId: string
  otherBusinessId: string
  demandId: string
  deletableDemandId: string
  postId: string
  deletablePostId: string
  webhookId: string
  fileLink: string
  /** A signed link's path and query on the file host. */
  signedPath: string
}

const MCP_HEADERS = {accept: 'application/json, text/event-stream'}

beforeAll(async () => {
  // One delivery attempt per event, so webhooks that fuzzing creates cost little.
  sandbox = await startTestSandbox({webhooks: {maxAttempts: 1, timeoutMs: 500, drainMs: 100}})
  demo = sandboxClient(sandbox)
  secrets = sandbox.businesses.flatMap((b) => [b.apiKey, b.authToken])
  const businessId = demo.business.id
  const seeded = await demo.get(`/api/public/v1/demand/${businessId}/all?draftId=seed-quote-sent`)
  const demand = seeded.body.data[0]
  const created = await demo.post(`/api/public/v1/demand/create-quotes/${businessId}`, [
    {technique: '3D_PRINTING', material: 'PLA'},
  ])
  const posts = await demo.get(`/api/v2/ms-post/post/user-posts/${businessId}?pageSize=50`)
  const post = await demo.post(`/api/v2/ms-post/post/${businessId}`, POST_SAMPLE)
  const hook = await demo.post('/api/v2/integrations_ms/webhooks', webhookSample(businessId))
  const grant = await demo.get(`/api/public/v1/demand/access/file/${demand._id}`)
  expect([seeded.status, created.status, posts.status, post.status, hook.status, grant.status]).toEqual([
    200, 201, 200, 201, 201, 200,
  ])
  const url = new URL(grant.body.url)
  ids = {
    businessId,
    otherBusinessId: sandbox.businesses[1]!.id,
    demandId: demand._id,
    deletableDemandId: created.body[0]._id,
    postId: posts.body.posts[0]._id,
    deletablePostId: post.body._id,
    webhookId: hook.body.data[0]._id,
    fileLink: demand.quoteModel[0].fileLink,
    signedPath: url.pathname + url.search,
  }
})

afterAll(async () => {
  await sandbox?.close()
})

/** A normal request still works and nothing is polluted. */
async function expectHealthy(what: string): Promise<void> {
  expectNoPollution(what)
  const list = await demo.get(`/api/public/v1/demand/${ids.businessId}/all?pageSize=1`)
  expect(list.status, `list after ${what}: ${list.text.slice(0, 300)}`).toBe(200)
  const stats = await demo.get(`${SANDBOX_ROUTES_PREFIX}/stats`)
  expect(stats.status, `stats after ${what}`).toBe(200)
}

// ---------------------------------------------------------------- valid samples of every body

const POST_SAMPLE = {
  service: '3D_PRINTING',
  title: 'Fuzz bracket',
  description: 'a part',
  price: {priceMachine: '5.00', priceConception: 1, priceExtra: 2},
  materials: [{title: 'PLA', type: 'Thermoplastic', price: 8, currency: 'EUR'}],
  tags: ['fuzz'],
}

const webhookSample = (businessId: string) => ({
  businessId,
  // Port 9 refuses connections: deliveries to fuzzed subscriptions fail at once.
  url: 'http://127.0.0.1:9/fuzz',
  secret: 'whsec_fuzz',
  events: ['order_placed', 'quote_request_received'],
  useSecret: true,
})

const V1_ITEM = {
  technique: '3D_PRINTING',
  material: 'PLA',
  color: 'White',
  quantity: 25,
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.com',
  phone: '+44 20 7946 0018',
  country: 'GB',
  city: 'London',
  zip: 'EC1A 1BB',
  address: '12 Analytical Row',
  shippingAddress: {address: '12 Analytical Row', city: 'London', zip: 'EC1A 1BB', country: 'GB'},
  typeDelivery: 'home delivery',
  jobDetails: {takenAs: 'QUOTE'},
  quoteModel: [
    {
      fileName: 'clip.stl',
      unit: 'mm',
      service: '3D_PRINTING',
      technology: 'FDM',
      material: 'PLA',
      color: 'White',
      quantity: 25,
      slicingData: {volume: '8000.000', weight: '4.30', density: 1.24, hours: 0.26},
    },
  ],
}

const LEGACY_ITEM = {
  quoteModel: [{fileName: 'clip.stl', material: 'PLA', quantity: 2, unitPrice: '4.00', totalPrice: '8.00'}],
  email: 'jane@example.com',
  firstName: 'Jane',
  lastName: 'Doe',
  country: 'BE',
  city: 'Ghent',
  technique: '3D_PRINTING',
  currency: 'EUR',
  remark: ['deburr edges'],
  type: 'normal',
  referral: 'api',
  shippingMethod: {regionTo: 'EU', price: 6.5, currency: 'EUR', daysToDeliver: 4},
}

const productOrder = () => ({
  productId: PRODUCTS[0]!.product._id,
  referral: 'api',
  material: 'PLA',
  filling: 20,
  quantity: 3,
  color: 'White',
  shippingMethod: {method: 'standard', type: 'home', currency: 'EUR', price: 4.9},
  shippingAddress: {address: 'Rue Haute 5', firstName: 'Paul', city: 'Lille', country: 'FR', zip: '59000'},
  clientInfo: {firstName: 'Paul', lastName: 'Martin', email: 'paul@example.com'},
})

const PRICE_MODEL = {
  slicingData: {volume: '8000.000', weight: '4.30', density: 1.24, hours: 0.26, width: 20, depth: 20, height: 20},
  selectedOptions: [],
  material: 'PLA',
  service: '3D_PRINTING',
  technology: 'FDM',
  quantity: 3,
}

const ADD_MODEL = {
  objects3D: {
    price: 5,
    free: false,
    originalname: 'part.stl',
    files: [{originalname: 'part.stl', url: 'https://storage.example.test/part.stl'}],
  },
}

// ---------------------------------------------------------------- the route table

interface RouteSpec {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  /** As registered with fastify. */
  route: string
  /** The concrete path parameters of a normal request. */
  params?: (ids: Ids) => Record<string, string>
  /** A valid query string (without `?`). */
  query?: (ids: Ids) => string
  /** Query parameters the route reads. */
  queryKeys?: readonly string[]
  /** A valid body: the base of the field mutations. Absent: the route takes no body. */
  sample?: (ids: Ids) => unknown
  mcp?: boolean
}

const biz = (i: Ids) => ({businessId: i.businessId})

const ROUTES: RouteSpec[] = [
  {method: 'GET', route: `${SANDBOX_ROUTES_PREFIX}/stats`},
  {
    method: 'POST',
    route: '/api/public/v1/demand/create-quotes/:businessId',
    params: biz,
    sample: () => [V1_ITEM],
  },
  {
    method: 'GET',
    route: '/api/public/v1/demand/:businessId/:type',
    params: (i) => ({businessId: i.businessId, type: 'all'}),
    query: () => 'page=1&pageSize=5&sort=createdAt',
    queryKeys: ['page', 'pageSize', 'status', 'archived', 'draftId', 'sort'],
  },
  {method: 'GET', route: '/api/public/v1/demand/:demandId', params: (i) => ({demandId: i.demandId})},
  {
    method: 'PUT',
    route: '/api/public/v1/demand/:demandId',
    params: (i) => ({demandId: i.demandId}),
    sample: () => ({
      color: 'Red',
      quantity: 3,
      priceDelivery: 5,
      remark: ['call first'],
      shippingAddress: {city: 'Ghent'},
      demandStatusInfo: {status: 'quote_sent', substatus: 'waiting'},
      jobDetails: {takenAs: 'QUOTE'},
    }),
  },
  {method: 'POST', route: '/api/v2/ms-machine-owner/demand/create-demands', sample: () => [LEGACY_ITEM]},
  {
    method: 'POST',
    route: '/api/v2/ms-machine-owner/demand/products',
    query: () => 'lang=fr',
    queryKeys: ['lang'],
    sample: () => [productOrder()],
  },
  {method: 'POST', route: '/api/v2/ms-machine-owner/demand/list', sample: (i) => ({demands: [i.demandId]})},
  {method: 'GET', route: '/api/v2/ms-machine-owner/demand/:id', params: (i) => ({id: i.demandId})},
  {
    method: 'PUT',
    route: '/api/v2/ms-machine-owner/demand/:id',
    params: (i) => ({id: i.demandId}),
    sample: () => ({
      material: 'PLA',
      quantity: 2,
      color: 'Red',
      filling: 20,
      tolerance: '0.1',
      shippingAddress: {city: 'Lille'},
    }),
  },
  {
    method: 'DELETE',
    route: '/api/v2/ms-machine-owner/demand/:id',
    params: (i) => ({id: i.deletableDemandId}),
    sample: () => ({}),
  },
  {
    method: 'POST',
    route: '/api/public/v1/price-estimation/:businessId',
    params: biz,
    query: () => 'currency=USD',
    queryKeys: ['currency'],
    sample: () => ({...PRICE_MODEL, bulkPricing: [1, 10]}),
  },
  {
    method: 'POST',
    route: '/api/v2/ms-machine-learning/machine-learing/modelPriceEstimation/:businessId',
    params: biz,
    query: () => 'currency=EUR',
    queryKeys: ['currency'],
    sample: () => [{model: {...PRICE_MODEL, postProduction: [], viewerType: '3D'}}],
  },
  {
    method: 'GET',
    route: '/api/v2/ms-post/post/user-posts/:userId',
    params: (i) => ({userId: i.businessId}),
    query: () => 'currentPage=1&pageSize=5&tags=fuzz,a&formats=.stl',
    queryKeys: ['currentPage', 'pageSize', 'category', 'free', 'service', 'type', 'tags', 'formats', 'sortBy'],
  },
  {
    method: 'POST',
    route: '/api/v2/ms-post/post/:userId',
    params: (i) => ({userId: i.businessId}),
    sample: () => POST_SAMPLE,
  },
  {
    method: 'POST',
    route: '/api/v2/ms-post/post/upload',
    query: (i) => `postId=${i.postId}`,
    queryKeys: ['postId', 'productId'],
    sample: () => ADD_MODEL,
  },
  {
    method: 'PUT',
    route: '/api/v2/ms-post/post/upload',
    query: (i) => `postId=${i.postId}`,
    queryKeys: ['postId', 'productId'],
    sample: () => ({title: 'Renamed', price: {priceMachine: 6}, tags: ['a', 'b'], free: false, type: 'PRODUCT'}),
  },
  {
    method: 'DELETE',
    route: '/api/v2/ms-post/post/upload',
    query: (i) => `postId=${i.deletablePostId}`,
    queryKeys: ['postId', 'productId'],
    sample: () => ({}),
  },
  {method: 'POST', route: '/api/v2/integrations_ms/webhooks', sample: (i) => webhookSample(i.businessId)},
  {method: 'GET', route: '/api/v2/integrations_ms/webhooks/:businessId', params: biz},
  {
    method: 'POST',
    route: '/api/v2/integrations_ms/webhooks/:businessId/:webhookId',
    params: (i) => ({businessId: i.businessId, webhookId: i.webhookId}),
    sample: () => ({url: 'http://127.0.0.1:9/other', secret: 'whsec_2', events: ['order_updated'], useSecret: false}),
  },
  {
    method: 'GET',
    route: '/api/v2/integrations_ms/webhooks/:businessId/:webhookId/deliveries',
    params: (i) => ({businessId: i.businessId, webhookId: i.webhookId}),
    query: () => 'limit=5',
    queryKeys: ['limit'],
  },
  {
    method: 'POST',
    route: '/api/v2/integrations_ms/webhooks/:businessId/trigger',
    params: biz,
    sample: (i) => ({type: 'order_placed', webhookId: i.webhookId}),
  },
  {
    method: 'GET',
    route: '/api/v2/ms-machine-owner/demand/access-storage',
    query: (i) => `fileLink=${encodeURIComponent(i.fileLink)}`,
    queryKeys: ['fileLink'],
  },
  {
    method: 'GET',
    route: '/api/public/v1/demand/access/file/:demandId',
    params: (i) => ({demandId: i.demandId}),
    query: () => 'index=0',
    queryKeys: ['fileName', 'index'],
  },
  {method: 'GET', route: '/files/*', queryKeys: ['expires', 'signature']},
  {method: 'GET', route: MCP_ROUTE, mcp: true},
  {method: 'DELETE', route: MCP_ROUTE, mcp: true},
  {
    method: 'POST',
    route: MCP_ROUTE,
    mcp: true,
    sample: () => ({jsonrpc: '2.0', id: 1, method: 'tools/call', params: {name: 'list_machines', arguments: {}}}),
  },
]

/**
 * The routes fastify registers, as `METHOD url` (HEAD routes are fastify's automatic
 * twins of GET ones), and the ROUTES entries it does not know.
 */
async function registeredRoutes(): Promise<{routes: Set<string>; unknown: string[]}> {
  const store = openSeededStore({memory: true})
  const app = buildApp(store)
  const routes = new Set<string>()
  // Route plugins load on ready(), so a hook added now sees every route they register.
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.add(`${method} ${route.url}`)
  })
  await app.ready()
  const unknown = ROUTES.filter((r) => !app.hasRoute({method: r.method, url: r.route})).map(label)
  await app.close()
  store.close()
  return {routes, unknown}
}

/** The concrete path of a route with the given (already encoded) parameters. */
function pathOf(spec: RouteSpec, params: Record<string, string>): string {
  if (spec.route === '/files/*') return params['*'] ?? ids.signedPath.split('?')[0]!
  return spec.route.replace(/:(\w+)/g, (_m, name: string) => params[name] ?? 'x')
}

function normalPath(spec: RouteSpec): string {
  const params = spec.params?.(ids) ?? {}
  const path = pathOf(spec, Object.fromEntries(Object.entries(params).map(([k, v]) => [k, encodeURIComponent(v)])))
  const query = spec.route === '/files/*' ? (ids.signedPath.split('?')[1] ?? '') : (spec.query?.(ids) ?? '')
  return query ? `${path}?${query}` : path
}

async function send(
  spec: RouteSpec,
  method: string,
  path: string,
  body?: BodyCase,
  headers: Record<string, string> = {},
) {
  const what = describeCall(method, path, body)
  const answer = await demo.request(method, path, {
    ...(body ? {rawBody: body.body} : {}),
    headers: {...(spec.mcp ? MCP_HEADERS : {}), ...(body ? {'content-type': body.contentType} : {}), ...headers},
  })
  expectSound(what, method, answer, spec.mcp)
  expectNoPollution(what)
  return answer
}

const label = (spec: RouteSpec) => `${spec.method} ${spec.route}`

// ---------------------------------------------------------------- properties

describe('the route table', () => {
  it('covers every route the sandbox registers, and every entry is a registered route', async () => {
    const {routes, unknown} = await registeredRoutes()
    const table = new Set(ROUTES.map(label))
    expect(
      [...routes].filter((r) => !table.has(r)),
      'registered routes missing from ROUTES',
    ).toEqual([])
    expect(unknown, 'ROUTES entries fastify does not know').toEqual([])
    expect(routes.size).toBeGreaterThan(20)
  })
})

describe.each(ROUTES.map((spec) => [label(spec), spec] as const))('%s', (_name, spec) => {
  it('answers a normal request without a 5xx', async () => {
    const sample = spec.sample?.(ids)
    const body = sample === undefined ? undefined : {body: JSON.stringify(sample), contentType: 'application/json'}
    const answer = await send(spec, spec.method, normalPath(spec), body)
    // MCP GET and DELETE are refused by design (405); the rest of the normal requests succeed.
    if (!spec.mcp || spec.method === 'POST') expect(answer.status, answer.text.slice(0, 300)).toBeLessThan(300)
  })

  it('never fails on generated query strings and path parameters', async () => {
    const names = [...spec.route.matchAll(/:(\w+)/g)].map((m) => m[1]!)
    if (spec.route === '/files/*') names.push('*')
    const normal = spec.params?.(ids) ?? {}
    const param = fc.oneof(
      {weight: 3, arbitrary: pathSegment},
      {weight: 1, arbitrary: fc.constantFrom(...Object.values(normal), ids.otherBusinessId, ids.postId)},
    )
    const filePath = fc.oneof(
      fc.array(pathSegment, {minLength: 1, maxLength: 4}).map((segs) => `/files/${segs.join('/')}`),
      fc.constant(ids.signedPath.split('?')[0]!),
    )
    const params =
      names.length === 0
        ? fc.constant({} as Record<string, string>)
        : fc.record(
            Object.fromEntries(names.map((n) => [n, n === '*' ? filePath : param])) as Record<
              string,
              fc.Arbitrary<string>
            >,
          )
    const query = fc.oneof(
      {weight: 4, arbitrary: queryString(spec.queryKeys ?? [])},
      {weight: 1, arbitrary: fc.constant(normalPath(spec).split('?')[1] ?? '')},
    )
    const method = spec.method === 'GET' ? fc.constantFrom('GET', 'HEAD') : fc.constant(spec.method)
    const range = fc.option(
      fc.constantFrom('bytes=0-0', 'bytes=-0', 'bytes=5-1', 'bytes=99999999-', 'bytes=x', 'bytes=-'),
    )
    const sample = spec.sample?.(ids)
    await fc.assert(
      fc.asyncProperty(params, query, method, range, async (p, q, m, r) => {
        const path = pathOf(spec, p) + (q ? `?${q}` : '')
        const body = sample === undefined ? undefined : {body: JSON.stringify(sample), contentType: 'application/json'}
        await send(spec, m, path, m === 'HEAD' || m === 'GET' ? undefined : body, r ? {range: r} : {})
      }),
      {numRuns: 30},
    )
    await expectHealthy(`query fuzz of ${label(spec)}`)
  })

  if (spec.sample === undefined) return
  const path = () => normalPath(spec)

  it('never fails on generated bodies', async () => {
    const bodies =
      spec.route === '/api/v2/ms-post/post/upload' && spec.method === 'POST'
        ? fc.oneof(anyBody(spec.sample?.(ids)), multipartBody)
        : anyBody(spec.sample?.(ids))
    await fc.assert(
      fc.asyncProperty(bodies, fc.option(extraHeaders, {freq: 3}), async (body, headers) => {
        await send(spec, spec.method, path(), body, headers ?? {})
      }),
      {numRuns: 40},
    )
    await expectHealthy(`body fuzz of ${label(spec)}`)
  })

  it('never fails when one known field has a wrong type, an odd value, or is missing', async () => {
    await fc.assert(
      fc.asyncProperty(mutatedSample(spec.sample?.(ids)), async (text) => {
        await send(spec, spec.method, path(), {body: text, contentType: 'application/json'})
      }),
      {numRuns: 40},
    )
    await expectHealthy(`field fuzz of ${label(spec)}`)
  })

  it('refuses hostile bodies cleanly: over the limit, deeply nested, prototype keys, raw NaN, wrong types', async () => {
    const over = await send(spec, spec.method, path(), {
      body: `"${'x'.repeat(BODY_LIMIT)}"`,
      contentType: 'application/json',
    })
    expect(over.status).toBe(413)
    for (const depth of [10_000, 200_000]) {
      for (const shape of ['array', 'object', 'field'] as const) {
        const answer = await send(spec, spec.method, path(), {
          body: deepText(depth, shape),
          contentType: 'application/json',
        })
        expect(answer.status, `${shape} ${depth}`).toBeLessThan(500)
      }
    }
    for (const payload of protoPayloads()) {
      await send(spec, spec.method, path(), {body: payload, contentType: 'application/json'})
    }
    for (const text of MALFORMED_JSON)
      await send(spec, spec.method, path(), {body: text, contentType: 'application/json'})
    const sampleText = JSON.stringify(spec.sample?.(ids))
    for (const type of CONTENT_TYPES) await send(spec, spec.method, path(), {body: sampleText, contentType: type})
    await expectHealthy(`hostile bodies of ${label(spec)}`)
  })
})

describe('bodies over the limit without a Content-Length', () => {
  it.each(
    ROUTES.filter((r) => r.sample !== undefined && r.method === 'POST')
      .slice(0, 2)
      .map((r) => [label(r), r]),
  )('%s answers 413 to a chunked body over 10 MiB', async (_name, spec) => {
    const url = new URL(sandbox.url + normalPath(spec))
    const answer = await new Promise<{status: number; text: string}>((resolve, reject) => {
      const req = httpRequest(
        url,
        {
          method: spec.method,
          headers: {
            authorization: `Bearer ${demo.business.apiKey}`,
            'x-auth-token': demo.business.authToken,
            'content-type': 'application/json',
            'transfer-encoding': 'chunked',
            ...(spec.mcp ? MCP_HEADERS : {}),
          },
        },
        (res) => {
          let text = ''
          res.setEncoding('utf8')
          res.on('data', (c: string) => (text += c))
          res.on('end', () => resolve({status: res.statusCode ?? 0, text}))
        },
      )
      req.on('error', reject)
      const chunk = 'x'.repeat(1024 * 1024)
      req.write('"')
      let sent = 0
      const pump = () => {
        while (sent < 11) {
          sent++
          if (!req.write(chunk)) return void req.once('drain', pump)
        }
        req.end('"')
      }
      pump()
    })
    expect(answer.status).toBe(413)
    expect(ContractError.parse(JSON.parse(answer.text)).statusCode).toBe(413)
    await expectHealthy('chunked over-limit body')
  })
})

// ---------------------------------------------------------------- MCP

const TOOL_SAMPLES: Record<(typeof TOOL_NAMES)[number], (i: Ids) => Record<string, unknown>> = {
  list_quotes: () => ({type: 'all', page: 1, pageSize: 5, sort: 'createdAt', detail: 'full'}),
  get_quote: (i) => ({quoteId: i.demandId}),
  get_quote_file: (i) => ({quoteId: i.demandId, index: 0}),
  create_quotes: () => ({quotes: [{technique: '3D_PRINTING', material: 'PLA', quantity: 2}]}),
  update_quote: (i) => ({quoteId: i.demandId, status: 'quote_sent', changes: {priceDelivery: 4}}),
  estimate_price: () => ({...PRICE_MODEL, currency: 'EUR'}),
  list_machines: () => ({service: '3D_PRINTING', technology: 'FDM'}),
  get_pricing_setup: () => ({service: 'CNC_MACHINING'}),
  get_pattern_status: () => ({}),
  measure_part: () => ({
    content: Buffer.from(
      'solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid t\n',
    ).toString('base64'),
    fileName: 'tri.stl',
    unit: 'mm',
  }),
}

/** The JSON value of a text, or the text itself when it is not JSON (raw NaN and the like). */
function parseOr(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

/** SDK wording for arguments its schema refuses, or for an unknown tool: not the sandbox's doing. */
const SDK_TOOL_ERROR = /^MCP error -32602|Input validation error|Tool .* not found|Invalid arguments/i

function expectSoundToolResult(what: string, result: any): void {
  if (!result?.isError) return
  const text = result.content?.[0]?.text
  expect(typeof text, what).toBe('string')
  if (SDK_TOOL_ERROR.test(text)) return
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    body = undefined
  }
  const parsed = ContractError.safeParse(body)
  expect(parsed.success, `${what}: tool error is not a contract error body: ${text.slice(0, 300)}`).toBe(true)
  expect((body as {statusCode: number}).statusCode, `${what}: ${text.slice(0, 300)}`).toBeLessThan(500)
}

describe('MCP JSON-RPC', () => {
  const mcp = ROUTES.find((r) => r.mcp && r.method === 'POST')!
  const toolCall = () =>
    fc
      .constantFrom(...TOOL_NAMES)
      .chain((name) =>
        fc
          .oneof(
            {weight: 3, arbitrary: mutatedSample(TOOL_SAMPLES[name](ids), {deep: false}).map(parseOr)},
            {weight: 1, arbitrary: jsonTree},
            {weight: 1, arbitrary: fc.constant(TOOL_SAMPLES[name](ids))},
          )
          .map((args) => ({name, arguments: args})),
      )
  const message = () =>
    fc.record(
      {
        jsonrpc: fc.oneof({weight: 8, arbitrary: fc.constant('2.0')}, {weight: 1, arbitrary: wrongValue}),
        id: fc.oneof(
          {weight: 8, arbitrary: fc.oneof(fc.nat(), fc.string({maxLength: 8}))},
          {weight: 1, arbitrary: wrongValue},
        ),
        method: fc.oneof(
          {weight: 12, arbitrary: fc.constant('tools/call')},
          {
            weight: 2,
            arbitrary: fc.constantFrom(
              'initialize',
              'tools/list',
              'ping',
              'notifications/initialized',
              'resources/list',
            ),
          },
          {weight: 1, arbitrary: nastyString},
        ),
        params: fc.oneof({weight: 6, arbitrary: toolCall()}, {weight: 1, arbitrary: jsonTree}),
      },
      {requiredKeys: ['jsonrpc', 'method']},
    )

  it('answers generated JSON-RPC messages and tool calls with a JSON-RPC answer or a contract error', async () => {
    let toolResults = 0
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({weight: 6, arbitrary: message()}, {weight: 1, arbitrary: fc.array(message(), {maxLength: 3})}),
        fc.oneof(
          {weight: 8, arbitrary: fc.constant(null)},
          {weight: 1, arbitrary: fc.constantFrom('application/json', 'text/event-stream', '*/*', 'text/html')},
        ),
        async (body, accept) => {
          const text = JSON.stringify(body)
          const what = describeCall('POST', MCP_ROUTE, {body: text, contentType: 'application/json'})
          const answer = await send(
            mcp,
            'POST',
            MCP_ROUTE,
            {body: text, contentType: 'application/json'},
            accept ? {accept} : {},
          )
          if (answer.body === undefined) return
          for (const one of [answer.body].flat()) {
            // -32603 is the server's own failure: bad input must not produce it.
            if (one?.error !== undefined)
              expect(one.error.code, `${what}: ${JSON.stringify(one.error)}`).not.toBe(-32603)
            if (answer.status === 200 && one?.result !== undefined) {
              expectSoundToolResult(what, one.result)
              if (Array.isArray(one.result.content)) toolResults++
            }
          }
        },
      ),
      {numRuns: 60},
    )
    // The generators reach the tools, not only the transport's envelope checks.
    expect(toolResults).toBeGreaterThan(0)
    await expectHealthy('MCP fuzz')
  })

  it('answers -32602 naming the field, not an internal error, to a tool call with malformed params', async () => {
    const answer = await demo.request('POST', MCP_ROUTE, {
      rawBody: JSON.stringify({jsonrpc: '2.0', id: 7, method: 'tools/call', params: {name: 5}}),
      headers: MCP_HEADERS,
    })
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({jsonrpc: '2.0', id: 7, error: {code: -32602}})
    expect(answer.body.error.message).toMatch(/params\.name/)
    const batch = await demo.request('POST', MCP_ROUTE, {
      rawBody: JSON.stringify([
        {jsonrpc: '2.0', id: 1, method: 'ping'},
        {jsonrpc: '2.0', id: 2, method: 'tools/call', params: {name: 'get_quote', arguments: 'x'}},
      ]),
      headers: MCP_HEADERS,
    })
    expect(batch.status).toBe(400)
    expect(batch.body).toMatchObject({jsonrpc: '2.0', id: null, error: {code: -32602}})
    expect(batch.body.error.message).toMatch(/Message 1 .*params\.arguments/)
  })
})

// ---------------------------------------------------------------- unknown routes

describe('unknown routes', () => {
  it('answer 404 with the contract body for any method and generated path', async () => {
    const route: RouteSpec = {method: 'GET', route: '/'}
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
        fc.array(pathSegment, {minLength: 1, maxLength: 4}),
        fc.constantFrom('', '/api/v2', '/api/public/v1', '/api/v2/ms-post'),
        async (method, segs, prefix) => {
          const withBody = method !== 'GET' && method !== 'HEAD'
          await send(
            route,
            method,
            `${prefix}/${segs.join('/')}`,
            withBody ? {body: '{}', contentType: 'application/json'} : undefined,
          )
        },
      ),
      {numRuns: 40},
    )
    await expectHealthy('unknown routes')
  })
})

// ---------------------------------------------------------------- regressions found by the properties above

describe('regressions found by fuzzing', () => {
  it('a malformed %-escape in the path gets the contract 400, not fastify’s own body', async () => {
    // Counterexample: GET /api/public/v1/demand/%/% answered {"error","code":"FST_ERR_BAD_URL",...}.
    for (const path of ['/api/public/v1/demand/%/%', '/api/v2/ms-machine-owner/demand/%E0%A4%A', '/%zz']) {
      const answer = await demo.get(path)
      expect(answer.status, path).toBe(400)
      expectContractError(path, answer)
      expect(answer.body.message).toMatch(/%-escape/)
    }
  })

  it('a Range outside the file gets the contract 416 body', async () => {
    // Counterexample: GET /files/<key>?<signature> with "Range: bytes=5-1" answered 416 with an empty body.
    const answer = await demo.request('GET', ids.signedPath, {as: null, headers: {range: 'bytes=99999999-'}})
    expect(answer.status).toBe(416)
    expectContractError('range', answer)
    expect(answer.headers.get('content-range')).toMatch(/^bytes \*\/\d+$/)
  })

  it(`refuses bodies nested deeper than ${MAX_BODY_DEPTH} levels with 400, and takes ${MAX_BODY_DEPTH}`, async () => {
    // Counterexample: PUT /api/public/v1/demand/<id> {"remark": [[[...5000 levels...]]]} answered 500
    // (JSON.stringify in the store ran out of stack).
    const remark = (levels: number) => `{"remark": ${'['.repeat(levels)}${']'.repeat(levels)}}`
    const path = `/api/public/v1/demand/${ids.demandId}`
    const deep = await demo.request('PUT', path, {rawBody: remark(5000)})
    expect(deep.status).toBe(400)
    expectContractError('deep', deep)
    expect(deep.body.message).toContain(`${MAX_BODY_DEPTH} levels`)
    expect((await demo.request('PUT', path, {rawBody: remark(MAX_BODY_DEPTH)})).status).toBe(400)
    const fits = await demo.request('PUT', path, {rawBody: remark(MAX_BODY_DEPTH - 1)})
    expect(fits.status, fits.text.slice(0, 200)).toBe(200)
  })

  it('nestedDeeperThan counts object and array levels without recursion', () => {
    expect(nestedDeeperThan(1, 0)).toBe(false)
    expect(nestedDeeperThan({}, 1)).toBe(false)
    expect(nestedDeeperThan({}, 0)).toBe(true)
    expect(nestedDeeperThan({a: [{b: []}]}, 4)).toBe(false)
    expect(nestedDeeperThan({a: [{b: []}]}, 3)).toBe(true)
    expect(nestedDeeperThan([1, 'x', null, [2]], 2)).toBe(false)
    expect(nestedDeeperThan(JSON.parse(deepText(500_000, 'array')), 100)).toBe(true)
  })
})
