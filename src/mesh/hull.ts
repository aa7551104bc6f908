// Volume of the 3D convex hull by quickhull on triangles.
//
// Faces live in typed arrays (three vertices, three neighbours, a plane and a few more
// slots each) and are recycled through a free list; each face keeps the points outside it
// in a linked list threaded through the point array (x, y, z, next: one cache line per
// two points), and remembers its farthest one. A step takes a face's farthest point,
// walks depth-first over the faces that see it (which yields the horizon in order around
// the point, as in Lloyd's QuickHull3D), replaces them by a cone of new faces from the
// horizon to the point, and hands the orphaned points to the first new face that clearly
// sees them. Points within `eps` of a face count as inside, so coplanar points never
// become hull vertices; the volume error that allows is at most area × eps, far below
// 1e-9 relative. The volume is kept up to date as faces come and go.
//
// Big inputs start from a sample: the hull of every k-th point and of the points extreme
// in 26 directions (about 8√n points) is built first; then every point is located on it by
// a short walk (to the face its direction from a centre passes through, starting from the
// previous point's face). Points under that face are inside the sample's hull, hence
// inside the hull, and are dropped (an Akl–Toussaint filter with a far tighter polytope);
// the others start in that face's outside list, which spares quickhull its first, biggest
// rounds of handing points on. The walks are short when consecutive points lie close
// together, as a mesh's vertices do; points in an order that jumps about are put in
// Morton order of a 32³ grid first (one counting sort).
//
// Every hot loop sits in a function of its own that is called many times (once per step,
// or per chunk of points, see chunkEnd in weld.ts).

import {runSteps, type Steps} from './steps.js'
import {CHUNK, chunkEnd} from './weld.js'

class HullFailure extends Error {}

export interface HullResult {
  volume: number
  /** Hull triangles (alive faces). */
  faces: number
  vertices: number
}

/** Convex hull volume of xyz points (duplicates allowed). 0 for flat or empty sets. */
export function convexHullVolume(points: Float64Array): number {
  return convexHull(points).volume
}

/** convexHullVolume in steps: yields (undefined) every few thousand steps of quickhull. */
export function* convexHullVolumeSteps(points: Float64Array): Steps<number> {
  return (yield* convexHullSteps(points)).volume
}

/** Quickhull steps (faces taken from the pending stack) between two yields of the stepped hull. */
const DRAIN_STEPS = 4096
/** Points located on the sample's hull between two yields (a multiple of the chunk size). */
const LOCATE_STEP = 16 * CHUNK

/** From this many points on, the hull starts from a sample. */
const SAMPLED = 8192
/**
 * Float64 slots per point: x, y, z and the next point in the outside list of its face
 * (NONE at the end), so that handing a point on touches one cache line.
 */
const PS = 4

export function convexHull(points: Float64Array): HullResult {
  return runSteps(convexHullSteps(points))
}

function* convexHullSteps(points: Float64Array): Steps<HullResult> {
  const n = Math.floor(points.length / 3)
  if (n < 4) return {volume: 0, faces: 0, vertices: n}
  // The bounding box, then the sum of the steps from each point to the next (L1).
  const box = new Float64Array([Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity, 0])
  for (let i = 0; i < n; i = chunkEnd(i, n)) boundsChunk(points, i, chunkEnd(i, n), box)
  const size = box[3]! - box[0]! + (box[4]! - box[1]!) + (box[5]! - box[2]!)
  if (!(size > 0)) return {volume: 0, faces: 0, vertices: n}
  // Points in an order that jumps about (far apart on average) are sorted first; the
  // order of a mesh's vertices is close to that already, and permuting costs a cache
  // miss per point.
  const order = n < SAMPLED || box[6]! / n < size / 100 ? null : mortonOrder(points, n, box)
  yield undefined
  let eps = 1e-11 * size
  for (let attempt = 0; attempt < 4; attempt++, eps *= 1000) {
    // Centre the points: plane offsets and tetrahedra then stay well conditioned.
    const q = new Float64Array(n * PS)
    const ext = new Float64Array(26).fill(-Infinity)
    const at = new Int32Array(26)
    for (let i = 0; i < n; i = chunkEnd(i, n)) centreChunk(points, order, i, chunkEnd(i, n), box, q, ext, at)
    yield undefined
    try {
      const hull = new Quickhull(q, n, eps)
      yield undefined
      return yield* hull.run(at)
    } catch (err) {
      if (!(err instanceof HullFailure)) throw err
    }
  }
  throw new Error('convex hull failed on degenerate input')
}

/** Bits per axis of the cells that mortonOrder sorts by. */
const CELL_BITS = 5

/**
 * The points' indices in Morton (Z-curve) order of their cells on a 32³ grid over the
 * bounding box, file order within a cell: points close in space come close in the order,
 * whatever order the file had. The walks of fromSample then stay short and the hull's
 * data stays in cache. One counting sort.
 */
function mortonOrder(points: Float64Array, n: number, box: Float64Array): Uint32Array {
  const cells = 1 << (3 * CELL_BITS)
  const keys = new Uint16Array(n)
  const start = new Uint32Array(cells)
  const grid = new Float64Array([
    box[0]!,
    box[1]!,
    box[2]!,
    ((1 << CELL_BITS) - 0.001) / Math.max(box[3]! - box[0]!, box[4]! - box[1]!, box[5]! - box[2]!),
  ])
  for (let i = 0; i < n; i = chunkEnd(i, n)) mortonChunk(points, i, chunkEnd(i, n), grid, keys, start)
  for (let c = 0, sum = 0; c < cells; c++) {
    const k = start[c]!
    start[c] = sum
    sum += k
  }
  const order = new Uint32Array(n)
  for (let i = 0; i < n; i = chunkEnd(i, n)) scatterChunk(keys, i, chunkEnd(i, n), start, order)
  return order
}

/** Spreads the low five bits of v to every third bit. */
function spread(v: number): number {
  v = (v | (v << 8)) & 0x0f00f
  v = (v | (v << 4)) & 0xc30c3
  return (v | (v << 2)) & 0x49249
}

/** The cell keys of points from..to, counted in `count`. */
function mortonChunk(
  p: Float64Array,
  from: number,
  to: number,
  grid: Float64Array,
  keys: Uint16Array,
  count: Uint32Array,
): void {
  const x0 = grid[0]!,
    y0 = grid[1]!,
    z0 = grid[2]!,
    scale = grid[3]!
  for (let i = from; i < to; i++) {
    const x = ((p[i * 3]! - x0) * scale) | 0
    const y = ((p[i * 3 + 1]! - y0) * scale) | 0
    const z = ((p[i * 3 + 2]! - z0) * scale) | 0
    const k = spread(x) | (spread(y) << 1) | (spread(z) << 2)
    keys[i] = k
    count[k]!++
  }
}

function scatterChunk(keys: Uint16Array, from: number, to: number, next: Uint32Array, order: Uint32Array): void {
  for (let i = from; i < to; i++) order[next[keys[i]!]!++] = i
}

function boundsChunk(p: Float64Array, from: number, to: number, box: Float64Array): void {
  let minX = box[0]!,
    minY = box[1]!,
    minZ = box[2]!,
    maxX = box[3]!,
    maxY = box[4]!,
    maxZ = box[5]!
  let steps = box[6]!
  for (let i = from * 3, end = to * 3; i < end; i += 3) {
    const x = p[i]!,
      y = p[i + 1]!,
      z = p[i + 2]!
    if (i > 0) steps += Math.abs(x - p[i - 3]!) + Math.abs(y - p[i - 2]!) + Math.abs(z - p[i - 1]!)
    if (x < minX) minX = x
    if (x > maxX) maxX = x
    if (y < minY) minY = y
    if (y > maxY) maxY = y
    if (z < minZ) minZ = z
    if (z > maxZ) maxZ = z
  }
  box[0] = minX
  box[1] = minY
  box[2] = minZ
  box[3] = maxX
  box[4] = maxY
  box[5] = maxZ
  box[6] = steps
}

/**
 * Copies points order[from..to] (or from..to) into q, centred on the bounding box, four
 * slots each (see PS), and records in at[] those extreme in 13 directions (x, y, z, x ± y,
 * x ± z, y ± z, x ± y ± z), both ways (ext[] holds the values).
 */
function centreChunk(
  p: Float64Array,
  order: Uint32Array | null,
  from: number,
  to: number,
  box: Float64Array,
  q: Float64Array,
  ext: Float64Array,
  at: Int32Array,
): void {
  const cx = (box[0]! + box[3]!) / 2,
    cy = (box[1]! + box[4]!) / 2,
    cz = (box[2]! + box[5]!) / 2
  for (let i = from; i < to; i++) {
    const j = order === null ? i : order[i]!
    const x = p[j * 3]! - cx,
      y = p[j * 3 + 1]! - cy,
      z = p[j * 3 + 2]! - cz
    q[i * PS] = x
    q[i * PS + 1] = y
    q[i * PS + 2] = z
    q[i * PS + 3] = NONE
    // Each direction d and its opposite: slot 2d holds the largest d·p, slot 2d + 1 the largest −d·p.
    extreme(ext, at, 0, x, i)
    extreme(ext, at, 2, y, i)
    extreme(ext, at, 4, z, i)
    extreme(ext, at, 6, x + y, i)
    extreme(ext, at, 8, x - y, i)
    extreme(ext, at, 10, x + z, i)
    extreme(ext, at, 12, x - z, i)
    extreme(ext, at, 14, y + z, i)
    extreme(ext, at, 16, y - z, i)
    extreme(ext, at, 18, x + y + z, i)
    extreme(ext, at, 20, x + y - z, i)
    extreme(ext, at, 22, x - y + z, i)
    extreme(ext, at, 24, x - y - z, i)
  }
}

/** Point i, at e along direction slot d, becomes that direction's extreme (or slot d + 1's, at −e) where it goes farther. */
function extreme(ext: Float64Array, at: Int32Array, d: number, e: number, i: number): void {
  if (e > ext[d]!) {
    ext[d] = e
    at[d] = i
  }
  if (-e > ext[d + 1]!) {
    ext[d + 1] = -e
    at[d + 1] = i
  }
}

const NONE = -1
/** In a point's list slot: a vertex of the sample's hull (see fromSample). Step marks are below. */
const VERTEX = -2
/** Int32 slots per face: vertices a, b, c; neighbours across a→b, b→c, c→a; first outside point; mark of the step. */
const FI = 8
/**
 * Float64 slots per face: unit normal, offset; distance of the farthest outside point, and
 * that point; the face's signed tetrahedron with the origin, ×6 (see Quickhull.volume).
 */
const FD = 7

class Quickhull {
  // Faces, interleaved so that one face is two cache lines at most. A dead face has
  // vertex a = NONE and sits on the free list.
  cap = 0
  fi: Int32Array = new Int32Array(0)
  fd: Float64Array = new Float64Array(0)
  used = 0
  free: Int32Array = new Int32Array(0)
  freeCount = 0
  /** Faces that may have outside points, to be processed (a stack). */
  pending: Int32Array = new Int32Array(0)
  pendingCount = 0
  stamp = 0
  // Per-step scratch: the visible faces, the depth-first walk over them, the horizon edges
  // (face and edge index) in order around the eye, the new faces and their planes.
  visible: Int32Array = new Int32Array(1024)
  walkFace: Int32Array = new Int32Array(1024)
  walkEdge: Int32Array = new Int32Array(1024)
  walkLeft: Int32Array = new Int32Array(1024)
  horizonFace: Int32Array = new Int32Array(1024)
  horizonEdge: Int32Array = new Int32Array(1024)
  created: Int32Array = new Int32Array(1024)
  planes: Float64Array = new Float64Array(4096)
  /**
   * eps, then 1000 eps. Hot loops read them from here: a number field loads as a boxed
   * value, and a loop variable that starts from one (the best distance so far) would then
   * be boxed anew on every assignment, one allocation per point moved.
   */
  readonly tol = new Float64Array(2)
  /** A point inside the hull once it has started (the first tetrahedron's centroid). */
  readonly centre = new Float64Array(3)
  /**
   * Six times the hull's volume so far: the alive faces' signed tetrahedra with the
   * origin, added as faces are made and taken off as they go, so no pass over the faces
   * is left for the end.
   */
  readonly volume = new Float64Array(1)

  /** p: PS slots per point (see PS). */
  constructor(
    readonly p: Float64Array,
    readonly n: number,
    readonly eps: number,
  ) {
    this.tol[0] = eps
    this.tol[1] = 1000 * eps
    // A hull of n points has at most 2n − 4 faces; a step adds its cone before it frees
    // the faces the cone replaces, hence the margin. Growing stays possible (ensureRoom).
    this.grow(2 * n + 256)
    this.pending = new Int32Array(n + 256)
  }

  grow(cap: number): void {
    const fi = new Int32Array(cap * FI)
    fi.set(this.fi)
    this.fi = fi
    const fd = new Float64Array(cap * FD)
    fd.set(this.fd)
    this.fd = fd
    const free = new Int32Array(cap)
    free.set(this.free)
    this.free = free
    this.cap = cap
  }

  /** Room for k more faces without growing inside newFace. */
  ensureRoom(k: number): void {
    if (this.used + k > this.cap) this.grow(Math.max(this.cap * 2, this.used + k))
  }

  /**
   * Room for k more pending faces. The stack keeps faces that died before their turn (they
   * are skipped then), so its depth has no tight bound.
   */
  roomToPush(k: number): void {
    if (this.pendingCount + k <= this.pending.length) return
    const grown = new Int32Array(Math.max(2 * this.pending.length, this.pendingCount + k))
    grown.set(this.pending)
    this.pending = grown
  }

  /** Makes every per-step scratch array hold at least k entries. */
  growScratch(k: number): void {
    const size = Math.max(k, 2 * this.visible.length)
    const int = (a: Int32Array): Int32Array => {
      const b = new Int32Array(size)
      b.set(a)
      return b
    }
    this.visible = int(this.visible)
    this.walkFace = int(this.walkFace)
    this.walkEdge = int(this.walkEdge)
    this.walkLeft = int(this.walkLeft)
    this.horizonFace = int(this.horizonFace)
    this.horizonEdge = int(this.horizonEdge)
    this.created = int(this.created)
    this.planes = new Float64Array(size * 4)
  }

  newFace(a: number, b: number, c: number): number {
    const f = this.freeCount > 0 ? this.free[--this.freeCount]! : this.used++
    const p = this.p
    const fi = this.fi
    fi[f * FI] = a
    fi[f * FI + 1] = b
    fi[f * FI + 2] = c
    fi[f * FI + 6] = NONE
    fi[f * FI + 7] = 0
    const ax = p[a * PS]!,
      ay = p[a * PS + 1]!,
      az = p[a * PS + 2]!
    const ux = p[b * PS]! - ax,
      uy = p[b * PS + 1]! - ay,
      uz = p[b * PS + 2]! - az
    const vx = p[c * PS]! - ax,
      vy = p[c * PS + 1]! - ay,
      vz = p[c * PS + 2]! - az
    let x = uy * vz - uz * vy,
      y = uz * vx - ux * vz,
      z = ux * vy - uy * vx
    const len = Math.sqrt(x * x + y * y + z * z)
    if (len > 0) {
      x /= len
      y /= len
      z /= len
    }
    const fd = this.fd
    fd[f * FD] = x
    fd[f * FD + 1] = y
    fd[f * FD + 2] = z
    fd[f * FD + 3] = x * ax + y * ay + z * az
    fd[f * FD + 4] = 0
    fd[f * FD + 5] = NONE
    // a · (b − a) × (c − a) = a · (b × c): the cross product's length times the offset.
    const six = len * fd[f * FD + 3]!
    fd[f * FD + 6] = six
    this.volume[0] = this.volume[0]! + six
    return f
  }

  dist(f: number, i: number): number {
    const p = this.p
    const fd = this.fd
    return (
      fd[f * FD]! * p[i * PS]! + fd[f * FD + 1]! * p[i * PS + 1]! + fd[f * FD + 2]! * p[i * PS + 2]! - fd[f * FD + 3]!
    )
  }

  /** Frees face f. */
  kill(f: number): void {
    this.fi[f * FI] = NONE
    this.free[this.freeCount++] = f
    this.volume[0] = this.volume[0]! - this.fd[f * FD + 6]!
  }

  /** Puts point i, at distance d outside face f, on f's list. */
  link(f: number, i: number, d: number): void {
    const fi = this.fi
    this.p[i * PS + 3] = fi[f * FI + 6]!
    fi[f * FI + 6] = i
    if (d > this.fd[f * FD + 4]!) {
      this.fd[f * FD + 4] = d
      this.fd[f * FD + 5] = i
    }
  }

  /**
   * Four points of `idx` (the first m) spanning a tetrahedron: the farthest pair of the
   * axis extremes, the point farthest from their line, the one farthest from that plane.
   * Null when they are flat within eps.
   */
  initialSimplex(idx: Int32Array, m: number): number[] | null {
    const {p, eps} = this
    const ext: number[] = [idx[0]!, idx[0]!, idx[0]!, idx[0]!, idx[0]!, idx[0]!]
    for (let j = 1; j < m; j++) {
      const i = idx[j]!
      for (let k = 0; k < 3; k++) {
        if (p[i * PS + k]! < p[ext[k * 2]! * PS + k]!) ext[k * 2] = i
        if (p[i * PS + k]! > p[ext[k * 2 + 1]! * PS + k]!) ext[k * 2 + 1] = i
      }
    }
    let a = 0,
      b = 0,
      best = -1
    for (let i = 0; i < 6; i++) {
      for (let j = i + 1; j < 6; j++) {
        const s = ext[i]!,
          t = ext[j]!
        const dx = p[s * PS]! - p[t * PS]!,
          dy = p[s * PS + 1]! - p[t * PS + 1]!,
          dz = p[s * PS + 2]! - p[t * PS + 2]!
        const d = dx * dx + dy * dy + dz * dz
        if (d > best) {
          best = d
          a = s
          b = t
        }
      }
    }
    if (!(best > eps * eps)) return null
    const ax = p[a * PS]!,
      ay = p[a * PS + 1]!,
      az = p[a * PS + 2]!
    const ux = p[b * PS]! - ax,
      uy = p[b * PS + 1]! - ay,
      uz = p[b * PS + 2]! - az
    let c = -1
    best = 0
    for (let j = 0; j < m; j++) {
      const i = idx[j]!
      const wx = p[i * PS]! - ax,
        wy = p[i * PS + 1]! - ay,
        wz = p[i * PS + 2]! - az
      const x = uy * wz - uz * wy,
        y = uz * wx - ux * wz,
        z = ux * wy - uy * wx
      const d = x * x + y * y + z * z
      if (d > best) {
        best = d
        c = i
      }
    }
    if (c < 0 || Math.sqrt(best) / Math.sqrt(ux * ux + uy * uy + uz * uz) <= eps) return null
    const vx = p[c * PS]! - ax,
      vy = p[c * PS + 1]! - ay,
      vz = p[c * PS + 2]! - az
    let nx = uy * vz - uz * vy,
      ny = uz * vx - ux * vz,
      nz = ux * vy - uy * vx
    const len = Math.sqrt(nx * nx + ny * ny + nz * nz)
    nx /= len
    ny /= len
    nz /= len
    let d = -1
    best = 0
    for (let j = 0; j < m; j++) {
      const i = idx[j]!
      const s = Math.abs(nx * (p[i * PS]! - ax) + ny * (p[i * PS + 1]! - ay) + nz * (p[i * PS + 2]! - az))
      if (s > best) {
        best = s
        d = i
      }
    }
    if (d < 0 || best <= eps) return null
    return [a, b, c, d]
  }

  /** at: the points extreme in 26 directions. */
  *run(at: Int32Array): Steps<HullResult> {
    const n = this.n
    if (n < SAMPLED || !(yield* this.fromSample(at))) {
      const all = new Int32Array(n)
      for (let i = 0; i < n; i++) all[i] = i
      if (!this.start(all, n)) return {volume: 0, faces: 0, vertices: n}
      yield* this.drain()
    }
    const faces = this.used - this.freeCount
    return {volume: this.volume[0]! / 6, faces, vertices: faces / 2 + 2}
  }

  /** Runs quickhull until no face has outside points, yielding every DRAIN_STEPS faces. */
  *drain(): Steps<void> {
    while (this.drainSome(DRAIN_STEPS)) yield undefined
  }

  /** Processes up to `steps` pending faces; true while some are left. */
  drainSome(steps: number): boolean {
    for (let k = 0; k < steps && this.pendingCount > 0; k++) {
      const f = this.pending[--this.pendingCount]!
      if (this.fi[f * FI] !== NONE && this.fi[f * FI + 6] !== NONE) this.step(f)
    }
    return this.pendingCount > 0
  }

  /**
   * Builds the tetrahedron of the first m points of idx and hands the others to its faces.
   * False when they are flat.
   */
  start(idx: Int32Array, m: number): boolean {
    const simplex = this.initialSimplex(idx, m)
    if (!simplex) return false
    const [a, b0, c0, d] = simplex as [number, number, number, number]
    let b = b0
    let c = c0
    // Orient the base so that d lies below it.
    let base = this.newFace(a, b, c)
    if (this.dist(base, d) > 0) {
      ;[b, c] = [c, b]
      this.kill(base)
      base = this.newFace(a, b, c)
    }
    const faces = [base, this.newFace(b, a, d), this.newFace(c, b, d), this.newFace(a, c, d)]
    // Link the tetrahedron: each directed edge meets its reverse.
    const fi = this.fi
    for (const f of faces) {
      for (let k = 0; k < 3; k++) {
        const u = fi[f * FI + k]!,
          w = fi[f * FI + ((k + 1) % 3)]!
        for (const g of faces) {
          if (g === f) continue
          for (let j = 0; j < 3; j++) {
            if (fi[g * FI + j] === w && fi[g * FI + ((j + 1) % 3)] === u) fi[f * FI + 3 + k] = g
          }
        }
      }
    }
    // The centre of the walks: inside the tetrahedron, hence inside every later hull.
    const p = this.p
    for (let k = 0; k < 3; k++) this.centre[k] = (p[a * PS + k]! + p[b * PS + k]! + p[c * PS + k]! + p[d * PS + k]!) / 4
    // Every other point goes to the face it lies farthest outside of, if any.
    for (let j = 0; j < m; j = chunkEnd(j, m)) this.assignChunk(faces, simplex, idx, j, chunkEnd(j, m))
    this.roomToPush(4)
    for (const f of faces) if (fi[f * FI + 6] !== NONE) this.pending[this.pendingCount++] = f
    return true
  }

  assignChunk(faces: number[], simplex: number[], idx: Int32Array, from: number, to: number): void {
    const [s0, s1, s2, s3] = simplex as [number, number, number, number]
    const f0 = faces[0]!
    const eps = this.tol[0]!
    for (let j = from; j < to; j++) {
      const i = idx[j]!
      if (i === s0 || i === s1 || i === s2 || i === s3) continue
      let bestF = f0
      let bestD = this.dist(f0, i)
      for (let k = 1; k < 4; k++) {
        const f = faces[k]!
        const s = this.dist(f, i)
        if (s > bestD) {
          bestD = s
          bestF = f
        }
      }
      if (bestD > eps) this.link(bestF, i, bestD)
    }
  }

  /**
   * The hull of a sample (every k-th point and the 26 directional extremes), then every
   * point located on it and kept only when outside it. False when the sample is flat (the
   * caller then starts over from all points).
   */
  *fromSample(at: Int32Array): Steps<boolean> {
    const n = this.n
    const p = this.p
    const step = Math.max(2, Math.floor(Math.sqrt(n) / 8))
    const idx = new Int32Array(Math.ceil(n / step) + 26)
    let m = 0
    for (let i = 0; i < n; i += step) idx[m++] = i
    // The extremes, unless the stride took them already (a point must not be listed twice).
    for (const i of new Set(at)) if (i % step !== 0) idx[m++] = i
    if (!this.start(idx, m)) {
      // Forget the sample's faces: the caller starts again from all points.
      this.used = 0
      this.volume[0] = 0
      this.freeCount = 0
      this.pendingCount = 0
      return false
    }
    yield* this.drain()
    // The sample's hull: its faces and, for the walks, the planes through the centre and
    // each edge (an edge's normal points into the face's side).
    const hull = new Int32Array(this.used)
    let nh = 0
    const fi = this.fi
    for (let f = 0; f < this.used; f++) {
      if (fi[f * FI] === NONE) continue
      hull[nh++] = f
      // Its vertices are on the hull already: the walks skip them (rounding on a sliver
      // face could otherwise put one in an outside list).
      for (let k = 0; k < 3; k++) p[fi[f * FI + k]! * PS + 3] = VERTEX
    }
    const edges = new Float64Array(this.used * 9)
    const cx = this.centre[0]!,
      cy = this.centre[1]!,
      cz = this.centre[2]!
    for (let k = 0; k < nh; k++) {
      const f = hull[k]!
      for (let e = 0; e < 3; e++) {
        const u = fi[f * FI + e]! * PS,
          w = fi[f * FI + (e === 2 ? 0 : e + 1)]! * PS
        const ux = p[u]! - cx,
          uy = p[u + 1]! - cy,
          uz = p[u + 2]! - cz
        const wx = p[w]! - cx,
          wy = p[w + 1]! - cy,
          wz = p[w + 2]! - cz
        edges[f * 9 + e * 3] = uy * wz - uz * wy
        edges[f * 9 + e * 3 + 1] = uz * wx - ux * wz
        edges[f * 9 + e * 3 + 2] = ux * wy - uy * wx
      }
    }
    // state: the face the last walk ended on, then how many walks lost their way.
    const state = new Int32Array([hull[0]!, 0])
    const stray = new Int32Array(1024)
    for (let i = 0; i < n; i = chunkEnd(i, n)) {
      this.locateChunk(edges, state, stray, i, chunkEnd(i, n))
      if (state[1]! > 0) {
        for (let k = 0; k < state[1]!; k++) this.locateByScan(hull, nh, stray[k]!)
        state[1] = 0
      }
      if (i % LOCATE_STEP === 0) yield undefined
    }
    this.roomToPush(nh)
    for (let k = 0; k < nh; k++) if (fi[hull[k]! * FI + 6] !== NONE) this.pending[this.pendingCount++] = hull[k]!
    yield* this.drain()
    return true
  }

  /**
   * Locates points from..to on the sample's hull: walks from the last point's face to the
   * face whose cone from the centre holds the point's direction, crossing an edge whose
   * plane the direction is behind. The point is inside the hull when it is not outside
   * that face; otherwise that face sees it. A walk that takes long (it could circle on
   * rounding) is left to locateByScan: its point goes to `stray` (at most a chunk's
   * worth, counted in state[1]).
   */
  locateChunk(edges: Float64Array, state: Int32Array, stray: Int32Array, from: number, to: number): void {
    const p = this.p
    const fi = this.fi,
      fd = this.fd
    const eps = this.tol[0]!
    const cx = this.centre[0]!,
      cy = this.centre[1]!,
      cz = this.centre[2]!
    let f = state[0]!
    let strays = state[1]!
    for (let i = from; i < to; i++) {
      if (p[i * PS + 3] === VERTEX) continue
      const x = p[i * PS]!,
        y = p[i * PS + 1]!,
        z = p[i * PS + 2]!
      const dx = x - cx,
        dy = y - cy,
        dz = z - cz
      let hops = 0
      for (; hops < 64; hops++) {
        const e = f * 9
        const s0 = edges[e]! * dx + edges[e + 1]! * dy + edges[e + 2]! * dz
        const s1 = edges[e + 3]! * dx + edges[e + 4]! * dy + edges[e + 5]! * dz
        const s2 = edges[e + 6]! * dx + edges[e + 7]! * dy + edges[e + 8]! * dz
        if (s0 >= 0 && s1 >= 0 && s2 >= 0) break
        // Across the edge the direction is most behind.
        f = fi[f * FI + (s0 <= s1 ? (s0 <= s2 ? 3 : 5) : s1 <= s2 ? 4 : 5)]!
      }
      if (hops === 64) {
        if (strays < stray.length) stray[strays++] = i
        continue
      }
      const d = fd[f * FD]! * x + fd[f * FD + 1]! * y + fd[f * FD + 2]! * z - fd[f * FD + 3]!
      if (d > eps) {
        p[i * PS + 3] = fi[f * FI + 6]!
        fi[f * FI + 6] = i
        if (d > fd[f * FD + 4]!) {
          fd[f * FD + 4] = d
          fd[f * FD + 5] = i
        }
      }
    }
    state[0] = f
    state[1] = strays
  }

  /** Puts point i on the list of the face it lies farthest outside of, if any. */
  locateByScan(hull: Int32Array, nh: number, i: number): void {
    let best = hull[0]!
    let bestD = this.dist(best, i)
    for (let k = 1; k < nh; k++) {
      const s = this.dist(hull[k]!, i)
      if (s > bestD) {
        bestD = s
        best = hull[k]!
      }
    }
    if (bestD > this.tol[0]!) this.link(best, i, bestD)
  }

  /** One quickhull step: adds face f's farthest outside point to the hull. */
  step(f: number): void {
    const eye = this.fd[f * FD + 5]! | 0
    const nh = this.horizon(f, eye)
    this.ensureRoom(nh)
    this.cone(nh, eye)
    const nv = this.visibleCount
    this.rehome(nv, nh, eye)
    const fi = this.fi
    const visible = this.visible
    for (let k = 0; k < nv; k++) this.kill(visible[k]!)
    const created = this.created
    if (this.pendingCount + nh > this.pending.length) this.roomToPush(nh)
    for (let k = 0; k < nh; k++) {
      const nf = created[k]!
      if (fi[nf * FI + 6] !== NONE) this.pending[this.pendingCount++] = nf
    }
  }

  visibleCount = 0

  /**
   * Finds the faces that see the eye, connected to f (listed in `visible`, their count in
   * visibleCount), by a depth-first walk that tries each face's edges in order, starting
   * after the one it came in by: the edges to hidden faces, the horizon, then come out in
   * order around the eye (as in Lloyd's QuickHull3D). Returns the horizon's length.
   */
  horizon(f: number, eye: number): number {
    const vis = ++this.stamp * 2
    const hidden = vis + 1
    const fi = this.fi,
      fd = this.fd
    const p = this.p
    const ex = p[eye * PS]!,
      ey = p[eye * PS + 1]!,
      ez = p[eye * PS + 2]!
    const eps = this.tol[0]!
    let visible = this.visible,
      walkFace = this.walkFace,
      walkEdge = this.walkEdge,
      walkLeft = this.walkLeft,
      horizonFace = this.horizonFace,
      horizonEdge = this.horizonEdge
    let nv = 1
    let nh = 0
    fi[f * FI + 7] = vis
    visible[0] = f
    let top = 0
    walkFace[0] = f
    walkEdge[0] = 0
    walkLeft[0] = 3
    while (top >= 0) {
      if (walkLeft[top] === 0) {
        top--
        continue
      }
      walkLeft[top]!--
      const g = walkFace[top]!
      const k = walkEdge[top]!
      walkEdge[top] = k === 2 ? 0 : k + 1
      const h = fi[g * FI + 3 + k]!
      const m = fi[h * FI + 7]
      if (m === vis) continue
      if (m !== hidden && fd[h * FD]! * ex + fd[h * FD + 1]! * ey + fd[h * FD + 2]! * ez - fd[h * FD + 3]! > eps) {
        fi[h * FI + 7] = vis
        if (nv === visible.length || top + 1 === walkFace.length) {
          this.growScratch(2 * visible.length)
          ;({visible, walkFace, walkEdge, walkLeft, horizonFace, horizonEdge} = this)
        }
        visible[nv++] = h
        // Into h by its edge back to g; its other two edges come next.
        const back = fi[h * FI + 3] === g ? 0 : fi[h * FI + 4] === g ? 1 : 2
        top++
        walkFace[top] = h
        walkEdge[top] = back === 2 ? 0 : back + 1
        walkLeft[top] = 2
      } else {
        fi[h * FI + 7] = hidden
        if (nh === horizonFace.length) {
          this.growScratch(2 * horizonFace.length)
          ;({visible, walkFace, walkEdge, walkLeft, horizonFace, horizonEdge} = this)
        }
        horizonFace[nh] = g
        horizonEdge[nh++] = k
      }
    }
    this.visibleCount = nv
    return nh
  }

  /**
   * Builds the cone of new faces from the horizon's edges (in order around the eye) to the
   * eye: face k meets the hidden face across its horizon edge, face k + 1 across w→eye and
   * face k − 1 across eye→u. Lists them in `created` and their planes in `planes`.
   */
  cone(nh: number, eye: number): void {
    const horizonFace = this.horizonFace,
      horizonEdge = this.horizonEdge
    const created = this.created
    const fi = this.fi,
      fd = this.fd
    const p = this.p
    // A hull vertex is in no outside list, so its list slot is free to hold the step's
    // mark (below VERTEX, unlike a list link).
    const seen = -3 - this.stamp
    for (let k = 0; k < nh; k++) {
      const g = horizonFace[k]!
      const e = horizonEdge[k]!
      const u = fi[g * FI + e]!
      const w = fi[g * FI + (e === 2 ? 0 : e + 1)]!
      const h = fi[g * FI + 3 + e]!
      if (p[u * PS + 3] === seen) throw new HullFailure('horizon is not a simple loop')
      p[u * PS + 3] = seen
      const nf = this.newFace(u, w, eye)
      fi[nf * FI + 3] = h
      // h's link to g now leads to nf.
      if (fi[h * FI + 3] === g) fi[h * FI + 3] = nf
      else if (fi[h * FI + 4] === g) fi[h * FI + 4] = nf
      else if (fi[h * FI + 5] === g) fi[h * FI + 5] = nf
      else throw new HullFailure('broken adjacency')
      created[k] = nf
    }
    const planes = this.planes
    for (let k = 0; k < nh; k++) {
      const nf = created[k]!
      const after = created[k + 1 === nh ? 0 : k + 1]!
      if (fi[nf * FI + 1] !== fi[after * FI]) throw new HullFailure('horizon is not closed')
      fi[nf * FI + 4] = after
      fi[after * FI + 5] = nf
      planes[k * 4] = fd[nf * FD]!
      planes[k * 4 + 1] = fd[nf * FD + 1]!
      planes[k * 4 + 2] = fd[nf * FD + 2]!
      planes[k * 4 + 3] = fd[nf * FD + 3]!
    }
  }

  /**
   * Hands the outside points of the visible faces to a new face that sees them; the
   * others are inside now and dropped. The first new face the point is clearly outside of
   * will do (as in Lloyd's QuickHull3D): any face that sees a point is a correct home for
   * it. The search starts at the face that took the previous point, since neighbours in a
   * list tend to lie close together; most points are homed at the first test.
   */
  rehome(nv: number, nc: number, eye: number): void {
    const visible = this.visible
    const created = this.created
    const planes = this.planes
    const fi = this.fi,
      fd = this.fd
    const p = this.p
    const eps = this.tol[0]!
    const clear = this.tol[1]!
    let last = 0
    for (let q = 0; q < nv; q++) {
      let i = fi[visible[q]! * FI + 6]!
      while (i >= 0) {
        const x = p[i * PS]!,
          y = p[i * PS + 1]!,
          z = p[i * PS + 2]!
        const after = p[i * PS + 3]! | 0
        if (i !== eye) {
          let bestC = NONE
          let bestD = eps
          for (let k = 0, c = last; k < nc; k++, c = c + 1 === nc ? 0 : c + 1) {
            const s = planes[c * 4]! * x + planes[c * 4 + 1]! * y + planes[c * 4 + 2]! * z - planes[c * 4 + 3]!
            if (s > bestD) {
              bestD = s
              bestC = c
              if (s > clear) break
            }
          }
          if (bestC !== NONE) {
            last = bestC
            const nf = created[bestC]!
            p[i * PS + 3] = fi[nf * FI + 6]!
            fi[nf * FI + 6] = i
            if (bestD > fd[nf * FD + 4]!) {
              fd[nf * FD + 4] = bestD
              fd[nf * FD + 5] = i
            }
          }
        }
        i = after
      }
    }
  }
}
