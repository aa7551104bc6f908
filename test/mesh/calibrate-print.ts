// Fit of the print-time model (src/mesh/print.ts) against PrusaSlicer (not a test; run by hand):
//   npx tsx test/mesh/calibrate-print.ts
// Reads PrusaSlicer's times for the reference parts from test/fixtures/prusa/reference.json
// (record them anew with `npx tsx bench/mesh-print.ts --record`), then for every choice of the
// model's shape constants on a grid (time wall thickness, skin thickness, the |nz| above which
// a face is skin) fits the four rates (s/mm³ of walls, of solid, of
// sparse infill, s per layer) by least squares on the relative error, keeps fits whose rates
// are all positive, and ranks them by leave-one-out error (each part predicted by the fit of
// the others). Prints the best few and the chosen one's per-part errors.
import {readFileSync} from 'node:fs'

import {readMesh} from '../../src/mesh/index.js'
import {analyseTopology} from '../../src/mesh/topology.js'
import {layerCount, sumMesh} from '../../src/mesh/measure.js'
import {skinArea, splitVolume, type PrintInput} from '../../src/mesh/print.js'
import {meshPath} from '../helpers/meshes.js'
import {readReference} from './print-reference.js'

const parts = readReference().parts.map((p) => {
  const mesh = readMesh(readFileSync(meshPath(p.file)))
  const s = sumMesh(mesh)
  const height = s.maxZ - s.minZ
  const input: PrintInput = {
    volume: Math.abs(s.volume),
    area: s.area,
    areaHorizontal: s.areaHorizontal,
    areaVertical: s.areaVertical,
    width: s.maxX - s.minX,
    depth: s.maxY - s.minY,
    height,
    layers: layerCount(height),
    layerHeight: 0.3,
    infill: 0.2,
    parts: analyseTopology(mesh).parts,
  }
  const skins = new Map([0, 0.3, 0.5, 0.7, 0.9, 0.99].map((t) => [t, skinArea(mesh, t)]))
  return {file: p.file, seconds: p.hours * 3600, input, skins}
})

/** Least squares: minimise Σ (x·a_i − 1)² over rows a_i (normal equations, Gauss–Jordan). */
function solve(rows: number[][]): number[] | null {
  const n = rows[0]!.length
  const m = Array.from({length: n}, (_, i) => [
    ...Array.from({length: n}, (_, j) => rows.reduce((s, r) => s + r[i]! * r[j]!, 0)),
    rows.reduce((s, r) => s + r[i]!, 0),
  ])
  for (let c = 0; c < n; c++) {
    let p = c
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r
    ;[m[c], m[p]] = [m[p]!, m[c]!]
    if (Math.abs(m[c]![c]!) < 1e-12) return null
    for (let r = 0; r < n; r++) {
      if (r === c) continue
      const f = m[r]![c]! / m[c]![c]!
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!
    }
  }
  return m.map((row, i) => row[n]! / row[i]!)
}

const median = (xs: number[]) => {
  const a = [...xs].sort((x, y) => x - y)
  return a.length % 2 ? a[(a.length - 1) / 2]! : (a[a.length / 2 - 1]! + a[a.length / 2]!) / 2
}

interface Fit {
  shape: {wall: number; skin: number; minNz: number}
  rates: number[]
  errors: number[]
  loo: number[]
  rows: number[][]
}
const fits: Fit[] = []
// The solid-infill area stays PrusaSlicer's solid_infill_below_area (70 mm²): a setting, not fitted.
for (const minNz of [0, 0.3, 0.5, 0.7, 0.9, 0.99])
  for (let wall = 0.6; wall <= 2.01; wall += 0.1)
    for (let skin = 0.1; skin <= 1.51; skin += 0.1) {
      const terms = parts.map((p) => {
        const t = splitVolume(p.input, wall, skin, p.skins.get(minNz)!)
        return [t.walls, t.skins + t.solidCore, t.sparse, p.input.layers]
      })
      const rows = terms.map((t, i) => t.map((x) => x / parts[i]!.seconds))
      const rates = solve(rows)
      if (!rates || rates.some((r) => !(r > 0))) continue
      const errors = rows.map((r) => r.reduce((s, x, k) => s + x * rates[k]!, 0) - 1)
      const loo = rows.map((r, i) => {
        const x = solve(rows.filter((_, j) => j !== i))
        return x ? r.reduce((s, v, k) => s + v * x[k]!, 0) - 1 : Number.POSITIVE_INFINITY
      })
      fits.push({shape: {wall, skin, minNz}, rates, errors, loo, rows})
    }

const score = (f: Fit) => median(f.loo.map(Math.abs)) + 0.3 * Math.max(...f.loo.map(Math.abs))
fits.sort((a, b) => score(a) - score(b))
const pct = (x: number) => `${(100 * x).toFixed(1)} %`
const line = (f: Fit) =>
  `wall ${f.shape.wall.toFixed(1)} mm, skin ${f.shape.skin.toFixed(1)} mm, |nz| ≥ ${f.shape.minNz}; ` +
  `rates ${f.rates.map((r) => r.toFixed(3)).join(', ')}; fit median ${pct(median(f.errors.map(Math.abs)))} worst ${pct(Math.max(...f.errors.map(Math.abs)))}; ` +
  `leave-one-out median ${pct(median(f.loo.map(Math.abs)))} worst ${pct(Math.max(...f.loo.map(Math.abs)))}`
for (const f of fits.slice(0, 8)) console.log(line(f))
const best = fits[0]!
console.log('\npart, fit error, leave-one-out error')
for (const [i, p] of parts.entries()) console.log(`${p.file}, ${pct(best.errors[i]!)}, ${pct(best.loo[i]!)}`)

// Nested leave-one-out: the shape constants too are chosen without the part left out (the
// best fit, median + 0.3 × worst, of the other parts over the whole grid), then it is predicted.
const nested = parts.map((_, i) => {
  let bestScore = Number.POSITIVE_INFINITY
  let prediction = Number.NaN
  for (const f of fits) {
    const others = f.rows.filter((_, j) => j !== i)
    const x = solve(others)
    if (!x || x.some((r) => !(r > 0))) continue
    const e = others.map((r) => Math.abs(r.reduce((s, v, k) => s + v * x[k]!, 0) - 1))
    const sc = median(e) + 0.3 * Math.max(...e)
    if (sc < bestScore) {
      bestScore = sc
      prediction = f.rows[i]!.reduce((s, v, k) => s + v * x[k]!, 0) - 1
    }
  }
  return prediction
})
console.log(
  `\nnested leave-one-out (shape constants re-chosen without the part): median ${pct(median(nested.map(Math.abs)))}, worst ${pct(Math.max(...nested.map(Math.abs)))}`,
)
for (const [i, p] of parts.entries()) console.log(`${p.file}, ${pct(nested[i]!)}`)
