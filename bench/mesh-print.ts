// Print-hours estimate (src/mesh/print.ts, through measureFile) against PrusaSlicer's own
// "estimated printing time (normal mode)" on every reference part (test/fixtures/meshes,
// each distinct part once, and the generated torus-100k.stl), at the settings
// `price estimate --slicer prusa` runs it with (0.3 mm layers, 0.35 mm first layer,
// PrusaSlicer's default 20 % infill). With prusa-slicer installed every part is sliced in this
// run; without it the figures recorded in test/fixtures/prusa/reference.json are used, and
// the section says so. `--record` rewrites reference.json from this run's slicing.
// Reports ours, PrusaSlicer's and the error per part, the median and the worst.
import {findPrusaSlicer} from '../src/services/price/slicer.js'
import {
  compare,
  MEDIAN_TARGET,
  readReference,
  recordReference,
  slicePart,
  summary,
  WORST_TARGET,
  type ReferencePart,
} from '../test/mesh/print-reference.js'
import {machine, writeSection} from './lib.js'

const hms = (h: number): string => {
  const s = Math.round(h * 3600)
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m ${s % 60}s`
}
const pct = (x: number) => `${x >= 0 ? '' : '−'}${(100 * Math.abs(x)).toFixed(1)} %`

const recorded = readReference()
const slicer = findPrusaSlicer()
let parts: ReferencePart[] = recorded.parts
let source: string
let drift = ''
const started = performance.now()
if (slicer && process.argv.includes('--record')) {
  const ref = await recordReference()
  parts = ref.parts
  source = `PrusaSlicer ${ref.version}, sliced in this run and recorded in test/fixtures/prusa/reference.json`
} else if (slicer) {
  parts = []
  let version = ''
  for (const p of recorded.parts) {
    const now = await slicePart(p.file)
    version = now.version ?? version
    parts.push(now)
  }
  const moved = parts.map((p, i) => Math.abs(p.hours - recorded.parts[i]!.hours) * 3600)
  source = `PrusaSlicer ${version}, sliced in this run`
  drift = ` PrusaSlicer's times this run against the recorded ones (test/fixtures/prusa/reference.json, ${recorded.version}): at most ${Math.max(...moved).toFixed(0)} s apart.`
} else {
  source = `the PrusaSlicer ${recorded.version} figures recorded in test/fixtures/prusa/reference.json (prusa-slicer is not installed here, so nothing was sliced in this run)`
}
const slicingSeconds = (performance.now() - started) / 1000

const rows = compare(parts)
const s = summary(rows)
const met = s.median <= MEDIAN_TARGET && s.worst <= WORST_TARGET
const table = `## Print hours: heuristic against PrusaSlicer

Our \`slicingData.hours\` (\`measureFile\` at the defaults: 0.3 mm layers, 0.35 mm first layer, 20 % infill) on the ${rows.length} distinct reference parts (test/fixtures/meshes, each part once, and torus-100k.stl generated) against ${source}: its "estimated printing time (normal mode)", at the settings \`--slicer prusa\` uses.${drift}

| part | PrusaSlicer | ours | error |
|---|---:|---:|---:|
${rows.map((r) => `| ${r.file} | ${hms(r.theirs)} | ${hms(r.ours)} | ${r.error >= 0 ? '+' : ''}${pct(r.error)} |`).join('\n')}

Median absolute error **${pct(s.median)}**, worst **${pct(s.worst)}** (${s.worstFile}); target median ≤ ${pct(MEDIAN_TARGET)}, worst ≤ ${pct(WORST_TARGET)}: **${met ? 'met' : 'not met'}**. The fit, its leave-one-out error and the model are in docs/mesh.md ("Print hours"); test/mesh/print-accuracy.test.ts holds the recorded figures to the same targets.${slicer ? ` Slicing the ${rows.length} parts took ${slicingSeconds.toFixed(0)} s in this run, one at a time.` : ''} ${machine()}.`
writeSection('mesh-print', table)
console.log(table)
