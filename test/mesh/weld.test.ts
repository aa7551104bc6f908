// The binary STL welder against a plain reference: corners keyed by their float32 bit
// patterns in a Map (-0 taken as +0), vertices numbered in order of first appearance.
// Random triangles drawn from a small pool of points (so corners repeat) or all distinct
// (so the key store and the hash table grow past what the triangle count suggested), read
// whole and from a file in pieces, and the edge counts it leaves for the census.
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import fc from 'fast-check'
import {afterAll, describe, expect, it} from 'vitest'

import {analyseTopology} from '../../src/mesh/topology.js'
import {readBinaryStl, readBinaryStlFile} from '../../src/mesh/stl.js'
import type {Mesh} from '../../src/mesh/types.js'
import {binaryStl} from './helpers.js'

const dir = mkdtempSync(join(tmpdir(), 'mfg-weld-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

const bits = new Int32Array(1)
const asFloat = new Float32Array(bits.buffer)
function key(x: number, y: number, z: number): string {
  const parts = [x, y, z].map((v) => {
    asFloat[0] = v
    return bits[0] === -2147483648 ? 0 : bits[0]!
  })
  return parts.join(',')
}

function reference(tris: number[][][]): {vertexCount: number; triangles: number[]} {
  const ids = new Map<string, number>()
  const triangles: number[] = []
  for (const t of tris) {
    for (const [x, y, z] of t) {
      const k = key(x!, y!, z!)
      let id = ids.get(k)
      if (id === undefined) ids.set(k, (id = ids.size))
      triangles.push(id)
    }
  }
  return {vertexCount: ids.size, triangles}
}

function expectWelded(mesh: Mesh, tris: number[][][]): void {
  const ref = reference(tris)
  expect(mesh.vertexCount).toBe(ref.vertexCount)
  expect(Array.from(mesh.triangles)).toEqual(ref.triangles)
  // Each vertex is the float32 point its corners had.
  const p = mesh.positions
  const got: string[] = []
  const want: string[] = []
  tris.forEach((t, i) =>
    t.forEach((corner, k) => {
      const v = mesh.triangles[3 * i + k]!
      got.push(key(p[3 * v]!, p[3 * v + 1]!, p[3 * v + 2]!))
      want.push(key(corner[0]!, corner[1]!, corner[2]!))
    }),
  )
  expect(got).toEqual(want)
}

/**
 * Points from a pool of `pool` (small: corners repeat), or all distinct when pool is 0; a
 * zero coordinate is written as -0 or +0 at random, so equal points differ in those bits.
 */
const triangles = (max: number) =>
  fc.integer({min: 0, max: 40}).chain((pool) =>
    fc
      .array(fc.tuple(fc.nat(999), fc.nat(999), fc.nat(999), fc.nat(511)), {minLength: 1, maxLength: max})
      .map((picks) =>
        picks.map(([a, b, c, signs], i) =>
          [a, b, c].map((n, k) => {
            const point =
              pool === 0 ? [i * 3 + k, i % 7, 0] : [(n % pool) % 5, Math.floor((n % pool) / 5) * 0.25, (n % pool) % 3]
            return point.map((x, axis) => (x === 0 && (signs >> (3 * k + axis)) & 1 ? -0 : x))
          }),
        ),
      ),
  )

describe('binary STL welding', () => {
  it('numbers vertices as a Map of their bit patterns would, -0 as +0, growing as it must', () => {
    fc.assert(
      fc.property(triangles(400), (tris) => {
        expectWelded(readBinaryStl(binaryStl(tris)), tris)
      }),
      {numRuns: 300},
    )
  })

  it('welds the same read from a file in pieces, and leaves the census edge counts that agree with counting afresh', () => {
    // 45,000 triangles: three pieces of the reader; all corners distinct in one, a grid in the other.
    const distinct = Array.from({length: 45_000}, (_, i) => [
      [i, 0, 0],
      [i, 1, 0],
      [i, 0, 1],
    ])
    const grid = Array.from({length: 45_000}, (_, i) => {
      const q = i >> 1,
        x = q % 150,
        y = Math.floor(q / 150)
      return i & 1
        ? [
            [x, y, 0],
            [x + 1, y + 1, 0],
            [x, y + 1, 0],
          ]
        : [
            [x, y, 0],
            [x + 1, y, 0],
            [x + 1, y + 1, 0],
          ]
    })
    for (const [name, tris] of [
      ['distinct', distinct],
      ['grid', grid],
    ] as const) {
      const file = join(dir, `${name}.stl`)
      writeFileSync(file, binaryStl(tris))
      const mesh = readBinaryStlFile(file)!
      expectWelded(mesh, tris)
      const counted = analyseTopology(mesh)
      const afresh = analyseTopology({...mesh, triangles: Uint32Array.from(mesh.triangles)})
      expect(counted, name).toEqual(afresh)
    }
  })
})
