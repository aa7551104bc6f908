// Runs `mfg` commands in-process, the way oclif would, capturing stdout, stderr
// and the exit code. Command classes are imported through vitest (TypeScript
// sources), so no build is needed; the oclif Config comes from the repo root.
import {spawn} from 'node:child_process'
import {existsSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {Readable} from 'node:stream'

import {afterAll, beforeAll} from 'vitest'

import {Config, Errors} from '@oclif/core'

import {startTestSandbox} from './sandbox.js'

const root = resolve(import.meta.dirname, '../..')
const commandsDir = join(root, 'src/commands')

export interface CliResult {
  stdout: string
  stderr: string
  exitCode: number
}

export interface RunOptions {
  /** Laid over process.env for the run; undefined removes a variable. */
  env?: Record<string, string | undefined>
  /** What the command reads from stdin (for `--file -`). */
  stdin?: string
}

let configPromise: Promise<Config> | undefined

interface CommandModule {
  default: {id?: string; new (argv: string[], config: Config): {_run(): Promise<unknown>}}
}

async function findCommand(argv: string[]): Promise<{id: string; mod: CommandModule; rest: string[]}> {
  const [a, b] = argv
  if (a && b && existsSync(join(commandsDir, a, `${b}.ts`))) {
    return {id: `${a}:${b}`, mod: (await import(join(commandsDir, a, `${b}.ts`))) as CommandModule, rest: argv.slice(2)}
  }
  if (a && existsSync(join(commandsDir, a, 'index.ts'))) {
    return {id: a, mod: (await import(join(commandsDir, a, 'index.ts'))) as CommandModule, rest: argv.slice(1)}
  }
  if (a && existsSync(join(commandsDir, `${a}.ts`))) {
    return {id: a, mod: (await import(join(commandsDir, `${a}.ts`))) as CommandModule, rest: argv.slice(1)}
  }
  throw new Error(`no command for ${argv.join(' ')}`)
}

/** The variables a test controls; cleared for every run unless given. */
const MFG_VARS = [
  'MFG_HOME',
  'MFG_PROFILE',
  'MFG_API_KEY',
  'MFG_AUTH_TOKEN',
  'MFG_BASE_URL',
  'MFG_BUSINESS_ID',
  'MFG_INSECURE',
  'MFG_SANDBOX_QUIRKS',
  'MFG_TIMEOUT',
  'MFG_TOTAL_TIMEOUT',
]

/** Runs one command line in this process. */
export async function runCli(argv: string[], opts: RunOptions = {}): Promise<CliResult> {
  configPromise ??= Config.load({root})
  const config = await configPromise
  const {id, mod, rest} = await findCommand(argv)
  const Cmd = mod.default
  Cmd.id = id

  const savedEnv = {...process.env}
  for (const k of MFG_VARS) delete process.env[k]
  process.env.CI = 'true'
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete process.env[k]
    else process.env[k] = v
  }

  let stdout = ''
  let stderr = ''
  const out = process.stdout.write.bind(process.stdout)
  const err = process.stderr.write.bind(process.stderr)
  const capture = (sink: 'out' | 'err') =>
    ((chunk: string | Uint8Array, ...args: unknown[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')
      if (sink === 'out') stdout += text
      else stderr += text
      const cb = args.find((x) => typeof x === 'function') as (() => void) | undefined
      cb?.()
      return true
    }) as typeof process.stdout.write
  process.stdout.write = capture('out')
  process.stderr.write = capture('err')
  const stdinDescriptor = Object.getOwnPropertyDescriptor(process, 'stdin')
  if (opts.stdin !== undefined) {
    Object.defineProperty(process, 'stdin', {value: Readable.from([opts.stdin]), configurable: true, writable: true})
  }
  process.exitCode = undefined

  let exitCode: number
  try {
    await new Cmd(rest, config)._run()
    exitCode = typeof process.exitCode === 'number' ? process.exitCode : 0
  } catch (error) {
    if (error instanceof Errors.ExitError) exitCode = error.oclif.exit ?? 1
    else {
      exitCode = 99
      stderr += `\n[runCli] uncaught: ${(error as Error).stack ?? String(error)}`
    }
  } finally {
    process.stdout.write = out
    process.stderr.write = err
    if (stdinDescriptor) Object.defineProperty(process, 'stdin', stdinDescriptor)
    process.exitCode = undefined
    for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k]
    Object.assign(process.env, savedEnv)
  }
  return {stdout, stderr, exitCode}
}

export interface BuiltRunOptions {
  /** Laid over the environment, from which the test's own variables are removed. */
  env: Record<string, string>
  /**
   * Without the power to read or write files regardless of their permissions: as root
   * (CI), without the capabilities that give it (util-linux's setpriv).
   */
  unprivileged?: boolean
  /** Shell commands run first in the same process, in sh (e.g. `ulimit -f 1`). */
  prelude?: string
}

/**
 * Runs the built CLI (`npm run build`) in a child process, for what a process
 * cannot change in itself: its privileges, its limits.
 */
export function runBuiltCli(args: string[], opts: BuiltRunOptions): Promise<CliResult> {
  const {NODE_ENV: _test, ...env} = process.env
  for (const k of MFG_VARS) delete env[k]
  let argv = [process.execPath, join(root, 'bin/run.js'), ...args]
  if (opts.unprivileged && process.getuid?.() === 0)
    argv = ['setpriv', '--bounding-set=-dac_override,-dac_read_search', ...argv]
  if (opts.prelude !== undefined) argv = ['sh', '-c', `${opts.prelude}; exec "$@"`, 'sh', ...argv]
  const [cmd, ...rest] = argv
  const child = spawn(cmd!, rest, {env: {...env, CI: 'true', ...opts.env}, stdio: ['ignore', 'pipe', 'pipe']})
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')))
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')))
  return new Promise((done) => child.on('close', (code) => done({stdout, stderr, exitCode: code ?? -1})))
}

/** Parses a run's stdout as JSON, failing with the run's stderr when it is not. */
export function json<T = unknown>(r: CliResult): T {
  try {
    return JSON.parse(r.stdout) as T
  } catch {
    throw new Error(`stdout is not JSON (exit ${r.exitCode}).\nstdout: ${r.stdout}\nstderr: ${r.stderr}`)
  }
}

/** Parses a run's stdout as NDJSON (`--all --json`, `--ndjson`): one value a line. */
export function jsonLines<T = unknown>(r: CliResult): T[] {
  const lines = r.stdout.split('\n').filter((l) => l.trim() !== '')
  try {
    return lines.map((l) => JSON.parse(l) as T)
  } catch {
    throw new Error(`stdout is not NDJSON (exit ${r.exitCode}).\nstdout: ${r.stdout}\nstderr: ${r.stderr}`)
  }
}

export interface CliSandbox {
  url: string
  businesses: {id: string; name: string; apiKey: string; authToken: string; webhookAccess: boolean}[]
  /** A fresh MFG_HOME for this sandbox's tests. */
  home: string
  /** Env that points the CLI at the demo business (or another seeded one). */
  env(business?: number): Record<string, string>
  close(): Promise<void>
}

/** The env that points the CLI at a sandbox's business (the demo one by default), with its own MFG_HOME. */
export function cliEnv(
  sandbox: {url: string; businesses: readonly {id: string; apiKey: string; authToken: string}[]},
  home: string,
  business = 0,
): Record<string, string> {
  const b = sandbox.businesses[business]!
  return {
    MFG_HOME: home,
    MFG_BASE_URL: sandbox.url,
    MFG_API_KEY: b.apiKey,
    MFG_AUTH_TOKEN: b.authToken,
    MFG_BUSINESS_ID: b.id,
  }
}

/** Starts a real sandbox on port 0 with an in-memory database, and a temp MFG_HOME. */
export async function startCliSandbox(): Promise<CliSandbox> {
  const sandbox = await startTestSandbox()
  const home = mkdtempSync(join(tmpdir(), 'mfg-cmd-'))
  return {
    url: sandbox.url,
    businesses: sandbox.businesses,
    home,
    env: (business = 0) => cliEnv(sandbox, home, business),
    async close() {
      await sandbox.close()
      rmSync(home, {recursive: true, force: true})
    },
  }
}

/** Every secret string of a sandbox, to check that no output shows one. */
export function secretsOf(sb: CliSandbox): string[] {
  return sb.businesses.flatMap((b) => [b.apiKey, b.authToken])
}

/**
 * Starts a CLI sandbox before the file's tests and closes it after them, and
 * returns `run`, which runs the CLI against it and keeps every result in
 * `outputs` (for the secrets scan). `sb` may be used once the tests run.
 */
export function useCliSandbox(): {
  sb: CliSandbox
  outputs: CliResult[]
  run: (argv: string[], opts?: RunOptions) => Promise<CliResult>
} {
  let current: CliSandbox | undefined
  const started = (): CliSandbox => {
    if (!current) throw new Error('the sandbox starts in beforeAll; use it inside tests')
    return current
  }
  const sb: CliSandbox = {
    get url() {
      return started().url
    },
    get businesses() {
      return started().businesses
    },
    get home() {
      return started().home
    },
    env: (business?: number) => started().env(business),
    close: () => started().close(),
  }
  const outputs: CliResult[] = []
  const run = async (argv: string[], opts: RunOptions = {}): Promise<CliResult> => {
    const r = await runCli(argv, {...opts, env: {...sb.env(), ...opts.env}})
    outputs.push(r)
    return r
  }
  beforeAll(async () => {
    current = await startCliSandbox()
  })
  afterAll(async () => {
    await current?.close()
  })
  return {sb, outputs, run}
}
