import chalk from 'chalk'

import {isTty} from './stdio.js'

export {isTty, streamOrCollect, streamOut, writeErr, writeOut, type LineOut} from './stdio.js'

/**
 * Colours are on only when stdout is a terminal, NO_COLOR is unset and
 * `--no-color` was not given. chalk is the single switch for everything.
 */
export function configureColor(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  const off =
    argv.includes('--no-color') || (env.NO_COLOR !== undefined && env.NO_COLOR !== '') || !isTty(process.stdout)
  chalk.level = off ? 0 : chalk.level || 1
  return !off
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
