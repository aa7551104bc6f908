import {afterAll, beforeAll, expect, it} from 'vitest'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {mulberry32} from '../../src/sandbox/faults.js'
import type {RunningSandbox} from '../../src/sandbox/index.js'
import {cliEnv, json, runCli} from '../helpers/cli.js'
import {startTestSandbox} from '../helpers/sandbox.js'

/** A seed whose first write request is committed and then left unanswered, and whose second is served. */
function lostThenServed(rate: number): number {
  for (let seed = 0; ; seed++) {
    const draw = mulberry32(seed)
    // Each request draws once (fault or not), and a fault draws its kind (one kind here).
    if (draw() >= rate) continue
    draw()
    if (draw() >= rate) return seed
  }
}

let sandbox: RunningSandbox
let home: string
beforeAll(async () => {
  sandbox = await startTestSandbox({faults: {rate: 0.5, seed: lostThenServed(0.5), kinds: ['commit_then_drop']}})
  home = mkdtempSync(join(tmpdir(), 'mfg-delete-'))
})
afterAll(async () => {
  await sandbox.close()
  rmSync(home, {recursive: true, force: true})
})

it('a delete whose answer was lost is sent again, and the conflict it meets is read back as done', async () => {
  // The demo business's demand in quote_sent (seeded).
  const id = '65f000060000000000000002'
  const r = await runCli(['demand', 'delete', id, '--yes', '--json'], {env: cliEnv(sandbox, home)})
  expect(r.exitCode, r.stderr).toBe(0)
  expect(json(r)).toMatchObject({_id: id, status: 'Cancelled', archive: true})
  expect(sandbox.faultStats().injected.commit_then_drop).toBe(1)
  expect(sandbox.faultStats().writeRequests).toBe(2)
})
