import type {FastifyInstance, FastifyReply, FastifyRequest} from 'fastify'

import type {SandboxContext} from '../app.js'
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
    const [{StreamableHTTPServerTransport}, {createMcpServer}] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
      import('../mcp/server.js'),
    ])
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
