import {MeshError} from './errors.js'

// Open-addressing hash tables that give each distinct coordinate triple one index.
// Both grow by doubling, so welding n corners is O(n) expected time and memory.

const EMPTY = -1

/** Items per call of the mesh code's long loops, after the first, shorter calls. */
export const CHUNK = 8192

/**
 * Where a chunk of a long loop that starts at i (of n) ends. The long loops of the mesh
 * code run in chunks, one call of a small function each: V8 compiles such a function
 * early and whole and swaps the optimised code in at the next call, where one long loop
 * waits for on-stack replacement. The first chunks are short (16, 32, … items), so the
 * function's whole body, the lines after its loop too, has run a few times before the
 * compiler looks at it: code that had never run would make the optimised code bail out
 * when it first does (V8 compiles it to a deoptimisation, lacking type feedback).
 */
export function chunkEnd(i: number, n: number): number {
  return Math.min(n, i < 16 ? 16 : i < CHUNK ? 2 * i : i + CHUNK)
}

function nextPow2(n: number): number {
  let p = 1024
  while (p < n) p *= 2
  return p
}

const RECENT = 8191
const EXP = 0x7f800000
const NEG_ZERO = -2147483648

function hash32(bx: number, by: number, bz: number): number {
  // Shift-xor before each multiply, so the high bits (sign, exponent) reach the low bits
  // the table is indexed by: coordinates on a coarse grid differ only there.
  let h = Math.imul(bx ^ (bx >>> 15), 0x85ebca6b) ^ by
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) ^ bz
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  return h ^ (h >>> 13)
}

/** Where a float32 corner failed: which triangle (0-based). */
export class NotFiniteError extends Error {
  constructor(readonly triangle: number) {
    super(`triangle ${triangle + 1} has a coordinate that is not a finite number`)
  }
}

/** Sums that one pass over the triangles yields (see measure.ts). */
export interface Sums {
  minX: number
  minY: number
  minZ: number
  maxX: number
  maxY: number
  maxZ: number
  /** Signed, mm³. */
  volume: number
  area: number
  /** Σ area·|nz|: surfaces facing up or down (top and bottom skins). */
  areaHorizontal: number
  /** Σ area·√(nx²+ny²): walls. */
  areaVertical: number
}

/**
 * What the binary STL reader learnt while welding, filed under the mesh it returned:
 * measureMesh uses the sums only while the mesh still has these triangles and its
 * positions were never read (the reader makes them on first use) or still equal the
 * float32 coordinates they were made from (read.ts scales them for units, for one).
 */
export interface WeldInfo {
  sums: Sums
  floats: Float32Array
  triangles: Uint32Array
  /** The positions if they were made, else null. */
  positions(): Float64Array | null
  /**
   * For topology.ts, once: per vertex v, at v + 2, the edges whose lower end v is, the
   * triangles with a repeated vertex, and the welder's hash table, free once welded (its
   * memory reused spares a fresh page per 4 kB). Null once taken.
   */
  edgeCounts: EdgeCounts | null
}

export const weldInfo = new WeakMap<object, WeldInfo>()

export interface EdgeCounts {
  counts: Uint32Array
  degenerate: number
  spare: Int32Array
}

/** Where a read's time went, for the benchmark's stages (ms, summed over the pieces). */
export interface StageClock {
  /** Reading the file. */
  read: number
  /** Summing the measures (bounding box, volume, areas) of the welded triangles. */
  measures: number
}

/**
 * Welds the corners of binary STL records by their exact float32 bit patterns (-0 equals
 * +0) and sums the measures of measure.ts on the way; the records may come in pieces
 * (a file read a megabyte at a time). Non-finite coordinates throw NotFiniteError.
 *
 * Built for millions of corners, with as little memory as it can (fresh pages cost as
 * much as the hashing): an open-addressing table of vertex indices over the key words
 * kept in welding order, and in front of it a small direct-mapped cache of recently
 * welded vertices, which answers most repeats (a vertex comes back a few hundred
 * triangles later in the files exporters write) without a cache miss in the big table.
 * The loop runs in chunks of triangles (see chunkEnd).
 */
export class Float32Welder {
  /** Three vertex indices per triangle. */
  readonly triangles: Uint32Array
  /** Triangles welded so far. */
  done = 0
  size: number
  mask: number
  table: Int32Array
  readonly recent = new Int32Array(RECENT + 1).fill(EMPTY)
  /** x, y, z bits per vertex in welding order, and the same memory as floats. */
  keys: Int32Array
  floats: Float32Array
  count = 0
  /** Per vertex v, at v + 2: the edges whose lower end v is (topology.ts's first pass). */
  edges: Uint32Array
  /** Triangles with a repeated vertex. */
  degenerate = 0
  minX = Infinity
  minY = Infinity
  minZ = Infinity
  maxX = -Infinity
  maxY = -Infinity
  maxZ = -Infinity
  volume = 0
  area = 0
  areaHorizontal = 0
  areaVertical = 0

  /** n: the triangles the file holds; clock, if given, gets the time spent summing measures. */
  constructor(
    readonly n: number,
    readonly clock: StageClock | null = null,
  ) {
    this.triangles = new Uint32Array(n * 3)
    // A closed mesh has about n / 2 vertices; the table starts at load 1/2 for that.
    this.size = nextPow2(n + 16)
    this.mask = this.size - 1
    this.table = new Int32Array(this.size).fill(EMPTY)
    this.keys = new Int32Array(Math.max(48, 3 * ((n >> 1) + 16)))
    this.floats = new Float32Array(this.keys.buffer)
    this.edges = new Uint32Array(this.keys.length / 3 + 2)
  }

  /**
   * Welds the next `count` triangles, whose 50-byte records start at byte `at` of `view`
   * (each record: a normal, then three corners of three little-endian float32).
   */
  add(view: DataView, at: number, count: number): void {
    const from = this.done
    const to = from + count
    // Record t starts at at + 50 (t − from); its first corner 12 bytes further.
    const first = at + 12 - 50 * from
    for (let t = from; t < to; t = from + chunkEnd(t - from, count)) {
      const end = from + chunkEnd(t - from, count)
      const before = this.count
      weldChunk(this, view, first, 50, this.triangles, t, end)
      const started = this.clock ? performance.now() : 0
      boundsChunk(this, before, this.count)
      sumChunk(this, this.triangles, t, end)
      if (this.clock) this.clock.measures += performance.now() - started
    }
    this.done = to
  }

  /** The welded vertices (float32), the sums and the edge counts, once every triangle was added. */
  finish(): {floats: Float32Array; sums: Sums; edgeCounts: EdgeCounts} {
    const floats = this.floats.subarray(0, this.count * 3)
    const sums: Sums = {
      minX: this.minX,
      minY: this.minY,
      minZ: this.minZ,
      maxX: this.maxX,
      maxY: this.maxY,
      maxZ: this.maxZ,
      volume: this.volume / 6,
      area: this.area / 2,
      areaHorizontal: this.areaHorizontal / 2,
      areaVertical: this.areaVertical / 2,
    }
    return {floats, sums, edgeCounts: {counts: this.edges, degenerate: this.degenerate, spare: this.table}}
  }
}

function weldChunk(
  w: Float32Welder,
  view: DataView,
  first: number,
  stride: number,
  triangles: Uint32Array,
  from: number,
  to: number,
): void {
  const recent = w.recent
  let table = w.table
  let mask = w.mask
  let keys = w.keys
  let floats = w.floats
  let edges = w.edges
  let count = w.count
  for (let t = from, i = from * 3; t < to; t++) {
    let o = first + stride * t
    for (let k = 0; k < 3; k++, o += 12, i++) {
      let bx = view.getInt32(o, true)
      let by = view.getInt32(o + 4, true)
      let bz = view.getInt32(o + 8, true)
      if ((bx & EXP) === EXP || (by & EXP) === EXP || (bz & EXP) === EXP) throw new NotFiniteError(t)
      if (bx === NEG_ZERO) bx = 0
      if (by === NEG_ZERO) by = 0
      if (bz === NEG_ZERO) bz = 0
      const h = hash32(bx, by, bz)
      let v = recent[h & RECENT]!
      if (v !== EMPTY && keys[v * 3] === bx && keys[v * 3 + 1] === by && keys[v * 3 + 2] === bz) {
        triangles[i] = v
        continue
      }
      let slot = h & mask
      v = table[slot]!
      while (v !== EMPTY) {
        if (keys[v * 3] === bx && keys[v * 3 + 1] === by && keys[v * 3 + 2] === bz) break
        slot = (slot + 1) & mask
        v = table[slot]!
      }
      if (v === EMPTY) {
        v = count++
        if (v * 3 + 3 > keys.length) {
          const grown = new Int32Array(keys.length * 2)
          grown.set(keys)
          keys = grown
          floats = new Float32Array(keys.buffer)
          const more = new Uint32Array(keys.length / 3 + 2)
          more.set(edges)
          edges = more
        }
        keys[v * 3] = bx
        keys[v * 3 + 1] = by
        keys[v * 3 + 2] = bz
        table[slot] = v
        if (count * 2 > w.size) {
          w.size *= 2
          mask = w.size - 1
          table = rehash(keys, count, w.size)
        }
      }
      recent[h & RECENT] = v
      triangles[i] = v
    }
  }
  w.table = table
  w.mask = mask
  w.keys = keys
  w.floats = floats
  w.edges = edges
  w.count = count
}

/** Widens the bounding box by vertices from..to (those a chunk of triangles made). */
function boundsChunk(w: Float32Welder, from: number, to: number): void {
  const floats = w.floats
  let minX = w.minX,
    minY = w.minY,
    minZ = w.minZ,
    maxX = w.maxX,
    maxY = w.maxY,
    maxZ = w.maxZ
  for (let i = from * 3, end = to * 3; i < end; i += 3) {
    const x = floats[i]!,
      y = floats[i + 1]!,
      z = floats[i + 2]!
    if (x < minX) minX = x
    if (x > maxX) maxX = x
    if (y < minY) minY = y
    if (y > maxY) maxY = y
    if (z < minZ) minZ = z
    if (z > maxZ) maxZ = z
  }
  w.minX = minX
  w.minY = minY
  w.minZ = minZ
  w.maxX = maxX
  w.maxY = maxY
  w.maxZ = maxZ
}

/**
 * The measures of triangles from..to (just welded: their corners are in cache), summed
 * in float64 exactly as sumMesh does, and each edge counted under its lower end, as
 * topology.ts's first pass does.
 */
function sumChunk(w: Float32Welder, triangles: Uint32Array, from: number, to: number): void {
  const floats = w.floats
  const edges = w.edges
  let degenerate = w.degenerate
  let volume = w.volume,
    area = w.area,
    areaHorizontal = w.areaHorizontal,
    areaVertical = w.areaVertical
  for (let i = from * 3, end = to * 3; i < end; i += 3) {
    const va = triangles[i]!,
      vb = triangles[i + 1]!,
      vc = triangles[i + 2]!
    if (va === vb || vb === vc || va === vc) degenerate++
    else {
      edges[(va < vb ? va : vb) + 2]!++
      edges[(vb < vc ? vb : vc) + 2]!++
      edges[(vc < va ? vc : va) + 2]!++
    }
    const a = va * 3,
      b = vb * 3,
      c = vc * 3
    const ax = floats[a]!,
      ay = floats[a + 1]!,
      az = floats[a + 2]!
    const bx = floats[b]!,
      by = floats[b + 1]!,
      bz = floats[b + 2]!
    const cx = floats[c]!,
      cy = floats[c + 1]!,
      cz = floats[c + 2]!
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
  w.degenerate = degenerate
  w.volume = volume
  w.area = area
  w.areaHorizontal = areaHorizontal
  w.areaVertical = areaVertical
}

function rehash(keys: Int32Array, count: number, size: number): Int32Array {
  const table = new Int32Array(size).fill(EMPTY)
  const mask = size - 1
  for (let v = 0; v < count; v++) {
    let slot = hash32(keys[v * 3]!, keys[v * 3 + 1]!, keys[v * 3 + 2]!) & mask
    while (table[slot] !== EMPTY) slot = (slot + 1) & mask
    table[slot] = v
  }
  return table
}

const scratch = new Float64Array(3)
const scratchBits = new Uint32Array(scratch.buffer)

/** Welds float64 corners by exact value (text formats, transformed 3MF); -0 equals +0. */
export class Float64Welder {
  private table: Int32Array
  private mask: number
  private coords: Float64Array
  count = 0

  constructor(expectedVertices: number) {
    const size = nextPow2(Math.max(16, expectedVertices) * 2)
    this.table = new Int32Array(size).fill(EMPTY)
    this.mask = size - 1
    this.coords = new Float64Array(Math.max(48, expectedVertices * 3))
  }

  private static hash(x: number, y: number, z: number): number {
    scratch[0] = x
    scratch[1] = y
    scratch[2] = z
    const b = scratchBits
    let h = Math.imul(b[0]! ^ Math.imul(b[1]!, 0x9e3779b1), 0x85ebca77)
    h = Math.imul(h ^ b[2]! ^ Math.imul(b[3]!, 0xc2b2ae3d), 0x27d4eb2f)
    h = Math.imul(h ^ b[4]! ^ Math.imul(b[5]!, 0x165667b1), 0x9e3779b1)
    return h ^ (h >>> 15)
  }

  /** Throws MeshError (with `where`) for a non-finite coordinate. */
  add(x: number, y: number, z: number, where?: () => string): number {
    if (!Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(z)) {
      throw new MeshError(`${where ? where() : 'vertex'}: coordinate is not a finite number`)
    }
    // Adding +0 turns -0 into +0, so both hash alike.
    x += 0
    y += 0
    z += 0
    const table = this.table
    const mask = this.mask
    const coords = this.coords
    let slot = Float64Welder.hash(x, y, z) & mask
    for (;;) {
      const v = table[slot]!
      if (v === EMPTY) break
      const o = v * 3
      if (coords[o] === x && coords[o + 1] === y && coords[o + 2] === z) return v
      slot = (slot + 1) & mask
    }
    const index = this.count++
    if (index * 3 + 3 > coords.length) {
      const grown = new Float64Array(coords.length * 2)
      grown.set(coords)
      this.coords = grown
    }
    const o = index * 3
    this.coords[o] = x
    this.coords[o + 1] = y
    this.coords[o + 2] = z
    table[slot] = index
    if (this.count * 2 > table.length) this.grow()
    return index
  }

  private grow(): void {
    const size = this.table.length * 2
    const table = new Int32Array(size).fill(EMPTY)
    const mask = size - 1
    const c = this.coords
    for (let v = 0; v < this.count; v++) {
      const o = v * 3
      let slot = Float64Welder.hash(c[o]!, c[o + 1]!, c[o + 2]!) & mask
      while (table[slot] !== EMPTY) slot = (slot + 1) & mask
      table[slot] = v
    }
    this.table = table
    this.mask = mask
  }

  positions(): Float64Array {
    return this.coords.slice(0, this.count * 3)
  }
}

/** A Uint32Array that grows by doubling. */
export class IndexBuffer {
  data: Uint32Array
  length = 0
  constructor(capacity = 3072) {
    this.data = new Uint32Array(Math.max(3, capacity))
  }
  push3(a: number, b: number, c: number): void {
    if (this.length + 3 > this.data.length) {
      const grown = new Uint32Array(this.data.length * 2)
      grown.set(this.data)
      this.data = grown
    }
    const d = this.data
    d[this.length] = a
    d[this.length + 1] = b
    d[this.length + 2] = c
    this.length += 3
  }
  toArray(): Uint32Array {
    return this.data.slice(0, this.length)
  }
}
