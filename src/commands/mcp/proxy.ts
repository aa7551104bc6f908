import {BaseCommand, withoutJq} from '../../cli/base-command.js'
import {writeErr} from '../../cli/output.js'
import {redact} from '../../schemas/secrets.js'

export default class McpProxy extends BaseCommand {
  static override summary = "Serve the service's MCP endpoint over stdio, for assistants that only start local servers."
  static override description = `A stdio MCP server (newline-delimited JSON-RPC on stdin and stdout) that relays every message to the active profile's MCP endpoint with its API key, and every answer back; the embedded sandbox works too (it runs inside the proxy). The client's initialize is passed on as it is, so client and service agree the protocol version themselves. When the service no longer knows the session (it expired, or the service restarted: 404 to a request carrying it), the proxy opens a new one with the client's initialize and sends the request again, once. Answers that come as event streams are relayed as they arrive, so progress notifications reach the client during a long call, and --timeout bounds the wait for an answer to start and each silence within it rather than the whole call. A request whose upstream call fails (network, authentication, a timeout, an answer that breaks off) is answered with a JSON-RPC error rather than left waiting. The proxy exits when stdin closes. Logs go to stderr only; stdout carries the protocol.

The key stays in the profile: \`mcp config\` prints the client configuration that starts this command.`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --profile production',
    'npx @modelcontextprotocol/inspector --cli <%= config.bin %> <%= command.id %> --method tools/list',
  ]
  static override enableJsonFlag = false
  static override jqOutput = false
  static override baseFlags = withoutJq

  async run(): Promise<void> {
    const {flags} = await this.parse(McpProxy)
    const ctx = this.context(flags)
    const {client} = await ctx.session()
    const [{StdioServerTransport}, {runProxy}] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('../../services/mcp/proxy.js'),
    ])
    const transport = new StdioServerTransport()
    const end = () => void transport.close()
    process.stdin.once('end', end)
    process.stdin.once('close', end)
    try {
      await runProxy({client}, transport, (line) => writeErr(redact(line, this.secrets())))
    } finally {
      process.stdin.off('end', end)
      process.stdin.off('close', end)
    }
  }
}
