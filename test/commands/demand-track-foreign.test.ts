// `demand track` against a service whose tracking entries lack their dates (the foreign
// server's trackingNoDate): every stage the demand went through is still listed.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {json, runCli} from '../helpers/cli.js'
import {foreignEnv, startForeignServer, type ForeignServer} from '../foreign/server.js'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

let server: ForeignServer
let home: string

beforeAll(async () => {
  server = await startForeignServer({trackingNoDate: true})
  home = mkdtempSync(join(tmpdir(), 'mfg-track-foreign-'))
})

afterAll(async () => {
  await server.close()
  rmSync(home, {recursive: true, force: true})
})

const run = (argv: string[]) => runCli(argv, {env: foreignEnv(server, home)})

describe('demand track, tracking entries without a date', () => {
  it('lists each stage in order, the undated ones with a blank date', async () => {
    const id = server.seed.demandIds[0]!
    expect((await run(['demand', 'stage', id, 'In Review'])).exitCode).toBe(0)
    expect((await run(['demand', 'stage', id, 'In Production'])).exitCode).toBe(0)

    const asJson = await run(['demand', 'track', id, '--json'])
    expect(asJson.exitCode).toBe(0)
    const steps = json<{steps: {stage?: string; status: string; date?: number}[]}>(asJson).steps
    expect(steps.map((s) => s.stage)).toEqual(['quote_sent', 'special_verified', 'special_accepted'])
    expect(typeof steps[0]!.date).toBe('number')
    expect(steps.slice(1).map((s) => 'date' in s)).toEqual([false, false])

    const table = await run(['demand', 'track', id])
    expect(table.exitCode).toBe(0)
    const rows = table.stdout.trim().split('\n')
    expect(rows[0]).toMatch(/^stage\s+tracking\s+date$/)
    expect(rows[1]).toMatch(/^quote_sent\s+quote sent\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    expect(rows[2]).toMatch(/^special_verified\s+special verified$/)
    expect(rows[3]).toMatch(/^special_accepted\s+special accepted$/)
    expect(table.stderr).not.toMatch(/undefined|NaN|Invalid/)
  })
})
