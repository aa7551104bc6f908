// Commands against a small node:http service that confirms writes without their
// records, fails with pages instead of JSON, or answers too slowly: what each
// command shows, its exit code, and how many requests it made.
import {mkdtempSync, rmSync} from 'node:fs'
import type {ServerResponse} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {json as jsonOut, runCli, type RunOptions} from '../helpers/cli.js'
import {json, startServer, type Handler, type TestServer} from '../api/server.js'

const KEY = 'pk_business_Secret1234567890'
const TOKEN = 'tok_super_secret_value_9876'
const BUSINESS = 'b0000000000000000000f001'
const ID = 'dd0000000000000000000001'
const NGINX_404 =
  '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n'

let home: string
let server: TestServer | undefined
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mfg-answers-'))
})
afterAll(() => rmSync(home, {recursive: true, force: true}))
afterEach(async () => {
  await server?.close()
  server = undefined
})

function demand(stage: string): Record<string, unknown> {
  return {_id: ID, orderNumber: 41, status: 'Quote Sent', demandStatusInfo: {status: stage}, priceTotal: 12}
}

async function serve(handler: Handler) {
  server = await startServer(handler)
  const run = (argv: string[], opts: RunOptions = {}) =>
    runCli(argv, {
      ...opts,
      env: {
        MFG_HOME: home,
        MFG_BASE_URL: server!.url,
        MFG_API_KEY: KEY,
        MFG_AUTH_TOKEN: TOKEN,
        MFG_BUSINESS_ID: BUSINESS,
        ...opts.env,
      },
    })
  return {server, run}
}

/** An answer without a body. */
function empty(res: ServerResponse, status: number): void {
  res.writeHead(status)
  res.end()
}

describe('a change confirmed without the record', () => {
  it('demand stage prints the stage the service confirms on reading back, and says when it is not the one asked', async () => {
    const {server, run} = await serve((req, res) => {
      if (req.method === 'PUT') empty(res, 204)
      else json(res, 200, demand('quote_sent'))
    })
    const r = await run(['demand', 'stage', ID, 'special_verified'])
    expect(r.exitCode, r.stderr).toBe(1)
    expect(r.stdout).toBe(`${ID}  order 41  Quote Sent (quote_sent)\n`)
    expect(r.stderr).toContain('The service answered 204 without a body; the demand was read back.')
    expect(r.stderr).toContain('Error: The service reports the stage quote_sent, not special_verified as asked.')
    expect(server.requests.map((x) => x.method)).toEqual(['PUT', 'GET'])
  })

  it('demand stage fails (exit 1) when the service answers the demand in another stage, with an error object under --json', async () => {
    let stage = 'quote_sent'
    const {run} = await serve((_req, res) => json(res, 200, demand(stage)))
    const r = await run(['demand', 'stage', ID, 'special_accepted', '--json'])
    expect(r.exitCode, r.stderr).toBe(1)
    expect(r.stdout).toBe('')
    expect(JSON.parse(r.stderr.trim())).toEqual({
      error: {
        code: 'stage_not_moved',
        message: 'The service reports the stage quote_sent, not special_accepted as asked.',
      },
    })
    const sameStage = await run(['demand', 'stage', ID, 'Quote Sent'])
    expect(sameStage.exitCode, sameStage.stderr).toBe(0)
    expect(sameStage.stderr).toBe('')
    stage = 'awaiting_material'
    const unknown = await run(['demand', 'stage', ID, 'special_verified'])
    expect(unknown.exitCode, unknown.stderr).toBe(0)
    expect(unknown.stderr).toContain(
      'Warning: The service reports the stage awaiting_material, which the interface does not list, not special_verified as asked;',
    )
  })

  it('demand stage never presents the requested stage as confirmed when neither the answer nor a read-back says it', async () => {
    const {run} = await serve((req, res) => {
      if (req.method === 'PUT') empty(res, 204)
      else json(res, 404, {message: 'not visible yet'})
    })
    const table = await run(['demand', 'stage', ID, 'special_verified'])
    expect(table.exitCode, table.stderr).toBe(0)
    expect(table.stdout).toBe(`${ID}  order -   (stage not confirmed; asked for special_verified)\n`)
    expect(table.stderr).toMatch(/reading it back failed: getting the demand: not visible yet/)
    const asJson = await run(['demand', 'stage', ID, 'special_verified', '--json'])
    expect(asJson.exitCode).toBe(0)
    expect(jsonOut(asJson)).toEqual({_id: ID})
    const warnings = asJson.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as {warning: string})
    expect(warnings.map((w) => w.warning)).toEqual([
      expect.stringMatching(/^The service confirmed the change \(204\), but the service answered 204 without a body/),
      `The service accepted the move but did not say the demand's stage; check it with mfg demand get ${ID}`,
    ])
  })

  it('demand update reads the demand back after an answer with only _id and the changed field', async () => {
    const {server, run} = await serve((req, res) => {
      if (req.method === 'PUT') json(res, 200, {_id: ID, priceTotal: 99.5})
      else json(res, 200, {...demand('quote_sent'), priceTotal: 99.5})
    })
    const r = await run(['demand', 'update', ID, '--price-total', '99.5', '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(jsonOut(r)).toMatchObject({
      _id: ID,
      orderNumber: 41,
      priceTotal: 99.5,
      demandStatusInfo: {status: 'quote_sent'},
    })
    expect(server.requests.map((x) => x.method)).toEqual(['PUT', 'GET'])
  })

  it('post create confirmed with 201 and no body is a success, said as such', async () => {
    const {server, run} = await serve((_req, res) => empty(res, 201))
    const args = [
      'post',
      'create',
      '--service',
      '3D_PRINTING',
      '--price-machine',
      '12',
      '--material',
      'PLA:plastic:25:EUR',
    ]
    const table = await run(args)
    expect(table.exitCode, table.stderr).toBe(0)
    expect(table.stdout).toBe('')
    expect(table.stderr).toBe(
      "Created: the service confirmed it (201 Created) without the product's details; find it with mfg post list.\n",
    )
    const asJson = await run([...args, '--json'])
    expect(jsonOut(asJson)).toEqual({confirmed: true, status: 201})
    expect(server.requests).toHaveLength(2)
  })

  it('webhook update answered 204 reads the subscription back from the list, its secret masked', async () => {
    const hook = {
      _id: 'ee01',
      url: 'https://hooks.example.com/x',
      secret: 'whsec_0123456789abcdef',
      events: ['order_placed'],
    }
    const {server, run} = await serve((req, res) => {
      if (req.method === 'POST') empty(res, 204)
      else json(res, 200, {message: 'Webhooks found', data: [hook]})
    })
    const r = await run(['webhook', 'update', 'ee01', '--url', 'https://hooks.example.com/x', '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(jsonOut(r)).toMatchObject({_id: 'ee01', url: hook.url, secret: '****cdef'})
    expect(server.requests.map((x) => x.method)).toEqual(['POST', 'GET'])
  })
})

describe('mfg api --jq on an answer that is not JSON', () => {
  it('is an error (exit 5) naming what came, with nothing printed', async () => {
    const {run} = await serve((_req, res) => {
      res.writeHead(200, {'content-type': 'text/csv'})
      res.end('a,b\n1,2\n')
    })
    const r = await run(['api', 'GET', '/api/public/v1/report', '--jq', '.a'])
    expect(r.exitCode).toBe(5)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe(
      'Error: --jq filters JSON, but the service answered text/csv; leave --jq out to see the answer.\n',
    )
    const plain = await run(['api', 'GET', '/api/public/v1/report'])
    expect(plain.exitCode).toBe(0)
    expect(plain.stdout).toBe('a,b\n1,2\n')
  })
})

describe('errors and time limits', () => {
  it('an HTML error page: one short line, the documented JSON error under --json, the page under --debug', async () => {
    const {run} = await serve((_req, res) => {
      res.writeHead(404, {'content-type': 'text/html'})
      res.end(NGINX_404)
    })
    const table = await run(['demand', 'get', ID])
    expect(table.exitCode).toBe(1)
    expect(table.stderr).toBe(
      `Error: getting the demand: HTTP 404 Not Found, an HTML page: "nginx/1.25.3" (GET /api/public/v1/demand/${ID})\n`,
    )
    const asJson = await run(['demand', 'get', ID, '--json'])
    expect(asJson.stdout).toBe('')
    expect(JSON.parse(asJson.stderr)).toEqual({
      error: {
        code: 'not_found',
        message: `getting the demand: HTTP 404 Not Found, an HTML page: "nginx/1.25.3" (GET /api/public/v1/demand/${ID})`,
        status: 404,
      },
    })
    const debug = await run(['demand', 'get', ID, '--debug'])
    expect(debug.stderr).toContain(`The service's answer (404):\n${NGINX_404}`)
  })

  it('a rate limit whose Retry-After is longer than the client waits: the error says how long the service asked to wait', async () => {
    const {server, run} = await serve((_req, res) =>
      json(res, 429, {message: 'daily allowance spent'}, {'retry-after': '3600'}),
    )
    const table = await run(['demand', 'get', ID])
    expect(table.exitCode).toBe(1)
    expect(table.stderr).toBe(
      `Error: getting the demand: daily allowance spent (GET /api/public/v1/demand/${ID} → 429 Too Many Requests); the service asks to wait 1 h before trying again (Retry-After)\n`,
    )
    expect(server.requests).toHaveLength(1)
    const asJson = await run(['demand', 'get', ID, '--json'])
    expect(JSON.parse(asJson.stderr)).toMatchObject({
      error: {code: 'rate_limited', status: 429, retryAfterSeconds: 3600},
    })
  })

  it('a Retry-After of years (a number too big, or a date far ahead) is said as more than a week, not counted out in days', async () => {
    const values = ['99999999999999999999', 'Thu, 01 Jan 2099 00:00:00 GMT']
    const {run} = await serve((_req, res) => json(res, 429, {message: 'slow down'}, {'retry-after': values.shift()!}))
    for (let i = 0; i < 2; i++) {
      const r = await run(['demand', 'get', ID])
      expect(r.exitCode).toBe(1)
      expect(r.stderr).toBe(
        `Error: getting the demand: slow down (GET /api/public/v1/demand/${ID} → 429 Too Many Requests); the service asks to wait more than a week before trying again (Retry-After)\n`,
      )
    }
  })

  it('--timeout bounds each attempt and MFG_TOTAL_TIMEOUT the whole command with its retries, said when it gives up', async () => {
    const {server, run} = await serve(() => undefined)
    const r = await run(['demand', 'get', ID, '--timeout', '0.4'], {env: {MFG_TOTAL_TIMEOUT: '2'}})
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toMatch(
      /^Error: getting the demand: gave up after \d(\.\d)? s and \d attempts \((too little left of the command's time limit of 2 s for another try|the command's time limit of 2 s ran out); allow more with --total-timeout SECONDS or MFG_TOTAL_TIMEOUT\): timed out after \d+ ms waiting for the answer/,
    )
    expect(server.requests.length).toBeGreaterThanOrEqual(2)
    expect(server.requests.length).toBeLessThanOrEqual(4)
  })

  it('--total-timeout is the flag of MFG_TOTAL_TIMEOUT, and wins over it', async () => {
    const {server, run} = await serve(() => undefined)
    const r = await run(['demand', 'get', ID, '--total-timeout', '0.5', '--json'], {env: {MFG_TOTAL_TIMEOUT: '60'}})
    expect(r.exitCode).toBe(1)
    const {error} = JSON.parse(r.stderr.trim()) as {error: {code: string; message: string}}
    expect(error.code).toBe('network_error')
    expect(error.message).toMatch(
      /\(the command's time limit of 500 ms ran out; allow more with --total-timeout SECONDS/,
    )
    expect(server.requests).toHaveLength(1)
  })

  it('MFG_TIMEOUT sets the time-out when --timeout is not given', async () => {
    const {run} = await serve(() => undefined)
    const r = await run(['demand', 'get', ID], {env: {MFG_TIMEOUT: '0.3', MFG_TOTAL_TIMEOUT: '5'}})
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toMatch(/timed out after 300 ms waiting for the answer \(allow more with --timeout SECONDS/)
  })

  it('a time-out that is not a positive number of seconds is a usage error naming where it came from', async () => {
    const {server, run} = await serve((_req, res) => json(res, 200, demand('quote_sent')))
    const flag = await run(['demand', 'get', ID, '--timeout', '0'])
    expect(flag.exitCode).toBe(2)
    expect(flag.stderr).toBe(
      'Error: --timeout must be a number of seconds greater than 0 and at most 86400, got "0".\n',
    )
    const total = await run(['demand', 'get', ID, '--total-timeout', '-1'])
    expect(total.exitCode).toBe(2)
    expect(total.stderr).toMatch(/^Error: --total-timeout must be a number of seconds greater than 0/)
    const env = await run(['demand', 'get', ID], {env: {MFG_TOTAL_TIMEOUT: 'soon'}})
    expect(env.exitCode).toBe(2)
    expect(env.stderr).toMatch(/^Error: MFG_TOTAL_TIMEOUT must be a number of seconds/)
    expect(server.requests).toHaveLength(0)
  })
})
