import type {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type {Transport} from '@modelcontextprotocol/sdk/shared/transport.js'
import type {JSONRPCMessage, RequestId} from '@modelcontextprotocol/sdk/types.js'

import {ApiError} from '../../api/errors.js'
import {mcpTransport} from '../../api/mcp.js'
import type {AnswerEnd} from '../../api/mcp-fetch.js'
import type {ServiceContext} from '../context.js'

/**
 * `mcp proxy`: relays every JSON-RPC message between a local transport (the
 * SDK's stdio server transport) and the SDK's Streamable HTTP client transport
 * toward the service, as they are. The client's initialize is passed on as it
 * is, so client and service agree the protocol version themselves; the
 * transport is told the version chosen, and keeps the session id. Later
 * messages wait for the initialize answer, so they carry both. When the service
 * drops the session, a new one is opened with the client's initialize. A
 * request whose upstream call fails, or that the service leaves unanswered, is
 * answered with a JSON-RPC error, never left waiting.
 */

/** JSON-RPC: an error of the relay itself (the upstream call failed). */
export const UPSTREAM_ERROR = -32000

/**
 * How long an answer may lag behind the end of its HTTP exchange (a JSON body read,
 * or an event stream ended): the transport reads it moments later; only a server
 * that sent none waits this long.
 */
const ANSWER_GRACE_MS = 1_000

type Message = JSONRPCMessage & {id?: RequestId; method?: string; result?: unknown}

const isRequest = (m: Message) => typeof m.method === 'string' && m.id !== undefined && m.id !== null
const isAnswer = (m: Message) => m.method === undefined && m.id !== undefined && ('result' in m || 'error' in m)

/** Runs until the local transport closes (stdin ended) and every relayed request has been answered. */
export async function runProxy(
  ctx: Pick<ServiceContext, 'client'>,
  local: Transport,
  log: (line: string) => void,
): Promise<void> {
  /** Requests sent upstream and not answered yet: their ids, and what to call when the answer comes. */
  const waiting = new Map<RequestId, () => void>()
  /** Requests relayed whose answer (a JSON body or an event stream) has not ended yet: told when it does, or breaks off. */
  const ends = new Map<RequestId, (error?: Error) => void>()
  const pending = new Set<Promise<void>>()
  let initialized: Promise<void> = Promise.resolve()
  let initializeId: RequestId | undefined

  const send = (m: unknown) =>
    local.send(m as JSONRPCMessage).catch((e: Error) => log(`mcp proxy: cannot write: ${e.message}`))
  const refuse = (id: RequestId, message: string) => send({jsonrpc: '2.0', id, error: {code: UPSTREAM_ERROR, message}})

  const remote = await upstream(
    ctx,
    log,
    (id, error) => ends.get(id)?.(error),
    (m, transport) => {
      if (isAnswer(m)) {
        const answered = waiting.get(m.id as RequestId)
        // Already answered with our own error: a late answer would be a second one.
        if (!answered) return
        waiting.delete(m.id as RequestId)
        const version = (m.result as {protocolVersion?: unknown} | undefined)?.protocolVersion
        if (m.id === initializeId && typeof version === 'string') transport.setProtocolVersion(version)
        answered()
      }
      void send(m)
    },
  )

  const relay = async (m: Message): Promise<void> => {
    // A proxy runs for hours: each relayed message has the time budget of a command of its own.
    ctx.client.budget.renew()
    const request = isRequest(m)
    const id = m.id as RequestId
    const answered = request ? new Promise<boolean>((done) => waiting.set(id, () => done(true))) : undefined
    const ended = request ? new Promise<Error | undefined>((done) => ends.set(id, done)) : undefined
    try {
      await remote.send(m)
      if (answered) {
        // An answer in an event stream comes while the stream lasts (progress before it).
        const broke = await Promise.race([answered.then(() => undefined), ended!])
        if (!(await within(answered, ANSWER_GRACE_MS)) && waiting.delete(id))
          await refuse(id, broke ? `MCP endpoint: ${broke.message}` : `The MCP endpoint sent no answer to ${m.method}.`)
      }
    } catch (error) {
      const text = (error as Error).message
      log(`mcp proxy: ${m.method ?? 'message'} failed: ${text}`)
      if (request && waiting.delete(id)) await refuse(id, `MCP endpoint: ${text}`)
    } finally {
      if (request) ends.delete(id)
    }
  }

  await new Promise<void>((resolve) => {
    local.onmessage = (message) => {
      const m = message as Message
      let p: Promise<void>
      if (m.method === 'initialize' && isRequest(m)) {
        initializeId = m.id
        remote.initializeWith(m)
        p = initialized = relay(m)
      } else {
        const after = initialized
        p = after.then(() => relay(m))
      }
      pending.add(p)
      void p.finally(() => pending.delete(p))
    }
    local.onerror = (error) => {
      const refused = unreadable(error)
      if (!refused) return log(`mcp proxy: ${error.message}`)
      log(`mcp proxy: ${refused.log}`)
      // Which request it was cannot be told: JSON-RPC answers such a line with the id null.
      void send({jsonrpc: '2.0', id: null, error: {code: refused.code, message: refused.message}})
    }
    local.onclose = () => {
      void Promise.allSettled([...pending]).then(() => resolve())
    }
    void local.start()
  })
  await remote.close()
}

/** The service's side of the proxy: the transport of the current session, renewed when the service drops it. */
interface Upstream {
  /** Sends a message in the current session; in a new one when the service no longer knows it. */
  send(m: Message): Promise<void>
  /** The client's initialize, sent again to open a new session. */
  initializeWith(m: Message): void
  /** Ends the session (a courtesy) and the transport. */
  close(): Promise<void>
}

/**
 * A Streamable HTTP client transport toward the service, `onMessage` told of
 * every message it brings but the answers to its own requests. A request carrying a session id that the service
 * answers with 404 no longer has a session (it expired, or the service
 * restarted): as the transport's specification asks, a new session is opened
 * (the client's initialize sent again, then notifications/initialized) and
 * the request sent once more in it.
 */
async function upstream(
  ctx: Pick<ServiceContext, 'client'>,
  log: (line: string) => void,
  onAnswerEnd: AnswerEnd,
  onMessage: (m: Message, transport: StreamableHTTPClientTransport) => void,
): Promise<Upstream> {
  /** Answers to the proxy's own requests (a renewed session's initialize), kept from the client. */
  const own = new Map<RequestId, (m: Message) => void>()
  let initialize: Message | undefined
  let renewals = 0
  let renewing: Promise<void> | undefined

  const open = async () => {
    const transport = await mcpTransport(ctx.client, undefined, onAnswerEnd)
    transport.onmessage = (message) => {
      const m = message as Message
      const mine = isAnswer(m) ? own.get(m.id as RequestId) : undefined
      if (mine) mine(m)
      else onMessage(m, transport)
    }
    // The pipeline's errors come back through the failed send, logged there; the
    // rest (a message in an event stream that is not JSON-RPC) only through here.
    transport.onerror = (error) => {
      if (!(error instanceof ApiError)) log(`mcp proxy: ${error.message}`)
    }
    await transport.start()
    return transport
  }
  let current = await open()

  /** A new session in a new transport, opened as the client opened the first. */
  const renew = async () => {
    if (!initialize) throw new Error('no initialize to open a new session with')
    const fresh = await open()
    const id = `mfg-proxy-initialize-${++renewals}`
    let answer: Message | undefined
    const answered = new Promise<boolean>((done) =>
      own.set(id, (m) => {
        answer = m
        done(true)
      }),
    )
    try {
      await fresh.send({...initialize, id} as JSONRPCMessage)
      if (!(await within(answered, ANSWER_GRACE_MS))) throw new Error('the MCP endpoint sent no answer to initialize')
    } finally {
      own.delete(id)
    }
    const refused = (answer as {error?: {message?: unknown}}).error
    if (refused) throw new Error(`the MCP endpoint refused a new session: ${String(refused.message)}`)
    const version = (answer?.result as {protocolVersion?: unknown} | undefined)?.protocolVersion
    if (typeof version === 'string') fresh.setProtocolVersion(version)
    await fresh.send({jsonrpc: '2.0', method: 'notifications/initialized'})
    const dropped = current
    current = fresh
    await dropped.close()
  }

  return {
    initializeWith(m) {
      initialize = m
    },
    async send(m) {
      await renewing?.catch(() => undefined)
      const used = current
      try {
        await used.send(m)
      } catch (error) {
        const gone = error instanceof ApiError && error.status === 404 && used.sessionId !== undefined
        if (!gone || m.method === 'initialize') throw error
        // Several requests may learn it at once: one new session for them all.
        if (current === used) {
          log('mcp proxy: the MCP endpoint no longer knows the session (404); opening a new one.')
          renewing ??= renew().finally(() => (renewing = undefined))
        }
        await renewing
        await current.send(m)
      }
    },
    async close() {
      // Ending a session is a courtesy: a server may refuse it (405) or have dropped it already.
      await current.terminateSession().catch(() => undefined)
      await current.close()
    },
  }
}

/** JSON-RPC: the line is not JSON; it is JSON but no JSON-RPC message. */
export const PARSE_ERROR = -32700
export const INVALID_REQUEST = -32600

/**
 * The JSON-RPC error for a line on stdin the local transport could not read
 * (it says so with a SyntaxError, or a ZodError from its message schema), with
 * one line for the log; undefined for any other error.
 */
function unreadable(error: Error): {code: number; message: string; log: string} | undefined {
  if (error.name === 'SyntaxError')
    return {
      code: PARSE_ERROR,
      message: 'Parse error: the line is not JSON.',
      log: `a line on stdin is not JSON (${error.message}).`,
    }
  if (error.name === 'ZodError')
    return {
      code: INVALID_REQUEST,
      message: 'Invalid Request: not a JSON-RPC 2.0 message (one object with "jsonrpc": "2.0"; batches are not taken).',
      log: 'a line on stdin is not a JSON-RPC 2.0 message (one object with "jsonrpc": "2.0"; batches are not taken).',
    }
  return undefined
}

/** Whether `promise` settles with true within `ms`. */
async function within(promise: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<boolean>((done) => {
    timer = setTimeout(() => done(false), ms)
  })
  try {
    return await Promise.race([promise, late])
  } finally {
    clearTimeout(timer)
  }
}
