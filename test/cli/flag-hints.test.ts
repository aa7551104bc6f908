// A flag the command does not have is refused before anything runs (exit 2), as
// oclif refuses it, with the flag it probably is: the command's own, a global one,
// --json, or the --no- form of a boolean; a value a flag does not allow, with the
// allowed ones and the one probably meant.
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {runCli} from '../helpers/cli.js'
import {useTempDirs} from '../helpers/temp.js'

const tempDir = useTempDirs('mfg-flag-hints-')

async function refused(argv: string[]): Promise<string> {
  const r = await runCli(argv, {env: {MFG_HOME: join(tempDir(), 'home')}})
  expect(r.exitCode, r.stderr).toBe(2)
  expect(r.stdout).toBe('')
  return r.stderr
}

describe('misspelt flags', () => {
  it('names the flag each misspelt one probably is', async () => {
    expect(await refused(['demand', 'list', '--limt', '3'])).toContain(
      'Nonexistent flag: --limt (did you mean --limit?)\nSee more help with --help',
    )
    expect(await refused(['demand', 'create', '--tecnique', 'PCB', '--materal=FR4'])).toContain(
      'Nonexistent flags: --tecnique (did you mean --technique?), --materal=FR4 (did you mean --material?)',
    )
    expect(await refused(['demand', 'list', '--jsn'])).toContain('--jsn (did you mean --json?)')
    expect(await refused(['demand', 'list', '--debgu'])).toContain('--debgu (did you mean --debug?)')
  })

  it('leaves the refusal as oclif words it when no flag is close', async () => {
    const stderr = await refused(['demand', 'list', '--zzzzzz'])
    expect(stderr).toContain('Nonexistent flag: --zzzzzz\n')
    expect(stderr).not.toContain('did you mean')
  })

  it('a value its flag does not allow: the allowed ones, and the one probably meant', async () => {
    expect(
      await refused(['demand', 'create', '--technique', 'CNC_MACHINNG', '--material', 'x', '--dry-run']),
    ).toContain(
      '--technique: "CNC_MACHINNG" is not allowed (allowed: 3D_PRINTING, CNC_MACHINING, SHEET_METAL, PCB); did you mean CNC_MACHINING?',
    )
    const far = await refused(['demand', 'list', '--status', 'zzz'])
    expect(far).toContain('--status: "zzz" is not allowed (allowed: quote_sent, ')
    expect(far).not.toContain('did you mean')
  })

  it('a required flag left out is named as typed, with what it takes', async () => {
    const stderr = await refused(['webhook', 'create', '--url', 'http://127.0.0.1:9'])
    expect(stderr).toContain('Missing required flag --events: Comma-separated events: order_placed, ')
    expect(stderr).not.toContain('The following error')
    // One with a fixed set of values its description does not list names them.
    expect(await refused(['mcp', 'config'])).toContain(
      'Missing required flag --client: The assistant: one of claude, cursor, vscode, generic',
    )
  })

  it('two flags that exclude each other are named as typed', async () => {
    const stderr = await refused(['demand', 'list', '--all', '--page', '2'])
    expect(stderr).toContain('--page cannot be used with --all: pass one of them\nSee more help with --help')
    expect(stderr).not.toContain('=true')
    const {error} = JSON.parse(await refused(['demand', 'list', '--json', '--csv'])) as {error: {message: string}}
    expect(error.message).toMatch(/^--(csv|json) cannot be used with --(json|csv): pass one of them\n/)
  })

  it('under --json, the refusal is the JSON error with the hint', async () => {
    const stderr = await refused(['profile', 'list', '--json', '--colums', 'name'])
    const {error} = JSON.parse(stderr) as {error: {code: string; message: string}}
    expect(error.code).toBe('usage')
    expect(error.message).toContain('--colums (did you mean --columns?)')
  })
})
