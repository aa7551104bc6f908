/* eslint-disable @typescript-eslint/no-explicit-any -- tool results are arbitrary JSON that tests inspect freely */
import {readFileSync} from 'node:fs'

import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {MCP_PATH} from '../../src/api/mcp.js'
import type {RunningSandbox} from '../../src/sandbox/index.js'
import {MIN_PATTERN_SAMPLES} from '../../src/sandbox/mcp/pricing.js'
import {TOOL_NAMES} from '../../src/sandbox/mcp/server.js'
import {MACHINES, MATERIALS} from '../../src/sandbox/seed.js'
import {sandboxClient, startTestSandbox, type SandboxClient} from '../helpers/sandbox.js'
import {startReceiver, waitFor, type Receiver} from './receiver.js'
import {meshPath} from '../helpers/meshes.js'
import {boxObject, makeZip, modelXml, RELS} from '../mesh/helpers.js'

const CUBE = meshPath('cube20.stl')

let sandbox: RunningSandbox
let demo: SandboxClient
let client: Client
let receiver: Receiver

async function connect(apiKey: string): Promise<Client> {
  const c = new Client({name: 'mfg-test', version: '1.0.0'})
  await c.connect(
    new StreamableHTTPClientTransport(new URL(sandbox.url + MCP_PATH), {
      requestInit: {headers: {authorization: `Bearer ${apiKey}`}},
    }),
  )
  return c
}

/** Calls a tool; the result's structured content, or the error body of a tool error. */
async function call(name: string, args: Record<string, unknown> = {}): Promise<{error?: any; value: any; raw: any}> {
  const raw: any = await client.callTool({name, arguments: args})
  const text = raw.content?.[0]?.text as string
  if (raw.isError) {
    let error: any = text
    try {
      error = JSON.parse(text)
    } catch {
      // A message from the SDK (schema validation), not a JSON body.
    }
    return {error, value: undefined, raw}
  }
  expect(JSON.parse(text)).toEqual(raw.structuredContent)
  return {value: raw.structuredContent, raw}
}

beforeAll(async () => {
  sandbox = await startTestSandbox({webhooks: {retryBaseMs: 20, drainMs: 200}})
  demo = sandboxClient(sandbox)
  client = await connect(sandbox.businesses[0]!.apiKey)
  receiver = await startReceiver()
  const hook = await demo.post('/api/v2/integrations_ms/webhooks', {
    businessId: demo.business.id,
    url: receiver.url,
    secret: 'whsec_mcp',
    events: ['quote_request_received', 'order_placed', 'quote_request_updated', 'order_updated'],
  })
  expect(hook.status, hook.text).toBe(201)
})
afterAll(async () => {
  await client.close()
  await receiver.close()
  await sandbox.close()
})

describe('the MCP endpoint through the SDK client', () => {
  it('lists the ten tools with schemas, descriptions and annotations', async () => {
    const {tools} = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual([...TOOL_NAMES])
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object')
      expect(tool.description?.length, tool.name).toBeGreaterThan(60)
      const changes = tool.name === 'create_quotes' || tool.name === 'update_quote'
      expect(tool.annotations, tool.name).toMatchObject(
        changes ? {readOnlyHint: false, destructiveHint: true} : {readOnlyHint: true, destructiveHint: false},
      )
      expect(tool.outputSchema?.type, tool.name).toBe('object')
    }
    const create = tools.find((t) => t.name === 'create_quotes')!
    expect(create.description).toMatch(/emails/)
  })

  it('list_machines answers every machine with its materials, as `price machines` reads it', async () => {
    const {value} = await call('list_machines')
    expect(value.currency).toBe('EUR')
    expect(value.machines.map((m: any) => m._id)).toEqual(MACHINES.map((m) => m._id))
    expect(value.machines[0].materials.map((m: any) => m.materials)).toEqual(
      MATERIALS.filter((m) => m.machine === MACHINES[0]!._id).map((m) => m.materials),
    )
    const sheet = await call('list_machines', {service: 'SHEET_METAL'})
    expect(sheet.value.machines.map((m: any) => m.technology)).toEqual(['LASER'])
    const bad = await call('list_machines', {service: 'WELDING', colour: 1})
    expect(bad.raw.isError).toBe(true)
    expect(JSON.stringify(bad.error)).toMatch(/colour/)
  })

  it('list_quotes and get_quote read the same demands as v1', async () => {
    const v1 = await demo.get(`/api/public/v1/demand/${demo.business.id}/all?pageSize=100`)
    const {value} = await call('list_quotes', {type: 'all', pageSize: 100})
    expect(value.total).toBe(v1.body.total)
    expect(value.quotes.map((q: any) => q._id)).toEqual(v1.body.data.map((d: any) => d._id))
    expect(value.quotes[0]).toMatchObject({stage: expect.any(String), takenAs: expect.any(String)})
    const full = await call('list_quotes', {type: 'all', detail: 'full', pageSize: 1})
    expect(full.value.quotes).toEqual(v1.body.data.slice(0, 1))
    const one = await call('get_quote', {quoteId: v1.body.data[0]._id})
    expect(one.value).toEqual(v1.body.data[0])
    const missing = await call('get_quote', {quoteId: 'nope'})
    expect(missing.error).toMatchObject({statusCode: 404, message: 'Demand nope not found.'})
  })

  it('create_quotes creates through the v1 path and emits the same webhook', async () => {
    const before = receiver.received.length
    const {value} = await call('create_quotes', {
      quotes: [
        {technique: '3D_PRINTING', material: 'PLA', quantity: 3, email: 'ada@example.com', draftId: 'mcp-create-1'},
      ],
    })
    expect(value.quotes).toHaveLength(1)
    const created = value.quotes[0]
    expect(created).toMatchObject({created: true, material: 'PLA', quantity: 3, draftId: 'mcp-create-1'})
    expect(created.paymentAuthToken).toEqual(expect.any(String))
    const stored = await demo.get(`/api/public/v1/demand/${created._id}`)
    expect(stored.status).toBe(200)
    await waitFor(
      () => receiver.received.slice(before).some((r) => r.json.data._id === created._id),
      'the quote_request_received delivery',
    )
    const event = receiver.received.slice(before).find((r) => r.json.data._id === created._id)!
    expect(event.json.type).toBe('quote_request_received')
    // The same draftId returns the stored quote.
    const again = await call('create_quotes', {
      quotes: [{technique: '3D_PRINTING', material: 'PLA', quantity: 3, draftId: 'mcp-create-1'}],
    })
    expect(again.value.quotes[0]).toMatchObject({_id: created._id, created: false})
    // Invalid: nothing is created, the details say where.
    const invalid = await call('create_quotes', {quotes: [{technique: '3D_PRINTING', material: 'PLA', quantity: -1}]})
    expect(invalid.error).toMatchObject({statusCode: 400, details: [expect.objectContaining({path: '0.quantity'})]})
  })

  it('update_quote follows the stage rules: a refused move is a 409 naming both stages', async () => {
    const {value} = await call('create_quotes', {quotes: [{technique: 'CNC_MACHINING', material: 'Brass'}]})
    const id = value.quotes[0]._id
    const refused = await call('update_quote', {quoteId: id, status: 'done'})
    expect(refused.error.statusCode).toBe(409)
    expect(refused.error.message).toMatch(/quote_sent/)
    expect(refused.error.message).toMatch(/done/)
    const before = receiver.received.length
    const moved = await call('update_quote', {quoteId: id, status: 'special_verified', changes: {priceDelivery: 12}})
    expect(moved.value).toMatchObject({previousStage: 'quote_sent', stage: 'special_verified', becameOrder: false})
    expect(moved.value.quote).toMatchObject({priceDelivery: 12, status: 'In Review'})
    await waitFor(
      () =>
        receiver.received.slice(before).some((r) => r.json.type === 'quote_request_updated' && r.json.data._id === id),
      'the quote_request_updated delivery',
    )
    await call('update_quote', {quoteId: id, status: 'special_accepted'})
    const frozen = await call('update_quote', {quoteId: id, changes: {material: 'Steel S235'}})
    expect(frozen.error).toMatchObject({statusCode: 409})
    expect(frozen.error.message).toMatch(/special_accepted.*material/)
    const nothing = await call('update_quote', {quoteId: id})
    expect(nothing.error).toMatchObject({statusCode: 400})
  })

  it('estimate_price prices with the engine of v1 price-estimation', async () => {
    const part = {material: 'PLA', quantity: 4, slicingData: {weight: '20', volume: '16000'}}
    const {value} = await call('estimate_price', part)
    const v1 = await demo.post(`/api/public/v1/price-estimation/${demo.business.id}`, {
      ...part,
      material: {materials: 'PLA'},
    })
    expect(v1.status, v1.text).toBe(200)
    expect(value).toMatchObject({price: v1.body.data.price, currency: 'EUR', quantity: 4, technology: 'FDM'})
    const usd = await call('estimate_price', {...part, currency: 'usd', bulkPricing: [10]})
    expect(usd.value.currency).toBe('USD')
    expect(usd.value.bulk).toHaveLength(1)
    const unknown = await call('estimate_price', {material: 'Unobtainium', slicingData: {weight: '20'}})
    expect(unknown.error.statusCode).toBe(400)
    expect(unknown.error.details[0].message).toMatch(/must be one of/)
  })

  it('get_pricing_setup explains each technology and lists the customer options', async () => {
    const {value} = await call('get_pricing_setup')
    const techs = value.technologies.map((t: any) => t.technology)
    expect(techs).toEqual(expect.arrayContaining(['FDM', 'SLA', 'SLS', 'CNC', 'LASER']))
    for (const t of value.technologies) {
      expect(t.machineTime, t.technology).toEqual(expect.any(String))
      expect(t.materials.length, t.technology).toBeGreaterThan(0)
    }
    expect(value.options.length).toBeGreaterThan(0)
    expect(value.options[0]).toMatchObject({
      refer: expect.any(String),
      name: expect.any(String),
      effect: expect.any(String),
    })
    expect(value.steps.length).toBeGreaterThan(3)
    const cnc = await call('get_pricing_setup', {service: 'CNC_MACHINING'})
    expect(cnc.value.technologies.map((t: any) => t.technology)).toEqual(['CNC'])
  })

  it('get_pattern_status counts priced demands per material and marks the trained ones', async () => {
    const count = async () =>
      (await call('get_pattern_status')).value.materials.find(
        (m: any) => m.material === 'PETG' && m.technology === 'FDM',
      )
    const first = await count()
    expect(first).toMatchObject({trained: first.samples >= MIN_PATTERN_SAMPLES})
    const priced = Array.from({length: MIN_PATTERN_SAMPLES}, () => ({
      technique: '3D_PRINTING',
      quoteModel: [{service: '3D_PRINTING', technology: 'FDM', material: 'PETG', quantity: 1, pricePerPiece: 12}],
    }))
    // An unpriced quote is not a sample.
    await call('create_quotes', {quotes: [...priced, {technique: '3D_PRINTING', material: 'PETG'}]})
    const after = await count()
    expect(after.samples).toBe(first.samples + MIN_PATTERN_SAMPLES)
    expect(after.trained).toBe(true)
    const {value} = await call('get_pattern_status')
    expect(value.trained).toContain('PETG')
    expect(value.minimumSamples).toBe(MIN_PATTERN_SAMPLES)
  })

  it('measure_part measures base64 content: the 20 mm cube is 8000 mm³ and closed', async () => {
    const content = readFileSync(CUBE).toString('base64')
    const {value} = await call('measure_part', {content, fileName: 'cube20.stl'})
    expect(value.volume).toBeCloseTo(8000, 3)
    expect(value.closed).toBe(true)
    expect(value.size).toEqual({width: 20, depth: 20, height: 20, unit: 'mm'})
    expect(value.surfaceArea).toBeCloseTo(2400, 3)
    expect(value.slicingData.volume).toBe('8000.000')
    const cm = await call('measure_part', {content, unit: 'cm'})
    expect(cm.value.volume).toBeCloseTo(8_000_000, 0)
    const both = await call('measure_part', {})
    expect(both.error).toMatchObject({statusCode: 400})
    const garbage = await call('measure_part', {content: Buffer.from('hello world').toString('base64')})
    expect(garbage.error.statusCode).toBe(400)
    expect(garbage.error.message).toMatch(/cannot be measured/)
  })

  it('measure_part refuses a file over a reading limit without naming a CLI flag its caller cannot pass', async () => {
    // 40 MB of spaces inside the model compress to a few tens of kB: over the inflation limit.
    const xml = modelXml(boxObject(1, 1, 1, 1) + ' '.repeat(40 * 1024 * 1024), '<item objectid="1"/>')
    const bomb = makeZip({'[Content_Types].xml': '<Types/>', '_rels/.rels': RELS, '3D/3dmodel.model': xml})
    const {error} = await call('measure_part', {content: Buffer.from(bomb).toString('base64'), fileName: 'bomb.3mf'})
    expect(error.statusCode).toBe(400)
    expect(error.message).toMatch(
      /^The part file cannot be measured: bomb\.3mf: 3MF entry 3D\/3dmodel\.model inflates \d+ times .*, over this service's limit for reading part files\.$/,
    )
    expect(error.message).not.toContain('--max-')
  })

  it('get_quote_file signs a link that measure_part (and the file host) accept; foreign links are refused', async () => {
    const list = await call('list_quotes', {type: 'all', pageSize: 100})
    const withFile = list.value.quotes.find((q: any) => q.files > 0)
    expect(withFile).toBeDefined()
    const {value} = await call('get_quote_file', {quoteId: withFile._id})
    expect(value.url).toContain('signature=')
    expect(value.files.length).toBeGreaterThan(0)
    expect((await fetch(value.url)).status).toBe(200)
    const measured = await call('measure_part', {fileLink: value.url})
    expect(measured.value.volume).toBeGreaterThan(0)
    expect(measured.value.fileName).toEqual(expect.any(String))
    // The stored fileLink of the quote works too.
    const quote = await call('get_quote', {quoteId: withFile._id})
    const stored = await call('measure_part', {fileLink: quote.value.quoteModel[0].fileLink})
    expect(stored.value.volume).toBeCloseTo(measured.value.volume, 6)
    const tampered = await call('measure_part', {fileLink: value.url.replace(/expires=\d+/, 'expires=1')})
    expect(tampered.error.statusCode).toBe(403)
    const foreign = await call('measure_part', {fileLink: 'https://example.com/part.stl'})
    expect(foreign.error.statusCode).toBe(400)
    const other = await connect(sandbox.businesses[1]!.apiKey)
    try {
      const r: any = await other.callTool({name: 'measure_part', arguments: {fileLink: value.url}})
      expect(r.isError).toBe(true)
      expect(JSON.parse(r.content[0].text).statusCode).toBe(404)
    } finally {
      await other.close()
    }
    const none = await call('get_quote_file', {quoteId: withFile._id, fileName: 'nope.stl'})
    expect(none.error.statusCode).toBe(404)
  })
})

describe('the MCP endpoint over HTTP', () => {
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(sandbox.url + MCP_PATH, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${sandbox.businesses[0]!.apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })

  it('is stateless: initialize hands out no session, and any POST is answered on its own', async () => {
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {protocolVersion: '2025-03-26', capabilities: {}, clientInfo: {name: 't', version: '1'}},
    })
    expect(init.status).toBe(200)
    expect(init.headers.get('mcp-session-id')).toBeNull()
    expect(await init.json()).toMatchObject({id: 1, result: {protocolVersion: '2025-03-26', capabilities: {tools: {}}}})
    expect((await post({jsonrpc: '2.0', method: 'notifications/initialized'})).status).toBe(202)
    const call = (await (
      await post({jsonrpc: '2.0', id: 3, method: 'tools/call', params: {name: 'list_machines', arguments: {}}})
    ).json()) as any
    expect(call.result.structuredContent.machines.length).toBe(MACHINES.length)
  })

  it('refuses a missing or wrong key with 401 and WWW-Authenticate: Bearer, without asking for X-Auth-Token', async () => {
    for (const authorization of ['', 'Bearer pk_business_nope']) {
      const r = await post({jsonrpc: '2.0', id: 1, method: 'ping'}, {authorization})
      expect(r.status).toBe(401)
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer\b/)
      expect(((await r.json()) as any).message).not.toMatch(/X-Auth-Token/)
    }
  })

  it('answers GET and DELETE with 405, a body over 10 MiB with 413, and transport errors as the SDK does', async () => {
    for (const method of ['GET', 'DELETE']) {
      const r = await fetch(sandbox.url + MCP_PATH, {
        method,
        headers: {authorization: `Bearer ${sandbox.businesses[0]!.apiKey}`},
      })
      expect(r.status, method).toBe(405)
      expect(r.headers.get('allow')).toBe('POST')
    }
    const big = JSON.stringify({jsonrpc: '2.0', id: 1, method: 'ping', params: {pad: 'x'.repeat(10 * 1024 * 1024)}})
    expect((await post(big)).status).toBe(413)
    expect((await post({jsonrpc: '2.0', id: 1, method: 'ping'}, {accept: 'application/json'})).status).toBe(406)
    expect((await post({jsonrpc: '2.0', id: 1, method: 'ping'}, {'mcp-protocol-version': '1999-01-01'})).status).toBe(
      400,
    )
    const unknown = (await (await post({jsonrpc: '2.0', id: 4, method: 'resources/list'})).json()) as any
    expect(unknown.error.code).toBe(-32601)
  })
})
