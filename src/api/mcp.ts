import type {Client} from '@modelcontextprotocol/sdk/client/index.js'
import type {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import * as z from 'zod'

import type {ErrorDetail} from '../schemas/common.js'
import {readErrorBody} from './error-body.js'
import {ApiError} from './errors.js'
import type {ApiClient} from './http.js'
import {pipelineFetch, type AnswerEnd} from './mcp-fetch.js'

/**
 * The service's MCP endpoint through the MCP SDK's `Client` and Streamable
 * HTTP transport, whose requests go through the shared pipeline
 * (./mcp-fetch.ts). The SDK keeps the protocol: initialisation, the protocol
 * version, the session id, request ids, JSON and event-stream answers. Kept
 * here: reading tools/list and tools/call answers tolerantly, ending the
 * session, and turning failures into our error classes. The SDK is loaded on
 * first use, so only commands that speak MCP pay for it.
 */

/** The MCP endpoint (interface, Public v1 endpoints). */
export const MCP_PATH = '/api/v2/ms-integrations/api/public/v1/mcp/protocol'

const CLIENT_INFO = {name: 'mfg', version: '0.1.0'}

/** A JSON-RPC error answer, a tool result marked `isError`, or an answer that cannot be used. */
export class McpError extends ApiError {
  /** The JSON-RPC error code, when the server sent one. */
  readonly rpcCode?: number
  constructor(init: {
    method: string
    serverMessage: string
    rpcCode?: number
    status?: number
    cause?: unknown
    details?: ErrorDetail[]
    body?: unknown
  }) {
    super(
      {
        status: init.status,
        method: 'POST',
        path: MCP_PATH,
        serverMessage: `MCP ${init.method}: ${init.serverMessage}`,
        ...(init.cause !== undefined ? {cause: init.cause} : {}),
        ...(init.details !== undefined ? {details: init.details} : {}),
        ...(init.body !== undefined ? {body: init.body} : {}),
      },
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

/** A tool as tools/list describes it, with every field the server sent. */
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
 * Any object: the SDK's own result schemas drop fields they do not know and
 * refuse content types they do not know, and `mcp tools --json` shows the list
 * as the endpoint sent it. The fields used are read below, leniently.
 */
const AnyResult = z.looseObject({})

/**
 * Tool output is read tolerantly, never held to the tool's outputSchema; so
 * the SDK's default validator (an Ajv instance with its formats, about 5 ms to
 * set up) is not built for nothing.
 */
const ACCEPT_ANY_OUTPUT = {
  getValidator: () => (input: unknown) => ({valid: true as const, data: input as never, errorMessage: undefined}),
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/**
 * The SDK's transport toward the endpoint, every request through the client's
 * pipeline; `signal` ends the session's requests early. With `onAnswerEnd`,
 * answers in event streams are handed over as they arrive (pipelineFetch). Not started.
 */
export async function mcpTransport(
  client: ApiClient,
  signal?: AbortSignal,
  onAnswerEnd?: AnswerEnd,
): Promise<StreamableHTTPClientTransport> {
  const {StreamableHTTPClientTransport} = await import('@modelcontextprotocol/sdk/client/streamableHttp.js')
  return new StreamableHTTPClientTransport(new URL(client.baseUrl + MCP_PATH), {
    fetch: pipelineFetch(client, signal, onAnswerEnd),
  })
}

/**
 * Opens a session (initialize, then notifications/initialized), runs `body`,
 * and ends the session: a DELETE when the server handed out an
 * `Mcp-Session-Id`, refused or not. When the server answers a request that
 * carries the session id with 404, it no longer knows the session (it expired,
 * the server restarted, or a balancer sent the request to another instance):
 * as the Streamable HTTP transport's specification asks, a new session is
 * opened and the request sent again in it, once. The server did not take the
 * request, so this holds for a tool that changes data too.
 */
export async function withMcpSession<T>(
  client: ApiClient,
  body: (session: McpSession) => Promise<T>,
  opts: {signal?: AbortSignal} = {},
): Promise<T> {
  const {Client: SdkClient} = await import('@modelcontextprotocol/sdk/client/index.js')
  // The signal also ends a wait for an answer after the HTTP exchange is over.
  const options = opts.signal ? {signal: opts.signal} : {}
  const open = async (): Promise<Connection> => {
    const transport = await mcpTransport(client, opts.signal)
    const sdk = new SdkClient(CLIENT_INFO, {jsonSchemaValidator: ACCEPT_ANY_OUTPUT})
    try {
      await sdk.connect(transport, options)
    } catch (error) {
      // notifications/initialized may fail after the server opened the session.
      await transport.terminateSession().catch(() => undefined)
      await sdk.close()
      throw await ourError('initialize', error)
    }
    return {sdk, transport}
  }
  let current = await open()
  const renew = async (dropped: Connection): Promise<Connection> => {
    // Several requests may learn it at once: one new session for them all.
    if (current === dropped) {
      current = await open()
      // The server has forgotten the session: no DELETE for it.
      await dropped.sdk.close()
    }
    return current
  }
  try {
    return await body(sessionOf(() => current, renew, options))
  } finally {
    // Ending a session is a courtesy: a server may refuse it (405) or have dropped it already.
    await current.transport.terminateSession().catch(() => undefined)
    await current.sdk.close()
  }
}

/** A connected SDK client and its transport: one MCP session. */
interface Connection {
  sdk: Client
  transport: StreamableHTTPClientTransport
}

/** Whether a failed request says the server no longer knows the session it carried. */
const sessionGone = (error: unknown, sent: Connection): boolean =>
  error instanceof ApiError && error.status === 404 && sent.transport.sessionId !== undefined

function sessionOf(
  connection: () => Connection,
  renew: (dropped: Connection) => Promise<Connection>,
  options: {signal?: AbortSignal},
): McpSession {
  const request = async (method: string, params: Record<string, unknown>, label = method) => {
    const used = connection()
    try {
      return await used.sdk.request({method, params}, AnyResult, options)
    } catch (error) {
      if (!sessionGone(error, used)) throw await ourError(label, error)
    }
    const fresh = await renew(used)
    try {
      return await fresh.sdk.request({method, params}, AnyResult, options)
    } catch (error) {
      throw await ourError(label, error)
    }
  }
  return {
    async tools() {
      const all: McpTool[] = []
      let cursor: string | undefined
      for (let page = 0; page < 100; page++) {
        const result = await request('tools/list', cursor === undefined ? {} : {cursor})
        if (Array.isArray(result.tools)) all.push(...(result.tools.filter(isRecord) as McpTool[]))
        cursor = typeof result.nextCursor === 'string' && result.nextCursor !== '' ? result.nextCursor : undefined
        if (cursor === undefined) break
      }
      return all
    },
    async call(name, args) {
      const result = await request('tools/call', {name, arguments: args}, `tools/call ${name}`)
      const content = Array.isArray(result.content) ? (result.content.filter(isRecord) as McpCallResult['content']) : []
      return {
        content,
        ...(result.structuredContent !== undefined ? {structuredContent: result.structuredContent} : {}),
        ...(result.isError === true ? {isError: true} : {}),
      }
    },
  }
}

/**
 * Our error for a failed MCP request: the pipeline's errors as they are (they
 * carry the status, and exit codes follow from them); a JSON-RPC error, an
 * unusable answer or the SDK's own time-out as an McpError.
 */
async function ourError(method: string, error: unknown): Promise<ApiError> {
  if (error instanceof ApiError) return error
  const {McpError: SdkMcpError} = await import('@modelcontextprotocol/sdk/types.js')
  if (error instanceof SdkMcpError) {
    const message = error.message.replace(/^MCP error -?\d+: /, '')
    return new McpError({method, serverMessage: message, rpcCode: error.code, cause: error})
  }
  if (error instanceof z.ZodError)
    return new McpError({method, serverMessage: 'the answer is not a JSON-RPC result object', cause: error})
  return new McpError({method, serverMessage: error instanceof Error ? error.message : String(error), cause: error})
}

/** Calls one tool in a session of its own; a tool error becomes an McpError. */
export async function callMcpTool(
  client: ApiClient,
  name: string,
  args: Record<string, unknown> = {},
  opts: {signal?: AbortSignal} = {},
): Promise<McpToolResult> {
  return withMcpSession(
    client,
    async (s) => {
      const result = await s.call(name, args)
      if (result.isError) throw toolError(name, result)
      return {value: resultValue(result), content: result.content}
    },
    opts,
  )
}

/** The value of a result: structured content, else the first text parsed as JSON, else the text. */
export function resultValue(result: McpCallResult): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent
  const text = firstText(result)
  if (text === undefined) return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

/**
 * The McpError for a result marked `isError`: the message, the per-field
 * `details` and the whole answer (for --debug) of a JSON error body.
 */
export function toolError(name: string, result: McpCallResult): McpError {
  return new McpError({method: `tools/call ${name}`, ...toolErrorReading(firstText(result))})
}

const firstText = (result: McpCallResult) =>
  result.content.find((c) => c.type === 'text' && typeof c.text === 'string')?.text

/** What a tool error says: the `message` (after its `statusCode`) and `details` of a JSON error body, else the text. */
function toolErrorReading(text: string | undefined): {serverMessage: string; details?: ErrorDetail[]; body?: unknown} {
  if (text === undefined || text.trim() === '') return {serverMessage: 'the tool failed without a message'}
  let body: unknown
  try {
    body = JSON.parse(text) as unknown
  } catch {
    return {serverMessage: text}
  }
  if (!isRecord(body)) return {serverMessage: text, body}
  const status = typeof body.statusCode === 'number' ? body.statusCode : undefined
  const {message, details} = readErrorBody(body, status ?? 0)
  // A body without words of its own (the reading's `HTTP <status>` fallback) is said as it came.
  const said = message.startsWith(`HTTP ${status ?? 0}`) ? text : message
  return {
    serverMessage: status === undefined ? said : `${status} ${said}`,
    ...(details ? {details} : {}),
    body,
  }
}
