// The edge census against a plain reference: every edge counted in a Map under its
// two vertex indices, parts joined through the edges of exactly two faces. Random
// index soups (open, non-manifold and degenerate triangles, repeated faces) and fans
// whose centre has more neighbours than the census's short-list path takes.
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'

import {analyseTopology, type Topology} from '../../src/mesh/topology.js'
import type {Mesh} from '../../src/mesh/types.js'

function reference(tri: number[]): Topology {
  const nt = tri.length / 3
  const edges = new Map<string, number[]>()
  let degenerate = 0
  for (let t = 0; t < nt; t++) {
    const [a, b, c] = [tri[3 * t]!, tri[3 * t + 1]!, tri[3 * t + 2]!]
    if (a === b || b === c || a === c) {
      degenerate++
      continue
    }
    for (const [p, q] of [
      [a, b],
      [b, c],
      [c, a],
    ] as const) {
      const key = p < q ? `${p},${q}` : `${q},${p}`
      edges.set(key, [...(edges.get(key) ?? []), t])
    }
  }
  const parent = Array.from({length: nt}, (_, i) => i)
  const root = (x: number): number => (parent[x] === x ? x : (parent[x] = root(parent[x]!)))
  let joins = 0
  let openEdges = 0
  let nonManifoldEdges = 0
  for (const faces of edges.values()) {
    if (faces.length === 1) openEdges++
    else if (faces.length > 2) nonManifoldEdges++
    else if (root(faces[0]!) !== root(faces[1]!)) {
      parent[root(faces[0]!)] = root(faces[1]!)
      joins++
    }
  }
  return {
    openEdges,
    nonManifoldEdges,
    closed: edges.size > 0 && openEdges === 0 && nonManifoldEdges === 0,
    parts: nt - degenerate - joins,
    degenerate,
  }
}

function analyse(tri: number[], vertexCount: number): Topology {
  const mesh: Mesh = {
    format: 'stl-binary',
    positions: new Float64Array(vertexCount * 3),
    triangles: Uint32Array.from(tri),
    vertexCount,
    triangleCount: tri.length / 3,
  }
  return analyseTopology(mesh)
}

describe('edge census and parts', () => {
  it('agree with the reference on random index soups', () => {
    const soup = fc
      .integer({min: 3, max: 40})
      .chain((nv) =>
        fc.tuple(fc.constant(nv), fc.array(fc.integer({min: 0, max: nv - 1}), {minLength: 3, maxLength: 360})),
      )
    fc.assert(
      fc.property(soup, ([nv, raw]) => {
        const tri = raw.slice(0, raw.length - (raw.length % 3))
        expect(analyse(tri, nv)).toEqual(reference(tri))
      }),
      {numRuns: 2000},
    )
  })

  it.each([3, 24, 25, 200])(
    'agree with the reference on a fan of %i spokes, alone, doubled in part and with a degenerate triangle',
    (k) => {
      const fan: number[] = []
      for (let i = 0; i < k; i++) fan.push(0, 1 + i, 1 + ((i + 1) % k))
      for (const tri of [fan, [...fan, ...fan.slice(0, 9)], [...fan, 0, 0, 1]]) {
        expect(analyse(tri, k + 1)).toEqual(reference(tri))
      }
      // The closed fan's rim is open: one edge per spoke.
      expect(analyse(fan, k + 1)).toMatchObject({openEdges: k, nonManifoldEdges: 0, parts: 1, closed: false})
    },
  )
})
