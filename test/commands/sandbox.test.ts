import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {json, jsonLines, runCli} from '../helpers/cli.js'

const home = mkdtempSync(join(tmpdir(), 'mfg-reset-'))
afterAll(() => rmSync(home, {recursive: true, force: true}))

describe('mfg sandbox reset', () => {
  it('needs --yes without a terminal, then wipes and reseeds the embedded data', async () => {
    const env = {MFG_HOME: home}
    const created = await runCli(['demand', 'create', '--technique', 'PCB', '--material', 'FR4', '--json'], {env})
    expect(created.exitCode, created.stderr).toBe(0)
    const before = jsonLines(await runCli(['demand', 'list', '--all', '--json'], {env})).length

    const refused = await runCli(['sandbox', 'reset'], {env})
    expect(refused.exitCode).toBe(2)
    expect(refused.stderr).toMatch(/--yes/)

    const reset = await runCli(['sandbox', 'reset', '--yes', '--json'], {env})
    expect(reset.exitCode, reset.stderr).toBe(0)
    expect(json(reset)).toMatchObject({reset: true, dataDir: join(home, 'sandbox')})
    const after = jsonLines(await runCli(['demand', 'list', '--all', '--json'], {env})).length
    expect(after).toBe(before - 1)
  })
})
