/**
 * The one error the mesh readers throw for a file they cannot use: empty, truncated,
 * corrupt or of an unknown format. The message says what is wrong and where.
 */
export class MeshError extends Error {
  override name = 'MeshError'
  constructor(
    message: string,
    /**
     * Set when the file was refused for going over one of the readers' limits: the
     * CLI flag that raises it, which the message ends by naming (limits.ts'
     * `limitAdvice`). A caller that cannot pass that flag (the sandbox's MCP tool)
     * words the end of the refusal its own way.
     */
    readonly limit?: {flag: string},
  ) {
    super(message)
  }
}
