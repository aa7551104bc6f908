/* eslint-disable @typescript-eslint/no-explicit-any -- tool results are arbitrary JSON that tests inspect freely */
import {spawn} from 'node:child_process'
import {randomUUID} from 'node:crypto'
import {existsSync} from 'node:fs'
import {createServer, type IncomingMessage, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join, resolve} from 'node:path'

import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js'
import {StreamableHTTPServerTransport} from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {z} from 'zod'

import {createClient} from '../../src/api/http.js'
import {MCP_PATH, callMcpTool, withMcpSession} from '../../src/api/mcp.js'
import {useTempDirs} from '../helpers/temp.js'

/**
 * The MCP client and `mcp proxy` against a stateful server built from the MCP
 * SDK's own server classes (not the sandbox, which is stateless): it hands out
 * a session id at initialize, refuses a later request without it, answers in
 * event streams, and ends the session on DELETE.
 */

const root = resolve(import.meta.dirname, '../..')
const KEY = 'pk_business_session0000000000000000'
const tempDir = useTempDirs('mfg-mcp-session-')

interface Seen {
  method: string
  session?: string
  version?: string
  authorization?: string
}

function statefulServer() {
  const seen: Seen[] = []
  const closed: string[] = []
  const opened: string[] = []
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  /** Lets the `slow` tool go on past its first progress notification. */
  let letGo: () => void = () => undefined
  const gate = new Promise<void>((done) => (letGo = done))
  const header = (req: IncomingMessage, name: string) => {
    const v = req.headers[name]
    return typeof v === 'string' ? v : undefined
  }
  const server = createServer((req, res) => {
    const session = header(req, 'mcp-session-id')
    seen.push({
      method: req.method ?? '',
      ...(session ? {session} : {}),
      ...(header(req, 'mcp-protocol-version') ? {version: header(req, 'mcp-protocol-version')} : {}),
      ...(header(req, 'authorization') ? {authorization: header(req, 'authorization')} : {}),
    })
    if (req.url !== MCP_PATH) return void res.writeHead(404).end()
    void (async () => {
      let transport = session ? sessions.get(session) : undefined
      if (!transport) {
        if (session) return void res.writeHead(404).end()
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => {
            opened.push(id)
            sessions.set(id, created)
          },
          onsessionclosed: (id) => {
            closed.push(id)
            sessions.delete(id)
          },
        })
        const mcp = new McpServer({name: 'stateful', version: '1'})
        mcp.registerTool(
          'echo',
          {description: 'Echoes the text.', inputSchema: {text: z.string()}, annotations: {readOnlyHint: true}},
          ({text}) => ({content: [{type: 'text', text: JSON.stringify({echo: text})}]}),
        )
        mcp.registerTool(
          'slow',
          {
            description: 'Reports progress, waits to be let go, then reports a step every half second.',
            inputSchema: {steps: z.number()},
          },
          async ({steps}, extra) => {
            const progress = (n: number) =>
              extra.sendNotification({
                method: 'notifications/progress',
                params: {progressToken: extra._meta?.progressToken ?? 0, progress: n, total: steps + 1},
              })
            await progress(1)
            await gate
            for (let i = 2; i <= steps + 1; i++) {
              await new Promise((done) => setTimeout(done, 500))
              await progress(i)
            }
            return {content: [{type: 'text', text: JSON.stringify({done: steps})}]}
          },
        )
        await mcp.connect(created)
        transport = created
      }
      await transport.handleRequest(req, res)
    })()
  })
  /** Forgets every session, as a server that restarted or let them expire: a request carrying one gets 404. */
  const drop = () => sessions.clear()
  return {server, seen, closed, opened, drop, letGo: () => letGo()}
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

let stateful: ReturnType<typeof statefulServer>
let url: string
beforeEach(async () => {
  stateful = statefulServer()
  url = await listen(stateful.server)
})
afterEach(async () => {
  stateful.server.closeAllConnections()
  await new Promise((done) => stateful.server.close(done))
})

/** Every request after the first carries the session id the server handed out, and the version agreed. */
function expectOneSession(seen: Seen[]): string {
  const id = seen[1]?.session
  expect(id).toMatch(/^[0-9a-f-]{36}$/)
  expect(seen[0]?.session).toBeUndefined()
  expect(seen.slice(1).map((s) => s.session)).toEqual(seen.slice(1).map(() => id))
  for (const s of seen.slice(1)) expect(s.version).toMatch(/^\d{4}-\d{2}-\d{2}$/)
  for (const s of seen) expect(s.authorization).toBe(`Bearer ${KEY}`)
  return id!
}

describe('the MCP client in a stateful session', () => {
  it('sends the session id back on every request, answers from event streams, and ends the session', async () => {
    const client = createClient({baseUrl: url, apiKey: KEY, retries: 0})
    const r = await callMcpTool(client, 'echo', {text: 'hi'})
    expect(r.value).toEqual({echo: 'hi'})
    // initialize, notifications/initialized, tools/call, DELETE; no standing GET stream.
    expect(stateful.seen.map((s) => s.method)).toEqual(['POST', 'POST', 'POST', 'DELETE'])
    const id = expectOneSession(stateful.seen)
    expect(stateful.closed).toEqual([id])
    client.close?.()
  })

  it('ends the session when the body fails too', async () => {
    const client = createClient({baseUrl: url, apiKey: KEY, retries: 0})
    const failed = await withMcpSession(client, async (s) => {
      expect((await s.tools()).map((t) => t.name)).toEqual(['echo', 'slow'])
      throw new Error('stop here')
    }).catch((e: unknown) => e)
    expect((failed as Error).message).toBe('stop here')
    expect(stateful.closed).toEqual([expectOneSession(stateful.seen)])
    client.close?.()
  })
})

describe('the MCP client against an endpoint that does not answer', () => {
  it('reports a request taken with 202 at once, as a bad response naming the method', async () => {
    const accepting = createServer((req, res) => {
      req.resume()
      req.on('end', () => res.writeHead(202).end())
    })
    const base = await listen(accepting)
    try {
      const client = createClient({baseUrl: base, apiKey: KEY, retries: 0})
      const error = await callMcpTool(client, 'echo').catch((e: unknown) => e)
      expect(error).toMatchObject({code: 'bad_response', status: 202})
      expect((error as Error).message).toMatch(/accepted initialize without answering it/)
      client.close?.()
    } finally {
      accepting.close()
    }
  })
})

describe('mcp proxy (the built CLI)', () => {
  /** The proxy's environment: this process's, without MFG_* and NODE_OPTIONS, toward `base`. */
  const proxyEnv = (base: string): Record<string, string> => {
    if (!existsSync(join(root, 'dist/commands/mcp/proxy.js')))
      throw new Error('dist/ has no mcp proxy: run `npm run build` first (npm test does).')
    const env: Record<string, string> = {}
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !k.startsWith('MFG_') && k !== 'NODE_OPTIONS') env[k] = v
    return {...env, MFG_HOME: tempDir(), MFG_BASE_URL: base, MFG_API_KEY: KEY, MFG_BUSINESS_ID: 'b'}
  }

  /** An SDK client talking to the built `mfg mcp proxy` over stdio, its stderr gathered. */
  const throughProxy = async (name: string, extraEnv: Record<string, string> = {}) => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(root, 'bin/run.js'), 'mcp', 'proxy'],
      env: {...proxyEnv(url), ...extraEnv},
      stderr: 'pipe',
    })
    let err = ''
    transport.stderr?.on('data', (c: Buffer) => (err += c.toString()))
    const client = new Client({name, version: '1'})
    await client.connect(transport)
    return {client, stderr: () => err}
  }

  it('relays with the session id and version, and ends the session when stdin closes', async () => {
    const {client, stderr} = await throughProxy('proxy-session-test')
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'slow'])
    const result: any = await client.callTool({name: 'echo', arguments: {text: 'through'}})
    expect(JSON.parse(result.content[0].text)).toEqual({echo: 'through'})
    // Ends the proxy's stdin and waits for it to exit.
    await client.close()
    const id = expectOneSession(stateful.seen)
    expect(stateful.seen.map((s) => s.method)).toEqual(['POST', 'POST', 'POST', 'POST', 'DELETE'])
    expect(stateful.closed, stderr()).toEqual([id])
  })

  it('relays progress as it comes, and a call that keeps reporting outlasts --timeout', async () => {
    // The tool goes on only once its first progress has reached the client; then it
    // reports for 4 s in all, twice the time-out, never silent for longer than it.
    const {client, stderr} = await throughProxy('proxy-progress-test', {MFG_TIMEOUT: '2'})
    const seen: number[] = []
    const result: any = await client.callTool({name: 'slow', arguments: {steps: 8}}, undefined, {
      onprogress: (p) => {
        seen.push(p.progress)
        if (p.progress === 1) stateful.letGo()
      },
      resetTimeoutOnProgress: true,
      timeout: 30_000,
    })
    expect(JSON.parse(result.content[0].text), stderr()).toEqual({done: 8})
    // The last one comes with the answer, in the same read: the SDK's client may drop it then.
    expect(seen.slice(0, 8)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
    await client.close()
  })

  it('opens a new session when the endpoint drops the one it had, and sends the request again in it', async () => {
    const {client, stderr} = await throughProxy('proxy-renew-test')
    const echo = async (text: string) => {
      const result: any = await client.callTool({name: 'echo', arguments: {text}})
      return JSON.parse(result.content[0].text)
    }
    expect(await echo('first')).toEqual({echo: 'first'})
    stateful.drop()
    expect(await echo('after the drop')).toEqual({echo: 'after the drop'})
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'slow'])
    stateful.drop()
    expect(await echo('after a second drop')).toEqual({echo: 'after a second drop'})
    await client.close()
    expect(stateful.opened, stderr()).toHaveLength(3)
    // The first session was the client's; the later ones were opened with its initialize, and the last ended on close.
    expect(stateful.closed).toEqual([stateful.opened[2]])
    expect(stderr()).toContain('the MCP endpoint no longer knows the session (404); opening a new one.')
    for (const s of stateful.seen) expect(s.authorization).toBe(`Bearer ${KEY}`)
  })

  it.each([
    ['leaves unanswered (an empty event stream)', true, 'The MCP endpoint sent no answer to initialize.'],
    [
      'stops answering (an event stream silent for longer than --timeout)',
      false,
      'MCP endpoint: the answer stopped coming: nothing came for longer than the time-out (--timeout)',
    ],
  ])('answers a request the endpoint %s with a JSON-RPC error, then exits', async (_, ends, message) => {
    const silent = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        res.writeHead(200, {'content-type': 'text/event-stream'}).write(': nothing to say\n\n')
        if (ends) res.end()
      })
    })
    const base = await listen(silent)
    try {
      const child = spawn(process.execPath, [join(root, 'bin/run.js'), 'mcp', 'proxy'], {
        env: {...proxyEnv(base), MFG_TIMEOUT: '1'},
        stdio: ['pipe', 'pipe', 'pipe'],
      })
      let stdout = ''
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
      const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)))
      const init = {
        jsonrpc: '2.0',
        id: 'a',
        method: 'initialize',
        params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 't', version: '1'}},
      }
      child.stdin.end(`${JSON.stringify(init)}\n`)
      expect(await exited).toBe(0)
      expect(
        stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as unknown),
      ).toEqual([{jsonrpc: '2.0', id: 'a', error: {code: -32000, message}}])
    } finally {
      silent.closeAllConnections()
      silent.close()
    }
  })
})
