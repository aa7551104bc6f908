import type {Mesh} from './types.js'

export interface Topology {
  /** Edges used by exactly one face. */
  openEdges: number
  /** Edges used by three or more faces. */
  nonManifoldEdges: number
  /** Every edge in exactly two faces (and at least one face). */
  closed: boolean
  /** Bodies: triangles connected through edges shared by exactly two faces. */
  parts: number
  /** Triangles with a repeated vertex index; ignored for topology. */
  degenerate: number
}

/**
 * Edge census and connected parts in O(n): each undirected edge is filed under its lower
 * vertex in a compressed adjacency list, so equal edges meet in one short list.
 * Two bodies touching along an edge or at a vertex count as two parts.
 */
export function analyseTopology(mesh: Mesh): Topology {
  const tri = mesh.triangles
  const nt = mesh.triangleCount
  const nv = mesh.vertexCount
  const start = new Uint32Array(nv + 1)
  let degenerate = 0
  for (let t = 0; t < nt; t++) {
    const a = tri[t * 3]!
    const b = tri[t * 3 + 1]!
    const c = tri[t * 3 + 2]!
    if (a === b || b === c || a === c) {
      degenerate++
      continue
    }
    start[(a < b ? a : b) + 1]!++
    start[(b < c ? b : c) + 1]!++
    start[(c < a ? c : a) + 1]!++
  }
  for (let v = 0; v < nv; v++) start[v + 1]! += start[v]!
  const total = start[nv]!
  const other = new Uint32Array(total)
  const face = new Uint32Array(total)
  const fill = start.slice(0, nv)
  const put = (u: number, w: number, t: number): void => {
    const lo = u < w ? u : w
    const at = fill[lo]!++
    other[at] = u < w ? w : u
    face[at] = t
  }
  for (let t = 0; t < nt; t++) {
    const a = tri[t * 3]!
    const b = tri[t * 3 + 1]!
    const c = tri[t * 3 + 2]!
    if (a === b || b === c || a === c) continue
    put(a, b, t)
    put(b, c, t)
    put(c, a, t)
  }

  // Union-find over triangles.
  const parent = new Int32Array(nt)
  for (let t = 0; t < nt; t++) parent[t] = t
  const find = (x: number): number => {
    while (parent[x] !== x) {
      const p = parent[parent[x]!]!
      parent[x] = p
      x = p
    }
    return x
  }

  let openEdges = 0
  let nonManifoldEdges = 0
  let edges = 0
  let order = new Uint32Array(64)
  for (let v = 0; v < nv; v++) {
    const s = start[v]!
    const e = start[v + 1]!
    const d = e - s
    if (d === 0) continue
    if (d === 1) {
      edges++
      openEdges++
      continue
    }
    if (d > order.length) order = new Uint32Array(d * 2)
    if (d > 48) {
      // A vertex of very high degree (a fan): sort properly instead.
      for (let i = 0; i < d; i++) order[i] = s + i
      order.subarray(0, d).sort((x, y) => other[x]! - other[y]!)
    } else
      // Lists are short (about three entries): an insertion sort by the other end groups equal edges.
      for (let i = 0; i < d; i++) {
        const item = s + i
        const key = other[item]!
        let j = i - 1
        while (j >= 0 && other[order[j]!]! > key) {
          order[j + 1] = order[j]!
          j--
        }
        order[j + 1] = item
      }
    let i = 0
    while (i < d) {
      const w = other[order[i]!]!
      let j = i + 1
      while (j < d && other[order[j]!] === w) j++
      const n = j - i
      edges++
      if (n === 1) openEdges++
      else if (n === 2) {
        const ra = find(face[order[i]!]!)
        const rb = find(face[order[i + 1]!]!)
        if (ra !== rb) parent[ra] = rb
      } else nonManifoldEdges++
      i = j
    }
  }
  let parts = 0
  for (let t = 0; t < nt; t++) {
    const a = tri[t * 3]!
    const b = tri[t * 3 + 1]!
    const c = tri[t * 3 + 2]!
    if (a === b || b === c || a === c) continue
    if (find(t) === t) parts++
  }
  return {
    openEdges,
    nonManifoldEdges,
    closed: edges > 0 && openEdges === 0 && nonManifoldEdges === 0,
    parts,
    degenerate,
  }
}
