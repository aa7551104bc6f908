// The README's commands and the commands' help examples run as written, and some
// of them listen on fixed ports (sandbox serve --port 4010, webhook listen --port
// 4848, ...). Their test files hold this lock from their first command to their
// last, so that with several test workers (vitest.config.ts), or two test runs on
// one machine, they never run at the same time. Every other test listens on port 0.
import {mkdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'

const LOCK = join(tmpdir(), 'mfg-test-fixed-ports.lock')

/** How long a test file may wait for the other one (the help examples take about 80 s alone). */
export const FIXED_PORTS_WAIT_MS = 10 * 60_000

/** True when the process that wrote `pid` has ended (or the lock holds no pid yet). */
function ended(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return false
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH'
  }
}

/** Milliseconds since the lock was taken (0 if it is gone). */
function age(lock: string): number {
  try {
    return Date.now() - statSync(lock).mtimeMs
  } catch {
    return 0
  }
}

/** Takes the lock (a directory), waiting for its holder; answers the function that gives it back. */
export async function holdFixedPorts(waitMs = FIXED_PORTS_WAIT_MS, lock = LOCK): Promise<() => void> {
  const until = Date.now() + waitMs
  for (;;) {
    try {
      mkdirSync(lock)
      writeFileSync(join(lock, 'pid'), String(process.pid))
      return () => rmSync(lock, {recursive: true, force: true})
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    let holder = Number.NaN
    try {
      holder = Number(readFileSync(join(lock, 'pid'), 'utf8'))
    } catch {
      // Taken a moment ago: the holder has not written its pid yet.
    }
    // A holder that ended without giving the lock back (killed), or before writing its
    // pid (a lock without one for seconds), leaves it to the next.
    if (ended(holder) || (Number.isNaN(holder) && age(lock) > 5_000)) rmSync(lock, {recursive: true, force: true})
    else if (Date.now() > until) throw new Error(`the fixed ports are still held by process ${holder} (${lock})`)
    else await sleep(200)
  }
}
