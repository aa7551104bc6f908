// A stand-in MCP server written by hand on node:http (not the SDK's server classes), for
// tests of the MCP client against endpoints that deviate the ways the specification allows
// or real servers do: JSON or event-stream answers, no session, sessions that expire,
// messages before the answer, odd tool results, JSON-RPC errors, failing HTTP statuses.
import {randomUUID} from 'node:crypto'
import http from 'node:http'
import type {AddressInfo} from 'node:net'

export const STANDIN_MCP_PATH = '/api/v2/ms-integrations/api/public/v1/mcp/protocol'

type Rpc = {jsonrpc: '2.0'; id?: string | number; method?: string; params?: Record<string, unknown>}

export interface StandinOptions {
  /** How POSTs with a request are answered: one JSON body, or an event stream. */
  answer?: 'json' | 'sse'
  /** Hands out an Mcp-Session-Id at initialize (and asks for it after) unless false. */
  sessions?: boolean
  /** Messages sent in the event stream before the answer to a tools/call (notifications, server requests). */
  before?: (id: string | number) => unknown[]
  /** The tools tools/list lists. */
  tools?: Record<string, unknown>[]
  /** The answer to tools/call of a tool: a result, or {error} for a JSON-RPC error. */
  call?: (name: string, args: unknown) => {result: unknown} | {error: {code: number; message: string; data?: unknown}}
  /** Forgets every session before this request is handled (a session that expires mid-way). */
  expireBefore?: (rpc: Rpc) => boolean
  /** Writes the answer itself when it returns true (an odd framing); `answer` is the JSON-RPC answer, if any. */
  raw?: (rpc: Rpc, answer: unknown, res: http.ServerResponse, headers: Record<string, string>) => boolean
  /** Answers a POST with this status instead (a failing service). */
  fail?: (req: http.IncomingMessage, rpc: Rpc) => {status: number; headers?: Record<string, string>} | void
}

export interface Standin {
  url: string
  /** Each request as it came: its HTTP method, JSON-RPC method, session id and Authorization. */
  seen: {http: string; rpc?: string; session?: string; authorization?: string; status: number}[]
  /** Session ids handed out. */
  sessions: string[]
  /** Forgets every session: a request carrying one gets 404. */
  expire(): void
  close(): Promise<void>
}

const ECHO_TOOL = {
  name: 'echo',
  description: 'Echoes its text.',
  inputSchema: {type: 'object', properties: {text: {type: 'string'}}},
  annotations: {readOnlyHint: true},
}

export async function startStandin(opts: StandinOptions = {}): Promise<Standin> {
  const live = new Set<string>()
  const handed: string[] = []
  const seen: Standin['seen'] = []
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const session = typeof req.headers['mcp-session-id'] === 'string' ? req.headers['mcp-session-id'] : undefined
      const note = (status: number, rpc?: string) =>
        seen.push({
          http: req.method ?? '',
          ...(rpc ? {rpc} : {}),
          ...(session ? {session} : {}),
          ...(req.headers.authorization ? {authorization: req.headers.authorization} : {}),
          status,
        })
      if (req.url !== STANDIN_MCP_PATH) return void res.writeHead(404).end()
      if (req.method === 'GET') {
        note(405)
        return void res.writeHead(405).end()
      }
      if (req.method === 'DELETE') {
        if (session) live.delete(session)
        note(200)
        return void res.writeHead(200).end()
      }
      let rpc: Rpc
      try {
        rpc = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Rpc
      } catch {
        note(400)
        return void res.writeHead(400).end()
      }
      const failed = opts.fail?.(req, rpc)
      if (failed) {
        note(failed.status, rpc.method)
        res.writeHead(failed.status, {'content-type': 'application/json', ...failed.headers})
        return void res.end(
          JSON.stringify({statusCode: failed.status, message: `refused by the stand-in (${failed.status})`}),
        )
      }
      if (opts.expireBefore?.(rpc)) live.clear()
      const stateful = opts.sessions !== false
      const headers: Record<string, string> = {}
      if (stateful && rpc.method === 'initialize') {
        const id = randomUUID()
        live.add(id)
        handed.push(id)
        headers['mcp-session-id'] = id
      } else if (stateful && (!session || !live.has(session))) {
        note(session ? 404 : 400, rpc.method)
        res.writeHead(session ? 404 : 400, {'content-type': 'application/json'})
        return void res.end(
          JSON.stringify({jsonrpc: '2.0', id: null, error: {code: -32001, message: 'Session not found'}}),
        )
      }
      if (
        opts.raw?.(
          rpc,
          rpc.id === undefined || rpc.method === undefined ? undefined : answerTo(rpc, opts),
          res,
          headers,
        )
      ) {
        return void note(res.statusCode, rpc.method)
      }
      if (rpc.id === undefined || rpc.method === undefined) {
        note(202, rpc.method)
        return void res.writeHead(202, headers).end()
      }
      const answer = answerTo(rpc, opts)
      note(200, rpc.method)
      if ((opts.answer ?? 'json') === 'json') {
        res.writeHead(200, {...headers, 'content-type': 'application/json'})
        return void res.end(JSON.stringify(answer))
      }
      res.writeHead(200, {...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache'})
      const extra = rpc.method === 'tools/call' ? (opts.before?.(rpc.id) ?? []) : []
      for (const m of [...extra, answer]) res.write(`event: message\ndata: ${JSON.stringify(m)}\n\n`)
      res.end()
    })
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    sessions: handed,
    expire: () => live.clear(),
    close: () =>
      new Promise((ok) => {
        server.closeAllConnections()
        server.close(() => ok())
      }),
  }
}

function answerTo(rpc: Rpc, opts: StandinOptions): unknown {
  const id = rpc.id
  switch (rpc.method) {
    case 'initialize':
      return {
        jsonrpc: '2.0',
        id,
        result: {
          protocolVersion: String(rpc.params?.protocolVersion ?? '2025-06-18'),
          capabilities: {tools: {}},
          serverInfo: {name: 'standin', version: '1'},
        },
      }
    case 'ping':
      return {jsonrpc: '2.0', id, result: {}}
    case 'tools/list':
      return {jsonrpc: '2.0', id, result: {tools: opts.tools ?? [ECHO_TOOL]}}
    case 'tools/call': {
      const name = String(rpc.params?.name)
      const args = rpc.params?.arguments
      const out = opts.call?.(name, args) ?? {
        result: {content: [{type: 'text', text: JSON.stringify({echo: (args as {text?: unknown})?.text})}]},
      }
      return {jsonrpc: '2.0', id, ...out}
    }
    default:
      return {jsonrpc: '2.0', id, error: {code: -32601, message: `Method not found: ${rpc.method}`}}
  }
}
