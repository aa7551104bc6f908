/**
 * The one error the mesh readers throw for a file they cannot use: empty, truncated,
 * corrupt or of an unknown format. The message says what is wrong and where.
 */
export class MeshError extends Error {
  override name = 'MeshError'
  constructor(
    message: string,
    /**
     * Set when the file was refused for going over one of the readers' limits: what
     * went over it, and the CLI flag that raises it. A caller that cannot pass that
     * flag (the sandbox's MCP tool) words the refusal from `what` alone.
     */
    readonly limit?: {what: string; flag: string},
  ) {
    super(message)
  }
}
