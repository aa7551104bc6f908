// Same-run baseline of bench/mesh-hull.ts: the npm package quickhull3d on the same points
// (its bundled ESM build: the per-file build imports without extensions, which Node refuses).
// Usage: node quickhull3d-hull.mjs QUICKHULL3D_DIR POINTS_F64
// POINTS_F64 holds x, y, z float64 per vertex (the welded vertices of the STL, as our hull
// gets them). Turning them into the [x, y, z] arrays quickhull3d takes is not timed; the
// hull and its volume are. Prints one JSON line.
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {performance} from 'node:perf_hooks'
import {pathToFileURL} from 'node:url'

const [dir, file] = process.argv.slice(2)
const {default: quickhull} = await import(pathToFileURL(join(dir, 'node_modules/quickhull3d/dist/quickhull3d.js')).href)
const buf = readFileSync(file)
const p = new Float64Array(buf.buffer, buf.byteOffset, buf.byteLength / 8)
const points = []
for (let i = 0; i < p.length; i += 3) points.push([p[i], p[i + 1], p[i + 2]])
const t0 = performance.now()
const faces = quickhull(points)
let volume = 0
for (const [a, b, c] of faces) {
  const [ax, ay, az] = points[a]
  const [bx, by, bz] = points[b]
  const [cx, cy, cz] = points[c]
  volume += ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx)
}
const ms = performance.now() - t0
console.log(JSON.stringify({ms, volume: volume / 6, faces: faces.length}))
