// An unknown command typed at a real terminal (util-linux `script` gives the CLI a
// pseudo-terminal as stdin, stdout and stderr, as a user's shell would), with and
// without its output piped. @oclif/plugin-not-found asks "Did you mean …?" on stdout
// whenever stdin is a terminal; piped, that question would go down the pipe and the
// command would wait for an answer nobody sees (src/cli/not-found.ts).
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {stripVTControlCharacters} from 'node:util'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

const root = resolve(import.meta.dirname, '../..')
const cli = `'${process.execPath}' '${join(root, 'bin/run.js')}'`
let home: string

/**
 * Runs a shell command line under `script`, which hands it to the user's $SHELL (often
 * /bin/sh, so the line keeps to POSIX sh); answers the transcript and the exit code.
 */
function inTerminal(line: string, keys = ''): Promise<{code: number | null; shown: string}> {
  const env: NodeJS.ProcessEnv = {...process.env, MFG_HOME: home, TERM: 'xterm'}
  delete env.CI
  const child = spawn('script', ['--quiet', '--return', '--command', line, '/dev/null'], {env})
  let raw = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (chunk: string) => {
    raw += chunk
    // Answers the plugin's question once it is shown.
    if (keys && stripVTControlCharacters(raw).includes('Did you mean')) {
      child.stdin.write(keys)
      keys = ''
    }
  })
  return new Promise((done, fail) => {
    child.on('error', fail)
    child.on('close', (code) => done({code, shown: stripVTControlCharacters(raw)}))
  })
}

/** `command | cat > out`, exiting with the command's own status (no bash PIPESTATUS in sh). */
function piped(command: string, out: string): string {
  const status = `${out}.status`
  return `(${command}; echo $? > '${status}') | cat > '${out}'; exit "$(cat '${status}')"`
}

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mfg-not-found-'))
})
afterAll(() => rmSync(home, {recursive: true, force: true}))

describe('an unknown command at a terminal', () => {
  it('with stdout piped: nothing goes down the pipe, no question is asked, exit 127', async () => {
    const out = join(home, 'piped.txt')
    const r = await inTerminal(piped(`${cli} demand lst --json`, out))
    expect(r.code).toBe(127)
    expect(readFileSync(out, 'utf8')).toBe('')
    expect(r.shown).toContain('demand lst is not a mfg command.')
    // Not asked (that would wait for an answer nobody sees): told.
    const unwrapped = r.shown.replace(/\s*\n\s*›\s+/g, ' ')
    expect(unwrapped).toContain('Did you mean mfg demand list or mfg demand get? Run mfg help demand for a list of')
    expect(r.shown).not.toMatch(/\(Y\/n\)/)
  })

  it('with stdout piped, a command that exists runs as always', async () => {
    const out = join(home, 'known.txt')
    const r = await inTerminal(piped(`${cli} profile list --json`, out))
    expect(r.code).toBe(0)
    expect(JSON.parse(readFileSync(out, 'utf8'))).toContainEqual(expect.objectContaining({name: 'local'}))
  })

  it('a terminal throughout: @oclif/plugin-not-found asks, and runs the command it suggests', async () => {
    const r = await inTerminal(`${cli} demand lst --page-size 1`, 'y\r')
    expect(r.shown).toContain('demand lst is not a mfg command.')
    expect(r.shown).toMatch(/Did you mean demand list\?/)
    expect(r.code).toBe(0)
    expect(r.shown).toContain('orderNumber')
  })
})
