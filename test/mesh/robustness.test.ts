import {describe, expect, it} from 'vitest'
import {convexHullVolume, MeshError, measureMesh, readMesh} from '../../src/mesh/index.js'
import {binaryStl, meshBytes} from './helpers.js'

// Deterministic damage: every cut or scrambled copy of a real file either still reads (and
// measures) or fails with a MeshError, never with another exception.
function rng(seed: number): () => number {
  return () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0
    return seed / 2 ** 32
  }
}

describe('damaged files give MeshError or a mesh, never a crash', () => {
  const files = ['cube20.stl', 'example001.stl', 'logo.obj', 'logo-prusa.3mf', 'logo-openscad.3mf', 'logo-ascii.stl']
  for (const file of files) {
    it(file, () => {
      const original = meshBytes(file)
      const random = rng(file.length * 7919)
      let errors = 0
      for (let k = 0; k < 12; k++) {
        const bytes = k % 2 === 0 ? original.slice(0, Math.floor(random() * original.length)) : original.slice()
        if (k % 2 === 1)
          for (let j = 0; j < 20; j++) bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256)
        try {
          const m = measureMesh(readMesh(bytes, {fileName: file}), {hull: k % 4 === 1})
          expect(m.triangles).toBeGreaterThan(0)
        } catch (err) {
          expect(err).toBeInstanceOf(MeshError)
          expect((err as Error).message.length).toBeGreaterThan(10)
          errors++
        }
      }
      // Cuts of these files are always detected (STL counts, OBJ lines, zip directory).
      expect(errors).toBeGreaterThanOrEqual(file === 'logo.obj' ? 1 : 6)
    })
  }
})

describe('degenerate geometry', () => {
  it('a single triangle: three open edges, flat hull', () => {
    const m = measureMesh(
      readMesh(
        binaryStl([
          [
            [0, 0, 0],
            [10, 0, 0],
            [0, 10, 0],
          ],
        ]),
      ),
    )
    expect(m).toMatchObject({
      triangles: 1,
      parts: 1,
      closed: false,
      openEdges: 3,
      nonManifoldEdges: 0,
      volume: 0,
      area: 50,
      convexHullVolume: 0,
      height: 0,
    })
    expect(m.slicingData.number_of_layers).toBe(0)
    expect(m.slicingData.hours).toBe(0)
  })

  it('a zero-area triangle is counted but ignored for topology', () => {
    const cube = readMesh(meshBytes('cube20.stl'))
    const m = measureMesh({...cube, triangles: Uint32Array.from([...cube.triangles, 0, 0, 1]), triangleCount: 13})
    expect(m.triangles).toBe(13)
    expect(m.closed).toBe(true)
  })

  it('hull of coplanar and collinear points is 0; of a cube grid, the cube', () => {
    expect(convexHullVolume(Float64Array.from([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0.5, 0.5, 0]))).toBe(0)
    expect(convexHullVolume(Float64Array.from([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]))).toBe(0)
    const grid: number[] = []
    for (let i = 0; i <= 20; i++)
      for (let j = 0; j <= 20; j++) for (let k = 0; k <= 20; k++) grid.push(i * 0.5, j * 0.5, k * 0.5)
    expect(convexHullVolume(Float64Array.from(grid))).toBeCloseTo(1000, 9)
  })

  it('hull of many points on a sphere approaches the ball', () => {
    const n = 20000
    const pts = new Float64Array(n * 3)
    for (let i = 0; i < n; i++) {
      const z = 1 - (2 * (i + 0.5)) / n
      const r = Math.sqrt(1 - z * z)
      const t = i * Math.PI * (3 - Math.sqrt(5))
      pts.set([10 * r * Math.cos(t) + 100, 10 * r * Math.sin(t) - 50, 10 * z + 7], i * 3)
    }
    const v = convexHullVolume(pts)
    const ball = (4 / 3) * Math.PI * 1000
    expect(v).toBeLessThan(ball)
    expect(v / ball).toBeGreaterThan(0.999)
  })
})

describe('fast paths agree with the plain ones', () => {
  it('a binary STL at an odd byte offset (the copied, unaligned path) reads the same', () => {
    const bytes = meshBytes('example001.stl')
    const shifted = new Uint8Array(bytes.length + 1)
    shifted.set(bytes, 1)
    const a = readMesh(bytes)
    const b = readMesh(shifted.subarray(1))
    expect(b.vertexCount).toBe(a.vertexCount)
    expect(b.triangles).toEqual(a.triangles)
    expect(b.positions).toEqual(a.positions)
  })

  it('the interior filter drops points inside, never hull vertices', () => {
    // 20,000 points inside a 10 mm cube (enough for the filter to run) and its 8 corners.
    const random = rng(42)
    const pts: number[] = []
    for (let i = 0; i < 20000; i++) pts.push(0.01 + random() * 9.98, 0.01 + random() * 9.98, 0.01 + random() * 9.98)
    for (let c = 0; c < 8; c++) pts.push(c & 1 ? 10 : 0, c & 2 ? 10 : 0, c & 4 ? 10 : 0)
    expect(convexHullVolume(Float64Array.from(pts))).toBeCloseTo(1000, 9)
  })
})

describe('print hours', () => {
  it('two bodies touching are filled like two bodies (edge-touch within 25 % of PrusaSlicer)', () => {
    // PrusaSlicer 2.5 at its defaults: 16m 57s (bench/mesh-print.ts slices it).
    const m = measureMesh(readMesh(meshBytes('edge-touch.stl')), {hull: false})
    expect(Math.abs((m.slicingData.hours * 3600) / (16 * 60 + 57) - 1)).toBeLessThan(0.25)
  })
})
