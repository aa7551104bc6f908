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
 *
 * Everything lives in flat typed arrays walked in file order: the lists of neighbouring
 * vertices sit close together in memory, which keeps a million-triangle mesh in cache
 * far better than one big hash of edges would.
 */
export function analyseTopology(mesh: Mesh): Topology {
  const tri = mesh.triangles
  const nt = mesh.triangleCount
  const nv = mesh.vertexCount
  const start = new Uint32Array(nv + 2)
  let degenerate = 0
  for (let i = 0; i < nt * 3; i += 3) {
    const a = tri[i]!
    const b = tri[i + 1]!
    const c = tri[i + 2]!
    if (a === b || b === c || a === c) {
      degenerate++
      continue
    }
    start[(a < b ? a : b) + 2]!++
    start[(b < c ? b : c) + 2]!++
    start[(c < a ? c : a) + 2]!++
  }
  // Prefix sums shifted by one: start[v + 1] is where v's list begins, and filling moves
  // it to where the list ends, which is where v + 1's begins.
  for (let v = 2; v <= nv + 1; v++) start[v]! += start[v - 1]!
  const total = start[nv + 1]!
  // Per entry: the other (higher) vertex, then the triangle.
  const ent = new Uint32Array(total * 2)
  for (let t = 0, i = 0; t < nt; t++, i += 3) {
    const a = tri[i]!
    const b = tri[i + 1]!
    const c = tri[i + 2]!
    if (a === b || b === c || a === c) continue
    let at = start[(a < b ? a : b) + 1]!++ * 2
    ent[at] = a < b ? b : a
    ent[at + 1] = t
    at = start[(b < c ? b : c) + 1]!++ * 2
    ent[at] = b < c ? c : b
    ent[at + 1] = t
    at = start[(c < a ? c : a) + 1]!++ * 2
    ent[at] = c < a ? a : c
    ent[at + 1] = t
  }

  // Union-find over triangles, with path halving.
  const parent = new Int32Array(nt)
  for (let t = 0; t < nt; t++) parent[t] = t

  let joins = 0
  let openEdges = 0
  let nonManifoldEdges = 0
  let edges = 0
  let order = new Uint32Array(64)
  for (let v = 0; v < nv; v++) {
    const s = start[v]! * 2
    const e = start[v + 1]! * 2
    const d = (e - s) >> 1
    if (d === 0) continue
    if (d === 1) {
      edges++
      openEdges++
      continue
    }
    if (d <= 24) {
      // Lists are short (about three entries): pair equal ends directly, marking each
      // entry used by overwriting its end with a value no vertex has.
      for (let i = s; i < e; i += 2) {
        const w = ent[i]!
        if (w === USED) continue
        let n = 1
        let second = 0
        for (let j = i + 2; j < e; j += 2) {
          if (ent[j] !== w) continue
          if (++n === 2) second = ent[j + 1]!
          ent[j] = USED
        }
        edges++
        if (n === 1) openEdges++
        else if (n === 2) joins += union(parent, ent[i + 1]!, second)
        else nonManifoldEdges++
      }
      continue
    }
    // A vertex of very high degree (a fan): sort its list by the other end instead.
    if (d > order.length) order = new Uint32Array(d * 2)
    for (let i = 0; i < d; i++) order[i] = s + 2 * i
    order.subarray(0, d).sort((x, y) => ent[x]! - ent[y]!)
    let i = 0
    while (i < d) {
      const w = ent[order[i]!]!
      let j = i + 1
      while (j < d && ent[order[j]!] === w) j++
      edges++
      if (j - i === 1) openEdges++
      else if (j - i === 2) joins += union(parent, ent[order[i]! + 1]!, ent[order[i + 1]! + 1]!)
      else nonManifoldEdges++
      i = j
    }
  }
  // Every triangle starts as its own part and every union that joins two fewer.
  const parts = nt - degenerate - joins
  return {
    openEdges,
    nonManifoldEdges,
    closed: edges > 0 && openEdges === 0 && nonManifoldEdges === 0,
    parts,
    degenerate,
  }
}

const USED = 0xffffffff

function root(parent: Int32Array, x: number): number {
  while (parent[x] !== x) {
    const p = parent[parent[x]!]!
    parent[x] = p
    x = p
  }
  return x
}

/** Joins the parts of triangles a and b; 1 when they were apart. Both then point at the root. */
function union(parent: Int32Array, a: number, b: number): number {
  // Neighbours mostly share a parent already (both were pointed at their root before).
  if (parent[a] === parent[b]) return 0
  const ra = root(parent, a)
  const rb = root(parent, b)
  const r = ra < rb ? ra : rb
  parent[a] = r
  parent[b] = r
  if (ra === rb) return 0
  parent[ra < rb ? rb : ra] = r
  return 1
}
