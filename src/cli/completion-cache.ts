// Shell completion (`mfg autocomplete`, @oclif/plugin-autocomplete) is a script built once
// into oclif's cache directory, with every command and flag of the mfg that built it. The
// plugin rebuilds it when a plugin is installed, not when mfg itself is upgraded: its
// completions would go on offering what the old release had. mfg stamps the cache with
// the version it was built for and, when that differs, has it rebuilt in the background.
import {spawn} from 'node:child_process'
import {readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

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
