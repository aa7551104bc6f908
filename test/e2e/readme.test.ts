// The README is an executed tutorial: every shell command of its ```sh blocks runs here,
// in the page's order, as a newcomer would type it on a fresh machine: a new MFG_HOME
// (so the embedded sandbox), no terminal (stdin empty, CI set), the built CLI as
// `./bin/run.js` and as `mfg` on PATH. Each must exit 0, or the status its comment
// states (`exits N`), and print no stack trace and no "undefined". A command added to
// the page that does not run fails this test.
//
// What the page marks, in a command's comment:
// - `[runs until Ctrl-C]`: a server. It is started, waited for (its first output), left
//   running for the rest of its block, then stopped with SIGINT (exit 0 or 130).
// - `[a real account]`: needs the user's own service. It runs against a standalone
//   sandbox (`mfg sandbox serve --memory`): https://api.example.com is its URL, and
//   API_KEY, AUTH_TOKEN and BUSINESS_ID are its demo business's.
// What the test itself takes as done: `npm ci` (the checkout is installed and built), and
// `npm test`, which is the run this test is part of. `npx mfg`, where the page says it
// (the published package, run once), is run as `mfg`.
import {spawn, spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {FIXED_PORTS_WAIT_MS, holdFixedPorts} from '../helpers/fixed-ports.js'
import {serveSandbox, type Served} from '../helpers/serve.js'

const root = resolve(import.meta.dirname, '../..')
const bin = join(root, 'bin/run.js')

export interface PageCommand {
  /** 1-based line of the page where the command starts. */
  line: number
  /** The command as the shell gets it (continuation lines joined). */
  text: string
  /** Its comment, without the `#`. */
  comment: string
  /** The block it belongs to (its index among the page's sh blocks). */
  block: number
  exit: number
  server: boolean
  account: boolean
}

/** The shell commands of a Markdown page's ```sh blocks, with what their comments mark. */
export function pageCommands(markdown: string): PageCommand[] {
  const lines = markdown.split('\n')
  const commands: PageCommand[] = []
  let block = -1
  let inBlock = false
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!
    if (!inBlock) {
      if (/^```(sh|bash|shell)\s*$/.test(raw)) {
        inBlock = true
        block++
      }
      continue
    }
    if (raw.startsWith('```')) {
      inBlock = false
      continue
    }
    if (raw.trim() === '' || raw.trim().startsWith('#')) continue
    const start = i
    let text = raw
    while (text.endsWith('\\') && i + 1 < lines.length) text = `${text.slice(0, -1)} ${lines[++i]!.trim()}`
    // A comment starts at a `#` after white space (none of the page's commands quote one so).
    const at = text.search(/\s#\s/)
    const comment = at === -1 ? '' : text.slice(at).replace(/^\s*#\s*/, '')
    const command = (at === -1 ? text : text.slice(0, at)).trim()
    commands.push({
      line: start + 1,
      text: command,
      comment,
      block,
      exit: Number(/\bexits (\d+)/.exec(comment)?.[1] ?? 0),
      server: comment.includes('[runs until Ctrl-C]'),
      account: comment.includes('[a real account]'),
    })
  }
  return commands
}

/** A stack trace's frame, as Node prints one. */
const STACK_FRAME = /^\s+at .+(:\d+:\d+\)?|\(native\)|\(<anonymous>\))$/

describe('the README, run as written', () => {
  const page = readFileSync(join(root, 'README.md'), 'utf8')
  const commands = pageCommands(page)
  const home = mkdtempSync(join(tmpdir(), 'mfg-readme-home-'))
  // The directory the newcomer works in: the checkout's bin/ and examples/, and room for
  // the files the commands write (results.ndjson, parts/, stored-ids.txt...).
  const work = mkdtempSync(join(tmpdir(), 'mfg-readme-work-'))
  symlinkSync(join(root, 'bin'), join(work, 'bin'))
  symlinkSync(join(root, 'examples'), join(work, 'examples'))
  const shims = mkdtempSync(join(tmpdir(), 'mfg-readme-bin-'))
  symlinkSync(bin, join(shims, 'mfg'))
  // Variables the commands set (ID=..., export ...) carry over to the next, as in one shell.
  const state = join(work, '.readme-state')
  writeFileSync(state, '')

  const {NODE_ENV: _test, ...inherited} = process.env
  for (const k of Object.keys(inherited)) if (k.startsWith('MFG_')) delete inherited[k]
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    MFG_HOME: home,
    PATH: `${shims}:${process.env.PATH}`,
    CI: 'true',
    NO_COLOR: '1',
  }

  let served: Served
  let release: (() => void) | undefined

  beforeAll(async () => {
    release = await holdFixedPorts()
    for (const [tool, arg] of [
      ['jq', '--version'],
      ['openssl', 'version'],
    ] as const) {
      if (spawnSync(tool, [arg]).status !== 0) throw new Error(`${tool} is needed for the README test`)
    }
    const sandboxHome = mkdtempSync(join(tmpdir(), 'mfg-readme-standalone-'))
    served = await serveSandbox([], {...env, MFG_HOME: sandboxHome})
  }, FIXED_PORTS_WAIT_MS)

  afterAll(async () => {
    release?.()
    await served?.stop()
    for (const dir of [home, work, shims]) rmSync(dir, {recursive: true, force: true})
  })

  /** What the test runs for a command of the page (see the head of this file). */
  function asRun(c: PageCommand): string | undefined {
    let text = c.text.replace(/^npm ci && /, '').replace(/^npx mfg\b/, 'mfg')
    if (text === 'npm test') return undefined
    if (c.account) text = text.replaceAll('https://api.example.com', served.url)
    return text
  }

  function accountEnv(c: PageCommand): NodeJS.ProcessEnv {
    if (!c.account) return {}
    const demo = served.businesses[0]!
    return {API_KEY: demo.apiKey, AUTH_TOKEN: demo.authToken, BUSINESS_ID: demo.id}
  }

  /** Problems in what a command printed: a stack trace, or "undefined". */
  function problems(out: string, err: string): string[] {
    const found: string[] = []
    for (const line of err.split('\n')) {
      if (STACK_FRAME.test(line)) found.push(`a stack trace on stderr: ${line.trim()}`)
      if (/\bundefined\b/.test(line)) found.push(`"undefined" on stderr: ${line.trim()}`)
    }
    for (const line of out.split('\n')) if (/\bundefined\b/.test(line)) found.push(`"undefined" on stdout: ${line}`)
    return found
  }

  /** Starts a `[runs until Ctrl-C]` command and resolves once it has printed something. */
  async function startServer(
    c: PageCommand,
    text: string,
  ): Promise<{stop: () => Promise<{code: number | null; out: string; err: string}>}> {
    // exec: the shell becomes the server, so SIGINT reaches it as Ctrl-C would.
    const child = spawn('bash', ['-c', `set -a; . "${state}"; exec ${text}`], {
      cwd: work,
      env: {...env, ...accountEnv(c)},
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)))
    const ready = new Promise<void>((ok, fail) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8')
        ok()
      })
      child.stderr.on('data', (chunk: Buffer) => {
        err += chunk.toString('utf8')
        ok()
      })
      void exited.then((code) => fail(new Error(`line ${c.line}: \`${c.text}\` exited (${code}) at once:\n${err}`)))
      setTimeout(() => fail(new Error(`line ${c.line}: \`${c.text}\` printed nothing in 30 s`)), 30_000).unref()
    })
    await ready
    return {
      async stop() {
        child.kill('SIGINT')
        return {code: await exited, out, err}
      },
    }
  }

  it('finds the page’s commands, servers and account commands', () => {
    expect(commands.length).toBeGreaterThan(40)
    expect(commands.filter((c) => c.server).length).toBeGreaterThanOrEqual(2)
    expect(commands.filter((c) => c.account).length).toBeGreaterThanOrEqual(1)
  })

  it('runs every command in order: each exits as the page says, with no trace and no "undefined"', async () => {
    const failures: string[] = []
    let servers: {c: PageCommand; stop: () => Promise<{code: number | null; out: string; err: string}>}[] = []
    const stopServers = async () => {
      for (const {c, stop} of servers) {
        const r = await stop()
        if (r.code !== 0 && r.code !== 130)
          failures.push(`line ${c.line}: \`${c.text}\` stopped with ${r.code}:\n${r.err}`)
        for (const p of problems(r.out, r.err)) failures.push(`line ${c.line}: \`${c.text}\`: ${p}`)
      }
      servers = []
    }
    let block = -1
    for (const c of commands) {
      if (c.block !== block) {
        await stopServers()
        block = c.block
      }
      const text = asRun(c)
      if (text === undefined) continue
      if (c.server) {
        servers.push({c, ...(await startServer(c, text))})
        continue
      }
      const script = `set -a -o pipefail\n. "${state}"\n${text}\nrc=$?\nexport -p > "${state}"\nexit $rc`
      const r = spawnSync('bash', ['-c', script], {
        cwd: work,
        env: {...env, ...accountEnv(c)},
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 120_000,
      })
      if (r.status !== c.exit) {
        failures.push(
          `line ${c.line}: \`${c.text}\` exited ${r.status ?? r.signal} (the page says ${c.exit}):\n${r.stderr}`,
        )
      }
      for (const p of problems(r.stdout, r.stderr)) failures.push(`line ${c.line}: \`${c.text}\`: ${p}`)
    }
    await stopServers()
    expect(failures, failures.join('\n\n')).toEqual([])
    // The whole page, one command after another: about 20 s alone, 50 to 65 s beside
    // another test file on a 2-core machine; the limit only stops a command that hangs.
  }, 300_000)
})
