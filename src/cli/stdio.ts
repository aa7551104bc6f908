// Writing to stdout and stderr, without colour support: what output.ts offers
// that needs no chalk (and so no node:tty), for the paths that print plain
// data. output.ts re-exports it.

/** Whether a stream is an interactive terminal (tests and pipes are not). */
export function isTty(stream: NodeJS.WriteStream | NodeJS.ReadStream = process.stdout): boolean {
  return Boolean((stream as {isTTY?: boolean}).isTTY)
}

/** Data goes to stdout, and only data. */
export function writeOut(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`)
}

/** Notes, progress, summaries and errors go to stderr. */
export function writeErr(text: string): void {
  process.stderr.write(text.endsWith('\n') ? text : `${text}\n`)
}
