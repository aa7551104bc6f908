import {runSteps, type Steps} from './steps.js'
import type {Mesh} from './types.js'
import {CHUNK, chunkEnd, weldInfo} from './weld.js'

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
 * vertex in a compressed adjacency list (a counting sort), so equal edges meet in one
 * short list. Two bodies touching along an edge or at a vertex count as two parts.
 *
 * An entry is the edge's other end and its triangle, in two Uint32Arrays of 3 entries per
 * triangle, written while the triangles are read in order: the census then reads each list
 * straight through, where looking the other end up through the triangle cost a cache miss
 * per entry (10% of the census on a million triangles). Everything lives in flat typed
 * arrays walked in order: the lists of neighbouring vertices sit close together in memory,
 * which keeps a million-triangle mesh in cache far better than one big hash of edges would.
 * Each loop runs in chunks, one call each (see chunkEnd in weld.ts).
 */
export function analyseTopology(mesh: Mesh): Topology {
  return runSteps(topologySteps(mesh))
}

/** Triangles or vertices walked between two yields of topologySteps (a multiple of the chunk size). */
const STEP = 16 * CHUNK

/** analyseTopology in steps: yields (undefined) every STEP triangles or vertices of its long loops. */
export function* topologySteps(mesh: Mesh): Steps<Topology> {
  const tri = mesh.triangles
  const nt = mesh.triangleCount
  const nv = mesh.vertexCount
  let start: Uint32Array
  let degenerate = 0
  let spare: Int32Array | undefined
  // The binary STL reader counted the edges while welding (once: the counts become the
  // lists' bounds below).
  const pre = weldInfo.get(mesh)
  const counted = pre?.edgeCounts
  if (counted && pre.triangles === tri && nt * 3 === tri.length && pre.floats.length === nv * 3) {
    pre.edgeCounts = null
    start = counted.counts
    degenerate = counted.degenerate
    spare = counted.spare
  } else {
    start = new Uint32Array(nv + 2)
    for (let t = 0; t < nt; t = chunkEnd(t, nt)) {
      degenerate += countChunk(tri, start, t, chunkEnd(t, nt))
      if (t % STEP === 0) yield undefined
    }
  }
  // Prefix sums shifted by one: start[v + 1] is where v's list begins, and filling moves
  // it to where the list ends, which is where v + 1's begins.
  for (let v = 0; v < nv; v = chunkEnd(v, nv)) prefixChunk(start, v + 2, chunkEnd(v, nv) + 2)
  const lists: EdgeLists = {start, ends: new Uint32Array(start[nv + 1]!), faces: new Uint32Array(start[nv + 1]!)}
  for (let t = 0; t < nt; t = chunkEnd(t, nt)) {
    fillChunk(tri, lists, t, chunkEnd(t, nt))
    if (t % STEP === 0) yield undefined
  }

  const s = new Census(nt, spare)
  for (let t = 0; t < nt; t = chunkEnd(t, nt)) identityChunk(s.parent, t, chunkEnd(t, nt))
  for (let v = 0; v < nv; v = chunkEnd(v, nv)) {
    censusChunk(s, lists, v, chunkEnd(v, nv))
    if (v % STEP === 0) yield undefined
  }
  // Every triangle starts as its own part and every union that joins two fewer.
  const parts = nt - degenerate - s.joins
  return {
    openEdges: s.openEdges,
    nonManifoldEdges: s.nonManifoldEdges,
    closed: s.edges > 0 && s.openEdges === 0 && s.nonManifoldEdges === 0,
    parts,
    degenerate,
  }
}

/** Counts each edge under its lower vertex (at start[v + 2]); returns the degenerate triangles. */
function countChunk(tri: Uint32Array, start: Uint32Array, from: number, to: number): number {
  let degenerate = 0
  for (let i = from * 3, end = to * 3; i < end; i += 3) {
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
  return degenerate
}

/** Running sums over a[from..to), carrying on from a[from − 1]. */
function prefixChunk(a: Uint32Array, from: number, to: number): void {
  let sum = a[from - 1]!
  for (let i = from; i < to; i++) a[i] = sum += a[i]!
}

function identityChunk(a: Int32Array, from: number, to: number): void {
  for (let i = from; i < to; i++) a[i] = i
}

/** Each vertex's list: from start[v] to start[v + 1], the other end and the triangle of each edge. */
interface EdgeLists {
  start: Uint32Array
  ends: Uint32Array
  faces: Uint32Array
}

function fillChunk(tri: Uint32Array, lists: EdgeLists, from: number, to: number): void {
  const {start, ends, faces} = lists
  for (let i = from * 3, t = from, end = to * 3; i < end; i += 3, t++) {
    const a = tri[i]!
    const b = tri[i + 1]!
    const c = tri[i + 2]!
    if (a === b || b === c || a === c) continue
    let k = start[(a < b ? a : b) + 1]!++
    ends[k] = a < b ? b : a
    faces[k] = t
    k = start[(b < c ? b : c) + 1]!++
    ends[k] = b < c ? c : b
    faces[k] = t
    k = start[(c < a ? c : a) + 1]!++
    ends[k] = c < a ? a : c
    faces[k] = t
  }
}

/** The running edge counts and the union-find over triangles (path halving). */
class Census {
  readonly parent: Int32Array
  joins = 0
  openEdges = 0
  nonManifoldEdges = 0
  edges = 0
  /** Scratch for one long list (a fan, see fanCensus): the other ends and the triangles. */
  other = new Uint32Array(64)
  face = new Uint32Array(64)
  order = new Uint32Array(64)

  /** spare: memory to use for the parents if it is long enough (its contents are overwritten). */
  constructor(nt: number, spare?: Int32Array) {
    this.parent = spare && spare.length >= nt ? spare.subarray(0, nt) : new Int32Array(nt)
  }
}

function censusChunk(s: Census, lists: EdgeLists, from: number, to: number): void {
  const {start, ends, faces} = lists
  const parent = s.parent
  let joins = s.joins,
    openEdges = s.openEdges,
    nonManifoldEdges = s.nonManifoldEdges,
    edges = s.edges
  for (let v = from; v < to; v++) {
    const b = start[v]!
    const d = start[v + 1]! - b
    if (d === 0) continue
    if (d === 1) {
      edges++
      openEdges++
      continue
    }
    if (d > 24) {
      // A vertex of very high degree (a fan): sort its list by the other end instead.
      if (d > s.other.length) {
        s.other = new Uint32Array(d * 2)
        s.face = new Uint32Array(d * 2)
      }
      s.other.set(ends.subarray(b, b + d))
      s.face.set(faces.subarray(b, b + d))
      const counts = fanCensus(s, d)
      joins += counts[0]!
      edges += counts[1]!
      openEdges += counts[2]!
      nonManifoldEdges += counts[3]!
      continue
    }
    // Lists are short (about six entries): pair equal ends directly, marking each entry
    // used by overwriting its end with a value no vertex has.
    const e = b + d
    for (let k = b; k < e; k++) {
      const w = ends[k]!
      if (w === USED) continue
      let n = 1
      let second = 0
      for (let m = k + 1; m < e; m++) {
        if (ends[m] !== w) continue
        if (++n === 2) second = faces[m]!
        ends[m] = USED
      }
      edges++
      if (n === 1) openEdges++
      else if (n === 2) {
        // Neighbours mostly share a parent already (both were pointed at their root before).
        const x = faces[k]!
        if (parent[x] !== parent[second]) joins += union(parent, x, second)
      } else nonManifoldEdges++
    }
  }
  s.joins = joins
  s.openEdges = openEdges
  s.nonManifoldEdges = nonManifoldEdges
  s.edges = edges
}

const fanCounts = new Int32Array(4)

/** The census of one long list in s.other / s.face: [joins, edges, open, non-manifold]. */
function fanCensus(s: Census, d: number): Int32Array {
  const other = s.other,
    face = s.face
  if (s.order.length < d) s.order = new Uint32Array(d * 2)
  const order = s.order.subarray(0, d)
  for (let k = 0; k < d; k++) order[k] = k
  order.sort((x, y) => other[x]! - other[y]!)
  fanCounts.fill(0)
  let k = 0
  while (k < d) {
    const w = other[order[k]!]!
    let m = k + 1
    while (m < d && other[order[m]!] === w) m++
    fanCounts[1]!++
    if (m - k === 1) fanCounts[2]!++
    else if (m - k === 2) fanCounts[0]! += union(s.parent, face[order[k]!]!, face[order[k + 1]!]!)
    else fanCounts[3]!++
    k = m
  }
  return fanCounts
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
  const ra = root(parent, a)
  const rb = root(parent, b)
  const r = ra < rb ? ra : rb
  parent[a] = r
  parent[b] = r
  if (ra === rb) return 0
  parent[ra < rb ? rb : ra] = r
  return 1
}
