// Calibration of the print-time heuristic against PrusaSlicer (not a test; run by hand):
//   npx tsx test/mesh/calibrate-print.ts [outDir]
// Writes calibration shapes as binary STL, slices them and the shared meshes with
// `prusa-slicer --export-gcode` at its defaults (0.3 mm layers), and prints one JSON line
// per file with our features and PrusaSlicer's time, filament and layers.
import {execFileSync} from 'node:child_process'
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join, resolve} from 'node:path'
import {readMesh} from '../../src/mesh/index.js'
import {layerCount, sumMesh} from '../../src/mesh/measure.js'
import {meshPath} from '../helpers/meshes.js'

type V3 = [number, number, number]
const out = resolve(process.argv[2] ?? '/tmp/mfg-calibration')
mkdirSync(out, {recursive: true})

function writeStl(path: string, tris: V3[][]): void {
  const buf = Buffer.alloc(84 + 50 * tris.length)
  buf.writeUInt32LE(tris.length, 80)
  let o = 84
  for (const t of tris) {
    // PrusaSlicer refuses a file whose normals are all zero, so write real ones.
    const [a, b, c] = t as [V3, V3, V3]
    const u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]]
    const v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]]
    const n = [u[1]! * v[2]! - u[2]! * v[1]!, u[2]! * v[0]! - u[0]! * v[2]!, u[0]! * v[1]! - u[1]! * v[0]!]
    const len = Math.hypot(n[0]!, n[1]!, n[2]!) || 1
    for (const x of n) o = buf.writeFloatLE(x / len, o)
    for (const p of t) for (const x of p) o = buf.writeFloatLE(x, o)
    o += 2
  }
  writeFileSync(path, buf)
}

function box(w: number, d: number, h: number): V3[][] {
  const c = (i: number): V3 => [i & 1 ? w : 0, i & 2 ? d : 0, i & 4 ? h : 0]
  const quads = [
    [0, 2, 3, 1],
    [4, 5, 7, 6],
    [0, 1, 5, 4],
    [2, 6, 7, 3],
    [0, 4, 6, 2],
    [1, 3, 7, 5],
  ]
  return quads.flatMap(([a, b, e, f]) => [
    [c(a!), c(b!), c(e!)],
    [c(a!), c(e!), c(f!)],
  ])
}

/** A closed surface of revolution from a profile (r, z) running from the bottom axis to the top axis. */
function revolve(profile: [number, number][], segments = 96): V3[][] {
  const tris: V3[][] = []
  const at = (r: number, z: number, k: number): V3 => [
    r * Math.cos((2 * Math.PI * k) / segments),
    r * Math.sin((2 * Math.PI * k) / segments),
    z,
  ]
  for (let i = 0; i + 1 < profile.length; i++) {
    const [r0, z0] = profile[i]!
    const [r1, z1] = profile[i + 1]!
    for (let k = 0; k < segments; k++) {
      const a = at(r0, z0, k),
        b = at(r0, z0, k + 1),
        c = at(r1, z1, k + 1),
        d = at(r1, z1, k)
      if (r0 > 0) tris.push([a, b, c])
      if (r1 > 0) tris.push([a, c, d])
    }
  }
  return tris
}

const shapes: Record<string, V3[][]> = {
  cube10: box(10, 10, 10),
  cube40: box(40, 40, 40),
  plate60x40x3: box(60, 40, 3),
  tower10x10x60: box(10, 10, 60),
  bar80x10x10: box(80, 10, 10),
  'cylinder-r15-h30': revolve([
    [0, 0],
    [15, 0],
    [15, 30],
    [0, 30],
  ]),
  'tube-r20-r17-h30': revolve(
    [
      [17, 0],
      [20, 0],
      [20, 30],
      [17, 30],
      [17, 0],
    ].reverse() as [number, number][],
  ),
  'sphere-r20': revolve(
    Array.from({length: 49}, (_, i) => {
      const t = Math.PI * (1 - i / 48)
      return [Math.abs(20 * Math.sin(t)) < 1e-9 ? 0 : 20 * Math.sin(t), 20 + 20 * Math.cos(t)] as [number, number]
    }),
  ),
  'cone-r25-h40': revolve([
    [0, 0],
    [25, 0],
    [0, 40],
  ]),
}

const files: {name: string; path: string; scale: number}[] = []
for (const [name, tris] of Object.entries(shapes)) {
  const path = join(out, `${name}.stl`)
  writeStl(path, tris)
  files.push({name, path, scale: 1})
}
for (const f of ['cube20.stl', 'example001.stl', 'CSG.stl', 'logo.stl', 'torus-100k.stl'])
  files.push({name: f, path: meshPath(f), scale: 1})
files.push({name: 'logo.stl@50%', path: meshPath('logo.stl'), scale: 0.5})
files.push({name: 'example001.stl@200%', path: meshPath('example001.stl'), scale: 2})
files.push({name: 'torus-100k.stl@50%', path: meshPath('torus-100k.stl'), scale: 0.5})
files.push({name: 'CSG.stl@200%', path: meshPath('CSG.stl'), scale: 2})

function seconds(s: string): number {
  let t = 0
  for (const m of s.matchAll(/(\d+)([dhms])/g)) t += Number(m[1]) * {d: 86400, h: 3600, m: 60, s: 1}[m[2] as 'd']
  return t
}

for (const f of files) {
  const gcode = join(out, `${f.name.replace(/[^\w.-]/g, '_')}.gcode`)
  execFileSync(
    'prusa-slicer',
    ['--export-gcode', ...(f.scale !== 1 ? ['--scale', `${f.scale * 100}%`] : []), f.path, '--output', gcode],
    {stdio: 'ignore'},
  )
  const g = readFileSync(gcode, 'utf8')
  const time = seconds(/estimated printing time \(normal mode\) = (.*)/.exec(g)![1]!)
  const filament = Number(/filament used \[mm\] = ([\d.]+)/.exec(g)![1])
  const layers = (g.match(/^;LAYER_CHANGE/gm) ?? []).length
  const mesh = readMesh(readFileSync(f.path))
  for (let i = 0; i < mesh.positions.length; i++) mesh.positions[i] = mesh.positions[i]! * f.scale
  const s = sumMesh(mesh)
  const height = s.maxZ - s.minZ
  console.log(
    JSON.stringify({
      name: f.name,
      time,
      filament,
      layers,
      ourLayers: layerCount(height),
      volume: Math.abs(s.volume),
      area: s.area,
      areaHorizontal: s.areaHorizontal,
      areaVertical: s.areaVertical,
      width: s.maxX - s.minX,
      depth: s.maxY - s.minY,
      height,
    }),
  )
}
