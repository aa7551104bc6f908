// What one build substitution saves at start-up: the build with every substitution
// against builds leaving named ones out (scripts/build.mjs, MFG_BUILD_WITHOUT), the
// same commands through oclif, round-robin with the order rotating each round. A
// figure is the median over rounds of (without − with), in CPU ms of the process
// (user + system, as bash's `times` reports its children) and in wall ms, with a
// bootstrap 95% interval. docs/benchmarks.md ("What each remaining substitution and
// external saves") quotes it; nothing is written there by this script.
//
//   BENCH_WITHOUT='tinyglobby;minimatch;ejs,cli-spinners,debug;got-stand-in' npx tsx bench/startup-ab.ts
//
// Each build is copied (bin/, dist/, package.json, the manifest) to a directory of its
// own that links this checkout's node_modules; dist/ is rebuilt whole at the end.
import {spawnSync} from 'node:child_process'
import {cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {join} from 'node:path'

import {benchEnv, machine, median, root, serveSandbox} from './lib.js'

const RUNS = Math.max(10, Number(process.env.BENCH_RUNS ?? 25))
const WITHOUT = (process.env.BENCH_WITHOUT ?? 'tinyglobby;minimatch;ejs,cli-spinners,debug;got-stand-in')
  .split(';')
  .filter(Boolean)
const COMMANDS: Record<string, string[]> = {
  'profile list': ['profile', 'list'],
  'demand list --help': ['demand', 'list', '--help'],
  'demand list --json': ['demand', 'list', '--json'],
}

interface Build {
  name: string
  dir: string
}

function build(name: string, without: string, scratch: string): Build {
  const r = spawnSync(process.execPath, ['scripts/build.mjs'], {
    cwd: root,
    env: {...process.env, MFG_BUILD_WITHOUT: without},
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  if (r.status !== 0) throw new Error(`build without ${without || 'nothing'} failed`)
  const dir = join(scratch, String(name.length) + name.replace(/[^a-z]+/g, '-'))
  mkdirSync(dir)
  for (const part of ['bin', 'dist', 'package.json', 'oclif.manifest.json']) {
    cpSync(join(root, part), join(dir, part), {recursive: true})
  }
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
  return {name, dir}
}

/** Wall ms, and the CPU ms of the command as bash's `times` reports its children. */
function time(argv: string[], env: NodeJS.ProcessEnv): {wall: number; cpu: number} {
  const started = process.hrtime.bigint()
  const r = spawnSync('bash', ['-c', '"$@" >/dev/null 2>&1 || exit 99; times', 'time', ...argv], {
    env,
    encoding: 'utf8',
  })
  const wall = Number(process.hrtime.bigint() - started) / 1e6
  if (r.status !== 0) throw new Error(`${argv.slice(1).join(' ')} failed`)
  const children = r.stdout.trim().split('\n')[1] ?? ''
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]))
  return {wall, cpu: (seconds[0]! + seconds[1]!) * 1000}
}

/** The median of the differences and its bootstrap 95% interval, as "+1.2 (−0.3..+2.9)". */
function difference(ours: number[], theirs: number[]): string {
  const d = ours.map((x, i) => x - theirs[i]!)
  let seed = 1
  const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646
  const medians = Array.from({length: 1000}, () => median(d.map(() => d[Math.floor(random() * d.length)]!))).sort(
    (a, b) => a - b,
  )
  const f = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)}`
  return `${f(median(d))} (${f(medians[25]!)}..${f(medians[974]!)})`
}

const scratch = mkdtempSync(join(tmpdir(), 'mfg-bench-ab-'))
const sandbox = await serveSandbox()
try {
  const builds = [
    build('with every substitution', '', scratch),
    ...WITHOUT.map((w) => build(`without ${w}`, w, scratch)),
  ]
  const jobs = builds.flatMap((b) => Object.keys(COMMANDS).map((c) => ({b, c})))
  const envOf = new Map(builds.map((b) => [b, benchEnv(sandbox, join(b.dir, 'home'))]))
  const run = (j: (typeof jobs)[number]) =>
    time([process.execPath, join(j.b.dir, 'bin/run.js'), ...COMMANDS[j.c]!], envOf.get(j.b)!)
  for (const j of jobs) run(j)
  const samples = jobs.map(() => [] as {wall: number; cpu: number}[])
  for (let round = 0; round < RUNS; round++) {
    for (let k = 0; k < jobs.length; k++) {
      const i = (k + round) % jobs.length
      samples[i]!.push(run(jobs[i]!))
    }
  }
  console.log(`${RUNS} rounds; ${machine()}; load average ${loadavg()[0]!.toFixed(1)}`)
  jobs.forEach((j, i) => {
    const s = samples[i]!
    const base = samples[jobs.findIndex((x) => x.b === builds[0] && x.c === j.c)]!
    const cpu = s.map((x) => x.cpu)
    const line = `${j.b.name} | ${j.c} | CPU ${median(cpu).toFixed(1)} ms`
    if (j.b === builds[0]) return console.log(line)
    const delta = (key: 'cpu' | 'wall') =>
      difference(
        s.map((x) => x[key]),
        base.map((x) => x[key]),
      )
    console.log(`${line} | CPU ${delta('cpu')} | wall ${delta('wall')}`)
  })
} finally {
  await sandbox.stop()
  rmSync(scratch, {recursive: true, force: true})
  spawnSync(process.execPath, ['scripts/build.mjs'], {cwd: root, stdio: ['ignore', 'ignore', 'inherit']})
}
