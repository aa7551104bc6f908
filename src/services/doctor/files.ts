import {readdirSync, statSync, type Stats} from 'node:fs'
import {basename, dirname, join, sep} from 'node:path'

import {fileReason} from '../../util/file-reason.js'

import type {CheckResult} from './types.js'

/** Where mfg keeps files that hold secrets (the command fills it from the profile paths). */
export interface SecretFiles {
  /** Directories mfg creates: configuration, data, sandbox, journals. */
  dirs: string[]
  /** config.json: API keys and auth tokens. */
  configFile: string
  /** Batch journals: every file in it (demand data, customer details). */
  journalDir: string
  /** The embedded sandbox's database; its -wal, -shm and -journal companions are checked too. */
  sandboxDb: string
}

const SQLITE_COMPANIONS = ['', '-wal', '-shm', '-journal']

/** A path as a shell word: quoted when it holds anything but plain path characters (macOS "Application Support"). */
export function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`
}

const octal = (mode: number): string => `0${(mode & 0o777).toString(8).padStart(3, '0')}`

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

function who(mode: number): string {
  const parts: string[] = []
  if (mode & 0o070) parts.push('its group')
  if (mode & 0o007) parts.push('every other user')
  return parts.join(' and ')
}

/**
 * Every existing file holding a secret must be owner-only (no group or other
 * bits; 0600 is what mfg writes), and no directory of mfg's may be writable by
 * every user. Mode bits do not apply on Windows, so it is skipped there.
 */
export function checkSecretFiles(files: SecretFiles, platform: NodeJS.Platform = process.platform): CheckResult[] {
  if (platform === 'win32') {
    return [
      {
        check: 'permissions',
        status: 'ok',
        message: 'not checked on Windows: files there are protected by the user profile, not by mode bits',
      },
    ]
  }
  const problems: CheckResult[] = []
  let filesSeen = 0
  let dirsSeen = 0
  /** Paths that could not be inspected, by reason: one warning each (a directory another user owns hides all below it). */
  const hidden = new Map<string, string[]>()
  const unreadable = (path: string, error: unknown): void => {
    const reason = fileReason(error, true)
    hidden.set(reason, [...(hidden.get(reason) ?? []), path])
  }
  /** The path's stats, undefined when it does not exist or cannot be read (that is noted). */
  const inspect = (path: string): Stats | undefined => {
    try {
      return statOrUndefined(path)
    } catch (error) {
      unreadable(path, error)
      return undefined
    }
  }

  for (const dir of [...new Set(files.dirs)]) {
    const st = inspect(dir)
    if (!st?.isDirectory()) continue
    dirsSeen++
    if (st.mode & 0o002) {
      problems.push({
        check: 'permissions',
        target: dir,
        status: 'fail',
        message: `${dir} is writable by every user (mode ${octal(st.mode)}): anyone could replace mfg's files in it`,
        fix: `chmod 700 ${shellWord(dir)}`,
      })
    }
  }

  const candidates = [files.configFile, ...SQLITE_COMPANIONS.map((s) => files.sandboxDb + s)]
  try {
    for (const entry of readdirSync(files.journalDir, {withFileTypes: true})) {
      if (entry.isFile()) candidates.push(join(files.journalDir, entry.name))
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') unreadable(files.journalDir, error)
  }

  for (const file of candidates) {
    const st = inspect(file)
    if (!st?.isFile()) continue
    filesSeen++
    if (st.mode & 0o077) {
      problems.push({
        check: 'permissions',
        target: file,
        status: 'fail',
        message: `${file} holds secrets but has mode ${octal(st.mode)}: ${who(st.mode)} can ${st.mode & 0o022 ? 'read or change' : 'read'} it`,
        fix: `chmod 600 ${shellWord(file)}`,
      })
    }
  }

  for (const [reason, paths] of hidden) {
    const unique = [...new Set(paths)]
    problems.push({
      check: 'permissions',
      target: unique[0]!,
      status: 'warn',
      message:
        unique.length === 1
          ? `cannot inspect ${unique[0]}: ${reason}`
          : `cannot inspect ${unique.length} paths under ${commonDir(unique)}: ${reason} (${unique.map((p) => basename(p)).join(', ')})`,
    })
  }
  if (problems.length > 0) return problems
  const fileWord = filesSeen === 1 ? 'file' : 'files'
  return [
    {
      check: 'permissions',
      status: 'ok',
      message:
        filesSeen === 0
          ? 'no file with secrets written yet'
          : `${filesSeen} ${fileWord} with secrets owner-only; ${dirsSeen === 1 ? 'its directory' : `${dirsSeen} directories`} not world-writable`,
    },
  ]
}

/** The deepest directory holding every path. */
function commonDir(paths: readonly string[]): string {
  let dir = dirname(paths[0]!)
  while (!paths.every((p) => p.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`)) && dirname(dir) !== dir)
    dir = dirname(dir)
  return dir
}
