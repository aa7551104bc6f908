import {Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {formatJson, writeOut} from '../../cli/output.js'
import {MCP_CLIENTS, clientConfig, configNotes, placeEnv, type McpClient} from '../../services/mcp/config.js'

export default class McpConfig extends BaseCommand {
  static override summary = 'Print the configuration that connects an assistant to the service through `mfg mcp proxy`.'
  static override description = `Prints the JSON to put in the assistant's MCP configuration: \`mcpServers\` for Claude, Cursor and generic clients, VS Code's own \`servers\` shape (type stdio) for vscode. It runs \`mfg mcp proxy --profile NAME\`, so the API key stays in the profile and never appears in the snippet. The profile is --profile, else the active one. When MFG_HOME (or XDG_CONFIG_HOME, XDG_DATA_HOME) places mfg's files elsewhere than by default, the snippet's \`env\` carries it: an assistant starts the command with few of the user's variables.

Clients that speak Streamable HTTP can also connect to the endpoint directly with the header Authorization: Bearer <API key>.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> --client claude',
    '<%= config.bin %> <%= command.id %> --client vscode --profile production > .vscode/mcp.json',
    '<%= config.bin %> <%= command.id %> --client cursor --command /usr/local/bin/mfg',
  ]
  static override flags = {
    client: Flags.string({description: 'The assistant.', options: [...MCP_CLIENTS], required: true}),
    name: Flags.string({description: "The server's name in the client's list.", default: 'mfg'}),
    command: Flags.string({
      description: 'How the client starts mfg (a full path when mfg is not on its PATH).',
      default: 'mfg',
    }),
  }

  async run(): Promise<Record<string, unknown>> {
    const {flags} = await this.parse(McpConfig)
    const client = flags.client as McpClient
    // Resolving checks the profile exists; nothing is started or sent.
    const profile = await this.context(flags).profile()
    const snippet = clientConfig({
      client,
      profile: profile.name,
      name: flags.name,
      command: flags.command,
      env: placeEnv(),
    })
    if (!this.jsonEnabled()) {
      writeOut(formatJson(snippet, true))
      for (const note of configNotes(client, profile.name)) this.note(note)
    }
    return snippet
  }
}
