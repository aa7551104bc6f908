import type {FastifyInstance, FastifyReply, FastifyRequest} from 'fastify'

import {SERVICES} from '../../schemas/common.js'
import type {SandboxContext} from '../app.js'
import {businessOf, v1Auth} from '../auth.js'
import {sendError} from '../errors.js'
import type {Machine, Material} from '../store/catalog.js'
import type {Store} from '../store/index.js'

/**
 * A minimal, stateless MCP responder (Streamable HTTP transport, JSON answers):
 * `initialize`, `ping`, `tools/list` and `tools/call` for `list_machines`, so the
 * CLI's `price machines` works against the sandbox the way it does against the
 * service. The full endpoint, with every tool of the interface, comes with
 * issue 6 (docs/decisions.md).
 */

export const MCP_ROUTE = '/api/v2/ms-integrations/api/public/v1/mcp/protocol'

/** Newest first: `initialize` answers the client's revision when it is one of these, else the newest. */
export const MCP_PROTOCOL_VERSIONS = ['2025-06-18', '2025-03-26', '2024-11-05'] as const

/** JSON-RPC 2.0 error codes. */
const RPC = {parse: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602} as const

/** The interface's tools that this responder does not implement yet. */
const LATER_TOOLS = [
  'list_quotes',
  'get_quote',
  'get_quote_file',
  'create_quotes',
  'update_quote',
  'estimate_price',
  'get_pricing_setup',
  'get_pattern_status',
  'measure_part',
]

const LIST_MACHINES_TOOL = {
  name: 'list_machines',
  title: 'List machines',
  description:
    "The business's machines (service, technology, hourly rate, startup cost, part minimum) and, on each, the materials with their prices, units, densities and colours.",
  inputSchema: {
    type: 'object',
    properties: {
      service: {type: 'string', enum: [...SERVICES], description: 'Only machines of this service.'},
      technology: {type: 'string', description: 'Only machines of this technology (FDM, SLA, SLS, CNC, LASER).'},
    },
    additionalProperties: false,
  },
  annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false},
}

interface RpcRequest {
  jsonrpc: '2.0'
  id?: string | number | null
  method: string
  params?: unknown
}

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message)
  }
}

/** The list_machines answer: every machine of the business with its materials nested. */
export function listMachines(
  store: Store,
  businessId: string,
  currency: string,
  filter: {service?: string; technology?: string} = {},
): {currency: string; machines: (Omit<Machine, 'business'> & {materials: Omit<Material, 'business' | 'machine'>[]})[]} {
  const same = (a: string, b: string | undefined) => b === undefined || a.toLowerCase() === b.trim().toLowerCase()
  const materials = store.catalog.materials(businessId)
  const machines = store.catalog
    .machines(businessId)
    .filter((m) => same(m.service, filter.service) && same(m.technology, filter.technology))
    .map(({business: _business, ...machine}) => ({
      ...machine,
      materials: materials
        .filter((mat) => mat.machine === machine._id)
        .map(({business: _b, machine: _m, ...mat}) => mat),
    }))
  return {currency, machines}
}

function isRequest(body: unknown): body is RpcRequest {
  const b = body as Partial<RpcRequest> | null
  return (
    b !== null &&
    typeof b === 'object' &&
    !Array.isArray(b) &&
    b.jsonrpc === '2.0' &&
    typeof b.method === 'string' &&
    (b.id === undefined || typeof b.id === 'string' || typeof b.id === 'number')
  )
}

function rpcError(reply: FastifyReply, status: number, id: RpcRequest['id'], code: number, message: string) {
  return reply
    .code(status)
    .type('application/json')
    .send({jsonrpc: '2.0', id: id ?? null, error: {code, message}})
}

/** Stateless MCP over Streamable HTTP: POST carries one JSON-RPC message; no GET stream, no sessions. */
export async function mcpRoutes(app: FastifyInstance, ctx: SandboxContext): Promise<void> {
  const {store} = ctx
  app.addHook('onRequest', v1Auth(store))

  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    sendError(reply, 405, 'This MCP endpoint is stateless: send JSON-RPC messages with POST.', undefined, {
      allow: 'POST',
    })
  app.get(MCP_ROUTE, notAllowed)
  app.delete(MCP_ROUTE, notAllowed)

  app.post(MCP_ROUTE, async (request, reply) => {
    const accept = String(request.headers.accept ?? '')
    if (!accept.includes('application/json') || !accept.includes('text/event-stream'))
      return rpcError(
        reply,
        406,
        null,
        RPC.invalidRequest,
        'Not Acceptable: the client must accept both application/json and text/event-stream.',
      )
    const version = request.headers['mcp-protocol-version']
    if (typeof version === 'string' && !(MCP_PROTOCOL_VERSIONS as readonly string[]).includes(version))
      return rpcError(
        reply,
        400,
        null,
        RPC.invalidRequest,
        `Unsupported MCP-Protocol-Version ${JSON.stringify(version)}; supported: ${MCP_PROTOCOL_VERSIONS.join(', ')}.`,
      )
    const body = request.body
    if (Array.isArray(body))
      return rpcError(reply, 400, null, RPC.invalidRequest, 'JSON-RPC batches are not supported; send one message.')
    if (!isRequest(body))
      return rpcError(reply, 400, null, RPC.invalidRequest, 'The body must be one JSON-RPC 2.0 message.')
    // Notifications (no id) and answers to server requests are acknowledged without a body.
    if (body.id === undefined) return reply.code(202).send()
    try {
      const result = answer(body, store, businessOf(request))
      return reply.type('application/json').send({jsonrpc: '2.0', id: body.id, result})
    } catch (error) {
      if (!(error instanceof RpcError)) throw error
      return rpcError(reply, 200, body.id, error.code, error.message)
    }
  })
}

function answer(req: RpcRequest, store: Store, business: {id: string; currency: string}): unknown {
  const params = (req.params ?? {}) as Record<string, unknown>
  switch (req.method) {
    case 'initialize': {
      const asked = params.protocolVersion
      const protocolVersion =
        typeof asked === 'string' && (MCP_PROTOCOL_VERSIONS as readonly string[]).includes(asked)
          ? asked
          : MCP_PROTOCOL_VERSIONS[0]
      return {
        protocolVersion,
        capabilities: {tools: {listChanged: false}},
        serverInfo: {name: 'mfg-sandbox', version: '0.1.0'},
        instructions: 'The sandbox implements list_machines only; the other tools come later.',
      }
    }
    case 'ping':
      return {}
    case 'tools/list':
      return {tools: [LIST_MACHINES_TOOL]}
    case 'tools/call':
      return callTool(params, store, business)
    default:
      throw new RpcError(RPC.methodNotFound, `Method not found: ${req.method}.`)
  }
}

function callTool(params: Record<string, unknown>, store: Store, business: {id: string; currency: string}): unknown {
  const name = params.name
  if (typeof name !== 'string') throw new RpcError(RPC.invalidParams, 'tools/call needs params.name.')
  if (LATER_TOOLS.includes(name))
    throw new RpcError(RPC.invalidParams, `The sandbox does not implement the tool ${name} yet.`)
  if (name !== 'list_machines') throw new RpcError(RPC.invalidParams, `Unknown tool: ${name}.`)
  const args = (params.arguments ?? {}) as Record<string, unknown>
  const problems: string[] = []
  for (const [key, value] of Object.entries(args)) {
    if (key !== 'service' && key !== 'technology') problems.push(`unknown argument ${key}`)
    else if (typeof value !== 'string') problems.push(`${key} must be a string`)
    else if (key === 'service' && !(SERVICES as readonly string[]).includes(value))
      problems.push(`service must be one of ${SERVICES.join(', ')}`)
  }
  // Argument errors are tool errors, so the model (or the user) sees them and can retry.
  if (problems.length > 0)
    return {content: [{type: 'text', text: `Invalid arguments: ${problems.join('; ')}.`}], isError: true}
  const data = listMachines(store, business.id, business.currency, args as {service?: string; technology?: string})
  return {content: [{type: 'text', text: JSON.stringify(data)}], structuredContent: data}
}
