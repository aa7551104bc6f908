/* eslint-disable @typescript-eslint/no-explicit-any -- answers are arbitrary JSON that the matrix inspects */
// The tenancy matrix: every route the sandbox registers, asked with no
// credentials, a malformed and an unknown key, (v2) a missing, wrong or foreign
// X-Auth-Token, and with another business's credentials on business A's
// resources. The route list comes from the app itself (an onRoute hook added
// the moment fastify creates it), so a new route fails the coverage test until
// it has a row here.
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'

import {MCP_PATH} from '../../src/api/mcp.js'
import {ErrorBody} from '../../src/schemas/common.js'
import type {RunningSandbox} from '../../src/sandbox/index.js'
import {BUSINESSES} from '../../src/sandbox/seed.js'
import type {SandboxBusiness} from '../../src/schemas/business.js'
import {sandboxClient, startTestSandbox, type HttpAnswer, type SandboxClient} from '../helpers/sandbox.js'

const routeTable = vi.hoisted(() => [] as {method: string; url: string}[])

vi.mock('fastify', async (importOriginal) => {
  const mod = await importOriginal<typeof import('fastify')>()
  const create = mod.default as unknown as (opts?: unknown) => import('fastify').FastifyInstance
  // The hook is on before buildApp adds anything, so no route escapes it.
  const wrapped = Object.assign((opts?: unknown) => {
    const app = create(opts)
    app.addHook('onRoute', (route) => {
      const methods: unknown[] = Array.isArray(route.method) ? route.method : [route.method]
      for (const method of methods) routeTable.push({method: String(method), url: route.url})
    })
    return app
  }, mod.default)
  return {...mod, default: wrapped, fastify: wrapped}
})

// ------------------------------------------------------------------ fixtures

/** Business A's resources, which business B must not reach. */
interface Fixtures {
  a: SandboxBusiness
  b: SandboxBusiness
  /** A fresh quote of A (quote_sent, so even a legacy delete would be allowed for A). */
  demand: string
  /** A seeded demand of A with a file in A's file store. */
  demandWithFile: string
  /** The stored URL of that file. */
  fileLink: string
  /** A signed link to it, issued to A. */
  signedLink: string
  /** A product (post) of A. */
  post: string
  /** A webhook subscription of A. */
  webhook: string
}

interface Req {
  path: string
  body?: unknown
  headers?: Record<string, string>
}

type Auth = 'v1' | 'v2' | 'mcp' | 'public'

interface OtherCase {
  /** The request B sends; default: A's request as is. */
  request?: (f: Fixtures) => Req
  status: number
  message?: RegExp
  /** Why this is the right answer (the contract's rule). */
  because: string
  /** Extra checks on B's answer. */
  check?: (answer: HttpAnswer, f: Fixtures) => void | Promise<void>
}

interface RouteRow {
  auth: Auth
  /** Public routes only: why no credentials are needed. */
  publicBecause?: string
  /** The request as A would make it on A's resources (`as` picks the referral of a by-product order). */
  request: (f: Fixtures, as: SandboxBusiness) => Req
  /** What B's credentials get. */
  other: OtherCase[]
}

const referralOf = (b: SandboxBusiness) => BUSINESSES.find((x) => x.id === b.id)?.referral ?? ''

const NOT_OWN = "a {businessId}/{userId} path segment or businessId/business body field not the key's: 403"
const NOT_FOUND = "an id of another business's resource: 404, exactly as if it did not exist"
const forbidden = (because = NOT_OWN): OtherCase => ({
  status: 403,
  message: /belongs to business|names business/,
  because,
})
const notFound: OtherCase = {status: 404, message: /not found|not in this business's file store/, because: NOT_FOUND}

const mcpHeaders = {accept: 'application/json, text/event-stream'}
const rpc = (method: string, params: unknown) => ({jsonrpc: '2.0', id: 1, method, params})

/** Every route of the sandbox, by `METHOD url` as fastify registers it (HEAD rows come from GET rows). */
const ROUTES: Record<string, RouteRow> = {
  'GET /__sandbox/stats': {
    auth: 'public',
    publicBecause:
      'sandbox-only diagnostics outside /api (replay switch and fault counters): no business data, nothing to protect',
    request: () => ({path: '/__sandbox/stats'}),
    other: [],
  },
  'GET /files/*': {
    auth: 'public',
    publicBecause:
      'the file host: the HMAC-signed link is the credential (interface: a link works for anyone holding it, 30 minutes); an API key adds nothing and is never sent there',
    request: (f) => ({path: new URL(f.signedLink).pathname + new URL(f.signedLink).search}),
    other: [],
  },

  // Public v1: Bearer key.
  'POST /api/public/v1/demand/create-quotes/:businessId': {
    auth: 'v1',
    request: (f) => ({
      path: `/api/public/v1/demand/create-quotes/${f.a.id}`,
      body: [{technique: '3D_PRINTING', material: 'PLA'}],
    }),
    other: [
      forbidden(),
      {
        request: (f) => ({
          path: `/api/public/v1/demand/create-quotes/${f.b.id}`,
          body: [{technique: '3D_PRINTING', material: 'PLA', business: f.a.id}],
        }),
        status: 403,
        message: /names business/,
        because: "an item whose business field is not the key's: 403",
      },
    ],
  },
  'GET /api/public/v1/demand/:businessId/:type': {
    auth: 'v1',
    request: (f) => ({path: `/api/public/v1/demand/${f.a.id}/all`}),
    other: [forbidden()],
  },
  'GET /api/public/v1/demand/:demandId': {
    auth: 'v1',
    request: (f) => ({path: `/api/public/v1/demand/${f.demand}`}),
    other: [notFound],
  },
  'PUT /api/public/v1/demand/:demandId': {
    auth: 'v1',
    request: (f) => ({path: `/api/public/v1/demand/${f.demand}`, body: {color: 'Red'}}),
    other: [
      notFound,
      {
        request: (f) => ({path: `/api/public/v1/demand/${f.demand}`, body: {business: f.a.id}}),
        status: 403,
        message: /names business/,
        because: 'a body naming another business: 403 (checked before the id, so it tells nothing about the id)',
      },
    ],
  },
  'POST /api/public/v1/price-estimation/:businessId': {
    auth: 'v1',
    request: (f) => ({path: `/api/public/v1/price-estimation/${f.a.id}`, body: {}}),
    other: [forbidden()],
  },
  'GET /api/public/v1/demand/access/file/:demandId': {
    auth: 'v1',
    request: (f) => ({path: `/api/public/v1/demand/access/file/${f.demandWithFile}`}),
    other: [notFound],
  },

  // Legacy v2: Bearer key and X-Auth-Token.
  'POST /api/v2/ms-machine-owner/demand/create-demands': {
    auth: 'v2',
    request: (f) => ({
      path: '/api/v2/ms-machine-owner/demand/create-demands',
      body: [{business: f.a.id, technique: '3D_PRINTING', email: 'x@example.com'}],
    }),
    other: [
      forbidden("an item whose business field is not the key's: 403"),
      {
        request: (f) => ({
          path: '/api/v2/ms-machine-owner/demand/create-demands',
          body: [{machineOwner: f.a.id, technique: '3D_PRINTING', email: 'x@example.com'}],
        }),
        status: 403,
        message: /machineOwner/,
        because: "an item whose machineOwner is another business: 403 (the manufacturer is the key's business)",
      },
    ],
  },
  'POST /api/v2/ms-machine-owner/demand/products': {
    auth: 'v2',
    request: (f, as) => ({
      path: '/api/v2/ms-machine-owner/demand/products?lang=en',
      body: [{productId: f.post, referral: referralOf(as), quantity: 1}],
    }),
    other: [{...notFound, because: "another business's product: 404 (contract, Products: another business's)"}],
  },
  'POST /api/v2/ms-machine-owner/demand/list': {
    auth: 'v2',
    request: (f) => ({path: '/api/v2/ms-machine-owner/demand/list', body: {demands: [f.demand, f.demandWithFile]}}),
    other: [
      {
        status: 200,
        because: 'a list by ids leaves out the ids it does not know, and those of another business are unknown to it',
        check: (answer) => expect(answer.body).toEqual([]),
      },
    ],
  },
  'GET /api/v2/ms-machine-owner/demand/access-storage': {
    auth: 'v2',
    request: (f) => ({
      path: `/api/v2/ms-machine-owner/demand/access-storage?fileLink=${encodeURIComponent(f.fileLink)}`,
    }),
    other: [notFound],
  },
  'GET /api/v2/ms-machine-owner/demand/:id': {
    auth: 'v2',
    request: (f) => ({path: `/api/v2/ms-machine-owner/demand/${f.demand}`}),
    other: [notFound],
  },
  'PUT /api/v2/ms-machine-owner/demand/:id': {
    auth: 'v2',
    request: (f) => ({path: `/api/v2/ms-machine-owner/demand/${f.demand}`, body: {quantity: 7}}),
    other: [notFound],
  },
  'DELETE /api/v2/ms-machine-owner/demand/:id': {
    auth: 'v2',
    request: (f) => ({path: `/api/v2/ms-machine-owner/demand/${f.demand}`}),
    other: [notFound],
  },
  'POST /api/v2/ms-machine-learning/machine-learing/modelPriceEstimation/:businessId': {
    auth: 'v2',
    request: (f) => ({
      path: `/api/v2/ms-machine-learning/machine-learing/modelPriceEstimation/${f.a.id}?currency=EUR`,
      body: [],
    }),
    other: [forbidden()],
  },
  'GET /api/v2/ms-post/post/user-posts/:userId': {
    auth: 'v2',
    request: (f) => ({path: `/api/v2/ms-post/post/user-posts/${f.a.id}`}),
    other: [forbidden()],
  },
  'POST /api/v2/ms-post/post/:userId': {
    auth: 'v2',
    request: (f) => ({path: `/api/v2/ms-post/post/${f.a.id}`, body: {}}),
    other: [forbidden()],
  },
  'POST /api/v2/ms-post/post/upload': {
    auth: 'v2',
    // The add-model form names a product; the multipart form (files) names none: it stores the key's own files.
    request: (f) => ({
      path: `/api/v2/ms-post/post/upload?postId=${f.post}`,
      body: {objects3D: {price: 1, free: false, originalname: 'x.stl', files: []}},
    }),
    other: [notFound],
  },
  'PUT /api/v2/ms-post/post/upload': {
    auth: 'v2',
    request: (f) => ({path: `/api/v2/ms-post/post/upload?postId=${f.post}`, body: {service: 'CNC_MACHINING'}}),
    other: [
      notFound,
      {
        request: (f) => ({path: `/api/v2/ms-post/post/upload?productId=${f.post}`, body: {service: 'CNC_MACHINING'}}),
        ...notFound,
      },
    ],
  },
  'DELETE /api/v2/ms-post/post/upload': {
    auth: 'v2',
    request: (f) => ({path: `/api/v2/ms-post/post/upload?postId=${f.post}`}),
    other: [notFound],
  },
  'POST /api/v2/integrations_ms/webhooks': {
    auth: 'v2',
    request: (f) => ({
      path: '/api/v2/integrations_ms/webhooks',
      body: {businessId: f.a.id, url: 'http://127.0.0.1:9/x', secret: 'whsec_tenancy_b', events: ['order_placed']},
    }),
    other: [forbidden()],
  },
  'GET /api/v2/integrations_ms/webhooks/:businessId': {
    auth: 'v2',
    request: (f) => ({path: `/api/v2/integrations_ms/webhooks/${f.a.id}`}),
    other: [forbidden()],
  },
  'POST /api/v2/integrations_ms/webhooks/:businessId/:webhookId': {
    auth: 'v2',
    request: (f) => ({
      path: `/api/v2/integrations_ms/webhooks/${f.a.id}/${f.webhook}`,
      body: {url: 'http://127.0.0.1:9/stolen'},
    }),
    other: [
      forbidden(),
      {
        request: (f) => ({
          path: `/api/v2/integrations_ms/webhooks/${f.b.id}/${f.webhook}`,
          body: {url: 'http://127.0.0.1:9/stolen'},
        }),
        ...notFound,
      },
    ],
  },
  'GET /api/v2/integrations_ms/webhooks/:businessId/:webhookId/deliveries': {
    auth: 'v2',
    request: (f) => ({path: `/api/v2/integrations_ms/webhooks/${f.a.id}/${f.webhook}/deliveries`}),
    other: [
      forbidden(),
      {request: (f) => ({path: `/api/v2/integrations_ms/webhooks/${f.b.id}/${f.webhook}/deliveries`}), ...notFound},
    ],
  },
  'POST /api/v2/integrations_ms/webhooks/:businessId/trigger': {
    auth: 'v2',
    request: (f) => ({path: `/api/v2/integrations_ms/webhooks/${f.a.id}/trigger`, body: {type: 'order_placed'}}),
    other: [
      forbidden(),
      {
        request: (f) => ({
          path: `/api/v2/integrations_ms/webhooks/${f.b.id}/trigger`,
          body: {type: 'order_placed', webhookId: f.webhook},
        }),
        status: 403,
        message: /no webhook access/,
        because: 'the second business has no webhook access (contract), which is checked before any webhook id',
      },
    ],
  },

  // MCP: Bearer key, the v1 way.
  [`GET ${MCP_PATH}`]: {
    auth: 'mcp',
    request: () => ({path: MCP_PATH, headers: mcpHeaders}),
    other: [
      {
        status: 405,
        because: 'the endpoint is stateless: GET opens no stream for anyone, and names no resource',
      },
    ],
  },
  [`DELETE ${MCP_PATH}`]: {
    auth: 'mcp',
    request: () => ({path: MCP_PATH, headers: mcpHeaders}),
    other: [{status: 405, because: 'the endpoint is stateless: there is no session of anyone to end'}],
  },
  [`POST ${MCP_PATH}`]: {
    auth: 'mcp',
    request: (f) => ({
      path: MCP_PATH,
      headers: mcpHeaders,
      body: rpc('tools/call', {name: 'get_quote', arguments: {quoteId: f.demand}}),
    }),
    other: [
      ...(
        [
          ['get_quote', (f: Fixtures) => ({quoteId: f.demand})],
          ['get_quote_file', (f: Fixtures) => ({quoteId: f.demandWithFile})],
          ['update_quote', (f: Fixtures) => ({quoteId: f.demand, status: 'cancelled'})],
          ['measure_part', (f: Fixtures) => ({fileLink: f.fileLink})],
          ['measure_part', (f: Fixtures) => ({fileLink: f.signedLink})],
        ] as const
      ).map(([tool, args]): OtherCase => ({
        request: (f) => ({
          path: MCP_PATH,
          headers: mcpHeaders,
          body: rpc('tools/call', {name: tool, arguments: args(f)}),
        }),
        status: 200,
        because: `${tool} on A's ${tool === 'measure_part' ? 'file' : 'quote'}: a tool error 404, as for an unknown one`,
        check: (answer) => {
          const result = answer.body.result
          expect(result.isError, JSON.stringify(answer.body)).toBe(true)
          const body = JSON.parse(result.content[0].text)
          expect(body).toMatchObject({statusCode: 404, error: 'Not Found'})
        },
      })),
      {
        request: () => ({
          path: MCP_PATH,
          headers: mcpHeaders,
          body: rpc('tools/call', {name: 'list_quotes', arguments: {type: 'all', pageSize: 100}}),
        }),
        status: 200,
        because: "list_quotes lists the key's business only",
        check: (answer, f) => {
          const quotes = answer.body.result.structuredContent.quotes as {_id: string}[]
          expect(quotes.length).toBeGreaterThan(0)
          expect(quotes.map((q) => q._id)).not.toContain(f.demand)
          expect(quotes.map((q) => q._id)).not.toContain(f.demandWithFile)
        },
      },
    ],
  },
}

// ------------------------------------------------------------------ setup

let sandbox: RunningSandbox
let a: SandboxClient
let b: SandboxClient
let f: Fixtures
let snapshot: () => Promise<unknown>
let before: unknown
let cases = 0

const WRONG_KEY = 'pk_business_tenancyUnknownKey0123456789'
const WRONG_TOKEN = 'at_tenancyUnknownToken0123456789abcdef'
const UNKNOWN_ID = 'ffffffffffffffffffffffff'

beforeAll(async () => {
  sandbox = await startTestSandbox()
  a = sandboxClient(sandbox, sandbox.businesses[0])
  b = sandboxClient(sandbox, sandbox.businesses[1])
  const created = await a.post(`/api/public/v1/demand/create-quotes/${a.business.id}`, [
    {technique: '3D_PRINTING', material: 'PLA'},
  ])
  expect(created.status, created.text).toBe(201)
  const all = await a.get(`/api/public/v1/demand/${a.business.id}/all?pageSize=100`)
  const withFile = (all.body.data as any[]).find((d) => d.quoteModel?.some((q: any) => q.fileLink))
  const link = await a.get(`/api/public/v1/demand/access/file/${withFile._id}`)
  expect(link.status, link.text).toBe(200)
  const posts = await a.get(`/api/v2/ms-post/post/user-posts/${a.business.id}`)
  const hook = await a.post('/api/v2/integrations_ms/webhooks', {
    businessId: a.business.id,
    url: 'http://127.0.0.1:9/hook',
    secret: 'whsec_tenancy_a',
    events: ['order_placed'],
  })
  expect(hook.status, hook.text).toBe(201)
  f = {
    a: a.business,
    b: b.business,
    demand: created.body[0]._id,
    demandWithFile: withFile._id,
    fileLink: withFile.quoteModel.find((q: any) => q.fileLink).fileLink,
    signedLink: link.body.url,
    post: posts.body.posts[0]._id,
    webhook: hook.body.data[0]._id,
  }
  // Everything of both businesses that a request of the matrix could change.
  snapshot = async () => ({
    aDemands: (await a.get(`/api/public/v1/demand/${f.a.id}/all?pageSize=100&archived=true`)).body,
    aLive: (await a.get(`/api/public/v1/demand/${f.a.id}/all?pageSize=100`)).body,
    bDemands: (await b.get(`/api/public/v1/demand/${f.b.id}/all?pageSize=100`)).body,
    aPosts: (await a.get(`/api/v2/ms-post/post/user-posts/${f.a.id}?pageSize=50`)).body,
    bPosts: (await b.get(`/api/v2/ms-post/post/user-posts/${f.b.id}?pageSize=50`)).body,
    aHooks: (await a.get(`/api/v2/integrations_ms/webhooks/${f.a.id}`)).body,
    aDeliveries: (await a.get(`/api/v2/integrations_ms/webhooks/${f.a.id}/${f.webhook}/deliveries`)).body,
  })
  before = await snapshot()
})
afterAll(async () => {
  await sandbox.close()
  const all = rows()
  const open = all.filter(([, , r]) => r.auth === 'public').length
  console.info(
    `tenancy matrix: ${all.length} routes (${all.length - open} authenticated, ${open} public), ${cases} cases run`,
  )
})

/** The registered routes as `METHOD url`, HEAD apart. */
function registered(): {main: string[]; head: string[]} {
  const all = [...new Set(routeTable.map((r) => `${r.method} ${r.url}`))]
  return {
    main: all.filter((r) => !r.startsWith('HEAD ')).sort(),
    head: all.filter((r) => r.startsWith('HEAD ')).sort(),
  }
}

/** Every row of the matrix: the routes of the table, plus HEAD for each GET the app also answers HEAD to. */
function rows(): [string, string, RouteRow][] {
  const heads = new Set(registered().head)
  return Object.entries(ROUTES).flatMap(([key, row]) => {
    const [method, url] = key.split(' ') as [string, string]
    const out: [string, string, RouteRow][] = [[method, url, row]]
    if (method === 'GET' && heads.has(`HEAD ${url}`)) out.push(['HEAD', url, row])
    return out
  })
}

const send = (
  method: string,
  req: Req,
  opts: {as?: SandboxBusiness | null; headers?: Record<string, string>; v2?: boolean},
) =>
  a.request(method, req.path, {
    ...(method === 'GET' || method === 'HEAD' || req.body === undefined ? {} : {body: req.body}),
    headers: {...req.headers, ...opts.headers},
    ...(opts.as === undefined ? {} : {as: opts.as}),
    ...(opts.v2 === undefined ? {} : {v2: opts.v2}),
  })

function expectErrorBody(method: string, answer: HttpAnswer, status: number, message: RegExp): void {
  expect(answer.status, answer.text).toBe(status)
  if (method === 'HEAD') return
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/)
  const body = ErrorBody.parse(answer.body)
  expect(body.statusCode).toBe(status)
  expect(body.error).toBe(status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : 'Not Found')
  expect(body.message).toMatch(message)
  expect(body.details).toBeUndefined()
}

/** The same request with every id of A's resources replaced by one that does not exist. */
function unknownVariant(req: Req): Req {
  let text = JSON.stringify(req)
  for (const id of [f.demand, f.demandWithFile, f.post, f.webhook]) text = text.replaceAll(id, UNKNOWN_ID)
  text = text.replaceAll(encodeURIComponent(f.fileLink), encodeURIComponent(f.fileLink.replace(/[^/]+$/, 'nope.stl')))
  text = text.replaceAll(f.fileLink, f.fileLink.replace(/[^/]+$/, 'nope.stl'))
  return JSON.parse(text) as Req
}
const withoutIds = (message: string) =>
  [f.demand, f.demandWithFile, f.post, f.webhook, UNKNOWN_ID].reduce(
    (m, id) => m.replaceAll(id, 'ID'),
    message.replaceAll(f.fileLink, 'LINK').replaceAll(f.fileLink.replace(/[^/]+$/, 'nope.stl'), 'LINK'),
  )

// ------------------------------------------------------------------ tests

describe('the matrix covers every route', () => {
  it('has one row for each route the app registers, and no row for a route it does not', () => {
    const {main, head} = registered()
    expect(main.length).toBeGreaterThan(20)
    expect(Object.keys(ROUTES).sort()).toEqual(main)
    // HEAD is fastify's automatic twin of GET: every HEAD has a GET row, and is run too.
    for (const h of head) expect(main).toContain(h.replace(/^HEAD /, 'GET '))
  })

  it('lists the public routes explicitly, each with the reason', () => {
    const open = Object.entries(ROUTES).filter(([, r]) => r.auth === 'public')
    expect(open.map(([k]) => k).sort()).toEqual(['GET /__sandbox/stats', 'GET /files/*'])
    for (const [, r] of open) expect(r.publicBecause?.length).toBeGreaterThan(40)
    for (const [, r] of Object.entries(ROUTES).filter(([, r]) => r.auth !== 'public')) {
      expect(r.publicBecause).toBeUndefined()
      expect(r.other.length, 'every authenticated route has a cross-business case').toBeGreaterThan(0)
    }
  })
})

describe('no, malformed or unknown credentials: 401 with the contract error body', () => {
  it('on every authenticated route and its HEAD twin', async () => {
    let routes = 0
    for (const [method, url, row] of rows()) {
      if (row.auth === 'public') continue
      routes++
      const req = row.request(f, f.a)
      const label = `${method} ${url}`
      const none = await send(method, req, {as: null})
      expectErrorBody(method, none, 401, /Missing Authorization header/)
      const basic = await send(method, req, {as: null, headers: {authorization: 'Basic bWZnOnNlY3JldA=='}})
      expectErrorBody(method, basic, 401, /Bearer/)
      const wrong = await send(method, req, {
        as: null,
        headers: {authorization: `Bearer ${WRONG_KEY}`, 'x-auth-token': f.a.authToken},
      })
      expectErrorBody(method, wrong, 401, /API key .* not valid/)
      cases += 3
      for (const answer of [none, basic, wrong]) {
        expect(answer.text, label).not.toContain(WRONG_KEY)
        if (row.auth === 'mcp') expect(answer.headers.get('www-authenticate'), label).toMatch(/^Bearer /)
      }
    }
    expect(routes).toBe(rows().length - 4)
  })

  it('v2 routes: a right key with a missing, wrong or foreign X-Auth-Token is 401 naming the header', async () => {
    let v2 = 0
    for (const [method, url, row] of rows()) {
      if (row.auth !== 'v2') continue
      v2++
      const req = row.request(f, f.a)
      const missing = await send(method, req, {v2: false})
      expectErrorBody(method, missing, 401, /Missing X-Auth-Token header/)
      const wrong = await send(method, req, {v2: false, headers: {'x-auth-token': WRONG_TOKEN}})
      expectErrorBody(method, wrong, 401, /X-Auth-Token/)
      const foreign = await send(method, req, {v2: false, headers: {'x-auth-token': f.b.authToken}})
      expectErrorBody(method, foreign, 401, /X-Auth-Token/)
      for (const answer of [missing, wrong, foreign]) {
        expect(answer.text, `${method} ${url}`).not.toContain(WRONG_TOKEN)
        expect(answer.text, `${method} ${url}`).not.toContain(f.b.authToken)
      }
      cases += 3
    }
    expect(v2).toBeGreaterThan(15)
  })

  it('v1 and MCP routes take the key alone: no X-Auth-Token is asked for', async () => {
    for (const [method, url, row] of rows()) {
      if (row.auth !== 'v1' && row.auth !== 'mcp') continue
      const answer = await send(method, row.request(f, f.b), {as: f.b, v2: false})
      expect(answer.status, `${method} ${url}: ${answer.text}`).not.toBe(401)
    }
  })
})

describe("another business's credentials on business A's resources", () => {
  it('answer 403 or 404 (or leave A out) as the contract says, and an unknown id reads the same', async () => {
    let checked = 0
    for (const [method, url, row] of rows()) {
      for (const other of row.other) {
        checked++
        const req = other.request ? other.request(f) : row.request(f, f.b)
        const label = `${method} ${url} as business B (${other.because})`
        const answer = await send(method, req, {as: f.b})
        cases++
        if (other.status === 403 || other.status === 404) expectErrorBody(method, answer, other.status, other.message!)
        else expect(answer.status, `${label}: ${answer.text}`).toBe(other.status)
        if (other.message && method !== 'HEAD') expect(answer.body.message, label).toMatch(other.message)
        if (method !== 'HEAD') await other.check?.(answer, f)
        if (other.status === 404 && method !== 'HEAD') {
          // "exactly as if it did not exist": the same answer as for an id nobody has.
          const unknown = await send(method, unknownVariant(req), {as: f.b})
          expect(unknown.status, label).toBe(404)
          expect(withoutIds(unknown.body.message), label).toBe(withoutIds(answer.body.message))
        }
      }
    }
    expect(checked).toBeGreaterThan(40)
  })

  it("left A's and B's data exactly as it was", async () => {
    expect(await snapshot()).toEqual(before)
  })
})

describe('the public routes', () => {
  it('/__sandbox/stats answers without credentials and holds no business data', async () => {
    const answer = await a.get('/__sandbox/stats', {as: null})
    expect(answer.status).toBe(200)
    expect(Object.keys(answer.body).sort()).toEqual(['faults', 'replay'])
    for (const biz of sandbox.businesses) expect(answer.text).not.toContain(biz.id)
  })

  it('/files/* needs the signed link, nothing else: the link works bare, a changed one is 403', async () => {
    const url = new URL(f.signedLink)
    const bare = await fetch(f.signedLink)
    expect(bare.status).toBe(200)
    expect((await bare.arrayBuffer()).byteLength).toBeGreaterThan(0)
    const head = await fetch(f.signedLink, {method: 'HEAD'})
    expect(head.status).toBe(200)
    // Another business's key does not change what the link grants.
    const withKey = await fetch(f.signedLink, {headers: {authorization: `Bearer ${f.b.apiKey}`}})
    expect(withKey.status).toBe(200)
    await withKey.arrayBuffer()
    const unsigned = await a.get(url.pathname, {as: null})
    expectErrorBody('GET', unsigned, 403, /signature|expires/i)
    const sig = url.searchParams.get('signature')!
    const tampered = new URL(f.signedLink)
    tampered.searchParams.set('signature', `${sig.slice(0, -1)}${sig.endsWith('0') ? '1' : '0'}`)
    expectErrorBody('GET', await a.get(tampered.pathname + tampered.search, {as: null}), 403, /signature/i)
    // A link to A's file cannot be moved to another file by changing its path.
    const moved = new URL(f.signedLink)
    moved.pathname = moved.pathname.replace(/[^/]+$/, 'other.stl')
    const answer = await a.get(moved.pathname + moved.search, {as: null})
    expect(answer.status).toBe(403)
  })
})
