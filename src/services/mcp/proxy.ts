import {relayMcpMessage, type RelayState} from '../../api/mcp.js'
import type {ServiceContext} from '../context.js'

/**
 * `mcp proxy`: relays every JSON-RPC message from a local transport (stdio) to
 * the service's MCP endpoint and every answer back. The initialize request is
 * passed on as it is, so the client and the service agree the protocol version
 * themselves; later messages carry it. A request whose upstream call fails is
 * answered with a JSON-RPC error, never left waiting.
 */

/** The part of an MCP transport the relay uses (the SDK's StdioServerTransport fits). */
export interface LocalTransport {
  start(): Promise<void>
  send(message: never): Promise<void>
  close(): Promise<void>
  onmessage?: (message: never) => void
  onclose?: () => void
  onerror?: (error: Error) => void
}

/** JSON-RPC: an error of the relay itself (the upstream call failed). */
export const UPSTREAM_ERROR = -32000

type Message = Record<string, unknown> & {id?: string | number | null; method?: string}

const isRequest = (m: Message) => typeof m.method === 'string' && m.id !== undefined && m.id !== null

/** Runs until the local transport closes (stdin ended) and every relayed call has been answered. */
export async function runProxy(
  ctx: Pick<ServiceContext, 'client'>,
  transport: LocalTransport,
  log: (line: string) => void,
): Promise<void> {
  const state: RelayState = {}
  const pending = new Set<Promise<void>>()
  const send = (m: unknown) =>
    transport.send(m as never).catch((e: Error) => log(`mcp proxy: cannot write: ${e.message}`))

  const relay = async (message: Message): Promise<void> => {
    try {
      const answers = await relayMcpMessage(ctx.client, message, state)
      for (const a of answers) await send(a)
      if (isRequest(message) && !answers.some((a) => (a as Message).id === message.id))
        await send({
          jsonrpc: '2.0',
          id: message.id,
          error: {code: UPSTREAM_ERROR, message: `The MCP endpoint sent no answer to ${message.method}.`},
        })
    } catch (error) {
      const text = (error as Error).message
      log(`mcp proxy: ${message.method ?? 'message'} failed: ${text}`)
      if (isRequest(message))
        await send({jsonrpc: '2.0', id: message.id, error: {code: UPSTREAM_ERROR, message: `MCP endpoint: ${text}`}})
    }
  }

  await new Promise<void>((resolve) => {
    transport.onmessage = (message: never) => {
      const p: Promise<void> = relay(message as Message).finally(() => pending.delete(p))
      pending.add(p)
    }
    transport.onerror = (error) => log(`mcp proxy: ${error.message}`)
    transport.onclose = () => {
      void Promise.allSettled([...pending]).then(() => resolve())
    }
    void transport.start()
  })
}
