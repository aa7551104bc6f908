import {createServer, type IncomingHttpHeaders, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

import {describe, expect, it} from 'vitest'

import {createClient} from '../../src/api/http.js'
import {McpError, callMcpTool} from '../../src/api/mcp.js'
import {machineRows, normaliseMachines} from '../../src/services/price/machines.js'

const KEY = 'pk_business_test0000000000000000'

/**
 * A stand-in for the real service's MCP endpoint, shaped like the MCP SDK's
 * stateful Streamable HTTP server: answers as server-sent events, hands out a
 * session id on initialize, wants it back afterwards, accepts DELETE.
 */
function sdkLikeServer(
  tool: (name: string, args: unknown) => unknown,
  opts: {stream?: (id: number) => string; fail?: (name: string) => boolean} = {},
) {
  const seen: {method: string; rpc?: string; headers: IncomingHttpHeaders}[] = []
  const server = createServer((req, res) => {
    let raw = ''
    req.on('data', (c: Buffer) => (raw += c.toString()))
    req.on('end', () => {
      const body = raw
        ? (JSON.parse(raw) as {id?: number; method: string; params?: {name: string; arguments: unknown}})
        : undefined
      seen.push({method: req.method ?? '', ...(body ? {rpc: body.method} : {}), headers: req.headers})
      if (req.method === 'DELETE') return void res.writeHead(200).end()
      if (body?.method !== 'initialize' && req.headers['mcp-session-id'] !== 'session-1')
        return void res
          .writeHead(404, {'content-type': 'application/json'})
          .end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}')
      if (body?.id === undefined) return void res.writeHead(202).end()
      const sse = (...messages: unknown[]) =>
        res
          .writeHead(200, {'content-type': 'text/event-stream', 'mcp-session-id': 'session-1'})
          .end(messages.map((m) => `event: message\ndata: ${JSON.stringify(m)}\n\n`).join(''))
      if (body.method === 'initialize')
        return sse({
          jsonrpc: '2.0',
          id: body.id,
          result: {protocolVersion: '2025-03-26', capabilities: {tools: {}}, serverInfo: {name: 'x', version: '1'}},
        })
      if (body.method === 'tools/call' && opts.fail?.(body.params?.name ?? ''))
        return void res.writeHead(500, {'content-type': 'text/html'}).end('<html><body>Bad gateway</body></html>')
      if (opts.stream)
        return void res
          .writeHead(200, {'content-type': 'text/event-stream', 'mcp-session-id': 'session-1'})
          .end(opts.stream(body.id))
      // A progress notification first, then the answer, as a streaming server may send.
      return sse(
        {jsonrpc: '2.0', method: 'notifications/progress', params: {progress: 1}},
        {jsonrpc: '2.0', id: body.id, ...(tool(body.params?.name ?? '', body.params?.arguments) as object)},
      )
    })
  })
  return {server, seen}
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe('the MCP client', () => {
  it('sends a read-only tool call again after a failure, and a tool that changes data once', async () => {
    const failed = new Set<string>()
    // Each tool's first call fails with a gateway's HTML 500; later ones are answered.
    const {server, seen} = sdkLikeServer(() => ({result: {content: [{type: 'text', text: '{"ok":true}'}]}}), {
      fail: (name) => !failed.has(name) && Boolean(failed.add(name)),
    })
    const url = await listen(server)
    try {
      const client = createClient({baseUrl: url, apiKey: KEY, authToken: 'tok', retries: 2})
      expect((await callMcpTool(client, 'list_machines')).value).toEqual({ok: true})
      await expect(callMcpTool(client, 'create_quotes', {quotes: []})).rejects.toThrow(/500/)
      const calls = seen.filter((x) => x.rpc === 'tools/call')
      expect(calls).toHaveLength(3)
    } finally {
      server.close()
    }
  })

  it('initializes, sends the session id back, reads SSE answers, and ends the session', async () => {
    const machines = [{_id: 'm1', name: 'Printer', service: '3D_PRINTING', technology: 'FDM', materials: []}]
    const {server, seen} = sdkLikeServer((name) =>
      name === 'list_machines' ? {result: {content: [{type: 'text', text: JSON.stringify({machines})}]}} : {},
    )
    const url = await listen(server)
    try {
      const client = createClient({baseUrl: url, apiKey: KEY, authToken: 'tok', retries: 0})
      const r = await callMcpTool(client, 'list_machines', {service: '3D_PRINTING'})
      expect(r.value).toEqual({machines})
      expect(seen.map((s) => `${s.method} ${s.rpc ?? ''}`.trim())).toEqual([
        'POST initialize',
        'POST notifications/initialized',
        'POST tools/call',
        'DELETE',
      ])
      for (const s of seen) {
        expect(s.headers.authorization).toBe(`Bearer ${KEY}`)
        expect(s.headers['x-auth-token']).toBeUndefined()
        if (s.method === 'POST') expect(s.headers.accept).toBe('application/json, text/event-stream')
      }
      expect(seen[0]?.headers['mcp-session-id']).toBeUndefined()
      expect(seen.slice(1).map((s) => s.headers['mcp-session-id'])).toEqual(['session-1', 'session-1', 'session-1'])
      // The revision the server chose is the one sent afterwards.
      expect(seen[2]?.headers['mcp-protocol-version']).toBe('2025-03-26')
      client.close?.()
    } finally {
      server.close()
    }
  })

  it('turns a JSON-RPC error and a tool error into McpError', async () => {
    const {server} = sdkLikeServer((name) =>
      name === 'list_machines'
        ? {result: {content: [{type: 'text', text: 'Invalid arguments: service'}], isError: true}}
        : {error: {code: -32602, message: `Unknown tool: ${name}`}},
    )
    const url = await listen(server)
    try {
      const client = createClient({baseUrl: url, apiKey: KEY, retries: 0})
      const toolError = await callMcpTool(client, 'list_machines').catch((e: unknown) => e)
      expect(toolError).toBeInstanceOf(McpError)
      expect((toolError as Error).message).toMatch(/MCP tools\/call list_machines: Invalid arguments: service/)
      const rpcError = await callMcpTool(client, 'nope').catch((e: unknown) => e)
      expect(rpcError).toMatchObject({rpcCode: -32602, code: 'mcp_error'})
      expect((rpcError as Error).message).toMatch(/Unknown tool: nope/)
      client.close?.()
    } finally {
      server.close()
    }
  })

  it('reads an answer spread over data lines, after a comment and a server request, in an event stream', async () => {
    const {server} = sdkLikeServer(() => ({}), {
      stream: (id) =>
        `: a comment\n\nevent: message\nid: 1\ndata: {"jsonrpc":"2.0","method":"ping","id":"s1"}\n\n` +
        `data: {"jsonrpc":"2.0",\ndata: "id":${id},"result":{"content":[{"type":"text","text":"{\\"ok\\":true}"}]}}\n\n`,
    })
    const url = await listen(server)
    try {
      const client = createClient({baseUrl: url, apiKey: KEY, retries: 0})
      expect((await callMcpTool(client, 'list_machines')).value).toEqual({ok: true})
      client.close?.()
    } finally {
      server.close()
    }
  })
})

describe('list_machines answers', () => {
  it('joins materials listed apart, and shows a material startup cost in another currency apart', () => {
    const result = normaliseMachines({
      currency: 'EUR',
      machines: [
        {
          _id: 'm1',
          name: 'Mill',
          service: 'CNC_MACHINING',
          technology: 'CNC',
          currency: 'EUR',
          startupCost: 50,
          minimumPrice: 30,
        },
      ],
      materials: [
        {
          machine: 'm1',
          materials: 'Brass',
          price: 12,
          unit: 'kg',
          currency: 'EUR',
          startupCost: {price: 10, currency: 'USD'},
        },
        {machine: 'm2', materials: 'Elsewhere', price: 1, unit: 'kg'},
      ],
    })
    expect(result?.machines[0]?.materials.map((m) => m.materials)).toEqual(['Brass'])
    expect(machineRows(result!)).toEqual([
      {
        machine: 'Mill',
        service: 'CNC_MACHINING',
        technology: 'CNC',
        material: 'Brass',
        price: '12.00 /kg',
        currency: 'EUR',
        'startup cost': '50.00 + 10.00 USD',
        minimum: '30.00',
      },
    ])
    expect(normaliseMachines([{name: 'Bare'}])).toEqual({currency: null, machines: [{name: 'Bare', materials: []}]})
    expect(normaliseMachines({quotes: []})).toBeUndefined()
  })
})
