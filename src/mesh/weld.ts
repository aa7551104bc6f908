import {MeshError} from './errors.js'

// Open-addressing hash tables that give each distinct coordinate triple one index.
// Both grow by doubling, so welding n corners is O(n) expected time and memory.

const EMPTY = -1

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

/**
 * Welds the corners of binary STL records by their exact float32 bit patterns (-0 equals
 * +0). `u16` views the records as little-endian 16-bit words; triangle t's first corner
 * starts at word `first + stride * t`, each corner is three 32-bit patterns as six words.
 * Writes three vertex indices per triangle into `triangles`; throws NotFiniteError.
 *
 * Built for millions of corners, in one function so the compiler sees the whole loop,
 * and with as little memory as it can (fresh pages cost as much as the hashing): an
 * open-addressing table of vertex indices over the key words kept in welding order, and
 * in front of it a small direct-mapped cache of recently welded vertices, which answers
 * most repeats (a vertex comes back a few hundred triangles later in the files exporters
 * write) without a cache miss in the big table.
 */
export function weldFloat32(
  u16: Uint16Array,
  n: number,
  first: number,
  stride: number,
  triangles: Uint32Array,
): {positions: Float64Array; count: number} {
  // A closed mesh has about n / 2 vertices; the table starts at load 1/2 for that.
  let size = nextPow2(n + 16)
  let mask = size - 1
  let table: Int32Array = new Int32Array(size).fill(EMPTY)
  const recent = new Int32Array(RECENT + 1).fill(EMPTY)
  // x, y, z bits per vertex in welding order.
  let keys: Int32Array = new Int32Array(Math.max(48, 3 * ((n >> 1) + 16)))
  let count = 0
  for (let t = 0, i = 0; t < n; t++) {
    let o = first + stride * t
    for (let k = 0; k < 3; k++, o += 6, i++) {
      let bx = u16[o]! | (u16[o + 1]! << 16)
      let by = u16[o + 2]! | (u16[o + 3]! << 16)
      let bz = u16[o + 4]! | (u16[o + 5]! << 16)
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
        }
        keys[v * 3] = bx
        keys[v * 3 + 1] = by
        keys[v * 3 + 2] = bz
        table[slot] = v
        if (count * 2 > size) {
          size *= 2
          mask = size - 1
          table = rehash(keys, count, size)
        }
      }
      recent[h & RECENT] = v
      triangles[i] = v
    }
  }
  return {positions: new Float64Array(new Float32Array(keys.buffer, 0, count * 3)), count}
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
