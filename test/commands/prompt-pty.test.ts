// The prompts on a real pseudo-terminal. The built CLI runs under util-linux
// `script`, which opens a pty and makes it the CLI's stdin, stdout and stderr:
// the CLI sees a terminal as a user's shell would give it (raw mode, echo off
// for hidden input, cursor movement), nothing of @inquirer/prompts is replaced.
// The test types keys into the pty and reads what the terminal shows.
// test/commands/price-interactive.test.ts walks the long prompt sequences on
// virtual streams; this file proves the same prompts against a real terminal.
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {maskSecret} from '../../src/schemas/secrets.js'
import {json, runCli, startCliSandbox, type CliSandbox} from '../helpers/cli.js'
import {inTerminal} from '../helpers/pty.js'

const DOWN = '\u001b[B'
const ENTER = '\r'

let sb: CliSandbox
let home: string
beforeAll(async () => {
  sb = await startCliSandbox()
  home = mkdtempSync(join(tmpdir(), 'mfg-pty-'))
})
afterAll(async () => {
  rmSync(home, {recursive: true, force: true})
  await sb.close()
})

describe('prompts on a pseudo-terminal', () => {
  it('profile add: text and hidden prompts store what was typed, and the key is never shown', async () => {
    const key = `pk_business_${'7f3a'.repeat(8)}`
    const token = 'tok_pty_5e1d9c0b2a'
    const t = inTerminal(['profile', 'add', 'shop'], {MFG_HOME: home})
    await t.waitFor('Base URL:')
    // A typo is answered at its own prompt, before the key is pasted.
    t.type(`htp:/typo${ENTER}`)
    await t.waitFor('The base URL must be an http(s) URL such as https://api.example.com')
    for (let i = 0; i < 'htp:/typo'.length; i++) t.type('\u007f')
    t.type(`https://api.example.com${ENTER}`)
    await t.waitFor('API key:')
    t.type(`${key}${ENTER}`)
    await t.waitFor('v2 auth token (empty to skip):')
    t.type(`${token}${ENTER}`)
    await t.waitFor('Business id:')
    t.type(`64f0c2${ENTER}`)
    const {code, shown} = await t.exited
    expect(code, shown).toBe(0)
    expect(shown).toContain('Saved profile "shop"')
    // Hidden input: the terminal showed a mask, never the characters typed.
    expect(shown).not.toContain(key)
    expect(shown).not.toContain(token)
    expect(shown).toContain('*'.repeat(key.length))

    const stored = await runCli(['profile', 'show', 'shop', '--json'], {env: {MFG_HOME: home}})
    expect(stored.exitCode, stored.stderr).toBe(0)
    expect(json(stored)).toMatchObject({
      name: 'shop',
      baseUrl: 'https://api.example.com',
      businessId: '64f0c2',
      apiKey: maskSecret(key),
      authToken: maskSecret(token),
    })
  })

  it('profile remove: a confirmation answered no keeps the profile, yes removes it', async () => {
    const added = await runCli(
      [
        'profile',
        'add',
        'old',
        '--base-url',
        'https://old.example.com',
        '--api-key',
        'pk_business_0ld',
        '--business-id',
        'b1',
      ],
      {env: {MFG_HOME: home}},
    )
    expect(added.exitCode, added.stderr).toBe(0)

    /** Answers the confirmation of `profile remove old` with `key` on the terminal; what it showed. */
    const answerRemove = async (key: string) => {
      const term = inTerminal(['profile', 'remove', 'old'], {MFG_HOME: home})
      await term.waitFor('Remove profile "old"?')
      term.type(`${key}${ENTER}`)
      const done = await term.exited
      expect(done.code, done.shown).toBe(0)
      return done.shown
    }
    expect(await answerRemove('n')).toContain('Not removed.')
    expect((await runCli(['profile', 'show', 'old'], {env: {MFG_HOME: home}})).exitCode).toBe(0)
    expect(await answerRemove('y')).toContain('Removed profile "old"')
    expect((await runCli(['profile', 'show', 'old'], {env: {MFG_HOME: home}})).exitCode).not.toBe(0)
  })

  it('demand create: a select moved with the arrow key and a text answer make the quote that is sent', async () => {
    const t = inTerminal(['demand', 'create', '--json'], sb.env())
    await t.waitFor('Technique:')
    await t.waitFor('❯ 3D_PRINTING')
    t.type(DOWN)
    await t.waitFor('❯ CNC_MACHINING')
    t.type(ENTER)
    await t.waitFor('Material:')
    t.type(`Aluminium 6061${ENTER}`)
    const {code, shown} = await t.exited
    expect(code, shown).toBe(0)
    const id = /"id":\s*"([0-9a-f]{24})"/.exec(shown)?.[1]
    expect(id, shown).toBeDefined()

    const got = await runCli(['demand', 'get', id!, '--json'], {env: sb.env()})
    expect(got.exitCode, got.stderr).toBe(0)
    expect(json(got)).toMatchObject({technique: 'CNC_MACHINING', material: 'Aluminium 6061'})
  })

  it('price estimate: the part file prompt completes a path with Tab, as a shell does', async () => {
    const t = inTerminal(
      ['price', 'estimate', '--service', '3D_PRINTING', '--technology', 'FDM', '--material', 'PLA'],
      {
        ...sb.env(),
      },
    )
    // Colour, quantity and the options: their first choice or default.
    for (const prompt of ['Colour:', 'Quantity:', 'lead time:', 'infill:', 'finishing:']) {
      await t.waitFor(prompt)
      t.type(ENTER)
    }
    await t.waitFor('Part file')
    t.type('exampl\t')
    await t.waitFor('examples/')
    // Two part files there: Tab lists them.
    t.type('\t')
    await t.waitFor('examples/part.stl')
    t.type('b\t')
    await t.waitFor('examples/bracket.stl')
    t.type(ENTER)
    const {code, shown} = await t.exited
    expect(code, shown).toBe(0)
    expect(shown).toMatch(/--part examples\/bracket\.stl/)
    expect(shown).toMatch(/price\s+\d+\.\d\d EUR/)
  })

  it('Ctrl-C at any kind of prompt: exit 130, one short line, no trace, nothing written', async () => {
    const CTRL_C = '\u0003'
    const own = mkdtempSync(join(tmpdir(), 'mfg-pty-int-'))
    try {
      // A text prompt, a hidden prompt (after one answer) and a select.
      const cases: {argv: string[]; before: string[]; at: string}[] = [
        {argv: ['profile', 'add', 'shop'], before: [], at: 'Base URL:'},
        {argv: ['profile', 'add', 'shop'], before: [`https://api.example.com${ENTER}`], at: 'API key:'},
        {argv: ['price', 'estimate'], before: [], at: 'Service:'},
      ]
      for (const c of cases) {
        const t = inTerminal(c.argv, {MFG_HOME: own})
        await t.waitFor(c.argv[0] === 'profile' ? 'Base URL:' : c.at)
        for (const keys of c.before) {
          t.type(keys)
          await t.waitFor(c.at)
        }
        t.type(CTRL_C)
        const {code, shown} = await t.exited
        expect(code, shown).toBe(130)
        const after = shown.slice(shown.lastIndexOf(c.at) + c.at.length)
        expect(after).toContain('Interrupted.')
        expect(shown).not.toMatch(/force closed|Error:|\n\s+at /)
        const listed = await runCli(['profile', 'list', '--json'], {env: {MFG_HOME: own}})
        expect(listed.stdout, c.argv.join(' ')).not.toContain('shop')
      }
    } finally {
      rmSync(own, {recursive: true, force: true})
    }
  })
})
