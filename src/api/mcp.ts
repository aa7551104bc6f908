import {ApiError} from './errors.js'
import type {ApiClient, ApiResponse} from './http.js'

/**
 * A small client of the service's MCP endpoint (MCP over Streamable HTTP,
 * JSON-RPC 2.0, Bearer key as in v1), through the shared HTTP pipeline (its
 * credentials, `--verbose` log and error classes): initialize,
 * notifications/initialized, then tools/list or tools/call, with the answers
 * read either as JSON or as a server-sent event stream; and `relayMcpMessage`,
 * one message of `mcp proxy` passed on as it is.
 */

/** The MCP endpoint (interface, Public v1 endpoints). */
export const MCP_PATH = '/api/v2/ms-integrations/api/public/v1/mcp/protocol'

/** The protocol revision the client asks for; the server may answer another one it supports. */
export const MCP_PROTOCOL_VERSION = '2025-06-18'

const CLIENT_INFO = {name: 'mfg', version: '0.1.0'}

/** A JSON-RPC error answer, or a tool result marked `isError`. */
export class McpError extends ApiError {
  /** The JSON-RPC error code, when the server sent one. */
  readonly rpcCode?: number
  constructor(init: {method: string; serverMessage: string; rpcCode?: number; status?: number}) {
    super(
      {status: init.status, method: 'POST', path: MCP_PATH, serverMessage: `MCP ${init.method}: ${init.serverMessage}`},
      'mcp_error',
    )
    this.rpcCode = init.rpcCode
  }
}

export interface McpToolResult {
  /** `structuredContent` when the server sent it, else the first text content parsed as JSON, else the text. */
  value: unknown
  content: {type: string; text?: string}[]
}

interface RpcMessage {
  jsonrpc?: string
  id?: string | number | null
  method?: string
  result?: unknown
  error?: {code?: number; message?: string; data?: unknown}
}

interface Session {
  id?: string
  protocolVersion: string
}

/**
 * Calls one tool: opens a session (the endpoint is stateless, but a server that
 * hands out an `Mcp-Session-Id` gets it back on every later request and a
 * DELETE at the end), then `tools/call`.
 */
export async function callMcpTool(
  client: ApiClient,
  name: string,
  args: Record<string, unknown> = {},
  opts: {signal?: AbortSignal} = {},
): Promise<McpToolResult> {
  return withMcpSession(client, async (s) => toolResult(name, await s.call(name, args)), opts)
}

/** A tool as tools/list describes it. */
export interface McpTool {
  name: string
  title?: string
  description?: string
  inputSchema?: Record<string, unknown>
  outputSchema?: Record<string, unknown>
  annotations?: {
    title?: string
    readOnlyHint?: boolean
    destructiveHint?: boolean
    idempotentHint?: boolean
    openWorldHint?: boolean
  }
  [key: string]: unknown
}

/** A tools/call result as the server sent it (a tool error is a result with `isError`, not a throw). */
export interface McpCallResult {
  content: {type: string; text?: string; [key: string]: unknown}[]
  structuredContent?: unknown
  isError?: boolean
}

/** What can be done within one MCP session. */
export interface McpSession {
  /** Every tool, all pages of tools/list. */
  tools(): Promise<McpTool[]>
  /** tools/call, answered as the server sent it. */
  call(name: string, args: Record<string, unknown>): Promise<McpCallResult>
}

/**
 * Opens a session (the endpoint is stateless, but a server that hands out an
 * `Mcp-Session-Id` gets it back on every later request and a DELETE at the
 * end), runs `body`, and ends the session.
 */
export async function withMcpSession<T>(
  client: ApiClient,
  body: (session: McpSession) => Promise<T>,
  opts: {signal?: AbortSignal} = {},
): Promise<T> {
  const session = await initialize(client, opts.signal)
  let nextId = 2
  const api: McpSession = {
    async tools() {
      const all: McpTool[] = []
      let cursor: string | undefined
      for (let page = 0; page < 100; page++) {
        const result = (await rpc(
          client,
          session,
          'tools/list',
          cursor === undefined ? {} : {cursor},
          nextId++,
          opts.signal,
        )) as {tools?: unknown; nextCursor?: unknown} | undefined
        if (Array.isArray(result?.tools))
          all.push(...(result.tools.filter((t) => t !== null && typeof t === 'object') as McpTool[]))
        cursor = typeof result?.nextCursor === 'string' && result.nextCursor !== '' ? result.nextCursor : undefined
        if (cursor === undefined) break
      }
      return all
    },
    async call(name, args) {
      const result = (await rpc(client, session, 'tools/call', {name, arguments: args}, nextId++, opts.signal)) as
        Partial<McpCallResult> | undefined
      const content = Array.isArray(result?.content)
        ? (result.content.filter((c) => c !== null && typeof c === 'object') as McpCallResult['content'])
        : []
      return {
        content,
        ...(result?.structuredContent !== undefined ? {structuredContent: result.structuredContent} : {}),
        ...(result?.isError === true ? {isError: true} : {}),
      }
    },
  }
  try {
    return await body(api)
  } finally {
    if (session.id) await endSession(client, session)
  }
}

/** What `relayMcpMessage` learns from the initialize answer and sends on every later message. */
export interface RelayState {
  /** The revision the server chose at initialize, sent as `MCP-Protocol-Version`. */
  protocolVersion?: string
  /** A session id the server handed out, sent back as `Mcp-Session-Id`. */
  sessionId?: string
}

/**
 * Posts one JSON-RPC message as it is and answers the JSON-RPC messages of the
 * response (none for a notification or a response, which the server takes with
 * 202). The initialize answer's protocol version and session id are kept in `state`.
 */
export async function relayMcpMessage(
  client: ApiClient,
  message: Record<string, unknown>,
  state: RelayState,
  signal?: AbortSignal,
): Promise<unknown[]> {
  const response = await client.request({
    method: 'POST',
    path: MCP_PATH,
    headers: {
      accept: 'application/json, text/event-stream',
      ...(state.protocolVersion ? {'mcp-protocol-version': state.protocolVersion} : {}),
      ...(state.sessionId ? {'mcp-session-id': state.sessionId} : {}),
    },
    body: message,
    ...(signal ? {signal} : {}),
  })
  const body = response.body
  const messages = (
    typeof body === 'string' ? (body.trim() === '' ? [] : parseSse(body)) : Array.isArray(body) ? body : [body]
  ).filter((m) => m !== null && m !== undefined && typeof m === 'object')
  if (message.method === 'initialize') {
    const answer = messages.find((m) => (m as RpcMessage).id === message.id) as RpcMessage | undefined
    const version = (answer?.result as {protocolVersion?: unknown} | undefined)?.protocolVersion
    if (typeof version === 'string') state.protocolVersion = version
    const header = response.headers['mcp-session-id']
    const id = Array.isArray(header) ? header[0] : header
    if (id) state.sessionId = id
  }
  return messages
}

async function initialize(client: ApiClient, signal?: AbortSignal): Promise<Session> {
  const provisional: Session = {protocolVersion: MCP_PROTOCOL_VERSION}
  const {result, response} = await rpcWithResponse(
    client,
    provisional,
    'initialize',
    {protocolVersion: MCP_PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO},
    1,
    signal,
  )
  const header = response.headers['mcp-session-id']
  const id = Array.isArray(header) ? header[0] : header
  const version = (result as {protocolVersion?: unknown} | undefined)?.protocolVersion
  const session: Session = {
    ...(id ? {id} : {}),
    protocolVersion: typeof version === 'string' ? version : MCP_PROTOCOL_VERSION,
  }
  // A notification: the server answers 202 with no body.
  await client.request({
    method: 'POST',
    path: MCP_PATH,
    headers: headersFor(session),
    body: {jsonrpc: '2.0', method: 'notifications/initialized'},
    ...(signal ? {signal} : {}),
  })
  return session
}

async function rpc(
  client: ApiClient,
  session: Session,
  method: string,
  params: unknown,
  id: number,
  signal?: AbortSignal,
): Promise<unknown> {
  return (await rpcWithResponse(client, session, method, params, id, signal)).result
}

async function rpcWithResponse(
  client: ApiClient,
  session: Session,
  method: string,
  params: unknown,
  id: number,
  signal?: AbortSignal,
): Promise<{result: unknown; response: ApiResponse}> {
  const response = await client.request({
    method: 'POST',
    path: MCP_PATH,
    headers: headersFor(session),
    body: {jsonrpc: '2.0', id, method, params},
    ...(signal ? {signal} : {}),
  })
  const message = findResponse(response.body, id, method)
  if (message.error)
    throw new McpError({
      method,
      serverMessage: message.error.message ?? 'error without a message',
      ...(typeof message.error.code === 'number' ? {rpcCode: message.error.code} : {}),
      status: response.status,
    })
  return {result: message.result, response}
}

async function endSession(client: ApiClient, session: Session): Promise<void> {
  try {
    await client.request({method: 'DELETE', path: MCP_PATH, headers: headersFor(session)})
  } catch {
    // Ending a session is a courtesy: a server may refuse it (405) or have dropped it already.
  }
}

function headersFor(session: Session): Record<string, string> {
  return {
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': session.protocolVersion,
    ...(session.id ? {'mcp-session-id': session.id} : {}),
  }
}

/**
 * The JSON-RPC answer with this id in a response body: a JSON object, a JSON
 * batch, or (as text) a server-sent event stream whose `data:` lines carry
 * JSON-RPC messages; server requests and notifications before the answer are skipped.
 */
export function findResponse(body: unknown, id: number | string, method = 'request'): RpcMessage {
  const messages = typeof body === 'string' ? parseSse(body) : Array.isArray(body) ? body : [body]
  for (const m of messages) {
    if (m !== null && typeof m === 'object' && (m as RpcMessage).id === id) {
      const msg = m as RpcMessage
      if (msg.result !== undefined || msg.error !== undefined) return msg
    }
  }
  const shown = typeof body === 'string' ? body.trim().slice(0, 200) : JSON.stringify(body ?? null).slice(0, 200)
  throw new McpError({method, serverMessage: `no JSON-RPC answer with id ${id} in the response (${shown || 'empty'})`})
}

/** The JSON messages of a server-sent event stream (one per event, data lines joined). */
export function parseSse(text: string): unknown[] {
  const out: unknown[] = []
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n')
    if (data.trim() === '') continue
    try {
      out.push(JSON.parse(data))
    } catch {
      // Not JSON: not a JSON-RPC message, skip it.
    }
  }
  return out
}

function toolResult(name: string, result: unknown): McpToolResult {
  const r = (result ?? {}) as {content?: unknown; structuredContent?: unknown; isError?: unknown}
  const content = Array.isArray(r.content)
    ? (r.content.filter((c) => c !== null && typeof c === 'object') as {type: string; text?: string}[])
    : []
  const text = content.find((c) => c.type === 'text' && typeof c.text === 'string')?.text
  if (r.isError === true) throw new McpError({method: `tools/call ${name}`, serverMessage: toolErrorMessage(text)})
  if (r.structuredContent !== undefined) return {value: r.structuredContent, content}
  if (text === undefined) return {value: undefined, content}
  try {
    return {value: JSON.parse(text) as unknown, content}
  } catch {
    return {value: text, content}
  }
}

/** The message of a tool error: the `message` of a JSON error body, else the text. */
export function toolErrorMessage(text: string | undefined): string {
  if (text === undefined || text.trim() === '') return 'the tool failed without a message'
  try {
    const body = JSON.parse(text) as {message?: unknown; statusCode?: unknown}
    if (typeof body.message === 'string')
      return typeof body.statusCode === 'number' ? `${body.statusCode} ${body.message}` : body.message
  } catch {
    // Plain text.
  }
  return text
}
