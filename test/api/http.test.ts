import {gzipSync} from 'node:zlib'

import {afterEach, describe, expect, it} from 'vitest'

import {
  ApiError,
  AuthenticationError,
  ConflictError,
  NetworkError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServerError,
  ValidationError,
  exitCodeFor,
} from '../../src/api/errors.js'
import {type ApiClient, createClient, generationOf, parseRetryAfter, type ClientOptions} from '../../src/api/http.js'
import {closedPort, errorBody, json, startServer, type Handler, type TestServer, failure} from './server.js'

const KEY = 'pk_business_Secret1234567890'
const TOKEN = 'tok_super_secret_value_9876'

let server: TestServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

/**
 * The client with every request sent as `bulk` or not: the pipeline's two
 * transports (got, and node:http directly) must behave alike in every test.
 */
function clientFor(bulk: boolean, opts: ClientOptions): ApiClient {
  const client = createClient(opts)
  return bulk ? {...client, request: (req) => client.request({...req, bulk: true})} : client
}

/** A client for a port nothing listens on (two retries, each attempt logged). */
async function refusingClient(bulk: boolean) {
  const port = await closedPort()
  const lines: string[] = []
  const client = clientFor(bulk, {
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey: KEY,
    retries: 2,
    retryBaseMs: 5,
    log: (l) => lines.push(l),
  })
  return {client, lines}
}

async function setupWith(bulk: boolean, handler: Handler, opts: Partial<ClientOptions> = {}) {
  server = await startServer(handler)
  const lines: string[] = []
  const client = clientFor(bulk, {
    baseUrl: `${server.url}/`,
    apiKey: KEY,
    authToken: TOKEN,
    retryBaseMs: 10,
    log: (l) => lines.push(l),
    ...opts,
  })
  return {server, client, lines}
}

for (const bulk of [false, true]) {
  describe(bulk ? 'bulk requests (node:http directly)' : 'requests through got', () => {
    const setup = (handler: Handler, opts: Partial<ClientOptions> = {}) => setupWith(bulk, handler, opts)

    describe('auth headers by generation', () => {
      it('sends only the Bearer key on v1 and MCP paths, and Bearer plus X-Auth-Token on v2', async () => {
        const {server, client} = await setup((_req, res) => json(res, 200, {ok: true}))
        await client.request({method: 'GET', path: '/api/public/v1/demand/abc'})
        await client.request({method: 'GET', path: '/api/v2/integrations_ms/webhooks/biz'})
        await client.request({method: 'POST', path: '/api/v2/ms-integrations/api/public/v1/mcp/protocol', body: {}})
        const [v1, v2, mcp] = server.requests
        expect(v1?.headers.authorization).toBe(`Bearer ${KEY}`)
        expect(v1?.headers['x-auth-token']).toBeUndefined()
        expect(v2?.headers.authorization).toBe(`Bearer ${KEY}`)
        expect(v2?.headers['x-auth-token']).toBe(TOKEN)
        expect(mcp?.headers['x-auth-token']).toBeUndefined()
        expect(generationOf('/api/v2/ms-post/post/upload')).toBe('v2')
        expect(generationOf('/api/public/v1/price-estimation/x')).toBe('v1')
      })

      it('refuses a v2 call without an auth token before sending, naming what is missing', async () => {
        const {server, client} = await setup((_req, res) => json(res, 200, {}), {authToken: undefined})
        const err = await failure(client.request({method: 'GET', path: '/api/v2/ms-machine-owner/demand/x'}))
        expect(err).toBeInstanceOf(AuthenticationError)
        expect(err.status).toBeUndefined()
        expect(err.code).toBe('missing_credentials')
        expect(err.message).toMatch(/no auth token/)
        expect(err.message).toMatch(/--auth-token/)
        expect(err.message).toMatch(/MFG_AUTH_TOKEN/)
        expect(exitCodeFor(err)).toBe(3)
        expect(server.requests).toHaveLength(0)
      })

      it('refuses a v1 call without an API key before sending', async () => {
        const {server, client} = await setup((_req, res) => json(res, 200, {}), {apiKey: undefined})
        const err = await failure(client.request({method: 'GET', path: '/api/public/v1/demand/x'}))
        expect(err).toBeInstanceOf(AuthenticationError)
        expect(err.message).toMatch(/no API key/)
        expect(err.message).toMatch(/MFG_API_KEY/)
        expect(server.requests).toHaveLength(0)
      })
    })

    describe('request and response', () => {
      it('sends query values and a JSON body, parses JSON answers and keeps other bodies as text', async () => {
        const {server, client} = await setup((req, res) => {
          if (req.url.startsWith('/text')) {
            res.writeHead(200, {'content-type': 'text/plain'})
            res.end('plain words')
          } else {
            json(res, 201, {echo: JSON.parse(req.body || 'null') as unknown})
          }
        })
        const res = await client.request<{echo: unknown}>({
          method: 'POST',
          path: '/api/public/v1/x',
          query: {page: 2, archived: false, skip: undefined, q: 'a b'},
          body: {n: 1},
        })
        expect(res.status).toBe(201)
        expect(res.body.echo).toEqual({n: 1})
        expect(res.durationMs).toBeGreaterThanOrEqual(0)
        expect(server.requests[0]?.url).toBe('/api/public/v1/x?page=2&archived=false&q=a+b')
        expect(server.requests[0]?.headers['content-type']).toBe('application/json')
        const text = await client.request({method: 'GET', path: '/text'})
        expect(text.body).toBe('plain words')
      })

      it('reuses one keep-alive connection for a run of requests', async () => {
        const {server, client} = await setup((_req, res) => json(res, 200, {}))
        for (let i = 0; i < 20; i++) await client.request({method: 'GET', path: `/api/public/v1/demand/${i}`})
        expect(server.requests).toHaveLength(20)
        expect(server.connections()).toBe(1)
      })

      it('a 2xx that claims JSON but is not is a bad_response error', async () => {
        const {client} = await setup((_req, res) => {
          res.writeHead(200, {'content-type': 'application/json'})
          res.end('{not json')
        })
        const err = await failure(client.request({method: 'GET', path: '/api/public/v1/demand/x'}))
        expect(err.code).toBe('bad_response')
      })

      it('offers gzip, deflate and br, and reads a compressed answer', async () => {
        const {server, client} = await setup((_req, res) => {
          res.writeHead(201, {'content-type': 'application/json', 'content-encoding': 'gzip'})
          res.end(gzipSync(JSON.stringify([{_id: 'd1', status: 'ACTIVE'}])))
        })
        const res = await client.request({method: 'POST', path: '/api/public/v1/demand/create-quotes/b', body: [{}]})
        expect(res.body).toEqual([{_id: 'd1', status: 'ACTIVE'}])
        expect(server.requests[0]!.headers['accept-encoding']).toMatch(/gzip/)
      })
    })

    describe('retries', () => {
      it('retries a GET on 5xx and 429 and returns the eventual success', async () => {
        const {server, client, lines} = await setup((_req, res, i) => {
          if (i === 0) json(res, 503, errorBody(503, 'Service Unavailable', 'busy'))
          else if (i === 1) json(res, 429, errorBody(429, 'Too Many Requests', 'slow down'))
          else json(res, 200, {ok: true})
        })
        const res = await client.request({method: 'GET', path: '/api/public/v1/demand/x'})
        expect(res.body).toEqual({ok: true})
        expect(server.requests).toHaveLength(3)
        expect(lines[0]).toMatch(/^→ GET \/api\/public\/v1\/demand\/x 503 \d+ms \(retry 1\/3 in \d+ms\)$/)
        expect(lines[2]).toMatch(/^→ GET \/api\/public\/v1\/demand\/x 200 \d+ms$/)
      })

      it('gives up after the configured retries with the mapped error', async () => {
        const {server, client} = await setup(
          (_req, res) => json(res, 502, errorBody(502, 'Bad Gateway', 'upstream down')),
          {retries: 2},
        )
        const err = await failure(client.request({method: 'DELETE', path: '/api/v2/ms-machine-owner/demand/x'}))
        expect(err).toBeInstanceOf(ServerError)
        expect(server.requests).toHaveLength(3)
      })

      it('a refusal after a lost answer (502) says an earlier attempt may have done the write; a read says nothing of it', async () => {
        const {client} = await setup((_req, res, i) =>
          i % 2 === 0
            ? json(res, 502, errorBody(502, 'Bad Gateway', 'upstream down'))
            : json(res, 404, errorBody(404, 'Not Found', 'no such demand')),
        )
        const write = await failure(
          client.request({method: 'DELETE', path: '/api/v2/ms-machine-owner/demand/x', retry: 'safe'}),
        )
        expect(write).toBeInstanceOf(NotFoundError)
        expect(write.lostAnswer).toBe('502')
        expect(write.message).toContain('an earlier attempt (502) may have been carried out')
        const read = await failure(client.request({method: 'GET', path: '/api/public/v1/demand/x'}))
        expect(read).toBeInstanceOf(NotFoundError)
        expect(read.lostAnswer).toBeUndefined()
        expect(read.message).not.toContain('earlier attempt')
      })

      it('honours Retry-After in seconds', async () => {
        const {server, client, lines} = await setup(
          (_req, res, i) => {
            if (i === 0) json(res, 429, errorBody(429, 'Too Many Requests', 'limit'), {'retry-after': '1'})
            else json(res, 200, {ok: true})
          },
          {retryBaseMs: 1},
        )
        await client.request({method: 'GET', path: '/api/public/v1/demand/x'})
        expect(server.requests).toHaveLength(2)
        // The wait scheduled is the second asked for (plus at most 100 ms of jitter), not the 1 ms back-off.
        expect(lines[0]).toMatch(/ 429 \d+ms \(retry 1\/3 in 10\d\dms\)$/)
      })

      it('does not wait for a Retry-After beyond the cap: throws RateLimitError with retryAfterSeconds', async () => {
        const {server, client, lines} = await setup((_req, res) =>
          json(res, 429, errorBody(429, 'Too Many Requests', 'daily allowance spent'), {'retry-after': '3600'}),
        )
        const err = await failure(client.request({method: 'GET', path: '/api/public/v1/demand/x'}))
        // No retry scheduled: one attempt, logged without a wait.
        expect(lines).toEqual([expect.stringMatching(/^→ GET \/api\/public\/v1\/demand\/x 429 \d+ms$/)])
        expect(err).toBeInstanceOf(RateLimitError)
        expect(err.retryAfterSeconds).toBe(3600)
        expect(err.message).toContain('daily allowance spent')
        expect(server.requests).toHaveLength(1)
      })

      it('parses Retry-After as seconds or an HTTP date', () => {
        const now = Date.parse('2025-01-01T00:00:00Z')
        expect(parseRetryAfter('7', now)).toBe(7)
        expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:05 GMT', now)).toBe(5)
        expect(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now)).toBe(0)
        expect(parseRetryAfter('soon', now)).toBeUndefined()
        expect(parseRetryAfter(undefined, now)).toBeUndefined()
      })

      it('never retries a POST without an idempotency key', async () => {
        const {server, client} = await setup((_req, res) =>
          json(res, 503, errorBody(503, 'Service Unavailable', 'busy')),
        )
        const err = await failure(
          client.request({method: 'POST', path: '/api/public/v1/demand/create-quotes/b', body: []}),
        )
        expect(err).toBeInstanceOf(ServerError)
        expect(server.requests).toHaveLength(1)
      })

      it('retries a POST that carries an idempotency key, sending the same key each time', async () => {
        const {server, client} = await setup((_req, res, i) =>
          i < 2 ? json(res, 500, errorBody(500, 'Internal Server Error', 'oops')) : json(res, 201, [{_id: 'd1'}]),
        )
        const res = await client.request({
          method: 'POST',
          path: '/api/public/v1/demand/create-quotes/b',
          body: [],
          idempotencyKey: 'k-123',
        })
        expect(res.status).toBe(201)
        expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual(['k-123', 'k-123', 'k-123'])
      })
    })

    describe('a POST whose key is a plain header: resent only with proof nothing was processed', () => {
      const post = (client: ApiClient) =>
        client.request({
          method: 'POST',
          path: '/api/public/v1/demand/create-quotes/b',
          body: [{}],
          headers: {'idempotency-key': 'k-1'},
        })

      it('a 429 is retried (not processed), the same key each time', async () => {
        const {server, client} = await setup((_req, res, i) =>
          i === 0 ? json(res, 429, errorBody(429, 'Too Many Requests', 'slow down')) : json(res, 201, [{_id: 'd1'}]),
        )
        expect((await post(client)).status).toBe(201)
        expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual(['k-1', 'k-1'])
      })

      it('a 503 or a reset is not: the request may have been processed', async () => {
        const {server, client} = await setup((_req, res, i) => {
          if (i === 0) json(res, 503, errorBody(503, 'Service Unavailable', 'busy'))
          else res.socket?.destroy()
        })
        expect(await failure(post(client))).toBeInstanceOf(ServerError)
        const reset = await failure(post(client))
        expect(reset).toBeInstanceOf(NetworkError)
        expect((reset as NetworkError).mayHaveBeenSent).toBe(true)
        expect(server.requests).toHaveLength(2)
      })

      it('a refused connection is: the request never left', async () => {
        const {client, lines} = await refusingClient(bulk)
        const err = await failure(post(client))
        expect((err as NetworkError).mayHaveBeenSent).toBe(false)
        expect(lines).toHaveLength(3)
      })
    })

    describe('decoding', () => {
      it('an empty body and a 204 decode to nothing; text and buffer give the body as it came', async () => {
        const {client} = await setup((req, res) => {
          if (req.url.endsWith('/none')) {
            res.writeHead(204)
            res.end()
          } else if (req.url.endsWith('/empty')) {
            res.writeHead(200, {'content-type': 'application/json'})
            res.end()
          } else json(res, 200, {a: 1})
        })
        expect((await client.request({method: 'DELETE', path: '/api/public/v1/none'})).body).toBeUndefined()
        expect((await client.request({method: 'GET', path: '/api/public/v1/empty'})).body).toBeUndefined()
        const text = await client.request({method: 'GET', path: '/api/public/v1/x', responseType: 'text'})
        expect(text.body).toBe('{"a":1}')
        const bytes = await client.request<Buffer>({method: 'GET', path: '/api/public/v1/x', responseType: 'buffer'})
        expect(Buffer.isBuffer(bytes.body) && bytes.body.toString()).toBe('{"a":1}')
      })

      it("an error answer keeps the service's message whatever the response type asked", async () => {
        const {client} = await setup((_req, res) => json(res, 404, errorBody(404, 'Not Found', 'no such demand')))
        for (const responseType of ['text', 'buffer'] as const) {
          const err = await failure(client.request({method: 'GET', path: '/api/public/v1/x', responseType}))
          expect(err).toBeInstanceOf(NotFoundError)
          expect(err.serverMessage).toBe('no such demand')
        }
      })

      it('reads JSON that starts with a byte-order mark', async () => {
        const {client} = await setup((_req, res) => {
          res.writeHead(200, {'content-type': 'application/json'})
          res.end('\ufeff{"a":1}')
        })
        expect((await client.request({method: 'GET', path: '/api/public/v1/x'})).body).toEqual({a: 1})
      })
    })

    describe('error mapping', () => {
      const cases: [number, string, new (...args: never[]) => ApiError][] = [
        [401, 'Unauthorized', AuthenticationError],
        [403, 'Forbidden', PermissionError],
        [404, 'Not Found', NotFoundError],
        [409, 'Conflict', ConflictError],
        [413, 'Payload Too Large', ValidationError],
        [422, 'Unprocessable Entity', ValidationError],
        [429, 'Too Many Requests', RateLimitError],
        [500, 'Internal Server Error', ServerError],
      ]
      it.each(cases)(
        'status %i maps to its class, keeping the server message, method and path',
        async (status, error, cls) => {
          const {client} = await setup(
            (_req, res) => json(res, status, errorBody(status, error, `the server says ${status}`)),
            {retries: 0},
          )
          const err = await failure(client.request({method: 'GET', path: '/api/public/v1/demand/d1'}))
          expect(err).toBeInstanceOf(cls)
          expect(err.status).toBe(status)
          expect(err.serverMessage).toBe(`the server says ${status}`)
          expect(err.message).toContain(`the server says ${status}`)
          expect(err.message).toContain(`GET /api/public/v1/demand/d1 → ${status}`)
          expect(exitCodeFor(err)).toBe(status === 401 ? 3 : 1)
        },
      )

      it('keeps the per-field details of a 400', async () => {
        const details = [
          {path: '0.jobDetails.takenAs', message: 'must be one of "QUOTE", "ORDER"'},
          {path: '2.quantity', message: 'must be at least 1'},
        ]
        const {client} = await setup((_req, res) =>
          json(res, 400, errorBody(400, 'Bad Request', '2 items are invalid', details)),
        )
        const err = await failure(
          client.request({method: 'POST', path: '/api/public/v1/demand/create-quotes/b', body: [{}]}),
        )
        expect(err).toBeInstanceOf(ValidationError)
        expect((err as ValidationError).clientSide).toBe(false)
        expect(err.details).toEqual(details)
        expect(err.message).toContain('0.jobDetails.takenAs')
        expect(exitCodeFor(err)).toBe(1)
      })

      it('maps an unlisted 4xx to the base ApiError and keeps a non-JSON error body as its message', async () => {
        const {client} = await setup((_req, res) => {
          res.writeHead(418, {'content-type': 'text/plain'})
          res.end('I am a teapot')
        })
        const err = await failure(client.request({method: 'GET', path: '/api/public/v1/demand/x'}))
        expect(err.constructor).toBe(ApiError)
        expect(err.code).toBe('http_error')
        expect(err.message).toContain('I am a teapot')
      })

      it('reports a redirect instead of following it with the credentials', async () => {
        const {server, client} = await setup((req, res) => {
          if (req.url === '/moved') json(res, 200, {})
          else {
            res.writeHead(301, {location: '/moved'})
            res.end()
          }
        })
        const err = await failure(client.request({method: 'GET', path: '/api/public/v1/demand/x'}))
        expect(err.code).toBe('redirect')
        expect(err.message).toContain('/moved')
        expect(server.requests).toHaveLength(1)
      })

      it('exit code 2 for invalid input found before sending', () => {
        const err = new ValidationError({method: 'POST', path: '/x', serverMessage: 'bad', clientSide: true})
        expect(exitCodeFor(err)).toBe(2)
        expect(exitCodeFor(Object.assign(new Error('profile'), {exitCode: 2}))).toBe(2)
        expect(exitCodeFor(new Error('other'))).toBe(1)
      })
    })

    describe('secrets', () => {
      it('masks the key and token in error messages, paths and verbose lines', async () => {
        const {client, lines} = await setup((_req, res) =>
          json(res, 403, errorBody(403, 'Forbidden', `key ${KEY} with token ${TOKEN} may not do this`)),
        )
        const err = await failure(
          client.request({method: 'GET', path: '/api/v2/ms-post/post/user-posts/u', query: {apiKey: KEY}}),
        )
        expect(err).toBeInstanceOf(PermissionError)
        for (const text of [err.message, err.path, err.serverMessage ?? '', ...lines]) {
          expect(text).not.toContain(KEY)
          expect(text).not.toContain(TOKEN)
        }
        expect(err.message).toContain('****7890')
        expect(lines).toHaveLength(1)
        expect(lines[0]).toMatch(/^→ GET \/api\/v2\/ms-post\/post\/user-posts\/u\?apiKey=\*\*\*\*7890 403 \d+ms$/)
      })

      it('logs one line per request in the METHOD path status time form', async () => {
        const {client, lines} = await setup((_req, res) => json(res, 200, {data: []}))
        await client.request({method: 'GET', path: '/api/public/v1/demand/abc/all', query: {page: 1}})
        expect(lines).toHaveLength(1)
        expect(lines[0]).toMatch(/^→ GET \/api\/public\/v1\/demand\/abc\/all\?page=1 200 \d+ms$/)
        expect(lines.join('\n')).not.toMatch(/Bearer|pk_business_Secret/)
      })
    })

    describe('network failures', () => {
      it('connection refused: retried for GET, then NetworkError saying the request was not sent', async () => {
        const {client, lines} = await refusingClient(bulk)
        const err = await failure(client.request({method: 'GET', path: '/api/public/v1/demand/x'}))
        expect(err).toBeInstanceOf(NetworkError)
        expect((err as NetworkError).mayHaveBeenSent).toBe(false)
        expect(err.message).toMatch(/connection refused/)
        expect(err.message).toMatch(/not sent/)
        expect(lines).toHaveLength(3)
        expect(lines[0]).toMatch(/ECONNREFUSED/)
        expect(exitCodeFor(err)).toBe(1)
      })

      it('connection reset mid-request: a POST without key is not retried and may have been sent', async () => {
        const {server, client} = await setup((_req, res) => {
          res.socket?.destroy()
        })
        const err = await failure(
          client.request({method: 'POST', path: '/api/public/v1/demand/create-quotes/b', body: [{}]}),
        )
        expect(err).toBeInstanceOf(NetworkError)
        expect((err as NetworkError).mayHaveBeenSent).toBe(true)
        expect(err.message).toMatch(/may have been sent/)
        expect(server.requests).toHaveLength(1)
      })

      it('connection closed mid-answer: a NetworkError, and the request may have been sent', async () => {
        const {client} = await setup((_req, res) => {
          res.writeHead(201, {'content-type': 'application/json', 'content-length': '1000'})
          res.write('[{"_id":"d1"')
          setTimeout(() => res.socket?.destroy(), 20)
        })
        const err = await failure(
          client.request({method: 'POST', path: '/api/public/v1/demand/create-quotes/b', body: [{}]}),
        )
        expect(err).toBeInstanceOf(NetworkError)
        expect((err as NetworkError).mayHaveBeenSent).toBe(true)
      })

      it('an answer cut short on a GET is a connection reset, and retried', async () => {
        let calls = 0
        const {server, client, lines} = await setup((_req, res) => {
          if (++calls > 1) return json(res, 200, {ok: true})
          res.writeHead(200, {'content-type': 'application/json', 'content-length': '1000'})
          res.write('{"ok":')
          setTimeout(() => res.socket?.destroy(), 20)
        })
        const answer = await client.request({method: 'GET', path: '/api/public/v1/demand/x'})
        expect(answer.body).toEqual({ok: true})
        expect(server.requests).toHaveLength(2)
        expect(lines[0]).toMatch(/^→ GET \/api\/public\/v1\/demand\/x ECONNRESET \d+ms \(retry 1\/3 in \d+ms\)$/)
      })

      it("an answer that does not decode is a NetworkError naming zlib's code, not retried", async () => {
        const {server, client, lines} = await setup((_req, res) => {
          res.writeHead(200, {'content-type': 'application/json', 'content-encoding': 'gzip'})
          res.end('not gzip at all')
        })
        const err = await failure(client.request({method: 'GET', path: '/api/public/v1/demand/x'}))
        expect(err).toBeInstanceOf(NetworkError)
        expect(server.requests).toHaveLength(1)
        expect(lines).toEqual([expect.stringMatching(/^→ GET \/api\/public\/v1\/demand\/x Z_DATA_ERROR \d+ms$/)])
      })

      it('times out a request that gets no answer', async () => {
        const {client} = await setup(() => undefined, {timeoutMs: 200, retries: 0})
        const err = await failure(client.request({method: 'GET', path: '/api/public/v1/demand/x'}))
        expect(err).toBeInstanceOf(NetworkError)
        expect(err.message).toMatch(/timed out after 200 ms/)
        expect((err as NetworkError).mayHaveBeenSent).toBe(true)
      })

      it('an answer that stalls mid-body times out like one that never comes', async () => {
        const {client} = await setup(
          (_req, res) => {
            res.writeHead(200, {'content-type': 'application/json', 'content-length': '100'})
            res.write('{"a":')
          },
          {timeoutMs: 200, retries: 0},
        )
        const err = await failure(client.request({method: 'GET', path: '/api/public/v1/demand/x'}))
        expect(err).toBeInstanceOf(NetworkError)
        expect(err.message).toMatch(/timed out after 200 ms/)
      })

      it('an aborted request is a NetworkError with code aborted', async () => {
        const {client} = await setup(() => undefined)
        const controller = new AbortController()
        setTimeout(() => controller.abort(), 100)
        const err = await failure(
          client.request({method: 'GET', path: '/api/public/v1/demand/x', signal: controller.signal}),
        )
        expect(err).toBeInstanceOf(NetworkError)
        expect(err.code).toBe('aborted')
      })
    })
  })
}

describe('downloads (client.stream)', () => {
  it('sends no credentials, follows a redirect, retries a 503, and hands the body over as a stream', async () => {
    const {server, client, lines} = await setupWith(false, (req, res, i) => {
      if (req.url.startsWith('/moved')) {
        res.writeHead(302, {location: '/files/a.stl?signature=abc'})
        res.end()
      } else if (i === 1) json(res, 503, errorBody(503, 'Service Unavailable', 'busy'))
      else {
        res.writeHead(200, {'content-type': 'model/stl', 'content-length': '5'})
        res.end('solid')
      }
    })
    const answer = await client.stream({url: `${server.url}/moved?signature=abc`})
    const chunks: Buffer[] = []
    for await (const chunk of answer.body) chunks.push(chunk as Buffer)
    expect(Buffer.concat(chunks).toString()).toBe('solid')
    expect(server.requests.map((r) => r.url)).toEqual([
      '/moved?signature=abc',
      '/files/a.stl?signature=abc',
      '/moved?signature=abc',
      '/files/a.stl?signature=abc',
    ])
    for (const r of server.requests) {
      expect(r.headers.authorization).toBeUndefined()
      expect(r.headers['x-auth-token']).toBeUndefined()
    }
    // The logs show the link without its signature.
    expect(lines.join('\n')).not.toContain('signature')
  })

  it('maps an error answer like any other, with the service message', async () => {
    const {server, client} = await setupWith(false, (_req, res) =>
      json(res, 403, errorBody(403, 'Forbidden', 'This file link has expired')),
    )
    const err = await failure(client.stream({url: `${server.url}/files/a.stl?signature=abc`}))
    expect(err).toBeInstanceOf(PermissionError)
    expect(err.serverMessage).toBe('This file link has expired')
    expect(err.message).not.toContain('signature')
  })
})
