// The shape of a direct command, apart from index.ts: index.ts loads the commands,
// and a command that imported index.ts for its type would close a circle.

export interface DirectCommand {
  /** Per option flag, its value from the text given; undefined when the command refuses it. */
  values?: Record<string, (text: string) => unknown>
  /** Runs the command; writes its output only once it has succeeded, and throws on failure. */
  run(args: Record<string, string>, flags: Record<string, unknown>, argv: string[]): Promise<void>
}
