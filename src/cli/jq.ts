import type {Jq} from 'jq-wasm'

import {JqRunError, UsageError} from './errors.js'
import {isTty, writeOut} from './stdio.js'

/**
 * `--jq EXPR`: a jq expression run over a command's JSON output through
 * jq-wasm (jq 1.8 itself, compiled to WebAssembly; docs/dependencies.md says why
 * this package). This module is imported only when the flag is given, and it
 * loads jq (1 MB of WebAssembly) only then.
 */

let loaded: Promise<Jq> | undefined

/** jq, loaded once; after that every run is synchronous. */
export function loadJq(): Promise<Jq> {
  loaded ??= import('jq-wasm').then((m) => m.loadJq())
  return loaded
}

/** jq's own message without its `jq: error:` prefixes and its count line; `shift` lines taken off its line numbers. */
function jqMessage(stderr: string, shift = 0): string {
  return stderr
    .split('\n')
    .filter((l) => l.trim() !== '' && !/^jq: \d+ compile errors?$/.test(l))
    .map((l) =>
      l
        .replace(/^jq: error(?: \([^)]*\))*: /, '')
        .replace(/, line (\d+)(, column \d+)?:$/, (_m, n: string, col = '') => `, line ${Number(n) - shift}${col}:`)
        .trimEnd(),
    )
    .join('\n')
}

/**
 * Compiles `expr` without running it (so nothing is fetched for an expression
 * jq cannot read): a usage error with jq's message when it does not compile.
 */
export async function checkJq(expr: string): Promise<void> {
  const jq = await loadJq()
  // The expression on lines of its own, so that jq quotes the user's text; one line is taken off its numbers.
  const r = jq.raw(null, `if false then (\n${expr}\n) else empty end`, ['-n'])
  if (r.exitCode !== 0) throw new UsageError(`--jq: ${atEndOf(expr, jqMessage(r.stderr, 1))}`)
}

/**
 * jq's message for an expression that ends too soon (`.[`, `{a:`) points into the
 * text around it (the next line, `) else empty end`): said as the end of the
 * user's expression instead, with its last line and a caret after it.
 */
function atEndOf(expr: string, message: string): string {
  const lines = expr.split('\n')
  const m = /^syntax error, .*, line (\d+), column \d+:\n/.exec(message)
  if (!m || Number(m[1]) <= lines.length) return message
  const last = lines.at(-1)!
  return `syntax error: the expression ends before it is complete (a bracket, brace, parenthesis or string left open?):\n    ${last}\n    ${' '.repeat(last.length)}^`
}

/** jq's flags for output as gh prints it: strings raw, other values indented on a terminal, one line each when piped. */
const outputFlags = (pretty: boolean) => (pretty ? ['-r'] : ['-r', '-c'])

/**
 * Runs `expr` over `input`: one JSON value, or JSON text of several values one a
 * line (each is run through `expr`, as jq does with its standard input). A
 * failure while running (a type error, `error(...)`) is a JqRunError (exit 5, as
 * jq's) carrying what jq printed before it; over several values jq goes on with the
 * next ones and says the error on stderr alone, which is taken as the failure too.
 */
export function runJq(jq: Jq, input: unknown, expr: string, pretty = isTty(process.stdout)): string {
  const r = jq.raw(typeof input === 'string' ? input : JSON.stringify(input), expr, outputFlags(pretty))
  if (r.exitCode !== 0 || /^jq: error/m.test(r.stderr)) throw new JqRunError(`--jq: ${jqMessage(r.stderr)}`, r.stdout)
  return r.stdout
}

/**
 * Runs `expr` over a batch of JSON lines (a stream's records). jq would go on past a
 * record it fails on; the run stops there instead, as over one array: the batch is run
 * again a line at a time, and the JqRunError carries what the lines before it made.
 */
export function runJqLines(jq: Jq, lines: string, expr: string): string {
  try {
    return runJq(jq, lines, expr, false)
  } catch (error) {
    if (!(error instanceof JqRunError)) throw error
    const made: string[] = []
    for (const line of lines.split('\n').filter((l) => l !== '')) {
      try {
        const out = runJq(jq, line, expr, false)
        if (out !== '') made.push(out.replace(/\n$/, ''))
      } catch (failed) {
        if (failed instanceof JqRunError) throw new JqRunError(failed.message, made.join('\n'))
        throw failed
      }
    }
    throw error
  }
}

/** Prints `input` through `expr` on stdout; when jq fails part-way, what it printed before comes first. */
export function printJq(jq: Jq, input: unknown, expr: string): void {
  let out: string
  try {
    out = runJq(jq, input, expr)
  } catch (error) {
    if (error instanceof JqRunError && error.output !== '') writeOut(error.output)
    throw error
  }
  if (out !== '') writeOut(out)
}
