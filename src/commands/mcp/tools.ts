import {BaseCommand} from '../../cli/base-command.js'
import {tableFlags} from '../../cli/flags.js'
import {writeErr} from '../../cli/output.js'
import type {McpTool} from '../../api/mcp.js'

const COLUMNS = ['name', 'what it does', 'data']
/** The fields of a tool as MCP lists it, for --json FIELDS. */
const TOOL_FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations', '_meta'] as const

export default class McpTools extends BaseCommand {
  static override outputFields = () => TOOL_FIELDS
  static override summary = "List the tools of the service's MCP endpoint."
  static override description = `One row per tool: its name, what it does (the first sentence of its description) and whether it only reads data or changes it (a tool marked destructive, or not marked read-only, changes data; \`mcp call\` asks before calling one). --json prints the full list as the endpoint sent it: descriptions, input and output schemas, annotations.

Uses the active profile's MCP endpoint and API key (the embedded sandbox by default).`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --json | jq \'.[] | select(.name == "estimate_price") | .inputSchema\'',
    '<%= config.bin %> <%= command.id %> --profile production',
  ]
  static override flags = {...tableFlags()}

  async run(): Promise<McpTool[]> {
    const {flags} = await this.parse(McpTools)
    const {client} = await this.context(flags).session()
    const {listTools, toolRows} = await import('../../services/mcp/tools.js')
    const tools = await listTools({client})
    if (!this.jsonEnabled()) {
      if (tools.length === 0) writeErr('The endpoint lists no tools.')
      else {
        const {printTable} = await import('../../cli/render.js')
        // On a terminal the long descriptions are cut to fit its width.
        printTable(toolRows(tools), COLUMNS, {
          keep: ['name'],
          'no-truncate': flags['no-truncate'],
          flags: ['no-truncate'],
        })
      }
    }
    return tools
  }
}
