import {accessSync, constants, statSync} from 'node:fs'
import {dirname} from 'node:path'

import {fileReason} from '../../util/file-reason.js'

import type {CheckResult} from './types.js'

/** What the sandbox's store reports about its database file (src/sandbox/store/integrity.ts). */
export interface DatabaseInspection {
  quickCheck: string[]
  integrityCheck: string[]
  schemaVersion: number
  expectedSchemaVersion: number
}

/** Reads a database file without changing it; throws when SQLite cannot read it at all. */
export type InspectDatabase = (file: string) => Promise<DatabaseInspection>

const RESET_FIX = 'mfg sandbox reset --yes (wipes the sandbox data and seeds it afresh)'

/**
 * The embedded sandbox's database: SQLite's quick and full integrity checks,
 * and its schema version against the migrations this mfg knows. A file that is
 * not there yet is fine when the sandbox can create it on first use.
 */
export async function checkSandboxDatabase(file: string, inspect: InspectDatabase): Promise<CheckResult[]> {
  const base = {check: 'sandbox-db', target: file}
  let missing = false
  try {
    statSync(file)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'ENOENT' && code !== 'ENOTDIR') {
      // There or not, this user cannot reach it: another user's directory (an mfg run with sudo, say).
      return [
        {
          ...base,
          status: 'fail',
          message: `cannot reach the database: ${fileReason(error)}`,
          fix: `check that ${file} and the directories above it are yours (an mfg run with sudo makes them root's), or set MFG_HOME to a directory you can write to`,
        },
      ]
    }
    missing = true
  }
  if (missing) {
    const blocked = unwritableAncestor(dirname(file))
    if (blocked) {
      return [
        {
          ...base,
          status: 'fail',
          message: `not created yet, and the embedded sandbox cannot create it: ${blocked.dir}: ${blocked.reason}`,
          fix: `set MFG_HOME to a directory you can write to, or make ${blocked.dir} writable`,
        },
      ]
    }
    return [{...base, status: 'ok', message: 'not created yet; the embedded sandbox creates it on first use'}]
  }
  let report: DatabaseInspection
  try {
    report = await inspect(file)
  } catch (error) {
    const e = error as {code?: unknown; message?: unknown}
    const code = typeof e.code === 'string' ? e.code : ''
    const text = typeof e.message === 'string' ? e.message : String(error)
    const corrupt = code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB'
    return [
      {
        ...base,
        status: 'fail',
        message: corrupt ? `the database is damaged: ${text}` : `cannot open the database: ${text}`,
        fix: corrupt
          ? RESET_FIX
          : `check that ${file} is readable by you, then run mfg doctor again; else ${RESET_FIX}`,
      },
    ]
  }
  const problems = [...report.quickCheck, ...report.integrityCheck].filter((line) => line !== 'ok')
  if (problems.length > 0) {
    const unique = [...new Set(problems)]
    const shown = unique.slice(0, 3).join('; ')
    return [
      {
        ...base,
        status: 'fail',
        message: `integrity check failed: ${shown}${unique.length > 3 ? ` (and ${unique.length - 3} more)` : ''}`,
        fix: RESET_FIX,
      },
    ]
  }
  const {schemaVersion: have, expectedSchemaVersion: want} = report
  if (have > want) {
    return [
      {
        ...base,
        status: 'fail',
        message: `schema version ${have} is newer than this mfg's ${want}: a newer mfg wrote it`,
        fix: `upgrade mfg, or ${RESET_FIX}`,
      },
    ]
  }
  const version =
    have === want
      ? `schema version ${have} (current)`
      : `schema version ${have} of ${want}; it is brought up to date the next time the sandbox starts`
  return [{...base, status: 'ok', message: `integrity ok; ${version}`}]
}

/**
 * The nearest existing directory on the way to `dir` when it keeps `dir` from being made
 * (not writable, or not a directory), with why; undefined when `dir` can be made or is there.
 */
function unwritableAncestor(dir: string): {dir: string; reason: string} | undefined {
  for (let at = dir; ;) {
    try {
      if (!statSync(at).isDirectory()) return {dir: at, reason: 'not a directory'}
      accessSync(at, constants.W_OK | constants.X_OK)
      return undefined
    } catch (error) {
      const parent = dirname(at)
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return {dir: at, reason: fileReason(error)}
      if (parent === at) return undefined
      at = parent
    }
  }
}
