/** `mcp config`: the snippet that makes an assistant run `mfg mcp proxy` (the key stays in the profile). */

import path from 'node:path'

export const MCP_CLIENTS = ['claude', 'cursor', 'vscode', 'generic'] as const
export type McpClient = (typeof MCP_CLIENTS)[number]

export interface ConfigInput {
  client: McpClient
  profile: string
  /** The server's name in the client's list. */
  name: string
  /** The mfg executable, `mfg` when it is on the PATH. */
  command: string
  /** Variables the proxy is started with (placeEnv). */
  env?: Record<string, string>
}

/** Where each client reads its configuration (shown as a hint). */
export const CONFIG_LOCATIONS: Record<McpClient, string> = {
  claude:
    'Claude Desktop: claude_desktop_config.json (Settings → Developer → Edit Config); Claude Code: .mcp.json in the project',
  cursor: 'Cursor: ~/.cursor/mcp.json, or .cursor/mcp.json in the project',
  vscode: 'VS Code: .vscode/mcp.json in the workspace, or "MCP: Open User Configuration"',
  generic: "the client's MCP servers configuration",
}

/** The configuration snippet for a client: `mcpServers`, or VS Code's `servers` with a stdio type. */
export function clientConfig(input: ConfigInput): Record<string, unknown> {
  const args = ['mcp', 'proxy', '--profile', input.profile]
  const env = input.env && Object.keys(input.env).length > 0 ? {env: input.env} : {}
  if (input.client === 'vscode') return {servers: {[input.name]: {type: 'stdio', command: input.command, args, ...env}}}
  return {mcpServers: {[input.name]: {command: input.command, args, ...env}}}
}

/**
 * The variables that move mfg's files from their default place (MFG_HOME, else
 * XDG_CONFIG_HOME and XDG_DATA_HOME where mfg reads them), as absolute paths:
 * an assistant starts the proxy with few of the user's variables (HOME, PATH),
 * so without them the proxy would look for the profile elsewhere.
 */
export function placeEnv(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  const given = (name: string) => (env[name]?.trim() ? [[name, path.resolve(env[name])]] : [])
  const home = given('MFG_HOME')
  if (home.length > 0 || platform === 'darwin' || platform === 'win32') return Object.fromEntries(home)
  return Object.fromEntries([...given('XDG_CONFIG_HOME'), ...given('XDG_DATA_HOME')])
}

/** What to tell the user beside the snippet: where it goes, and that "env" is no stored profile. */
export function configNotes(client: McpClient, profile: string): string[] {
  const notes = [`Put it in ${CONFIG_LOCATIONS[client]}.`]
  if (profile === 'env')
    notes.push(
      'The profile "env" exists only through MFG_* variables: save one with `mfg profile add` so the assistant can use it.',
    )
  return notes
}
