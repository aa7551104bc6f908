// The pipeline against a small node:http server that answers the way real services
// and their proxies do: error bodies of every shape, JSON under the wrong label,
// unknown content codings, slow answers; and the time budget of one request.
import {gzipSync} from 'node:zlib'

import {afterEach, describe, expect, it} from 'vitest'

import {NetworkError, ServerError, ValidationError} from '../../src/api/errors.js'
import {createClient, type ApiClient, type ClientOptions} from '../../src/api/http.js'
import {json, startServer, type Handler, type TestServer, failure} from './server.js'

const KEY = 'pk_business_Secret1234567890'
const NGINX_502 =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n'
const LIST = '/api/public/v1/demand/b1/all'
const ESTIMATE = '/api/public/v1/price-estimation/b1'

let server: TestServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function setup(handler: Handler, opts: Partial<ClientOptions> = {}) {
  server = await startServer(handler)
  const lines: string[] = []
  const client: ApiClient = createClient({
    baseUrl: server.url,
    apiKey: KEY,
    retryBaseMs: 10,
    log: (l) => lines.push(l),
    ...opts,
  })
  return {server, client, lines}
}

describe('error answers', () => {
  it("a proxy's HTML page: the status, its reason and one short line; the page itself kept on the error", async () => {
    const {client} = await setup(
      (_req, res) => {
        res.writeHead(502, {'content-type': 'text/html'})
        res.end(NGINX_502)
      },
      {retries: 0},
    )
    const err = await failure(client.request({method: 'GET', path: LIST}))
    expect(err).toBeInstanceOf(ServerError)
    expect(err.message).toBe(`listing demands: HTTP 502 Bad Gateway, an HTML page: "nginx/1.25.3" (GET ${LIST})`)
    expect(err.body).toBe(NGINX_502)
  })

  it("a nested error's message, with the operation the request performs", async () => {
    const {client} = await setup((_req, res) =>
      json(res, 400, {error: {message: 'Material ZX-Ünobtainium is not offered', code: 'E_MATERIAL'}}),
    )
    const err = await failure(client.request({method: 'POST', path: ESTIMATE, body: {}}))
    expect(err).toBeInstanceOf(ValidationError)
    expect(err.serverMessage).toBe('Material ZX-Ünobtainium is not offered')
    expect(err.message).toBe(
      `estimating the price: Material ZX-Ünobtainium is not offered (POST ${ESTIMATE} → 400 Bad Request)`,
    )
  })

  it('an operation named by the caller wins over the one named from the path', async () => {
    const {client} = await setup((_req, res) => json(res, 404, {message: 'no such business'}))
    const err = await failure(client.request({method: 'GET', path: LIST, operation: 'creating quotes'}))
    expect(err.message).toMatch(/^creating quotes: no such business \(GET /)
    expect(err.operation).toBe('creating quotes')
  })

  it('JSON labelled as HTML in an error answer is read as JSON', async () => {
    const {client} = await setup(
      (_req, res) => {
        res.writeHead(422, {'content-type': 'text/html; charset=utf-8'})
        res.end(JSON.stringify({errors: [{message: 'quantity must be positive', field: 'quantity'}]}))
      },
      {retries: 0},
    )
    const err = await failure(client.request({method: 'GET', path: LIST}))
    expect(err.serverMessage).toBe('quantity must be positive')
    expect(err.details).toEqual([{path: 'quantity', message: 'quantity must be positive'}])
  })
})

describe('bodies under a missing or wrong label, or in an unknown coding', () => {
  it('reads JSON without a Content-Type, or labelled text/html, as JSON, and notes it under --verbose', async () => {
    const {client, lines} = await setup((req, res) => {
      res.writeHead(200, req.url.includes('html') ? {'content-type': 'text/html'} : {})
      res.end('\ufeff{"data": [], "page": 1}')
    })
    expect((await client.request({method: 'GET', path: '/api/public/v1/none'})).body).toEqual({data: [], page: 1})
    expect((await client.request({method: 'GET', path: '/api/public/v1/html'})).body).toEqual({data: [], page: 1})
    expect(lines).toContain('↳ read GET /api/public/v1/none: the body, without a Content-Type, was read as JSON')
    expect(lines).toContain('↳ read GET /api/public/v1/html: the body, labelled "text/html", was read as JSON')
  })

  it('keeps text that is not JSON as text, whatever it starts with', async () => {
    const {client} = await setup((_req, res) => {
      res.writeHead(200, {'content-type': 'text/plain'})
      res.end('{ not json')
    })
    expect((await client.request({method: 'GET', path: '/api/public/v1/x'})).body).toBe('{ not json')
  })

  it('a body labelled JSON that is an HTML page says so, without the page', async () => {
    const {client} = await setup((_req, res) => {
      res.writeHead(200, {'content-type': 'application/json'})
      res.end('<html><body><h1>Sign in to continue</h1></body></html>')
    })
    const err = await failure(client.request({method: 'GET', path: LIST}))
    expect(err.code).toBe('bad_response')
    expect(err.message).toBe(`listing demands: the response claims JSON but is an HTML page (GET ${LIST} → 200)`)
  })

  it('reads plain JSON sent under an unknown content coding, and notes it', async () => {
    const {client, lines} = await setup((_req, res) => {
      res.writeHead(200, {'content-type': 'application/json', 'content-encoding': 'x-acme-pack'})
      res.end('{"a": "ü"}')
    })
    expect((await client.request({method: 'GET', path: '/api/public/v1/x'})).body).toEqual({a: 'ü'})
    expect(lines.some((l) => l.includes('content coding "x-acme-pack" is unknown'))).toBe(true)
  })

  it('refuses bytes in an unknown content coding with a clear error, not garbage', async () => {
    const {client} = await setup((_req, res) => {
      res.writeHead(200, {'content-type': 'application/json', 'content-encoding': 'x-acme-pack'})
      res.end(gzipSync(Buffer.from('{"a": 1}')))
    })
    const err = await failure(client.request({method: 'GET', path: LIST}))
    expect(err.code).toBe('bad_response')
    expect(err.message).toBe(
      `listing demands: the body is in a content coding mfg cannot read (x-acme-pack) (GET ${LIST} → 200 OK)`,
    )
  })

  it('undoes several content codings in the order they were applied', async () => {
    const {client} = await setup((_req, res) => {
      res.writeHead(200, {'content-type': 'application/json', 'content-encoding': 'gzip, gzip'})
      res.end(gzipSync(gzipSync(Buffer.from('{"twice": true}'))))
    })
    expect((await client.request({method: 'GET', path: '/api/public/v1/x'})).body).toEqual({twice: true})
  })
})

describe('retries and time budgets', () => {
  const flaky: Handler = (_req, res, index) => {
    if (index === 0) json(res, 503, {message: 'busy'})
    else json(res, 200, {message: 'ok', data: {price: 55}})
  }

  it("a POST marked retry: 'safe' (a price estimate) is retried like a GET", async () => {
    const {server, client} = await setup(flaky)
    const res = await client.request({method: 'POST', path: ESTIMATE, body: {}, retry: 'safe'})
    expect(res.body).toEqual({message: 'ok', data: {price: 55}})
    expect(server.requests).toHaveLength(2)
  })

  it('a POST not so marked is not retried after a 503', async () => {
    const {server, client} = await setup(flaky)
    const err = await failure(client.request({method: 'POST', path: ESTIMATE, body: {}}))
    expect(err.status).toBe(503)
    expect(server.requests).toHaveLength(1)
  })

  it('a failure after retries says how many attempts and how long it took', async () => {
    const {server, client} = await setup((_req, res) => json(res, 503, {message: 'upstream busy'}), {retries: 2})
    const err = await failure(client.request({method: 'GET', path: LIST}))
    expect(server.requests).toHaveLength(3)
    expect(err.message).toMatch(
      /^listing demands: gave up after \d+ ms and 3 attempts: upstream busy \(GET \/api\S+ → 503 Service Unavailable\)$/,
    )
  })

  it("a service slower than the time-out: each attempt times out, the last one within what is left of the command's time limit", async () => {
    const {server, client} = await setup(() => undefined, {
      timeoutMs: 2000,
      totalTimeoutMs: 3500,
      retries: 5,
      timeoutHint: 'allow more with --timeout',
      budgetHint: 'allow more with --total-timeout',
    })
    // On node:http directly (bulk), so that loading got does not eat into the first attempt.
    const err = await failure(client.request({method: 'GET', path: LIST, bulk: true}))
    expect(err).toBeInstanceOf(NetworkError)
    expect(server.requests).toHaveLength(2)
    // The second attempt had about 1.5 s left of the 3.5 s, not its full 2 s.
    expect(err.message).toMatch(
      /^listing demands: gave up after \d(\.\d)? s and 2 attempts \(the command's time limit of 3\.5 s ran out; allow more with --total-timeout\): timed out after 1(\.\d)? s waiting for the answer; the request may have been sent \(GET /,
    )
  })

  it("the command's time for failures is shared by its requests: spent by one, the next is not sent and says why", async () => {
    const {server, client} = await setup((_req, res) => json(res, 503, {message: 'upstream busy'}), {
      // A retry needs a second left (MIN_ATTEMPT_MS): waits of 10, 20, 40... ms fit about 300 ms of failing.
      failingBudgetMs: 1300,
      retries: 10,
      budgetHint: 'allow more with --total-timeout',
    })
    const first = await failure(client.request({method: 'GET', path: LIST}))
    expect(first.message).toMatch(
      /^listing demands: gave up after \d+ ms and \d+ attempts \(another try would overrun the command's 1\.3 s for failed attempts and waits \(\d+ ms spent, summed over its requests\); allow more with --total-timeout\): upstream busy/,
    )
    const tried = server.requests.length
    expect(tried).toBeGreaterThanOrEqual(3)
    expect(tried).toBeLessThan(11)
    // Not sent at all: the next request of the command finds the budget spent.
    client.budget.addFailing(1300)
    const next = await failure(client.request({method: 'GET', path: LIST}))
    expect(next).toBeInstanceOf(NetworkError)
    expect((next as NetworkError).mayHaveBeenSent).toBe(false)
    expect(next.message).toMatch(
      /^listing demands: the command's 1\.3 s for failed attempts and waits ran out \(\d(\.\d)? s spent, summed over its requests\); allow more with --total-timeout; the request was not sent/,
    )
    expect(server.requests).toHaveLength(tried)
    expect(client.budget.ranOut()).toMatch(/^another try would overrun/)
  })

  it('a long healthy run is never cut by the time for failures: only failing time counts', async () => {
    const {server, client} = await setup(
      (_req, res) => {
        setTimeout(() => json(res, 200, {data: [], total: 0, page: 1, pageSize: 100, totalPages: 0}), 60)
      },
      {failingBudgetMs: 100},
    )
    for (let i = 0; i < 4; i++) await client.request({method: 'GET', path: LIST})
    expect(server.requests).toHaveLength(4)
    expect(client.budget.spent()).toBeUndefined()
    expect(client.budget.ranOut()).toBeUndefined()
  })

  it('under a person watching, each retry is said with its wait', async () => {
    const notes: string[] = []
    server = await startServer(flaky)
    const client = createClient({baseUrl: server.url, apiKey: KEY, retryBaseMs: 10, onWait: (n) => notes.push(n)})
    await client.request({method: 'GET', path: LIST})
    expect(notes).toEqual([
      expect.stringMatching(/^listing demands: HTTP 503; trying again in \d+ ms \(attempt 2 of 4\)$/),
    ])
  })
})

describe('a base URL refused before any request', () => {
  it('says what is wrong without a stray "(- -)" for the request it never made', () => {
    let error: unknown
    try {
      createClient({baseUrl: 'not a url', apiKey: KEY})
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ValidationError)
    expect((error as Error).message).toBe('the base URL "not a url" is not a URL')
  })
})
