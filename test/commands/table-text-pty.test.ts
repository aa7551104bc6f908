// Buyers' text in tables on a real pseudo-terminal (test/helpers/pty.ts) a set width:
// a cell cut to fit ends between the characters the terminal draws (never inside a
// family emoji's ZWJ sequence), and bidirectional overrides are shown escaped.
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, expect, it} from 'vitest'

import {json, runBuiltCli} from '../helpers/cli.js'
import {inTerminal} from '../helpers/pty.js'

const FAMILY = '\u{1f469}\u200d\u{1f469}\u200d\u{1f467}\u200d\u{1f466}'
let home: string
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mfg-text-'))
})
afterAll(() => rmSync(home, {recursive: true, force: true}))

it('demand list at 20 columns cuts a row of family emoji between families; demand get escapes U+202E', async () => {
  const created = await runBuiltCli(
    [
      'demand',
      'create',
      '--technique',
      '3D_PRINTING',
      '--material',
      'PLA',
      '--quantity',
      '1',
      '--email',
      'fam@example.com',
      '--first-name',
      FAMILY.repeat(12),
      '--last-name',
      '\u202eevil',
      '--json',
    ],
    {env: {MFG_HOME: home}},
  )
  expect(created.exitCode, created.stderr).toBe(0)
  const {id} = json<{results: {id: string}[]}>(created).results[0]!

  const list = inTerminal(['demand', 'list', '--limit', '1', '--columns', 'firstName'], {MFG_HOME: home}, 20)
  const listed = await list.exited
  expect(listed.code, listed.shown).toBe(0)
  const cell = listed.shown.split('\n').find((line) => line.includes('\u{1f469}'))
  // Each family is drawn as one picture two columns wide: nine of them and the ellipsis fill 19 columns.
  expect(cell?.trimEnd()).toBe(`${FAMILY.repeat(9)}…`)

  const got = await inTerminal(['demand', 'get', id], {MFG_HOME: home}).exited
  expect(got.code, got.shown).toBe(0)
  expect(got.shown).toContain('\\u202eevil')
  expect(got.shown).not.toContain('\u202e')
})

it('demand track fits its tables to a 30-column terminal, the dates whole', async () => {
  const {code, shown} = await inTerminal(['demand', 'track', '65f000060000000000000011'], {MFG_HOME: home}, 30).exited
  expect(code, shown).toBe(0)
  const dated = shown.split(/\r?\n/).filter((line) => /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/.test(line))
  expect(dated.length, shown).toBeGreaterThan(3)
  for (const line of dated) expect(line.trimEnd().length, line).toBeLessThanOrEqual(30)
  // Both its tables are records there; the note says so once, naming no flag the command lacks.
  const notes = shown.split(/\r?\n/).filter((line) => line.includes('shown as records'))
  expect(notes, shown).toEqual([
    "The table's 3 columns do not fit 30 characters; shown as records. A wider terminal shows the table; piped output (| less -S) is never cut.",
  ])
})

it('demand list --wide on an 80-column terminal shows each demand as a record, and says why on stderr', async () => {
  const stderr = join(home, 'wide.err')
  const {code, shown} = await inTerminal(['demand', 'list', '--wide'], {MFG_HOME: home}, 80, stderr).exited
  expect(code, shown).toBe(0)
  expect(readFileSync(stderr, 'utf8').trim().split('\n')).toEqual([
    "The table's 14 columns do not fit 80 characters; shown as records. --columns chooses fewer, --no-truncate prints the table uncut.",
  ])
  const lines = shown.split(/\r?\n/).filter((line) => line !== '')
  // No cell of a lone '…': a numbered rule, then each of the 14 fields on its own line, keys
  // aligned (the longest, shippingAddress.country, and two spaces), values whole.
  const fields = ['orderNumber', '_id', 'type', 'status', 'technique', 'material', 'priceTotal', 'currency']
  fields.push(
    'createdAt',
    'paymentStatus',
    'uniqueItems',
    'shippingAddress.city',
    'shippingAddress.country',
    'updatedAt',
  )
  expect(lines[0], shown).toMatch(/^-\[ 1 \]-+$/)
  expect(lines[15], shown).toMatch(/^-\[ 2 \]-+$/)
  const record = lines.slice(1, 15)
  expect(
    record.map((line) => line.slice(0, 25).trimEnd()),
    shown,
  ).toEqual(fields)
  expect(record[1], shown).toMatch(/^_id {22}[0-9a-f]{24}$/)
  expect(record[8], shown).toMatch(/ \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
  expect(lines.filter((line) => /^-\[ \d+ \]-+$/.test(line)).length * 15, shown).toBe(lines.length)
  for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80)
  expect(shown).not.toMatch(/(^| )…( |$)/m)
})
