import {MeshError} from './errors.js'

// Open-addressing hash tables that give each distinct coordinate triple one index.
// Both grow by doubling, so welding n corners is O(n) expected time and memory.

const EMPTY = -1

function nextPow2(n: number): number {
  let p = 1024
  while (p < n) p *= 2
  return p
}

/** Welds float32 corners by their exact bit patterns (binary STL); -0 equals +0. */
export class Float32Welder {
  private table: Int32Array
  private mask: number
  private keys: Uint32Array
  count = 0

  constructor(expectedVertices: number) {
    const size = nextPow2(Math.max(16, expectedVertices) * 2)
    this.table = new Int32Array(size).fill(EMPTY)
    this.mask = size - 1
    this.keys = new Uint32Array(Math.max(48, expectedVertices * 3))
  }

  /** Bits must already be normalised (-0 → 0) and finite. */
  add(bx: number, by: number, bz: number): number {
    let h = Math.imul(bx ^ Math.imul(by, 0x9e3779b1) ^ Math.imul(bz, 0x85ebca77), 0xc2b2ae3d)
    h ^= h >>> 15
    const keys = this.keys
    const table = this.table
    const mask = this.mask
    let slot = h & mask
    for (;;) {
      const v = table[slot]!
      if (v === EMPTY) break
      const o = v * 3
      if (keys[o] === bx && keys[o + 1] === by && keys[o + 2] === bz) return v
      slot = (slot + 1) & mask
    }
    const index = this.count++
    if (index * 3 + 3 > keys.length) {
      const grown = new Uint32Array(keys.length * 2)
      grown.set(keys)
      this.keys = grown
    }
    const o = index * 3
    this.keys[o] = bx
    this.keys[o + 1] = by
    this.keys[o + 2] = bz
    table[slot] = index
    if (this.count * 2 > table.length) this.grow()
    return index
  }

  private grow(): void {
    const size = this.table.length * 2
    const table = new Int32Array(size).fill(EMPTY)
    const mask = size - 1
    const keys = this.keys
    for (let v = 0; v < this.count; v++) {
      const o = v * 3
      let h = Math.imul(
        keys[o]! ^ Math.imul(keys[o + 1]!, 0x9e3779b1) ^ Math.imul(keys[o + 2]!, 0x85ebca77),
        0xc2b2ae3d,
      )
      h ^= h >>> 15
      let slot = h & mask
      while (table[slot] !== EMPTY) slot = (slot + 1) & mask
      table[slot] = v
    }
    this.table = table
    this.mask = mask
  }

  /** The welded vertices as float64 mm. */
  positions(): Float64Array {
    const asFloat = new Float32Array(this.keys.buffer, 0, this.count * 3)
    return Float64Array.from(asFloat)
  }
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
