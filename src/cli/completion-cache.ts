// Shell completion (`mfg autocomplete`, @oclif/plugin-autocomplete) is a script built once
// into oclif's cache directory, with every command and flag of the mfg that built it. The
// plugin rebuilds it when a plugin is installed, not when mfg itself is upgraded: its
// completions would go on offering what the old release had. mfg stamps the cache with
// the version it was built for and, when that differs, has it rebuilt in the background.
import {spawn} from 'node:child_process'
import {readFileSync, renameSync, writeFileSync} from 'node:fs'
import {userInfo} from 'node:os'
import {basename, join} from 'node:path'

/** The completion cache, and the mfg (package root and version) that uses it. */
export interface CompletionCache {
  dir: string
  root: string
  version: string
}

const STAMP = '.mfg-version'

/** Marks the cache as built for this version (after `mfg autocomplete` built it); whether it could. */
export function stamp(cache: CompletionCache): boolean {
  try {
    // Written aside and renamed into place: a command reading it meanwhile finds the old
    // stamp or the new one, never an empty file (which would start another rebuild).
    const aside = join(cache.dir, `${STAMP}.${process.pid}`)
    writeFileSync(aside, `${cache.version}\n`)
    renameSync(aside, join(cache.dir, STAMP))
    return true
  } catch {
    // A cache that cannot be written (another user's, or not built) is left as it is.
    return false
  }
}

/**
 * When the cache was built for another version, starts `mfg autocomplete --refresh-cache`
 * in the background (a process of its own, which outlives this command and prints
 * nothing), once: the stamp is written first (and when it cannot be, nothing is started).
 * Whether it started one.
 */
export function refreshIfStale(cache: CompletionCache): boolean {
  let built: string | undefined
  try {
    built = readFileSync(join(cache.dir, STAMP), 'utf8').trim()
  } catch {
    built = undefined
  }
  // A cache this user cannot write could not be rebuilt either: no process started at each command.
  if (built === cache.version || !stamp(cache)) return false
  const child = spawn(process.execPath, [join(cache.root, 'bin', 'run.js'), 'autocomplete', '--refresh-cache'], {
    detached: true,
    stdio: 'ignore',
    windowsHide: true,
  })
  child.on('error', () => undefined)
  child.unref()
  return true
}

/** The shells @oclif/plugin-autocomplete writes completion for. */
const SHELLS = ['bash', 'zsh', 'powershell']

/**
 * `mfg autocomplete` with no shell named, from a shell the plugin has no completion for
 * (fish; SHELL unset, the account's login shell): the plugin builds the cache, prints a heading with no
 * instructions under it and exits 0. What to say instead (a usage error), or undefined.
 * `--refresh-cache` prints no instructions, and is what the background rebuild runs.
 */
export function unsupportedShell(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  const named = args.some((a) => !a.startsWith('-'))
  const refresh = args.some((a) => a === '--refresh-cache' || a === '-r')
  if (named || refresh || platform === 'win32') return undefined
  // As oclif finds the shell: SHELL, else the login shell of the user's account.
  const path = env.SHELL || loginShell()
  const shell = basename(path)
  if (SHELLS.includes(shell)) return undefined
  const which = !shell ? 'this shell (SHELL is not set)' : env.SHELL ? `${shell} (SHELL=${path})` : `${shell} (${path})`
  return `mfg autocomplete cannot set up ${which}: completion is written for bash, zsh and PowerShell; name one, as in mfg autocomplete bash`
}

/** The login shell of the user's account ('' when there is none to read). */
function loginShell(): string {
  try {
    return userInfo().shell ?? ''
  } catch {
    return ''
  }
}
