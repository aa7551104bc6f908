import {Readable} from 'node:stream'

import type {FetchLike} from '@modelcontextprotocol/sdk/shared/transport.js'
import type {RequestId} from '@modelcontextprotocol/sdk/types.js'

import {receive} from './decode.js'
import {ApiError} from './errors.js'
import type {ApiClient, HttpMethod} from './http.js'

/** JSON-RPC methods that change nothing on the server: sent again after a failure like a GET. */
const SAFE_METHODS = new Set(['initialize', 'notifications/initialized', 'ping', 'tools/list'])

/**
 * The interface's tools that only read (interface, MCP tools: all but create_quotes
 * and update_quote, which change quotes and may email the customer): a call of one
 * is sent again after a failure like a GET. Any other tool's call is sent once.
 */
const READ_ONLY_TOOLS = new Set([
  'list_quotes',
  'get_quote',
  'get_quote_file',
  'estimate_price',
  'list_machines',
  'get_pricing_setup',
  'get_pattern_status',
  'measure_part',
])

/** The method of a JSON-RPC message, its id, and for tools/call the tool (a batch or anything unreadable gives ''). */
function rpcMethod(body: string): {method: string; tool?: string; id?: RequestId} {
  try {
    const message = JSON.parse(body) as {method?: unknown; id?: unknown; params?: {name?: unknown}}
    if (typeof message.method !== 'string') return {method: ''}
    const tool = message.params?.name
    const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : undefined
    return {method: message.method, ...(typeof tool === 'string' ? {tool} : {}), ...(id === undefined ? {} : {id})}
  } catch {
    return {method: ''}
  }
}

/**
 * Told when the answer to a JSON-RPC request has been read to its end (`error` when it
 * broke off): an answer in an event stream is handed to the transport as it arrives, so
 * the exchange is over only then.
 */
export type AnswerEnd = (id: RequestId, error?: Error) => void

/** Whether a JSON-RPC request may be sent again after a failure: it changes nothing on the server. */
function retrySafe(rpc: {method: string; tool?: string}): boolean {
  return SAFE_METHODS.has(rpc.method) || (rpc.method === 'tools/call' && READ_ONLY_TOOLS.has(rpc.tool ?? ''))
}

/**
 * The `fetch` given to the MCP SDK's Streamable HTTP transport: every request
 * goes through the client's pipeline, so MCP calls get the same credentials
 * (the v1 key), time-out, retries, error classes and `--verbose` log as any
 * other request, and a failure reaches the caller as one of our errors (the
 * transport rethrows what its fetch throws). `signal` ends every request of
 * the session early (doctor's time limit).
 *
 * The pipeline hands back whole bodies, so an event stream answering a POST
 * arrives complete and the SDK reads it as usual; with `onAnswerEnd` (the proxy),
 * an event stream is handed over as it arrives instead, so that progress
 * notifications go on at once and an answer that keeps coming is not cut off by
 * the time-out (which then bounds each silence), and `onAnswerEnd` is told when it
 * ends. The standing stream that
 * the transport opens with a GET after initialisation would never complete
 * that way; it is answered here with 405, the answer the transport takes for
 * "this server has no such stream" (as the sandbox's own endpoint says), and
 * nothing is sent. Every message mfg needs comes back on its POST.
 */
export function pipelineFetch(client: ApiClient, signal?: AbortSignal, onAnswerEnd?: AnswerEnd): FetchLike {
  const base = new URL(client.baseUrl)
  const basePath = base.pathname.replace(/\/$/, '')
  return async (input, init = {}) => {
    const url = new URL(String(input))
    const method = (init.method ?? 'GET').toUpperCase() as HttpMethod
    if (url.origin !== base.origin || !url.pathname.startsWith(`${basePath}/`))
      throw new Error(`the MCP transport asked for ${url.origin}${url.pathname}, outside the profile's base URL`)
    if (method === 'GET') return new Response(null, {status: 405, statusText: 'Method Not Allowed'})
    if (init.body != null && typeof init.body !== 'string')
      throw new Error('the MCP transport sent a body that is not text; the pipeline takes JSON-RPC as text only')
    const headers: Record<string, string> = {}
    new Headers(init.headers).forEach((value, name) => (headers[name] = value))
    const signals = [init.signal, signal].filter((s): s is AbortSignal => s != null)
    const path = url.pathname.slice(basePath.length) + url.search
    const rpc = typeof init.body === 'string' ? rpcMethod(init.body) : {method: ''}
    const req = {
      method,
      path,
      headers,
      // Errors name the JSON-RPC call, as McpError does: "MCP tools/call: ...".
      ...(rpc.method === '' ? {} : {operation: `MCP ${rpc.method}`}),
      ...(init.body != null ? {body: init.body} : {}),
      ...(retrySafe(rpc) ? {retry: 'safe' as const} : {}),
      ...(signals.length > 0 ? {signal: signals.length === 1 ? signals[0] : AbortSignal.any(signals)} : {}),
    }
    const res = onAnswerEnd ? await client.open(req) : await client.request<string>({...req, responseType: 'text'})
    // A request taken with 202 will never be answered: said at once, rather
    // than after the SDK's 60 s wait for the answer.
    if (res.status === 202 && rpc.id !== undefined) {
      if (typeof res.body !== 'string') res.body.destroy()
      throw new ApiError({
        status: 202,
        method,
        path,
        code: 'bad_response',
        serverMessage: `the MCP endpoint accepted ${rpc.method} without answering it`,
      })
    }
    const answer = new Headers()
    for (const [name, value] of Object.entries(res.headers))
      for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) answer.append(name, one)
    // A decoded body no longer has the coding it came with.
    answer.delete('content-encoding')
    answer.delete('content-length')
    if (typeof res.body !== 'string' && /text\/event-stream/i.test(answer.get('content-type') ?? '')) {
      const stream = res.body
      if (rpc.id !== undefined) {
        const id = rpc.id
        stream.once('end', () => onAnswerEnd?.(id))
        stream.once('error', (error: NodeJS.ErrnoException) =>
          onAnswerEnd?.(
            id,
            new Error(
              error.code === 'ETIMEDOUT'
                ? 'the answer stopped coming: nothing came for longer than the time-out (--timeout)'
                : `the answer broke off (${error.code ?? error.message})`,
            ),
          ),
        )
      }
      return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, {status: res.status, headers: answer})
    }
    // open() has undone the content coding already.
    const body = typeof res.body === 'string' ? res.body : (await receive(res.body, {})).toString('utf8')
    if (rpc.id !== undefined) onAnswerEnd?.(rpc.id)
    // A whole event stream without the answer: said at once, as a 202 is, rather
    // than after the SDK's 60 s wait for an answer that can no longer come.
    if (
      rpc.id !== undefined &&
      res.status >= 200 &&
      res.status < 300 &&
      /text\/event-stream/i.test(answer.get('content-type') ?? '') &&
      !streamAnswers(body, rpc.id)
    ) {
      throw new ApiError({
        status: res.status,
        method,
        path,
        code: 'bad_response',
        operation: `MCP ${rpc.method}`,
        serverMessage: `the MCP endpoint ended its event stream without answering ${rpc.method}`,
      })
    }
    if (res.status >= 200 && res.status < 300 && mislabelledJson(answer.get('content-type'), body)) {
      // Read leniently: a JSON answer under another label (text/html, text/plain, none) is JSON.
      answer.set('content-type', 'application/json')
    }
    return new Response(body === '' ? null : body, {status: res.status, headers: answer})
  }
}

/** Whether an answer the transport would refuse for its label is JSON all the same. */
function mislabelledJson(type: string | null, body: string): boolean {
  if (type !== null && /json|text\/event-stream/i.test(type)) return false
  const text = body.trim()
  if (!text.startsWith('{') && !text.startsWith('[')) return false
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/** Whether a whole event stream carries the answer (a result or an error) to the request `id`. */
function streamAnswers(body: string, id: RequestId): boolean {
  for (const event of body.replace(/\r\n?/g, '\n').split(/\n\n/)) {
    const data = event
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n')
    if (data === '') continue
    try {
      const messages: unknown = JSON.parse(data)
      for (const m of Array.isArray(messages) ? messages : [messages]) {
        if (m === null || typeof m !== 'object') continue
        const message = m as {id?: unknown; method?: unknown}
        if (message.id === id && message.method === undefined && ('result' in message || 'error' in message))
          return true
      }
    } catch {
      // Not JSON: the transport says so itself.
    }
  }
  return false
}
