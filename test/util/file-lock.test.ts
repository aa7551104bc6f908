import {existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {LockBusyError, withFileLock} from '../../src/util/file-lock.js'

let dir: string
let lock: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mfg-lock-'))
  lock = join(dir, 'config.json.lock')
})
afterEach(() => rmSync(dir, {recursive: true, force: true}))

/** A pid no process has: a child's, after it ended. */
async function deadPid(): Promise<number> {
  const {spawn} = await import('node:child_process')
  const child = spawn(process.execPath, ['-e', ''])
  await new Promise((done) => child.on('close', done))
  return child.pid!
}

describe('withFileLock', () => {
  it('holds the lock file while the work runs and removes it after, also on a throw', () => {
    expect(withFileLock(lock, () => existsSync(lock))).toBe(true)
    expect(existsSync(lock)).toBe(false)
    expect(() =>
      withFileLock(lock, () => {
        throw new Error('boom')
      }),
    ).toThrow('boom')
    expect(existsSync(lock)).toBe(false)
  })

  it('takes over a lock left by a process that is gone', async () => {
    writeFileSync(lock, JSON.stringify({pid: await deadPid(), token: 'x'}))
    expect(withFileLock(lock, () => 'done')).toBe('done')
    expect(existsSync(lock)).toBe(false)
  })

  it('takes over a lock left half written, or held by a live pid for an hour (a pid used again)', () => {
    const hourAgo = new Date(Date.now() - 3_600_000)
    for (const content of ['', JSON.stringify({pid: process.ppid, token: 'old'})]) {
      writeFileSync(lock, content)
      utimesSync(lock, hourAgo, hourAgo)
      expect(withFileLock(lock, () => 'done')).toBe('done')
      expect(readdirSync(dir)).toEqual([])
    }
  })

  it('names the lock file when a live process keeps it, and leaves that lock alone', () => {
    writeFileSync(lock, JSON.stringify({pid: process.ppid, token: 'theirs'}))
    let error: unknown
    try {
      withFileLock(lock, () => 'never', {ms: 50})
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(LockBusyError)
    expect((error as Error).message).toBe(`the lock file ${lock} is held by process ${process.ppid}`)
    expect(existsSync(lock)).toBe(true)
  })
})
