import {UsageError} from './errors.js'
import {isTty} from './stdio.js'

/**
 * `--jq EXPR`: a jq expression run over a command's JSON result through jq-wasm
 * (jq itself, compiled to WebAssembly; docs/dependencies.md says why this one).
 * This module is imported only when the flag is given, and it imports jq-wasm
 * (1.3 MB of WebAssembly) only then.
 */

type JqModule = typeof import('jq-wasm')

let loaded: Promise<JqModule> | undefined
const jq = (): Promise<JqModule> => (loaded ??= import('jq-wasm'))

/** jq's own message, without its `jq: error:` prefixes and trailing count line; `shift` lines taken off its line numbers. */
function jqMessage(err: unknown, shift = 0): string {
  const text = err instanceof Error ? err.message : String(err)
  return text
    .split('\n')
    .filter((l) => l.trim() !== '' && !/^jq: \d+ compile errors?$/.test(l))
    .map((l) =>
      l
        .replace(/^jq: error(?: \(at [^)]*\))?: /, '')
        .replace(/, line (\d+):$/, (_m, n: string) => `, line ${Number(n) - shift}:`)
        .trimEnd(),
    )
    .join('\n')
}

/**
 * Compiles `expr` without running it (so nothing is fetched for an expression
 * jq cannot read): a usage error with jq's message when it does not compile.
 */
export async function checkJq(expr: string): Promise<void> {
  const {raw} = await jq()
  try {
    // The expression on lines of its own, so that jq quotes the user's text; one line is taken off its numbers.
    await raw('null', `if false then (\n${expr}\n) else empty end`, ['-n'])
  } catch (err) {
    throw new UsageError(`--jq: ${jqMessage(err, 1)}`)
  }
}

/**
 * The output of `expr` over `value`, as gh prints it: strings raw, other values
 * as JSON (indented on a terminal, one line each when piped), one result a line.
 * A failure while running (a type error, `error(...)`) is a usage error too: the
 * expression does not fit the data.
 */
export async function runJq(value: unknown, expr: string, pretty = isTty(process.stdout)): Promise<string> {
  const {raw} = await jq()
  try {
    const out = await raw(JSON.stringify(value), expr, pretty ? ['-r'] : ['-r', '-c'])
    return out
  } catch (err) {
    throw new UsageError(`--jq: ${jqMessage(err)}`)
  }
}
