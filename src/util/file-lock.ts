import {linkSync, readFileSync, renameSync, rmSync, statSync, writeFileSync} from 'node:fs'

import {lockHolder, processAlive, sleepSync, type LockHolder} from './alive.js'

/** The lock is busy for longer than this: the error, naming the lock file. */
const WAIT_MS = 10_000
/** A lock older than this is stale whatever its pid says (the pid may have been reused). */
const STALE_MS = 30_000
/** A lock without a readable holder is being written (or was cut short): stale after this. */
const UNREADABLE_MS = 2_000
const STEP_MS = 20

/** The lock stayed busy for the whole wait. */
export class LockBusyError extends Error {
  constructor(
    readonly lockPath: string,
    readonly holder: string,
  ) {
    super(`the lock file ${lockPath} is held by ${holder}`)
    this.name = 'LockBusyError'
  }
}

/**
 * Runs `fn` holding `lockPath`, a file made with O_EXCL (`wx`) that holds this
 * process's pid: a short lock around a read-modify-write, so that concurrent
 * processes take turns instead of overwriting each other's changes. A busy lock
 * is waited for; one whose process is gone, or older than half a minute, is
 * stale and removed. Still busy after ten seconds: a LockBusyError naming the lock file.
 * Errors making the lock (no directory, read-only) are thrown as they are.
 */
export function withFileLock<T>(lockPath: string, fn: () => T, wait: {ms?: number} = {}): T {
  const token = `${process.pid}-${Math.random().toString(36).slice(2)}`
  const deadline = Date.now() + (wait.ms ?? WAIT_MS)
  for (;;) {
    if (tryLock(lockPath, token)) break
    if (Date.now() > deadline) {
      const holder = readHolder(lockPath)
      throw new LockBusyError(lockPath, holder ? `process ${holder.pid}` : 'another process')
    }
    if (isStale(lockPath)) removeStale(lockPath, token)
    else sleepSync(STEP_MS)
  }
  try {
    return fn()
  } finally {
    if (readHolder(lockPath)?.token === token) rmSync(lockPath, {force: true})
  }
}

function tryLock(lockPath: string, token: string): boolean {
  try {
    writeFileSync(lockPath, JSON.stringify({pid: process.pid, token}), {flag: 'wx', mode: 0o600})
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  }
}

/**
 * Moves the stale lock aside before deleting it, and deletes it only if what was
 * moved is still stale: another process may have removed it and taken a fresh one
 * since it was looked at, and that one is put back.
 */
function removeStale(lockPath: string, token: string): void {
  const aside = `${lockPath}.${token}.stale`
  try {
    renameSync(lockPath, aside)
  } catch {
    return // gone already: the next try takes it
  }
  if (!isStale(aside)) {
    try {
      linkSync(aside, lockPath)
    } catch {
      // Taken again meanwhile: that lock stands.
    }
  }
  rmSync(aside, {force: true})
}

function isStale(lockPath: string): boolean {
  let age: number
  try {
    age = Date.now() - statSync(lockPath).mtimeMs
  } catch {
    return false // gone already: the next try takes it
  }
  const holder = readHolder(lockPath)
  if (!holder) return age > UNREADABLE_MS
  return age > STALE_MS || (holder.pid !== process.pid && !processAlive(holder.pid))
}

function readHolder(lockPath: string): LockHolder | undefined {
  try {
    return lockHolder(readFileSync(lockPath, 'utf8'))
  } catch {
    return undefined
  }
}
