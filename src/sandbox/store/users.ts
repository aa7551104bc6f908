// Which processes have a file-backed sandbox open. SQLite lets several processes
// share the database, but a reset deletes its files: a `sandbox serve` or a
// `demand watch` holding them would go on with a database no one else sees,
// and its writes would vanish. Each process that opens the store leaves a file
// named by its pid in `<dataDir>/users` while it has it open; a reset refuses
// while another live process is listed there.
import {mkdirSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {processAlive} from '../../util/alive.js'

const USERS_DIR = 'users'

/** Opens held by this process, per data directory: the pid file goes with the last. */
const held = new Map<string, number>()

/** Notes that this process has the store in `dataDir` open; the returned function notes it closed. */
export function registerUser(dataDir: string): () => void {
  const count = held.get(dataDir) ?? 0
  held.set(dataDir, count + 1)
  if (count === 0) {
    const dir = join(dataDir, USERS_DIR)
    mkdirSync(dir, {recursive: true, mode: 0o700})
    // The name is all a reset reads; the command line is not written (it may carry --secret or --api-key).
    writeFileSync(join(dir, String(process.pid)), '', {mode: 0o600})
  }
  let done = false
  return () => {
    if (done) return
    done = true
    const left = (held.get(dataDir) ?? 1) - 1
    if (left > 0) return void held.set(dataDir, left)
    held.delete(dataDir)
    rmSync(join(dataDir, USERS_DIR, String(process.pid)), {force: true})
  }
}

/** The other live processes with the store in `dataDir` open; the files of ended ones are cleared. */
export function otherUsers(dataDir: string): number[] {
  const dir = join(dataDir, USERS_DIR)
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return []
  }
  const live: number[] = []
  for (const name of names) {
    const pid = Number(name)
    if (!Number.isInteger(pid) || pid === process.pid) continue
    if (processAlive(pid)) live.push(pid)
    else rmSync(join(dir, name), {force: true})
  }
  return live
}
