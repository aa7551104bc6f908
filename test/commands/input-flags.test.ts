// A path that cannot be read is named by the flag it came from (issue 18: errors said
// `cannot read --file` when --ids-file or --input was given).
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCli} from '../helpers/cli.js'

let home: string
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mfg-flags-'))
})
afterAll(() => rmSync(home, {recursive: true, force: true}))

describe('an unreadable path names its own flag', () => {
  const missing = '/nonexistent/mfg-input.txt'
  it.each([
    {argv: ['demand', 'list', '--ids-file', missing], flag: '--ids-file'},
    {argv: ['mcp', 'call', 'estimate_price', '--input', missing], flag: '--input'},
    {argv: ['api', 'POST', '/api/public/v1/demand/x/quotes', '--input', missing], flag: '--input'},
    {argv: ['demand', 'create', '--file', missing], flag: '--file'},
    {argv: ['demand', 'update', '65f000060000000000000011', '--file', missing], flag: '--file'},
  ])('$argv.0 $argv.1 $flag', async ({argv, flag}) => {
    const r = await runCli(argv, {env: {MFG_HOME: home}})
    expect(r.exitCode, r.stderr).toBe(2)
    expect(r.stderr.trim()).toBe(`Error: cannot read ${flag} ${missing}: no such file`)
  })
})

describe('an unwritable path names its own flag', () => {
  it.each([
    {
      flag: '--errors',
      says: 'cannot write --errors /nonexistent/mfg-errors.ndjson: no such directory. Nothing was sent.',
    },
    {flag: '--out', says: 'cannot write --out /nonexistent/mfg-errors.ndjson'},
  ])('demand create $flag', async ({flag, says}) => {
    const rows = join(home, 'rows.json')
    writeFileSync(rows, JSON.stringify([{technique: 'PCB', material: 'FR4'}, {technique: 'PCB'}]))
    const r = await runCli(
      ['demand', 'create', '--file', rows, '--skip-invalid', flag, '/nonexistent/mfg-errors.ndjson'],
      {env: {MFG_HOME: home}},
    )
    expect(r.exitCode, r.stderr).toBe(2)
    expect(r.stderr).toContain(says)
    expect(r.stderr).not.toMatch(/ENOENT|\n\s+at /)
  })
})
