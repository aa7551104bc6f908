// Print-hours heuristic (src/mesh/print.ts, through measureFile) against PrusaSlicer's own
// estimate on the reference meshes (test/fixtures/meshes, torus-100k.stl generated), sliced in this run at PrusaSlicer's
// defaults (0.3 mm layers, 0.35 mm first layer, 20 % infill), the same our defaults mirror.
// Without prusa-slicer on the PATH the README's G-code figures are used, and the section
// says so. Reports the median and worst relative error of the hours.
import {execFileSync} from 'node:child_process'
import {mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {measureFile} from '../src/mesh/index.js'
import {MESHES, meshPath} from '../test/helpers/meshes.js'
import {machine, median, writeSection} from './lib.js'

/** test/mesh/measure.test.ts holds each README mesh's time to this. */
const BOUND = 0.25

/** PrusaSlicer 2.5's estimates (test/fixtures/meshes/README.md), for a machine without it. */
const README_SECONDS: Record<string, number> = {
  'cube20.stl': 13 * 60 + 45,
  'example001.stl': 3600 + 21 * 60 + 58,
  'CSG.stl': 20 * 60 + 49,
  'logo.stl': 3600 + 22 * 60 + 30,
  'torus-100k.stl': 3 * 3600 + 11 * 60 + 49,
}

function seconds(s: string): number {
  let t = 0
  for (const m of s.matchAll(/(\d+)([dhms])/g)) t += Number(m[1]) * {d: 86400, h: 3600, m: 60, s: 1}[m[2] as 'd']
  return t
}
const hms = (h: number): string => {
  const s = Math.round(h * 3600)
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m ${s % 60}s`
}

let slicer: string
try {
  const help = execFileSync('prusa-slicer', ['--help'], {stdio: ['ignore', 'pipe', 'ignore']}).toString()
  slicer = /PrusaSlicer-\S+/.exec(help)?.[0] ?? 'prusa-slicer'
} catch {
  slicer = ''
}

const work = mkdtempSync(join(tmpdir(), 'mfg-bench-print-'))
const files = [...readdirSync(MESHES), 'torus-100k.stl'].filter((f) => /\.(stl|obj|3mf)$/i.test(f)).sort()
const rows: {file: string; theirs: number; ours: number; error: number}[] = []
const skipped: string[] = []
for (const f of files) {
  let theirs: number | undefined
  if (slicer) {
    const gcode = join(work, `${f}.gcode`)
    try {
      execFileSync('prusa-slicer', ['--export-gcode', meshPath(f), '--output', gcode], {stdio: 'ignore'})
      const m = /estimated printing time \(normal mode\) = (.*)/.exec(readFileSync(gcode, 'utf8'))
      if (m) theirs = seconds(m[1]!) / 3600
    } catch {
      // Fall through: not sliceable (open or non-manifold beyond its repair).
    }
  } else if (README_SECONDS[f] !== undefined) theirs = README_SECONDS[f] / 3600
  if (theirs === undefined) {
    skipped.push(f)
    continue
  }
  const ours = measureFile(meshPath(f), {hull: false}).slicingData.hours
  rows.push({file: f, theirs, ours, error: ours / theirs - 1})
}
rmSync(work, {recursive: true, force: true})

const abs = rows.map((r) => Math.abs(r.error))
const med = median(abs)
// The logo comes in five files (formats) of one part: count each part once as well.
const part = (f: string) => f.replace(/(-ascii|-prusa|-openscad)?\.(stl|obj|3mf)$/i, '')
const distinct = [...new Map(rows.map((r) => [part(r.file), Math.abs(r.error)])).values()]
const worst = rows.reduce((a, b) => (Math.abs(b.error) > Math.abs(a.error) ? b : a))
const pct = (x: number) => `${(100 * x).toFixed(1)} %`
const over = rows.filter((r) => Math.abs(r.error) > BOUND).map((r) => r.file)
const source = slicer
  ? `PrusaSlicer sliced in this run (\`${slicer}\`, \`prusa-slicer --export-gcode FILE\` at its defaults; its "estimated printing time (normal mode)")`
  : 'prusa-slicer is not installed here, so the reference times are the PrusaSlicer 2.5 G-code figures of test/fixtures/meshes/README.md (not sliced in this run); docs/mesh.md has the full calibration table'
const table = `## Print hours: heuristic against PrusaSlicer

Our \`slicingData.hours\` (\`measureFile\` at the defaults: 0.3 mm layers, 0.35 mm first layer, 20 % infill) on every reference mesh (test/fixtures/meshes, and torus-100k.stl generated) against ${source}.${skipped.length ? ` Not sliced (PrusaSlicer refused or gave no estimate): ${skipped.join(', ')}.` : ''}

| file | PrusaSlicer | ours | error |
|---|---:|---:|---:|
${rows.map((r) => `| ${r.file} | ${hms(r.theirs)} | ${hms(r.ours)} | ${r.error >= 0 ? '+' : ''}${pct(r.error)} |`).join('\n')}

Median absolute error **${pct(med)}** over the ${rows.length} files, **${pct(median(distinct))}** over the ${distinct.length} distinct parts (the logo once); worst **${pct(Math.abs(worst.error))}** (${worst.file}); ${over.length ? `over the ${pct(BOUND)} bound the tests hold the README meshes to: ${over.join(', ')}` : `every file within the ${pct(BOUND)} bound the tests hold the README meshes to`}. The fit and its wider calibration set (generated shapes, scaled copies, leave-one-out) are in docs/mesh.md. ${machine()}.`
writeSection('mesh-print', table)
console.log(table)
