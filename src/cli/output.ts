import chalk from 'chalk'

import {isTty} from './stdio.js'

export {isTty, streamOrCollect, streamOut, writeErr, writeOut, type LineOut} from './stdio.js'

/**
 * The colour level for stdout, chalk's rules plus NO_COLOR: chalk's own
 * detection (`detected`, from supports-color: FORCE_COLOR=0/1/2/3 sets the
 * level, FORCE_COLOR=true or empty only enables it, TERM=dumb and a stdout that
 * is not a terminal turn it off unless FORCE_COLOR says otherwise, `--no-color`
 * off), then `--no-color` off wherever it stands before `--`, and a non-empty
 * NO_COLOR off unless FORCE_COLOR is set (FORCE_COLOR is the stronger, as for Node).
 */
export function colorLevel(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  detected: number,
  tty = isTty(process.stdout),
): 0 | 1 | 2 | 3 {
  const end = argv.indexOf('--')
  const flags = argv.slice(0, end === -1 ? undefined : end)
  if (flags.includes('--no-color')) return 0
  if (env.FORCE_COLOR === undefined && env.NO_COLOR !== undefined && env.NO_COLOR !== '') return 0
  // supports-color takes a bare `--color` anywhere for "force colours on"; in mfg it names a
  // part's colour (`price estimate --color Black`), which must not colour a pipe.
  const sniffed = flags.some((a) => /^--colou?rs?(=(true|always|256|16m|full|truecolor))?$/.test(a))
  if (sniffed && env.FORCE_COLOR === undefined && (!tty || env.TERM === 'dumb')) return 0
  return Math.max(0, Math.min(3, Math.trunc(detected))) as 0 | 1 | 2 | 3
}

/** chalk's level as it detected it when loaded, before configureColor changed it. */
const DETECTED = chalk.level

/** Sets chalk, the single switch for every colour, by colorLevel; true when colours are on. */
export function configureColor(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  chalk.level = colorLevel(argv, env, DETECTED)
  return chalk.level > 0
}

export function colorEnabled(): boolean {
  return chalk.level > 0
}

/** A command's `--json` result on stdout (see formatJson). */
export function writeJson(value: unknown): void {
  process.stdout.write(`${formatJson(value)}\n`)
}

/** JSON for stdout: pretty on a terminal (in colour when on), one compact line when piped. */
export function formatJson(value: unknown, pretty = isTty(process.stdout)): string {
  if (!pretty) return JSON.stringify(value)
  const text = JSON.stringify(value, null, 2)
  return colorEnabled() ? colorizeJson(text) : text
}

function colorizeJson(text: string): string {
  return text.replace(
    /("(?:\\.|[^"\\])*")(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g,
    (m, str: string | undefined, colon: string | undefined, lit: string | undefined, num: string | undefined) => {
      if (str !== undefined) return colon ? chalk.blue(str) + colon : chalk.green(str)
      if (lit !== undefined) return chalk.yellow(lit)
      if (num !== undefined) return chalk.cyan(num)
      return m
    },
  )
}
