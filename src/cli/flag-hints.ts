import {Errors} from '@oclif/core'

import {closest} from '../util/closest.js'
import {UsageError} from './errors.js'

/** What a flag definition says of its names: its own, its aliases, and its `--no-` form. */
export interface FlagNames {
  aliases?: string[]
  allowNo?: boolean
}

/**
 * oclif's refusal of a flag the command does not have, with the flag each one
 * probably is (`--limt` → `--limit`), taken from the command's own flags and
 * the global ones. Any other error, or a refusal with no close flag, is
 * returned as it is. oclif's parser refuses unknown flags with its
 * NonExistentFlagsError, which carries the flags as typed (`flags`).
 */
export function withFlagHints(error: unknown, flags: Readonly<Record<string, FlagNames>>): unknown {
  const given = error instanceof Errors.CLIError ? (error as {flags?: unknown}).flags : undefined
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
