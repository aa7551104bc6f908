import {describe, expect, it} from 'vitest'
import {measureFile, measureMesh, readMesh, readMeshFile, type Measurement} from '../../src/mesh/index.js'
import {layerCount} from '../../src/mesh/measure.js'
import {readBinaryStlFile} from '../../src/mesh/stl.js'
import {meshBytes, meshPath} from './helpers.js'

// Reference values from test/fixtures/meshes/README.md. They are printed to 3 decimals, so a
// value matches when within max(1e-5 relative, 0.0005 absolute) of it; sizes within 1e-4 mm.
function near(actual: number | null, expected: number): void {
  expect(actual).not.toBeNull()
  const tol = Math.max(1e-5 * Math.abs(expected), 0.0005)
  expect(Math.abs(actual! - expected), `${actual} vs ${expected}`).toBeLessThanOrEqual(tol)
}

function size(m: Measurement, w: number, d: number, h: number): void {
  expect(Math.abs(m.width - w)).toBeLessThanOrEqual(1e-4)
  expect(Math.abs(m.depth - d)).toBeLessThanOrEqual(1e-4)
  expect(Math.abs(m.height - h)).toBeLessThanOrEqual(1e-4)
}

interface Ref {
  file: string
  format: Measurement['format']
  triangles: number
  size: [number, number, number]
  volume: number
  area: number
  hull: number
  closed: boolean
  openEdges: number
  nonManifoldEdges: number
  parts: number
}

const REFS: Ref[] = [
  {
    file: 'cube20.stl',
    format: 'stl-binary',
    triangles: 12,
    size: [20, 20, 20],
    volume: 8000,
    area: 2400,
    hull: 8000,
    closed: true,
    openEdges: 0,
    nonManifoldEdges: 0,
    parts: 1,
  },
  {
    file: 'open-box.stl',
    format: 'stl-binary',
    triangles: 10,
    size: [20, 20, 20],
    volume: 5333.333,
    area: 2000,
    hull: 8000,
    closed: false,
    openEdges: 4,
    nonManifoldEdges: 0,
    parts: 1,
  },
  {
    file: 'edge-touch.stl',
    format: 'stl-binary',
    triangles: 24,
    size: [20, 20, 10],
    volume: 2000,
    area: 1200,
    hull: 3000,
    closed: false,
    openEdges: 0,
    nonManifoldEdges: 1,
    parts: 2,
  },
  {
    file: 'example001.stl',
    format: 'stl-binary',
    triangles: 1264,
    size: [43.1231, 43.3556, 43.3013],
    volume: 18241.624,
    area: 9499.83,
    hull: 59605.572,
    closed: true,
    openEdges: 0,
    nonManifoldEdges: 0,
    parts: 1,
  },
  {
    file: 'CSG.stl',
    format: 'stl-binary',
    triangles: 3004,
    size: [65.5, 19.8904, 19.8904],
    volume: 7773.409,
    area: 3466.847,
    hull: 17978.749,
    closed: true,
    openEdges: 0,
    nonManifoldEdges: 0,
    parts: 3,
  },
  {
    file: 'logo.stl',
    format: 'stl-binary',
    triangles: 8280,
    size: [43.3011, 43.3011, 43.2856],
    volume: 18686.146,
    area: 9586.173,
    hull: 60325.585,
    closed: true,
    openEdges: 0,
    nonManifoldEdges: 0,
    parts: 1,
  },
  {
    file: 'torus-100k.stl',
    format: 'stl-binary',
    triangles: 100000,
    size: [110, 110, 30],
    volume: 177531.339,
    area: 23682.765,
    hull: 253680.996,
    closed: true,
    openEdges: 0,
    nonManifoldEdges: 0,
    parts: 1,
  },
]

describe('shared meshes against the README reference values', () => {
  for (const ref of REFS) {
    it(ref.file, () => {
      const m = measureMesh(readMesh(meshBytes(ref.file), {fileName: ref.file}))
      expect(m.format).toBe(ref.format)
      expect(m.triangles).toBe(ref.triangles)
      // The README prints sizes to 4 decimals; the float32 extents are within 1e-4 of them.
      size(m, ...ref.size)
      near(m.volume, ref.volume)
      near(m.area, ref.area)
      near(m.convexHullVolume, ref.hull)
      expect({closed: m.closed, openEdges: m.openEdges, nonManifoldEdges: m.nonManifoldEdges, parts: m.parts}).toEqual({
        closed: ref.closed,
        openEdges: ref.openEdges,
        nonManifoldEdges: ref.nonManifoldEdges,
        parts: ref.parts,
      })
      near(m.boundingBoxVolume, m.width * m.depth * m.height)
    })
  }

  // Speed is measured in bench/mesh-hull.ts, never asserted here.
  it('the torus hull has the reference volume', () => {
    const m = measureMesh(readMesh(meshBytes('torus-100k.stl')))
    near(m.convexHullVolume, 253680.996)
  })
})

describe('copies of logo.stl in other formats agree with it', () => {
  const stl = measureMesh(readMesh(meshBytes('logo.stl')))
  const copies: [string, Measurement['format'], number][] = [
    ['logo.obj', 'obj', 8280],
    ['logo-prusa.3mf', '3mf', 8280],
    ['logo-openscad.3mf', '3mf', 8280],
    ['logo-ascii.stl', 'stl-ascii', 8120],
  ]
  for (const [file, format, triangles] of copies) {
    it(file, () => {
      const m = measureMesh(readMesh(meshBytes(file)))
      expect(m.format).toBe(format)
      expect(m.triangles).toBe(triangles)
      expect(m.closed).toBe(true)
      expect(m.parts).toBe(1)
      expect(m.openEdges + m.nonManifoldEdges).toBe(0)
      // Sizes within 0.001 mm (README); text copies round coordinates to 6 or 7 digits.
      for (const k of ['width', 'depth', 'height'] as const) expect(Math.abs(m[k] - stl[k])).toBeLessThan(0.001)
      // ASCII drops 160 slivers, so only ≈ there.
      const rel = format === 'stl-ascii' ? 1e-5 : 1e-6
      expect(Math.abs(m.volume - stl.volume) / stl.volume).toBeLessThan(rel)
      expect(Math.abs(m.area - stl.area) / stl.area).toBeLessThan(rel)
      expect(Math.abs(m.convexHullVolume! - stl.convexHullVolume!) / stl.convexHullVolume!).toBeLessThan(rel)
    })
  }

  it('the PrusaSlicer 3MF carries its z lift in the build-item transform', () => {
    const mesh = readMesh(meshBytes('logo-prusa.3mf'))
    let minZ = Infinity
    for (let i = 2; i < mesh.positions.length; i += 3) minZ = Math.min(minZ, mesh.positions[i]!)
    // The object is centred on the origin; the item lifts it by 21.6428146 onto the bed.
    expect(minZ).toBeCloseTo(0, 5)
    expect(mesh.objects).toEqual([{firstTriangle: 0, triangleCount: 8280}])
  })
})

describe('slicing figures', () => {
  it('cube20 has 66 layers at 0.3 / 0.35 mm, as PrusaSlicer', () => {
    const m = measureMesh(readMesh(meshBytes('cube20.stl')), {layerHeight: 0.3, firstLayerHeight: 0.35})
    expect(m.slicingData.number_of_layers).toBe(66)
  })

  it('layer counts of the other PrusaSlicer references', () => {
    expect(layerCount(43.30127)).toBe(144)
    expect(layerCount(19.8904)).toBe(66)
    expect(layerCount(30)).toBe(100)
    expect(layerCount(0.2)).toBe(1)
    expect(layerCount(20, 0.2, 0.2)).toBe(100)
  })

  it('slicingData uses the interface names and types', () => {
    const m = measureMesh(readMesh(meshBytes('cube20.stl')))
    const s = m.slicingData
    expect(Object.keys(s).sort()).toEqual(
      [
        'convex_hull',
        'density',
        'depth',
        'filament_length',
        'height',
        'hours',
        'minimum_bounding_box',
        'number_of_layers',
        'total_print_area',
        'volume',
        'weight',
        'width',
      ].sort(),
    )
    expect(s).toMatchObject({
      width: 20,
      depth: 20,
      height: 20,
      density: 1.24,
      minimum_bounding_box: 8000,
      convex_hull: 8000,
      total_print_area: 400,
      volume: '8000.000',
    })
    expect(typeof s.weight).toBe('string')
    // Weight is the printed plastic: filament volume × density.
    expect(Number(s.weight)).toBeCloseTo((s.filament_length * 2.405 * 1.24) / 1000, 2)
  })

  // PrusaSlicer 2.5 at its defaults (README): filament mm and time.
  const prusa: [string, number, number][] = [
    ['cube20.stl', 1491.16, 13 * 60 + 45],
    ['example001.stl', 5510.16, 3600 + 21 * 60 + 58],
    ['CSG.stl', 1648.67, 20 * 60 + 49],
    ['logo.stl', 5566.02, 3600 + 22 * 60 + 30],
    ['torus-100k.stl', 24041.87, 3 * 3600 + 11 * 60 + 49],
  ]
  for (const [file, filament, seconds] of prusa) {
    it(`${file}: filament within 20 % and time within 25 % of PrusaSlicer`, () => {
      const s = measureMesh(readMesh(meshBytes(file)), {hull: false}).slicingData
      expect(Math.abs(s.filament_length - filament) / filament).toBeLessThan(0.2)
      expect(Math.abs(s.hours * 3600 - seconds) / seconds).toBeLessThan(0.25)
    })
  }

  it('cube20 weighs about what PrusaSlicer reports (4.45 g of PLA)', () => {
    const s = measureMesh(readMesh(meshBytes('cube20.stl'))).slicingData
    expect(Math.abs(Number(s.weight) - 4.45)).toBeLessThan(0.3)
  })

  it('density scales the weight; hull: false skips the hull', () => {
    const mesh = readMesh(meshBytes('cube20.stl'))
    const pla = measureMesh(mesh)
    const alu = measureMesh(mesh, {density: 2.7, hull: false})
    expect(Number(alu.slicingData.weight) / Number(pla.slicingData.weight)).toBeCloseTo(2.7 / 1.24, 2)
    expect(alu.convexHullVolume).toBeNull()
    expect(alu.slicingData.convex_hull).toBe(alu.boundingBoxVolume)
  })

  it('more infill means more filament and more time', () => {
    const mesh = readMesh(meshBytes('cube20.stl'))
    const low = measureMesh(mesh, {infill: 0.1}).slicingData
    const high = measureMesh(mesh, {infill: 0.8}).slicingData
    expect(high.filament_length).toBeGreaterThan(low.filament_length)
    expect(high.hours).toBeGreaterThan(low.hours)
  })

  it('rejects a nonsense layer height', () => {
    const mesh = readMesh(meshBytes('cube20.stl'))
    expect(() => measureMesh(mesh, {layerHeight: 0})).toThrow(/layerHeight/)
  })
})

describe('units of unitless formats', () => {
  it('--unit cm and in scale STL by 10 and 25.4', () => {
    const bytes = meshBytes('cube20.stl')
    const cm = measureMesh(readMesh(bytes, {unit: 'cm'}))
    const inch = measureMesh(readMesh(bytes, {unit: 'in'}))
    expect(cm.width).toBe(200)
    near(cm.volume, 8000 * 1000)
    expect(inch.height).toBeCloseTo(508, 9)
    near(inch.area, 2400 * 25.4 * 25.4)
  })

  it('measureFile reads, converts and measures', () => {
    const m = measureFile(meshPath('cube20.stl'), {unit: 'cm', hull: false})
    expect(m.volume).toBeCloseTo(8_000_000, 6)
    expect(m.convexHullVolume).toBeNull()
  })

  it("the binary STL reader's stage clock adds the time read and summed, and changes nothing it measures", () => {
    const clock = {read: 0, measures: 0}
    const file = meshPath('torus-100k.stl')
    const timed = readBinaryStlFile(file, clock)!
    const plain = readBinaryStlFile(file)!
    expect(clock.read).toBeGreaterThan(0)
    expect(clock.measures).toBeGreaterThan(0)
    expect(timed.triangles).toEqual(plain.triangles)
    expect(measureMesh(timed, {hull: false})).toEqual(measureMesh(plain, {hull: false}))
  })

  it('readMeshFile reads from disk and names the file in errors', () => {
    const m = measureMesh(readMeshFile(meshPath('cube20.stl')))
    expect(m.volume).toBe(8000)
    expect(() => readMeshFile(meshPath('nope.stl'))).toThrow(/nope\.stl: no such file/)
  })
})
