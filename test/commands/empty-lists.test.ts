// A list with no results says so on stderr in table mode, prints nothing on stdout, and
// `[]` under --json (issue 18: it printed nothing at all).
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCli} from '../helpers/cli.js'

let home: string
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mfg-empty-'))
})
afterAll(() => rmSync(home, {recursive: true, force: true}))

describe('empty lists on a fresh home (the embedded sandbox)', () => {
  it.each([
    {argv: ['demand', 'list', '--archived'], says: 'No demands match.'},
    {argv: ['post', 'list', '--tags', 'no-such-tag'], says: 'No products match.'},
    {argv: ['webhook', 'list'], says: 'No webhook subscriptions; create one with mfg webhook create.'},
  ])('$argv.0 $argv.1 $argv.2', async ({argv, says}) => {
    const table = await runCli(argv, {env: {MFG_HOME: home}})
    expect(table.exitCode, table.stderr).toBe(0)
    expect(table.stdout).toBe('')
    expect(table.stderr.trim()).toBe(says)
    const asJson = await runCli([...argv, '--json'], {env: {MFG_HOME: home}})
    expect(asJson.exitCode, asJson.stderr).toBe(0)
    expect(asJson.stdout.trim()).toBe('[]')
    expect(asJson.stderr).toBe('')
  })
})
