// An HTTP status's reason phrase, in a module of its own: commands that only print a
// status (cli/written.ts) need not load the error-body reader and its schemas.

/** The reason phrase of a status (`Bad Gateway`), or undefined for an unknown status. */
export function reasonPhrase(status: number): string | undefined {
  return process.getBuiltinModule('node:http').STATUS_CODES[status]
}
