// `mfg price measure --no-hull --json` on a 1,000,000-triangle binary STL (a torus of
// 1,000 × 500 quads) against `admesh` on the same file: the same work (size, volume, area,
// closedness, parts), whole processes, NODE_EXTRA_CA_CERTS unset. Target: at most 1.0.
// Also times the stages of our pipeline in fresh processes (`--stages FILE`, below) and
// the CLI start on a 12-triangle file.
import {execFileSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import os, {tmpdir} from 'node:os'
import {join} from 'node:path'

import {cli, machine, measure, median, pairedRatios, root, writeSection, type RunResult} from './lib.js'
import {writeTorus} from './mesh-lib.js'
import {meshPath} from '../test/helpers/meshes.js'

// 15 rounds: admesh's time here is bimodal (about 480 or 670 ms), and so are ours.
const RUNS = Number(process.env.BENCH_RUNS ?? 15)
const TARGET = 1.0

if (process.argv[2] === '--stages') {
  // Child mode: one fresh process per sample, as the CLI runs once per file. The path of
  // `measureFile` (src/mesh/index.ts): a binary STL is read a megabyte at a time and welded
  // as it comes, its measures summed on the way; then the edge census and parts.
  const {readBinaryStlFile} = await import('../src/mesh/stl.js')
  const {sumMesh} = await import('../src/mesh/measure.js')
  const {analyseTopology} = await import('../src/mesh/topology.js')
  // The reader reports the time it spent in readSync and summing measures (with the edge
  // counts of the census's first pass); the rest of its time is decoding and welding.
  const clock = {read: 0, measures: 0}
  const t0 = performance.now()
  const mesh = readBinaryStlFile(process.argv[3]!, clock)
  if (!mesh) throw new Error('not a binary STL')
  const t1 = performance.now()
  const sums = sumMesh(mesh)
  const t2 = performance.now()
  const topo = analyseTopology(mesh)
  const t3 = performance.now()
  console.log(
    JSON.stringify({
      read: clock.read,
      parse: t1 - t0 - clock.read - clock.measures,
      measures: clock.measures + (t2 - t1),
      closedness: t3 - t2,
      rssMb: process.memoryUsage().rss / 1048576,
      vertices: mesh.vertexCount,
      volume: Math.abs(sums.volume),
      closed: topo.closed,
      parts: topo.parts,
    }),
  )
  process.exit(0)
}

const work = mkdtempSync(join(tmpdir(), 'mfg-bench-mesh-'))
const file = join(work, 'torus-1m.stl')
const triangles = writeTorus(file)
const small = meshPath('cube20.stl')

const ours = ['price', 'measure', file, '--no-hull', '--json']
const fail = (what: string, r: RunResult): never => {
  throw new Error(`${what} failed (exit ${r.code}): ${r.stderr.slice(-2000)}`)
}

// Check once that both do the work and agree, outside the timed runs.
const check = JSON.parse(
  execFileSync(process.execPath, [cli, ...ours], {env: {...process.env, NODE_EXTRA_CA_CERTS: ''}}).toString(),
) as {closed: boolean; parts: number; volume: number; area: number; triangles: number}
const admeshOut = execFileSync('admesh', [file]).toString()
const admeshVolume = Number(/Volume\s*:\s*([\d.]+)/.exec(admeshOut)?.[1])
const admeshParts = Number(/Number of parts\s*:\s*(\d+)/.exec(admeshOut)?.[1])
if (check.triangles !== triangles || !check.closed || check.parts !== 1 || admeshParts !== 1)
  throw new Error(`unexpected result: ${JSON.stringify(check)}, admesh parts ${admeshParts}`)

const cliRuns: RunResult[] = []
const admeshRuns: RunResult[] = []
for (let run = 0; run < RUNS; run++) {
  // Alternate which goes first so neither gains from the order (or the page cache).
  for (const which of run % 2 ? ['admesh', 'cli'] : ['cli', 'admesh']) {
    if (which === 'cli') {
      const r = await measure([process.execPath, cli, ...ours])
      if (r.code !== 0 || r.stdoutLines !== 1) fail('mfg price measure', r)
      cliRuns.push(r)
    } else {
      const r = await measure(['admesh', file])
      if (r.code !== 0) fail('admesh', r)
      admeshRuns.push(r)
    }
  }
}

// The fixed costs: a bare Node start and the CLI on a 12-triangle file.
const nodeStart: number[] = []
const oclifStart: number[] = []
const zodStart: number[] = []
const cliStart: number[] = []
// Resolved here, so the child imports exactly the copies the CLI loads.
const importing = (name: string) => [
  process.execPath,
  '--input-type=module',
  '-e',
  `await import(${JSON.stringify(import.meta.resolve(name))})`,
]
for (let run = 0; run < RUNS; run++) {
  nodeStart.push((await measure([process.execPath, '-e', '0'])).ms)
  oclifStart.push((await measure(importing('@oclif/core'))).ms)
  zodStart.push((await measure(importing('zod'))).ms)
  const r = await measure([process.execPath, cli, 'price', 'measure', small, '--no-hull', '--json'])
  if (r.code !== 0) fail('mfg price measure (small)', r)
  cliStart.push(r.ms)
}

// Stages, each sample in a fresh process.
interface Stages {
  read: number
  parse: number
  measures: number
  closedness: number
  rssMb: number
  vertices: number
}
const stages: Stages[] = []
for (let run = 0; run < Math.min(RUNS, 5); run++) {
  const out = execFileSync(
    process.execPath,
    ['--import', 'tsx', join(root, 'bench/mesh-measure.ts'), '--stages', file],
    {
      env: {...process.env, NODE_EXTRA_CA_CERTS: ''},
    },
  )
  stages.push(JSON.parse(out.toString()) as Stages)
}
rmSync(work, {recursive: true, force: true})

const loadavg = (): string =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')
const ms = (rs: RunResult[]) => rs.map((r) => r.ms)
const mb = (rs: RunResult[]) => median(rs.map((r) => r.maxRssKb)) / 1024
const cliMs = median(ms(cliRuns))
const baseMs = median(ms(admeshRuns))
const ratio = cliMs / baseMs
const verdict = ratio <= TARGET ? 'met' : 'NOT met'
const st = (k: keyof Stages) => median(stages.map((s) => s[k])).toFixed(0)
const pipeline = median(stages.map((s) => s.read + s.parse + s.measures + s.closedness))

const table = `## price measure: 1,000,000-triangle binary STL

A torus of 1,000 × 500 quads (${triangles.toLocaleString('en')} triangles, ${stages[0]!.vertices.toLocaleString('en')} vertices, 50 MB), generated by \`bench/mesh-lib.ts\`. Baseline: \`admesh FILE\` (ADMesh ${/ADMesh version ([\d.]+)/.exec(admeshOut)?.[1] ?? '?'}: size, volume, facet connectivity, parts), the same work as \`mfg price measure FILE --no-hull --json\` (size, volume, area, closedness, parts). Whole processes under \`/usr/bin/time\`, \`NODE_EXTRA_CA_CERTS\` unset, ${RUNS} runs each alternating order; medians. Both agree: closed, 1 part, volume ${check.volume.toFixed(1)} mm³ (ours, float64) vs ${admeshVolume.toFixed(1)} (admesh, float32 sums).

| | median ms | peak RSS MB | runs (ms) |
|---|---:|---:|---|
| \`mfg price measure FILE --no-hull --json\` | ${cliMs.toFixed(0)} | ${mb(cliRuns).toFixed(0)} | ${ms(cliRuns)
  .map((x) => x.toFixed(0))
  .join(', ')} |
| \`admesh FILE\` | ${baseMs.toFixed(0)} | ${mb(admeshRuns).toFixed(0)} | ${ms(admeshRuns)
  .map((x) => x.toFixed(0))
  .join(', ')} |

Ratio mfg / admesh: **${ratio.toFixed(2)}** (target ≤ ${TARGET.toFixed(1)}: ${verdict}). Per round (the two runs of a round back to back), median and range: ${pairedRatios(ms(cliRuns), ms(admeshRuns))}.

Where our time goes (medians; stages timed in-process with \`performance.now()\`, each sample a fresh process):

| part | ms |
|---|---:|
| \`node -e 0\` (bare Node start) | ${median(nodeStart).toFixed(0)} |
| \`node -e 'await import("@oclif/core")'\` (oclif alone, for scale: \`price measure\` runs without it, docs/decisions.md) | ${median(oclifStart).toFixed(0)} |
| \`node -e 'await import("zod")'\` (zod alone, for scale: \`price measure\` does not load it) | ${median(zodStart).toFixed(0)} |
| \`mfg price measure cube20.stl --no-hull --json\` (CLI start + a 12-triangle file) | ${median(cliStart).toFixed(0)} |
| read (the binary STL read in 1 MB pieces, \`readSync\`) | ${st('read')} |
| parse (each piece's corners decoded and welded into indexed triangles) | ${st('parse')} |
| measures (bounding box, volume and areas summed as each piece is welded, each edge counted under its lower vertex for the census; then checked still valid) | ${st('measures')} |
| closedness (edges, parts) | ${st('closedness')} |
| pipeline total (in-process, no CLI) | ${pipeline.toFixed(0)} |
| pipeline peak RSS MB (whole process: Node, the mesh) | ${st('rssMb')} |

${machine()}; load average at the end ${loadavg()} (the machine is shared with other work).`
writeSection('mesh-measure', table)
console.log(table)
if (ratio > TARGET) process.exitCode = 1
