// Convex hull of a 1,000,000-triangle torus and a 1,000,000-triangle sphere (every vertex
// on the hull): our quickhull (src/mesh/hull.ts) against the npm package quickhull3d on
// the same points in the same run, with manifold-3d and quickhull3d figures quoted from
// the issue for scale. Target: under 1 s for the torus.
// quickhull3d is installed outside the repository (`npm install --prefix /tmp/qh
// quickhull3d`, or set QUICKHULL3D_DIR); without it the baseline row says so.
import {execFileSync} from 'node:child_process'
import {existsSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import os, {tmpdir} from 'node:os'
import {join} from 'node:path'

import {machine, measure, median, root, writeSection, type RunResult} from './lib.js'
import {writeSphere, writeTorus} from './mesh-lib.js'

const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const BASE_RUNS = Number(process.env.BENCH_BASE_RUNS ?? 1)
const TARGET_MS = 1000
const QH = process.env.QUICKHULL3D_DIR ?? '/tmp/qh'

interface Sample {
  ms: number
  volume: number
  faces: number
}

if (process.argv[2] === '--hull') {
  // Child mode: read the STL (not timed), then time the hull alone.
  const {readMeshFile} = await import('../src/mesh/read.js')
  const {convexHull} = await import('../src/mesh/hull.js')
  const mesh = readMeshFile(process.argv[3]!)
  // The reader makes the float64 positions on first use: not part of the hull's time.
  const points = mesh.positions
  if (process.argv[4]) writeFileSync(process.argv[4], points)
  const t0 = performance.now()
  const h = convexHull(points)
  console.log(JSON.stringify({ms: performance.now() - t0, volume: h.volume, faces: h.faces}))
  process.exit(0)
}

const work = mkdtempSync(join(tmpdir(), 'mfg-bench-hull-'))
const hasQh = existsSync(join(QH, 'node_modules/quickhull3d/dist/quickhull3d.js'))
const env = {NODE_EXTRA_CA_CERTS: ''}
const self = join(root, 'bench/mesh-hull.ts')
const parse = (r: RunResult, out: string): Sample => {
  if (r.code !== 0) throw new Error(`hull run failed (exit ${r.code}): ${r.stderr.slice(-2000)}`)
  return JSON.parse(out) as Sample
}

/** Runs a child under /usr/bin/time (for peak RSS) and reads its one JSON line from a file. */
async function sample(cmd: string[]): Promise<{s: Sample; r: RunResult}> {
  const out = join(work, 'out.json')
  const r = await measure(['sh', '-c', '"$@" > "$0"', out, ...cmd], env)
  return {s: parse(r, execFileSync('cat', [out]).toString()), r}
}

const rows: string[] = []
const results: Record<string, {ours: number; base: number | null}> = {}
for (const [name, write, ref] of [
  ['torus', writeTorus, {manifold: 1.55, qh: 7}],
  ['sphere', writeSphere, {manifold: 2.95, qh: 17}],
] as const) {
  const file = join(work, `${name}.stl`)
  write(file)
  const points = join(work, `${name}.f64`)
  execFileSync(process.execPath, ['--import', 'tsx', self, '--hull', file, points], {env: {...process.env, ...env}})
  const ours: {s: Sample; r: RunResult}[] = []
  const base: {s: Sample; r: RunResult}[] = []
  for (let run = 0; run < Math.max(RUNS, hasQh ? BASE_RUNS : 0); run++) {
    const order = run % 2 ? ['base', 'ours'] : ['ours', 'base']
    for (const which of order) {
      if (which === 'ours' && run < RUNS)
        ours.push(await sample([process.execPath, '--import', 'tsx', self, '--hull', file]))
      if (which === 'base' && hasQh && run < BASE_RUNS)
        base.push(await sample([process.execPath, join(root, 'bench/baseline/quickhull3d-hull.mjs'), QH, points]))
    }
  }
  const oursMs = median(ours.map((x) => x.s.ms))
  const oursMb = median(ours.map((x) => x.r.maxRssKb)) / 1024
  const volume = ours[0]!.s.volume
  const baseMs = base.length ? median(base.map((x) => x.s.ms)) : null
  results[name] = {ours: oursMs, base: baseMs}
  const agree = base.length ? Math.abs(base[0]!.s.volume - volume) / volume : null
  rows.push(
    `| ${name} | ${ours[0]!.s.faces.toLocaleString('en')} | ${volume.toFixed(1)} | **${oursMs.toFixed(0)}** (${ours.map((x) => x.s.ms.toFixed(0)).join(', ')}) | ${oursMb.toFixed(0)} | ${
      baseMs === null
        ? 'not installed'
        : `${baseMs.toFixed(0)} (${base.map((x) => x.s.ms.toFixed(0)).join(', ')}), ${(median(base.map((x) => x.r.maxRssKb)) / 1024).toFixed(0)} MB, volume within ${agree!.toExponential(1)}`
    } | ${(baseMs === null ? NaN : baseMs / oursMs).toFixed(1)}× | ${ref.manifold} s / ${ref.qh} s |`,
  )
}
rmSync(work, {recursive: true, force: true})

const torusMs = results.torus!.ours
const verdict = torusMs < TARGET_MS ? 'met' : 'NOT met'
const table = `## Convex hull: 1,000,000-triangle torus and sphere

The torus of \`mesh-measure\` (500,000 vertices, about half on the hull) and a UV sphere of 1,000 × 501 (500,002 vertices, every one on the hull), both from \`bench/mesh-lib.ts\`. Our hull is \`convexHull\` of \`src/mesh/hull.ts\` on the welded vertices, timed in-process (reading the file is not timed) in a fresh process per run, ${RUNS} runs; peak RSS is the whole process (file, mesh and hull). Same-run baseline: the npm package quickhull3d${hasQh ? '' : ' (not installed in this run)'} on the same points (\`bench/baseline/quickhull3d-hull.mjs\`, converting the points to its arrays not timed), ${BASE_RUNS} run${BASE_RUNS === 1 ? '' : 's'}, alternating with ours. The last column quotes the issue's figures for manifold-3d's hull and quickhull3d, measured on another machine: reference only, not this run.

| mesh | hull faces | hull volume mm³ | ours ms (runs) | ours peak RSS MB | quickhull3d ms (runs), RSS, agreement | quickhull3d / ours | issue: manifold-3d / quickhull3d |
|---|---:|---:|---:|---:|---|---:|---|
${rows.join('\n')}

Torus under ${TARGET_MS} ms: ${verdict} (${torusMs.toFixed(0)} ms). ${machine()}; load average at the end ${os
  .loadavg()
  .map((x) => x.toFixed(1))
  .join(' ')} (the machine is shared with other work).`
writeSection('mesh-hull', table)
console.log(table)
if (torusMs >= TARGET_MS) process.exitCode = 1
