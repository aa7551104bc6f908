// Shared pieces of the benchmarks: a standalone sandbox, timed child runs, and the results page.
import {spawn, spawnSync} from 'node:child_process'
import {cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

export const root = resolve(import.meta.dirname, '..')
export const cli = join(root, 'bin/run.js')

import type {Served} from '../test/helpers/serve.js'
export {serveSandbox, type Served} from '../test/helpers/serve.js'

export interface RunResult {
  /** Wall-clock milliseconds from spawn to exit. */
  ms: number
  /** Milliseconds from spawn to the first line on stdout, if any. */
  firstLineMs?: number
  /** Peak resident set size in kilobytes, from GNU time. */
  maxRssKb: number
  /**
   * Peak of the resident sets of the command and every process it started, summed, in
   * kilobytes: sampled every 20 ms from /proc (GNU time sees the command alone, not a
   * helper process it leaves running, such as the STEP reader's).
   */
  treeRssKb: number
  code: number
  stderr: string
  stdoutLines: number
}

/** Runs a command under /usr/bin/time to read its peak RSS; counts stdout lines without keeping them. */
/** The resident sets of `pid` and all its descendants, summed, in KB (Linux /proc; 0 elsewhere). */
export function treeRss(pid: number): number {
  const parent = new Map<number, number>()
  let entries: string[]
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e))
  } catch {
    return 0
  }
  for (const e of entries) {
    try {
      // Fields after the command's name (which may hold spaces): state, then ppid.
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8')
      parent.set(Number(e), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]))
    } catch {
      // Gone meanwhile.
    }
  }
  let kb = 0
  const todo = [pid]
  while (todo.length > 0) {
    const p = todo.pop()!
    try {
      kb += Number(readFileSync(`/proc/${p}/statm`, 'utf8').split(' ')[1]) * 4
    } catch {
      // Gone meanwhile.
    }
    for (const [child, ppid] of parent) if (ppid === p) todo.push(child)
  }
  return kb
}

export function measure(cmd: string[], env: NodeJS.ProcessEnv = {}): Promise<RunResult> {
  const started = process.hrtime.bigint()
  const child = spawn('/usr/bin/time', ['-f', '__MAXRSS__%M', ...cmd], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {...process.env, NODE_EXTRA_CA_CERTS: '', CI: 'true', ...env},
  })
  let firstLineMs: number | undefined
  let lines = 0
  child.stdout!.on('data', (chunk: Buffer) => {
    if (firstLineMs === undefined) firstLineMs = Number(process.hrtime.bigint() - started) / 1e6
    // indexOf rather than a loop over the bytes: the counting runs beside the command measured.
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++
  })
  let treeKb = 0
  const sampler = setInterval(() => (treeKb = Math.max(treeKb, treeRss(child.pid!))), 20)
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
    if (stderr.length > 100_000) stderr = stderr.slice(-50_000)
  })
  return new Promise((ok) => {
    child.on('close', (code) => {
      clearInterval(sampler)
      const ms = Number(process.hrtime.bigint() - started) / 1e6
      const m = /__MAXRSS__(\d+)/.exec(stderr)
      ok({
        ms,
        firstLineMs,
        maxRssKb: m ? Number(m[1]) : NaN,
        treeRssKb: treeKb,
        code: code ?? -1,
        stderr: stderr.replace(/__MAXRSS__\d+\s*/, ''),
        stdoutLines: lines,
      })
    })
  })
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

/**
 * The ratio of each round's two runs (made back to back), as "median (min–max)".
 * This machine's speed drifts between rounds (a fixed CPU-bound loop takes 1.0
 * to 1.6 s from one minute to the next), and a round's two runs share its
 * speed, so these ratios show how much of a spread is the machine's.
 */
export function pairedRatios(ours: number[], theirs: number[]): string {
  const ratios = ours.map((x, i) => x / theirs[i]!)
  const f = (x: number) => x.toFixed(2)
  return `${f(median(ratios))} (${f(Math.min(...ratios))}–${f(Math.max(...ratios))})`
}

/** Replaces one benchmark's section of docs/benchmarks.md (between its markers), keeping the others. */
export function writeSection(name: string, markdown: string): void {
  const file = join(root, 'docs/benchmarks.md')
  const head =
    '# Benchmarks\n\nEach benchmark is measured against a named baseline in the same run and written here by its script under `bench/` (`npm run bench`). Figures are from the 2-core development machine; ratios matter more than absolute times.\n'
  let text = existsSync(file) ? readFileSync(file, 'utf8') : head
  const start = `<!-- bench:${name} -->`
  const end = `<!-- /bench:${name} -->`
  const block = `${start}\n${markdown.trim()}\n${end}`
  const re = new RegExp(`${start}[\\s\\S]*?${end}`)
  text = re.test(text) ? text.replace(re, block) : `${text.trimEnd()}\n\n${block}\n`
  writeFileSync(file, text)
}

export const machine = (): string =>
  `Node ${process.version}, ${process.platform}/${process.arch}, ${new Date().toISOString().slice(0, 10)}`

/** Spawns a command to its end and returns its wall-clock milliseconds; throws when it fails. */
export function timeSpawn(argv: string[], env: NodeJS.ProcessEnv): number {
  const started = process.hrtime.bigint()
  const r = spawnSync(argv[0]!, argv.slice(1), {env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024})
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  if (r.status !== 0) {
    throw new Error(`${argv.slice(1).join(' ')} exited with ${r.status}: ${r.stderr.toString().slice(0, 500)}`)
  }
  return ms
}

/**
 * The environment for timing whole `mfg` runs against a standalone sandbox: its first
 * business's credentials, a home of the bench's own, and none of the variables that
 * change how Node starts (a CA bundle, a compile cache, extra options).
 */
export function benchEnv(sandbox: Served, home: string): NodeJS.ProcessEnv {
  const demo = sandbox.businesses[0]!
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CI: 'true',
    MFG_HOME: home,
    MFG_BASE_URL: sandbox.url,
    MFG_API_KEY: demo.apiKey,
    MFG_AUTH_TOKEN: demo.authToken,
    MFG_BUSINESS_ID: demo.id,
  }
  for (const name of ['NODE_EXTRA_CA_CERTS', 'NODE_COMPILE_CACHE', 'NODE_OPTIONS']) delete env[name]
  return env
}

/**
 * bench/oclif-floor built with mfg's build (scripts/build.mjs, MFG_BUILD_PROJECT) and its
 * manifest written, in a temporary directory whose node_modules is this checkout's: an
 * oclif CLI with two commands that print a line, laid out, bundled, started and given
 * plugins as mfg is. Answers its bin/run.js and the directory to remove afterwards.
 */
export function buildOclifFloor(): {bin: string; dir: string} {
  const dir = mkdtempSync(join(tmpdir(), 'mfg-oclif-floor-'))
  cpSync(join(root, 'bench/oclif-floor'), dir, {recursive: true})
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir')
  for (const argv of [[join(root, 'scripts/build.mjs')], [join(root, 'node_modules/oclif/bin/run.js'), 'manifest']]) {
    const r = spawnSync(process.execPath, argv, {
      cwd: dir,
      env: {...process.env, MFG_BUILD_PROJECT: dir},
      encoding: 'utf8',
    })
    if (r.status !== 0) throw new Error(`building bench/oclif-floor failed (${argv.join(' ')}): ${r.stderr}`)
  }
  return {bin: join(dir, 'bin/run.js'), dir}
}

/** Row `i` of the row-reading benchmarks: one create-quotes row as an NDJSON line (no newline). */
export function ndjsonRow(i: number): string {
  return JSON.stringify({
    technique: 'CNC_MACHINING',
    material: 'Aluminium 6061',
    quantity: (i % 9) + 1,
    email: `buyer${i}@example.com`,
    shippingAddress: {city: 'Porto', country: 'PT'},
    jobDetails: {takenAs: 'QUOTE'},
    quoteModel: [{fileName: `bracket-${i}.step`, service: 'CNC_MACHINING', quantity: (i % 9) + 1}],
  })
}

/**
 * The text of one `### heading` subsection of a benchmark's section as docs/benchmarks.md
 * holds it now (up to the next heading or the section's end), for a run that leaves
 * that part out (BENCH_DRIVER_RUNS=0) to keep the figures of the last run that made it.
 */
export function keptSubsection(name: string, heading: string): string | undefined {
  const file = join(root, 'docs/benchmarks.md')
  if (!existsSync(file)) return undefined
  const section = new RegExp(`<!-- bench:${name} -->([\\s\\S]*?)<!-- /bench:${name} -->`).exec(
    readFileSync(file, 'utf8'),
  )
  const start = section?.[1]?.indexOf(`### ${heading}`) ?? -1
  if (!section || start < 0) return undefined
  const rest = section[1]!.slice(start)
  const end = rest.slice(4).search(/^#{2,3} /m)
  return (end < 0 ? rest : rest.slice(0, end + 4)).trim()
}

/** The kept drivers' subsection (keptSubsection), saying it is kept; undefined when there is none. */
export function keptDrivers(name: string, heading: string): string | undefined {
  const kept = keptSubsection(name, heading)
  if (kept === undefined) return undefined
  const note = '_Kept from the last run that compared the drivers: this one was run with BENCH_DRIVER_RUNS=0._'
  return kept.endsWith(note) ? kept : `${kept}\n\n${note}`
}
