import {convexHullVolumeSteps} from './hull.js'
import {estimatePrint, skinArea} from './print.js'
import {runSteps, type Steps} from './steps.js'
import {topologySteps} from './topology.js'
import type {MeasureOptions, Measurement, Mesh} from './types.js'
import {weldInfo, type Sums} from './weld.js'

export type {MeasureOptions, Measurement, SlicingData} from './types.js'

export type {Sums} from './weld.js'

/**
 * The sums the binary STL reader made while welding, when they still hold: same
 * triangles, and positions never read or still exactly the float32 coordinates they were
 * made from (one sequential compare).
 */
function weldedSums(mesh: Mesh): Sums | undefined {
  const pre = weldInfo.get(mesh)
  if (!pre || pre.triangles !== mesh.triangles || mesh.triangleCount * 3 !== mesh.triangles.length) return undefined
  const p = pre.positions()
  if (p === null) return pre.sums
  const f = pre.floats
  if (p.length !== f.length) return undefined
  for (let i = 0; i < p.length; i++) if (p[i] !== f[i]) return undefined
  return pre.sums
}

/** Bounding box, volume and areas in float64, in one pass over the triangles. */
export function sumMesh(mesh: Mesh): Sums {
  const pre = weldedSums(mesh)
  if (pre) return {...pre}
  const p = mesh.positions
  const t = mesh.triangles
  let minX = Infinity,
    minY = Infinity,
    minZ = Infinity,
    maxX = -Infinity,
    maxY = -Infinity,
    maxZ = -Infinity
  for (let i = 0; i < p.length; i += 3) {
    const x = p[i]!,
      y = p[i + 1]!,
      z = p[i + 2]!
    if (x < minX) minX = x
    if (x > maxX) maxX = x
    if (y < minY) minY = y
    if (y > maxY) maxY = y
    if (z < minZ) minZ = z
    if (z > maxZ) maxZ = z
  }
  let volume = 0
  let area = 0
  let areaHorizontal = 0
  let areaVertical = 0
  for (let i = 0; i < mesh.triangleCount * 3; i += 3) {
    const a = t[i]! * 3,
      b = t[i + 1]! * 3,
      c = t[i + 2]! * 3
    const ax = p[a]!,
      ay = p[a + 1]!,
      az = p[a + 2]!
    const bx = p[b]!,
      by = p[b + 1]!,
      bz = p[b + 2]!
    const cx = p[c]!,
      cy = p[c + 1]!,
      cz = p[c + 2]!
    volume += ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx)
    const ux = bx - ax,
      uy = by - ay,
      uz = bz - az
    const vx = cx - ax,
      vy = cy - ay,
      vz = cz - az
    const nx = uy * vz - uz * vy,
      ny = uz * vx - ux * vz,
      nz = ux * vy - uy * vx
    area += Math.sqrt(nx * nx + ny * ny + nz * nz)
    areaHorizontal += Math.abs(nz)
    areaVertical += Math.sqrt(nx * nx + ny * ny)
  }
  return {
    minX,
    minY,
    minZ,
    maxX,
    maxY,
    maxZ,
    volume: volume / 6,
    area: area / 2,
    areaHorizontal: areaHorizontal / 2,
    areaVertical: areaVertical / 2,
  }
}

/**
 * Layers a slicer makes: the first layer, then one layer per `layerHeight` whose middle
 * lies below the top. That is 1 + round((height − first) / layer) with ties rounded down
 * (a slice exactly at the top face is empty), as PrusaSlicer does: 20 mm → 66 layers.
 */
export function layerCount(height: number, layerHeight = 0.3, firstLayerHeight = 0.35): number {
  if (!(height > 0)) return 0
  const q = (height - firstLayerHeight) / layerHeight
  return 1 + Math.max(0, Math.ceil(q - 0.5 - 1e-9))
}

function check(name: string, v: number, min: number, max = Infinity): number {
  if (!Number.isFinite(v) || v < min || v > max)
    throw new RangeError(`${name} must be a number from ${min}${max === Infinity ? '' : ` to ${max}`}, got ${v}`)
  return v
}

/** All measures of a mesh, summed in float64. */
export function measureMesh(mesh: Mesh, opts: MeasureOptions = {}): Measurement {
  return runSteps(measureSteps(mesh, opts))
}

/** measureMesh in steps: yields (undefined) after each stage, the sums, the edges and parts, the hull. */
export function* measureSteps(mesh: Mesh, opts: MeasureOptions = {}): Steps<Measurement> {
  const layerHeight = check('layerHeight', opts.layerHeight ?? 0.3, 1e-6)
  const firstLayerHeight = check('firstLayerHeight', opts.firstLayerHeight ?? 0.35, 1e-6)
  const density = check('density', opts.density ?? 1.24, 0)
  const infill = check('infill', opts.infill ?? 0.2, 0, 1)
  const s = sumMesh(mesh)
  yield undefined
  const topo = yield* topologySteps(mesh)
  const width = s.maxX - s.minX
  const depth = s.maxY - s.minY
  const height = s.maxZ - s.minZ
  const volume = Math.abs(s.volume)
  const boundingBoxVolume = width * depth * height
  const convexHull = opts.hull === false ? null : yield* convexHullVolumeSteps(mesh.positions)
  const layers = layerCount(height, layerHeight, firstLayerHeight)
  const print = estimatePrint({
    volume,
    area: s.area,
    areaHorizontal: s.areaHorizontal,
    areaVertical: s.areaVertical,
    width,
    depth,
    height,
    layers,
    layerHeight,
    infill,
    parts: topo.parts,
    areaSkin: skinArea(mesh),
  })
  const weight = (print.extrudedVolume / 1000) * density
  return {
    format: mesh.format,
    triangles: mesh.triangleCount,
    parts: topo.parts,
    closed: topo.closed,
    openEdges: topo.openEdges,
    nonManifoldEdges: topo.nonManifoldEdges,
    width,
    depth,
    height,
    volume,
    area: s.area,
    convexHullVolume: convexHull,
    boundingBoxVolume,
    slicingData: {
      width,
      height,
      depth,
      density,
      filament_length: print.filamentLength,
      hours: print.hours,
      minimum_bounding_box: boundingBoxVolume,
      convex_hull: convexHull ?? boundingBoxVolume,
      total_print_area: width * depth,
      number_of_layers: layers,
      volume: volume.toFixed(3),
      weight: weight.toFixed(2),
    },
  }
}
