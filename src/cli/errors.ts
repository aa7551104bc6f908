import {Errors} from '@oclif/core'

import {ApiError, exitCodeFor} from '../api/errors.js'
import {DEFAULT_MAX_RETRY_WAIT_MS} from '../api/retry.js'
import type {ErrorDetail} from '../schemas/common.js'
import {InputError} from '../services/errors.js'
import {formatDuration} from '../util/duration.js'

/** A missing or contradictory flag or argument: exit 2, naming what to pass. */
export class UsageError extends Error {
  readonly exitCode = 2
  readonly code = 'usage'
  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

/**
 * `--jq` failed on the data (an `error(...)`, a type error, an answer that is not JSON):
 * exit 5, as jq's own. `output` is what jq printed before it failed, written before the error.
 */
export class JqRunError extends Error {
  readonly exitCode = 5
  readonly code = 'jq_failed'
  constructor(
    message: string,
    readonly output = '',
  ) {
    super(message)
    this.name = 'JqRunError'
  }
}

/** How oclif rewrites the error a flag's parser throws (its message in the middle). */
const FLAG_VALUE = /^Parsing --([\w-]+) \n\t([\s\S]*)\nSee more help with --help$/

/** Ctrl-C (SIGINT) while a command runs. */
export const EXIT_INTERRUPTED = 130

export interface DescribedError {
  code: string
  message: string
  status?: number
  details?: ErrorDetail[]
  /** The wait the service asked for (Retry-After) before trying again. */
  retryAfterSeconds?: number
  /** What to do next, said below the message (under --json, its own field): which credentials a 401 refused. */
  hint?: string
  exitCode: number
}

/**
 * Turns any thrown value into what the user sees and the exit code:
 * 1 API or network, 2 usage or invalid input, 3 authentication.
 */
export function describeError(err: unknown): DescribedError {
  if (err instanceof ApiError) {
    const wait = err.retryAfterSeconds
    return {
      code: err.code,
      message: wait && wait * 1000 > DEFAULT_MAX_RETRY_WAIT_MS ? withWait(err.message, wait) : err.message,
      ...(err.status === undefined ? {} : {status: err.status}),
      ...(err.details?.length ? {details: err.details} : {}),
      ...(wait ? {retryAfterSeconds: wait} : {}),
      exitCode: exitCodeFor(err),
    }
  }
  if (err instanceof InputError) {
    return {code: err.code, message: err.message, ...(err.details ? {details: err.details} : {}), exitCode: 2}
  }
  const flag = err instanceof Error ? FLAG_VALUE.exec(err.message) : null
  if (flag) {
    // A flag's own parser refused its value; oclif wraps that message in three lines.
    const name = flag[1]!
    const inner = flag[2]!
    const message = inner.includes(`--${name}`) ? inner : `--${name}: ${inner}`
    return {code: 'usage', message, exitCode: 2}
  }
  if (err instanceof Errors.CLIError) {
    // oclif parse errors (unknown flag, missing argument, bad option): usage, exit 2.
    const exit = err.oclif?.exit
    return {code: 'usage', message: err.message, exitCode: typeof exit === 'number' && exit > 0 ? exit : 2}
  }
  const listen = listenProblem(err)
  if (listen) return {code: 'port_unavailable', message: listen, exitCode: 2}
  if (err instanceof Error) {
    const own = err as Error & {exitCode?: unknown; code?: unknown}
    if (typeof own.exitCode === 'number' && own.exitCode > 0) {
      return {code: typeof own.code === 'string' ? own.code : 'usage', message: err.message, exitCode: own.exitCode}
    }
    return {code: 'internal', message: err.message || String(err), exitCode: 1}
  }
  return {code: 'internal', message: String(err), exitCode: 1}
}

/**
 * The one line stderr carries for a failure: under --json/--jq the JSON error object
 * (`{"error": {code, message, …}}`) a script parses, otherwise `Error: message`
 * (`label` colours the prefix). Every path that reports a failure writes it through here.
 */
export function errorLine(
  error: Omit<DescribedError, 'exitCode'>,
  asJson: boolean,
  label: (text: string) => string = (text) => text,
): string {
  if (!asJson) return `${label('Error:')} ${error.message}${error.hint === undefined ? '' : `\n${error.hint}`}`
  const {code, message, status, details, retryAfterSeconds, hint} = error
  return JSON.stringify({
    error: {
      code,
      message,
      ...(status === undefined ? {} : {status}),
      ...(details ? {details: details.map((x) => ({path: x.path, message: x.message}))} : {}),
      ...(retryAfterSeconds === undefined ? {} : {retryAfterSeconds}),
      ...(hint === undefined ? {} : {hint}),
    },
  })
}

/** The message's first line followed by the wait the service asked for, longer than the client waits (a rate limit's can be hours). */
const WEEK_SECONDS = 7 * 24 * 3600

function withWait(message: string, seconds: number): string {
  const [first, ...rest] = message.split('\n')
  // A daily allowance asks for hours; a wait of years is a service's mistake, said as such.
  const wait = seconds > WEEK_SECONDS ? 'more than a week' : formatDuration(seconds * 1000)
  const said = `${first}; the service asks to wait ${wait} before trying again (Retry-After)`
  return [said, ...rest].join('\n')
}

/** A server's port that cannot be had (`sandbox serve`, `webhook listen`), said with the flag that chooses another. */
function listenProblem(err: unknown): string | undefined {
  const e = err as NodeJS.ErrnoException & {port?: number; address?: string}
  if (!(err instanceof Error) || e.syscall !== 'listen') return undefined
  const where = `port ${e.port ?? '?'} on ${e.address ?? 'this machine'}`
  if (e.code === 'EADDRINUSE')
    return `${where} is in use by another program; choose another with --port, or --port 0 for a free one.`
  if (e.code === 'EACCES')
    return `${where} needs privileges this user does not have; choose one above 1023 with --port, or --port 0.`
  return undefined
}
