// Every `examples:` entry of every command's help (oclif's manifest, as `mfg X --help`
// prints them) runs as written: the built CLI as `mfg`, against a sandbox (each example
// on its own fresh MFG_HOME, so the embedded sandbox with its seed), in a generated
// fixture directory holding the files the examples name, with no terminal. Each exits 0,
// or what EXITS below says (and why), with no stack trace and no "undefined".
//
// Servers (sandbox serve, webhook listen, mcp proxy) are started, given a moment, and
// stopped with SIGINT: they must still be running then, and stop with 0 or 130.
import {spawn, spawnSync} from 'node:child_process'
import {copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {FIXED_PORTS_WAIT_MS, holdFixedPorts} from '../helpers/fixed-ports.js'
import {serveSandbox, type Served} from '../helpers/serve.js'

const root = resolve(import.meta.dirname, '../..')
const bin = join(root, 'bin/run.js')
const meshes = join(root, 'test/fixtures/meshes')

interface Manifest {
  commands: Record<string, {examples?: (string | {command: string; description?: string})[]}>
}

/** The examples as a user reads them in `mfg X --help`. */
function helpExamples(): {id: string; text: string}[] {
  const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8')) as Manifest
  return Object.entries(manifest.commands).flatMap(([id, c]) =>
    (c.examples ?? []).map((e) => ({
      id,
      text: (typeof e === 'string' ? e : e.command)
        .replaceAll('<%= config.bin %>', 'mfg')
        .replaceAll('<%= command.id %>', id.replaceAll(':', ' ')),
    })),
  )
}

/** Commands that serve or follow until stopped (`sandbox serve --quirks list` only prints, `demand watch --once` polls once). */
const isServer = (e: {id: string; text: string}) =>
  ((e.id === 'sandbox:serve' || e.id === 'webhook:listen') && !e.text.includes('--quirks list')) ||
  (e.id === 'demand:watch' && !e.text.includes('--once'))

const slicerHere = spawnSync('sh', ['-c', 'command -v prusa-slicer'], {env: process.env}).status === 0

/** Examples whose exit status is not 0 here, and why. */
const EXITS: Record<string, number> = {
  // Without PrusaSlicer (CI installs it): exit 2 saying how to install it.
  'mfg price estimate --part examples/bracket.stl --material PETG --slicer prusa': slicerHere ? 0 : 2,
  // The interactive forms: without a terminal, exit 2 naming the flag to pass instead.
  'mfg price estimate': 2,
  'mfg demand delete 65f000060000000000000002': 2,
  'mfg post delete 65f000050000000000000001': 2,
  [`mfg webhook update "$(mfg webhook list --json | jq -r '.[0]._id')" --prompt-secret`]: 2,
}

/** Examples that need something from outside, not run here. */
const OUTSIDE = new Set([
  // Downloads the MCP inspector from the npm registry.
  'npx @modelcontextprotocol/inspector --cli mfg mcp proxy --method tools/list',
])

/** Profiles an example names, added (against a standalone sandbox) to its home first. */
const PROFILES = ['shop', 'production', 'staging']

const STACK_FRAME = /^\s+at .+(:\d+:\d+\)?|\(native\)|\(<anonymous>\))$/

// What the examples say is the same text on every Node.js line: checked on CI's first
// line only (MFG_TEST_REPEAT_LINE=1 on the others, .ci/run), where each command also
// runs on 22 and 26 through the rest of the suite.
describe.skipIf(process.env.MFG_TEST_REPEAT_LINE === '1')("every command's help examples, run as written", () => {
  const work = mkdtempSync(join(tmpdir(), 'mfg-help-examples-'))
  const template = mkdtempSync(join(tmpdir(), 'mfg-help-home-'))
  const shims = mkdtempSync(join(tmpdir(), 'mfg-help-bin-'))
  const homes: string[] = []
  const {NODE_ENV: _test, ...inherited} = process.env
  for (const k of Object.keys(inherited)) if (k.startsWith('MFG_')) delete inherited[k]
  const env = (home: string): NodeJS.ProcessEnv => ({
    ...inherited,
    MFG_HOME: home,
    PATH: `${shims}:${process.env.PATH}`,
    CI: 'true',
    NO_COLOR: '1',
    // The variable `profile add`'s example reads its key from, set as its user would have it.
    MFG_KEY: 'pk_business_helpExampleKey0001',
  })

  let served: Served
  let release: (() => void) | undefined

  beforeAll(async () => {
    release = await holdFixedPorts()
    symlinkSync(bin, join(shims, 'mfg'))
    // The fixture directory: examples/, and the other files the examples name.
    symlinkSync(join(root, 'examples'), join(work, 'examples'))
    copyFileSync(join(root, 'examples/bracket.stl'), join(work, 'housing.stl'))
    copyFileSync(join(meshes, 'example001.stl'), join(work, 'big.stl'))
    copyFileSync(join(meshes, 'logo-prusa.3mf'), join(work, 'housing.3mf'))
    copyFileSync(join(meshes, 'logo-prusa.3mf'), join(work, 'trusted-scan.3mf'))
    copyFileSync(join(meshes, 'logo.obj'), join(work, 'part.obj'))
    mkdirSync(join(work, '.vscode'))
    // A seeded home, copied for each example: every one starts on the same fresh sandbox,
    // which has one webhook subscription (the examples that need one pick it with webhook list).
    const warm = spawnSync(
      process.execPath,
      [bin, 'webhook', 'create', '--url', 'http://127.0.0.1:4848/', '--events', 'order_placed', '--secret', 's3cr3t'],
      {env: env(template), encoding: 'utf8'},
    )
    if (warm.status !== 0) throw new Error(`seeding the template home failed: ${warm.stderr}`)
    // The remote profiles the examples name: a standalone sandbox stands in for the service.
    served = await serveSandbox([], env(mkdtempSync(join(tmpdir(), 'mfg-help-standalone-'))))
  }, FIXED_PORTS_WAIT_MS)

  afterAll(async () => {
    release?.()
    await served?.stop()
    for (const dir of [work, template, shims, ...homes]) rmSync(dir, {recursive: true, force: true})
  })

  /** A copy of the seeded home, with the profiles the example names (not the one it adds). */
  function freshHome(e: {text: string}): string {
    const home = mkdtempSync(join(tmpdir(), 'mfg-help-example-home-'))
    cpSync(template, home, {recursive: true})
    homes.push(home)
    const demo = served.businesses[0]!
    for (const name of PROFILES) {
      if (!new RegExp(`\\b${name}\\b`).test(e.text) || e.text.includes(`profile add ${name}`)) continue
      const add = (extra: string[]) =>
        spawnSync(
          process.execPath,
          [
            bin,
            'profile',
            'add',
            name,
            '--base-url',
            served.url,
            '--api-key',
            demo.apiKey,
            '--auth-token',
            demo.authToken,
          ].concat(extra),
          {env: {...env(home)}, encoding: 'utf8', input: ''},
        )
      const first = add([])
      const withId = first.status === 0 ? first : add(['--business-id', demo.id])
      if (withId.status !== 0) throw new Error(`adding profile ${name} failed: ${withId.stderr}`)
    }
    return home
  }

  /** Runs one example; resolves with what went wrong (empty when it ran as stated). */
  function runExample(e: {id: string; text: string}): Promise<string[]> {
    const server = isServer(e)
    const child = spawn('bash', ['-o', 'pipefail', '-c', server ? `exec ${e.text}` : e.text], {
      cwd: work,
      env: env(freshHome(e)),
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: Ctrl-C reaches every process of a pipeline, as in a shell.
      detached: true,
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')))
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')))
    let stoppedByUs = false
    const timer = setTimeout(
      () => {
        stoppedByUs = true
        process.kill(-child.pid!, 'SIGINT')
      },
      server ? 4000 : 60_000,
    )
    return new Promise((done) => {
      child.on('close', (code, signal) => {
        clearTimeout(timer)
        const wrong: string[] = []
        const expected = EXITS[e.text] ?? 0
        if (server) {
          if (!stoppedByUs) wrong.push(`a server that exited by itself (${code ?? signal}):\n${err}`)
          // A pipeline's shell ends by the same signal when its last process did (jq).
          else if (code !== 0 && code !== 130 && signal !== 'SIGINT')
            wrong.push(`stopped with ${code ?? signal}:\n${err}`)
        } else if (stoppedByUs) {
          wrong.push('still running after 60 s')
        } else if (code !== expected) {
          wrong.push(`exited ${code ?? signal} (expected ${expected}):\n${err}`)
        }
        for (const line of err.split('\n')) {
          if (STACK_FRAME.test(line)) wrong.push(`a stack trace: ${line.trim()}`)
          if (/\bundefined\b/.test(line)) wrong.push(`"undefined" on stderr: ${line.trim()}`)
        }
        done(wrong.map((w) => `\`${e.text}\` (${e.id}): ${w}`))
      })
    })
  }

  it('each example exits as stated', async () => {
    const all = helpExamples()
    expect(all.length).toBeGreaterThan(100)
    const examples = all.filter((e) => !OUTSIDE.has(e.text))
    expect(all.length - examples.length).toBe(OUTSIDE.size)
    const failures: string[] = []
    // Servers one after another (several listen on the same port; each mostly waits out
    // its moment), beside the rest two at a time (each starts its own embedded sandbox).
    const servers = async () => {
      for (const e of examples.filter(isServer)) failures.push(...(await runExample(e)))
    }
    const rest = examples.filter((e) => !isServer(e))
    let next = 0
    const worker = async () => {
      while (next < rest.length) failures.push(...(await runExample(rest[next++]!)))
    }
    await Promise.all([servers(), worker(), worker()])
    expect(failures, failures.join('\n\n')).toEqual([])
  }, 600_000)
})
