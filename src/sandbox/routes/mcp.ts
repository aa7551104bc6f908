import type {FastifyInstance, FastifyReply, FastifyRequest} from 'fastify'

import type {SandboxContext} from '../context.js'
import {businessOf, v1Auth} from '../auth.js'
import {ApiError, sendError} from '../errors.js'

/**
 * The MCP endpoint: MCP over the Streamable HTTP transport with the MCP SDK,
 * stateless (a server and a transport per POST, no sessions, no GET stream),
 * the v1 Bearer key. The tools are in ../mcp/; they call the same store,
 * engines and events as the HTTP routes. The SDK is loaded on first use.
 */

export const MCP_ROUTE = '/api/v2/ms-integrations/api/public/v1/mcp/protocol'

export {listMachines} from '../mcp/pricing.js'

/** The file host of this sandbox: an explicit one, else the origin the request reached. */
const fileHostOf = (ctx: SandboxContext, request: FastifyRequest) =>
  ctx.fileHost ?? `${request.protocol}://${request.host}`

export async function mcpRoutes(app: FastifyInstance, ctx: SandboxContext): Promise<void> {
  const auth = v1Auth(ctx.store)
  // A refused key also says which scheme to use (RFC 6750), as MCP clients expect.
  app.addHook('onRequest', async (request) => {
    try {
      await auth(request)
    } catch (error) {
      if (error instanceof ApiError && error.statusCode === 401)
        throw new ApiError(401, error.message, undefined, {
          'www-authenticate': 'Bearer realm="mfg", error="invalid_token"',
        })
      throw error
    }
  })

  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    sendError(reply, 405, 'This MCP endpoint is stateless: send JSON-RPC messages with POST.', undefined, {
      allow: 'POST',
    })
  app.get(MCP_ROUTE, notAllowed)
  app.delete(MCP_ROUTE, notAllowed)

  app.post(MCP_ROUTE, async (request, reply) => {
    const [{StreamableHTTPServerTransport}, {createMcpServer}, refused] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
      import('../mcp/server.js'),
      invalidParams(request.body),
    ])
    if (refused) return reply.code(refused.status).send(refused.answer)
    const server = createMcpServer({ctx, business: businessOf(request), fileHost: fileHostOf(ctx, request)})
    const transport = new StreamableHTTPServerTransport({sessionIdGenerator: undefined, enableJsonResponse: true})
    reply.hijack()
    reply.raw.on('close', () => {
      void transport.close()
      void server.close()
    })
    try {
      await server.connect(transport)
      await transport.handleRequest(request.raw, reply.raw, request.body)
    } catch (error) {
      request.log.error({err: error}, 'MCP request failed')
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, {'content-type': 'application/json'})
        reply.raw.end(
          JSON.stringify({jsonrpc: '2.0', id: null, error: {code: -32603, message: 'The sandbox failed to answer.'}}),
        )
      }
    }
  })
}

interface ParamsSchema {
  safeParse(value: unknown): {success: boolean; error?: {issues: {path: PropertyKey[]; message: string}[]}}
}

/**
 * The SDK answers a known request whose params do not fit its schema (tools/call
 * without a string name, arguments that are not an object...) with -32603 "Internal
 * error" and a dump of the schema issues. Such a request is the caller's mistake:
 * it gets -32602 "Invalid params" naming the field instead (a batch holding one is
 * refused whole, with 400). Envelopes that are not JSON-RPC requests are left to the SDK.
 */
async function invalidParams(body: unknown): Promise<{status: number; answer: Record<string, unknown>} | undefined> {
  const types = await import('@modelcontextprotocol/sdk/types.js')
  const schemas: Record<string, ParamsSchema> = {
    initialize: types.InitializeRequestSchema,
    ping: types.PingRequestSchema,
    'tools/list': types.ListToolsRequestSchema,
    'tools/call': types.CallToolRequestSchema,
  }
  const messages = Array.isArray(body) ? body : [body]
  for (const [i, message] of messages.entries()) {
    if (!types.JSONRPCRequestSchema.safeParse(message).success) continue
    const {id, method} = message as {id: string | number; method: string}
    const schema = Object.hasOwn(schemas, method) ? schemas[method] : undefined
    const parsed = schema?.safeParse(message)
    if (!parsed || parsed.success) continue
    const issues = (parsed.error?.issues ?? []).map((issue) => `${issue.path.map(String).join('.')}: ${issue.message}`)
    const text = `Invalid params for ${method}: ${issues.join('; ') || 'they do not fit the method'}`
    const error = {code: -32602, message: Array.isArray(body) ? `Message ${i} of the batch: ${text}` : text}
    return Array.isArray(body)
      ? {status: 400, answer: {jsonrpc: '2.0', id: null, error}}
      : {status: 200, answer: {jsonrpc: '2.0', id, error}}
  }
  return undefined
}
