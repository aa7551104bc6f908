import {stripVTControlCharacters} from 'node:util'

import {Errors} from '@oclif/core'

import {notAllowed} from '../schemas/issue-reason.js'
import {closest} from '../util/closest.js'
import {UsageError} from './errors.js'

/** What a flag definition says of its names (its own, its aliases, its `--no-` form) and of its values. */
export interface FlagNames {
  aliases?: string[]
  allowNo?: boolean
  options?: readonly string[]
  description?: string
}

/**
 * oclif's refusal of a flag the command does not have, with the flag each one
 * probably is (`--limt` → `--limit`), taken from the command's own flags and
 * the global ones; and of a value a flag does not allow, with the value
 * probably meant; of a required flag left out or two that exclude each other,
 * with the flags named as typed. Any other error, or a refusal with no close flag, is
 * returned as it is. oclif's parser refuses unknown flags with its
 * NonExistentFlagsError, which carries the flags as typed (`flags`).
 */
export function withFlagHints(error: unknown, flags: Readonly<Record<string, FlagNames>>): unknown {
  if (!(error instanceof Errors.CLIError)) return error
  const value = valueHint(error, flags) ?? validationHint(error, flags)
  if (value) return value
  const given = (error as {flags?: unknown}).flags
  if (!Array.isArray(given) || !given.every((f): f is string => typeof f === 'string')) return error
  const names = Object.entries(flags).flatMap(([name, flag]) => [
    name,
    ...(flag.aliases ?? []),
    ...(flag.allowNo ? [`no-${name}`] : []),
  ])
  const hinted = given.map((typed) => {
    const name = typed.replace(/^--?/, '').replace(/=.*$/s, '')
    const meant = typed.startsWith('--') ? closest(name, names, 1)[0] : undefined
    return meant === undefined ? typed : `${typed} (did you mean --${meant}?)`
  })
  if (hinted.every((h, i) => h === given[i])) return error
  return new UsageError(
    `Nonexistent flag${given.length === 1 ? '' : 's'}: ${hinted.join(', ')}\nSee more help with --help`,
  )
}

/**
 * oclif's refusal of a value its flag does not allow (its FlagInvalidOptionError
 * says `Expected --technique=CNC_MACHINNG to be one of: …` and carries nothing
 * else), in the words every input check uses, with the value probably meant.
 */
function valueHint(error: Errors.CLIError, flags: Readonly<Record<string, FlagNames>>): UsageError | undefined {
  const m = /^Expected --([\w-]+)=(.*) to be one of: /s.exec(error.message)
  const options = m ? flags[m[1]!]?.options : undefined
  if (!m || !options) return undefined
  return new UsageError(`--${m[1]}: ${notAllowed(m[2]!, options)}`)
}

/**
 * oclif's refusal of a required flag left out or of two flags that exclude each other
 * (its FailedFlagValidationError: `The following error occurred:` then
 * `Missing required flag events` or `--all=true cannot also be provided when using
 * --page`), with each flag named as it is typed and what a required one takes.
 */
function validationHint(error: Errors.CLIError, flags: Readonly<Record<string, FlagNames>>): UsageError | undefined {
  const m = /^The following errors? occurred:\n([\s\S]*?)(?:\nSee more help with --help)?$/.exec(
    stripVTControlCharacters(error.message),
  )
  if (!m) return undefined
  const reasons = m[1]!.split('\n').map((line) => reworded(line.trim(), flags))
  return new UsageError(`${reasons.join('\n')}\nSee more help with --help`)
}

function reworded(reason: string, flags: Readonly<Record<string, FlagNames>>): string {
  const missing = /^Missing required flag ([\w-]+)$/.exec(reason)
  if (missing) {
    const flag = flags[missing[1]!]
    const about = flag?.description?.replace(/\.$/, '')
    // A flag with a fixed set of values names them, unless its description already does.
    const listed = flag?.options && !flag.options.every((o) => about?.includes(o)) ? flag.options.join(', ') : undefined
    const said = [about, listed && `one of ${listed}`].filter(Boolean).join(': ')
    return `Missing required flag --${missing[1]}${said ? `: ${said}` : ''}`
  }
  const excluded = /^--([\w-]+)(?:=.*)? cannot also be provided when using --([\w-]+)$/s.exec(reason)
  if (excluded) return `--${excluded[2]} cannot be used with --${excluded[1]}: pass one of them`
  return reason
}
