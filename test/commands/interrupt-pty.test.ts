// Ctrl-C on a real pseudo-terminal (test/helpers/pty.ts) while a command talks to the
// embedded sandbox, which runs in the CLI's own process and closes when it is interrupted.
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, expect, it} from 'vitest'

import {inTerminal} from '../helpers/pty.js'

let home: string
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mfg-int-'))
})
afterAll(() => rmSync(home, {recursive: true, force: true}))

it('Ctrl-C during post upload exits 130 with "Interrupted." and no error about the cut connection', async () => {
  // A binary STL of 1,000,000 triangles (48 MiB, just under the upload limit): long enough to be mid-send.
  const file = join(home, 'plate.stl')
  const stl = Buffer.alloc(84 + 1_000_000 * 50)
  stl.writeUInt32LE(1_000_000, 80)
  writeFileSync(file, stl)
  const t = inTerminal(['post', 'upload', file], {MFG_HOME: home})
  await t.waitFor('MiB')
  t.type('\u0003')
  const {code, shown} = await t.exited
  expect(shown).toContain('Interrupted.')
  expect(shown).not.toContain('Error')
  expect(code, shown).toBe(130)
})

it('under --json, Ctrl-C mid-command is said as the JSON error a prompt interrupted says', async () => {
  const file = join(home, 'plate-json.stl')
  const stl = Buffer.alloc(84 + 1_000_000 * 50)
  stl.writeUInt32LE(1_000_000, 80)
  writeFileSync(file, stl)
  const t = inTerminal(['post', 'upload', file, '--json'], {MFG_HOME: home})
  await t.waitFor('MiB')
  t.type('\u0003')
  const {code, shown} = await t.exited
  expect(shown).toContain('{"error":{"code":"interrupted","message":"Interrupted."}}')
  expect(code, shown).toBe(130)
})
