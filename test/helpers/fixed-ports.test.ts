// The lock that keeps the two test files listening on fixed ports apart
// (test/helpers/fixed-ports.ts): one holder at a time, and a lock left by a
// process that ended is taken over.
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {holdFixedPorts} from './fixed-ports.js'

const dir = mkdtempSync(join(tmpdir(), 'mfg-fixed-ports-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

describe('holdFixedPorts', () => {
  it('lets one holder at a time in, the next once the first gives it back', async () => {
    const lock = join(dir, 'one-at-a-time')
    const order: string[] = []
    const releaseFirst = await holdFixedPorts(5_000, lock)
    order.push('first in')
    const second = holdFixedPorts(5_000, lock).then((release) => {
      order.push('second in')
      return release
    })
    await new Promise((done) => setTimeout(done, 500))
    expect(order).toEqual(['first in'])
    order.push('first out')
    releaseFirst()
    const releaseSecond = await second
    expect(order).toEqual(['first in', 'first out', 'second in'])
    releaseSecond()
    expect(existsSync(lock)).toBe(false)
  })

  it('takes over a lock whose holder has ended, and gives up on a live one after its wait', async () => {
    const lock = join(dir, 'stale')
    const gone = spawnSync(process.execPath, ['-p', 'process.pid'], {encoding: 'utf8'})
    mkdirSync(lock)
    writeFileSync(join(lock, 'pid'), gone.stdout.trim())
    const release = await holdFixedPorts(5_000, lock)
    await expect(holdFixedPorts(300, lock)).rejects.toThrow(`still held by process ${process.pid}`)
    release()
  })
})
