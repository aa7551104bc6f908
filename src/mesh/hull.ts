// Volume of the 3D convex hull by quickhull on triangles.
//
// Points deep inside the hull of the 26 directional extremes are dropped first
// (Akl–Toussaint). Faces live in typed arrays (struct of arrays) and are recycled through
// a free list; each face keeps the points outside it in a run of one pool and remembers
// its farthest one. A step takes a face's farthest point, floods the connected set of
// faces that see it, replaces them by a cone of new faces from the horizon to that point,
// and hands the orphaned points to the first new face that sees them. Points within
// `eps` of a face count as inside, so coplanar points never become hull vertices; the
// volume error that allows is at most area × eps, far below 1e-9 relative.

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

export function convexHull(points: Float64Array): HullResult {
  const n = Math.floor(points.length / 3)
  if (n < 4) return {volume: 0, faces: 0, vertices: n}
  // Centre the points: plane offsets and tetrahedra then stay well conditioned.
  let minX = Infinity,
    minY = Infinity,
    minZ = Infinity,
    maxX = -Infinity,
    maxY = -Infinity,
    maxZ = -Infinity
  for (let i = 0; i < n; i++) {
    const x = points[i * 3]!,
      y = points[i * 3 + 1]!,
      z = points[i * 3 + 2]!
    if (x < minX) minX = x
    if (x > maxX) maxX = x
    if (y < minY) minY = y
    if (y > maxY) maxY = y
    if (z < minZ) minZ = z
    if (z > maxZ) maxZ = z
  }
  const cx = (minX + maxX) / 2,
    cy = (minY + maxY) / 2,
    cz = (minZ + maxZ) / 2
  const p = new Float64Array(n * 3)
  for (let i = 0; i < n; i++) {
    p[i * 3] = points[i * 3]! - cx
    p[i * 3 + 1] = points[i * 3 + 1]! - cy
    p[i * 3 + 2] = points[i * 3 + 2]! - cz
  }
  const size = maxX - minX + (maxY - minY) + (maxZ - minZ)
  if (!(size > 0)) return {volume: 0, faces: 0, vertices: n}
  let eps = 1e-11 * size
  for (let attempt = 0; attempt < 4; attempt++, eps *= 1000) {
    try {
      const q = discardInterior(p, n, eps)
      return new Quickhull(q, q.length / 3, eps).run()
    } catch (err) {
      if (!(err instanceof HullFailure)) throw err
    }
  }
  throw new Error('convex hull failed on degenerate input')
}

/**
 * Akl–Toussaint filtering: the hull of the points extreme in 26 directions lies inside
 * the whole hull, so a point deeper than `eps` inside it is no hull vertex and is dropped
 * before quickhull sees it. One pass for the extremes, then a few plane tests per point
 * (a point outside usually fails the plane that rejected the one before). Returns the
 * kept points; the input itself when too few would go.
 */
function discardInterior(p: Float64Array, n: number, eps: number): Float64Array {
  if (n < 4096) return p
  // x, y, z, x ± y, x ± z, y ± z, x ± y ± z: 13 directions, extreme both ways.
  const nd = 13
  const dots = new Float64Array(nd)
  const hi = new Float64Array(nd).fill(-Infinity)
  const lo = new Float64Array(nd).fill(Infinity)
  const hiAt = new Int32Array(nd)
  const loAt = new Int32Array(nd)
  for (let i = 0; i < n; i++) {
    const x = p[i * 3]!,
      y = p[i * 3 + 1]!,
      z = p[i * 3 + 2]!
    dots[0] = x
    dots[1] = y
    dots[2] = z
    dots[3] = x + y
    dots[4] = x - y
    dots[5] = x + z
    dots[6] = x - z
    dots[7] = y + z
    dots[8] = y - z
    dots[9] = x + y + z
    dots[10] = x + y - z
    dots[11] = x - y + z
    dots[12] = x - y - z
    for (let d = 0; d < nd; d++) {
      const s = dots[d]!
      if (s > hi[d]!) {
        hi[d] = s
        hiAt[d] = i
      }
      if (s < lo[d]!) {
        lo[d] = s
        loAt[d] = i
      }
    }
  }
  const chosen = [...new Set([...hiAt, ...loAt])]
  const ext = new Float64Array(chosen.length * 3)
  chosen.forEach((i, k) => ext.set(p.subarray(i * 3, i * 3 + 3), k * 3))
  const inner = new Quickhull(ext, chosen.length, eps)
  if (inner.run().faces === 0) return p
  const planes = inner.facePlanes()
  const nf = planes.length / 4
  const kept = new Float64Array(n * 3)
  let m = 0
  let last = 0
  for (let i = 0; i < n; i++) {
    const x = p[i * 3]!,
      y = p[i * 3 + 1]!,
      z = p[i * 3 + 2]!
    let inside = true
    for (let k = 0, f = last; k < nf; k++, f = f + 1 === nf ? 0 : f + 1) {
      if (planes[f * 4]! * x + planes[f * 4 + 1]! * y + planes[f * 4 + 2]! * z - planes[f * 4 + 3]! > -eps) {
        inside = false
        last = f
        break
      }
    }
    if (inside) continue
    kept[m * 3] = x
    kept[m * 3 + 1] = y
    kept[m * 3 + 2] = z
    m++
  }
  return m * 4 > n * 3 ? p : kept.subarray(0, m * 3)
}

class Quickhull {
  // Face storage.
  cap = 0
  va: Int32Array = new Int32Array(0)
  vb: Int32Array = new Int32Array(0)
  vc: Int32Array = new Int32Array(0)
  n0: Int32Array = new Int32Array(0) // neighbour across edge a→b
  n1: Int32Array = new Int32Array(0) // across b→c
  n2: Int32Array = new Int32Array(0) // across c→a
  nx: Float64Array = new Float64Array(0)
  ny: Float64Array = new Float64Array(0)
  nz: Float64Array = new Float64Array(0)
  off: Float64Array = new Float64Array(0)
  alive: Uint8Array = new Uint8Array(0)
  segStart: Int32Array = new Int32Array(0) // outside points: entries segStart..segStart+segLen of the pool
  segLen: Int32Array = new Int32Array(0)
  far: Int32Array = new Int32Array(0)
  farDist: Float64Array = new Float64Array(0)
  mark: Int32Array = new Int32Array(0)
  free: number[] = []
  used = 0

  // Outside points are copied (x, y, z, index) into per-face runs of one pool, so the
  // hot loop reads memory in order; dead runs are reclaimed by compaction.
  pool: Float64Array = new Float64Array(0)
  spare: Float64Array = new Float64Array(0)
  poolUsed = 0
  poolLive = 0
  orphE: Int32Array
  orphF: Int32Array
  orphD: Float64Array
  tailMap: Int32Array
  headMap: Int32Array
  stamp = 0
  planes = new Float64Array(64)

  constructor(
    readonly p: Float64Array,
    readonly n: number,
    readonly eps: number,
  ) {
    this.orphE = new Int32Array(n)
    this.orphF = new Int32Array(n)
    this.orphD = new Float64Array(n)
    this.tailMap = new Int32Array(n).fill(-1)
    this.headMap = new Int32Array(n).fill(-1)
    this.grow(Math.max(64, Math.min(n * 2, 1 << 16)))
  }

  grow(cap: number): void {
    const i32 = (a: Int32Array): Int32Array => {
      const b = new Int32Array(cap)
      b.set(a)
      return b
    }
    const f64 = (a: Float64Array): Float64Array => {
      const b = new Float64Array(cap)
      b.set(a)
      return b
    }
    this.va = i32(this.va)
    this.vb = i32(this.vb)
    this.vc = i32(this.vc)
    this.n0 = i32(this.n0)
    this.n1 = i32(this.n1)
    this.n2 = i32(this.n2)
    this.nx = f64(this.nx)
    this.ny = f64(this.ny)
    this.nz = f64(this.nz)
    this.off = f64(this.off)
    const alive = new Uint8Array(cap)
    alive.set(this.alive)
    this.alive = alive
    this.segStart = i32(this.segStart)
    this.segLen = i32(this.segLen)
    this.far = i32(this.far)
    this.farDist = f64(this.farDist)
    this.mark = i32(this.mark)
    this.cap = cap
  }

  newFace(a: number, b: number, c: number): number {
    let f = this.free.pop()
    if (f === undefined) {
      if (this.used === this.cap) this.grow(this.cap * 2)
      f = this.used++
    }
    const p = this.p
    this.va[f] = a
    this.vb[f] = b
    this.vc[f] = c
    const ax = p[a * 3]!,
      ay = p[a * 3 + 1]!,
      az = p[a * 3 + 2]!
    const ux = p[b * 3]! - ax,
      uy = p[b * 3 + 1]! - ay,
      uz = p[b * 3 + 2]! - az
    const vx = p[c * 3]! - ax,
      vy = p[c * 3 + 1]! - ay,
      vz = p[c * 3 + 2]! - az
    let x = uy * vz - uz * vy,
      y = uz * vx - ux * vz,
      z = ux * vy - uy * vx
    const len = Math.sqrt(x * x + y * y + z * z)
    if (len > 0) {
      x /= len
      y /= len
      z /= len
    }
    this.nx[f] = x
    this.ny[f] = y
    this.nz[f] = z
    this.off[f] = x * ax + y * ay + z * az
    this.alive[f] = 1
    this.segLen[f] = 0
    this.far[f] = -1
    this.farDist[f] = 0
    this.mark[f] = 0
    return f
  }

  dist(f: number, i: number): number {
    const p = this.p
    return this.nx[f]! * p[i * 3]! + this.ny[f]! * p[i * 3 + 1]! + this.nz[f]! * p[i * 3 + 2]! - this.off[f]!
  }

  /**
   * Makes room for `need` more pool entries by compacting the live runs into the spare
   * buffer and swapping: the two buffers are reused, so compaction allocates nothing
   * once they are big enough.
   */
  reserve(need: number): void {
    if (this.poolUsed + need <= this.pool.length / 4) return
    const cap = Math.max(1024, 2 * (this.poolLive + need))
    if (this.spare.length < cap * 4) this.spare = new Float64Array(cap * 4)
    const pool = this.spare
    const old = this.pool
    const segStart = this.segStart,
      segLen = this.segLen,
      alive = this.alive
    let used = 0
    for (let f = 0; f < this.used; f++) {
      const len = segLen[f]!
      if (!alive[f] || len === 0) continue
      let from = segStart[f]! * 4
      segStart[f] = used
      const to = (used + len) * 4
      for (let i = used * 4; i < to; i++) pool[i] = old[from++]!
      used += len
    }
    this.spare = old
    this.pool = pool
    this.poolUsed = used
  }

  /**
   * Hands the m orphans in orphE/orphF/orphD (pool entries, their new faces and distances)
   * to their faces: counts were accumulated in segLen, runs are laid out at the pool's end.
   */
  distribute(m: number, faces: ArrayLike<number>): void {
    const segStart = this.segStart,
      segLen = this.segLen
    for (let k = 0; k < faces.length; k++) {
      const f = faces[k]!
      segStart[f] = this.poolUsed
      this.poolUsed += segLen[f]!
      this.poolLive += segLen[f]!
      segLen[f] = 0
    }
    const pool = this.pool,
      orphE = this.orphE,
      orphF = this.orphF,
      orphD = this.orphD
    const far = this.far,
      farDist = this.farDist
    for (let k = 0; k < m; k++) {
      const f = orphF[k]!
      const dst = (segStart[f]! + segLen[f]!++) * 4
      const src = orphE[k]! * 4
      pool[dst] = pool[src]!
      pool[dst + 1] = pool[src + 1]!
      pool[dst + 2] = pool[src + 2]!
      pool[dst + 3] = pool[src + 3]!
      if (orphD[k]! > farDist[f]!) {
        farDist[f] = orphD[k]!
        far[f] = pool[src + 3]!
      }
    }
  }

  /** Replaces g's link to `from` by `to`. */
  relink(g: number, from: number, to: number): void {
    if (this.n0[g] === from) this.n0[g] = to
    else if (this.n1[g] === from) this.n1[g] = to
    else if (this.n2[g] === from) this.n2[g] = to
    else throw new HullFailure('broken adjacency')
  }

  initialSimplex(): number[] | null {
    const {p, n, eps} = this
    // Extreme points along the axes; the farthest pair of them starts the simplex.
    const ext: number[] = [0, 0, 0, 0, 0, 0]
    for (let i = 1; i < n; i++) {
      for (let k = 0; k < 3; k++) {
        if (p[i * 3 + k]! < p[ext[k * 2]! * 3 + k]!) ext[k * 2] = i
        if (p[i * 3 + k]! > p[ext[k * 2 + 1]! * 3 + k]!) ext[k * 2 + 1] = i
      }
    }
    let a = 0,
      b = 0,
      best = -1
    for (let i = 0; i < 6; i++) {
      for (let j = i + 1; j < 6; j++) {
        const s = ext[i]!,
          t = ext[j]!
        const dx = p[s * 3]! - p[t * 3]!,
          dy = p[s * 3 + 1]! - p[t * 3 + 1]!,
          dz = p[s * 3 + 2]! - p[t * 3 + 2]!
        const d = dx * dx + dy * dy + dz * dz
        if (d > best) {
          best = d
          a = s
          b = t
        }
      }
    }
    if (!(best > eps * eps)) return null
    const ax = p[a * 3]!,
      ay = p[a * 3 + 1]!,
      az = p[a * 3 + 2]!
    const ux = p[b * 3]! - ax,
      uy = p[b * 3 + 1]! - ay,
      uz = p[b * 3 + 2]! - az
    let c = -1
    best = 0
    for (let i = 0; i < n; i++) {
      const wx = p[i * 3]! - ax,
        wy = p[i * 3 + 1]! - ay,
        wz = p[i * 3 + 2]! - az
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
    const vx = p[c * 3]! - ax,
      vy = p[c * 3 + 1]! - ay,
      vz = p[c * 3 + 2]! - az
    let nx = uy * vz - uz * vy,
      ny = uz * vx - ux * vz,
      nz = ux * vy - uy * vx
    const len = Math.sqrt(nx * nx + ny * ny + nz * nz)
    nx /= len
    ny /= len
    nz /= len
    let d = -1
    best = 0
    for (let i = 0; i < n; i++) {
      const s = Math.abs(nx * (p[i * 3]! - ax) + ny * (p[i * 3 + 1]! - ay) + nz * (p[i * 3 + 2]! - az))
      if (s > best) {
        best = s
        d = i
      }
    }
    if (d < 0 || best <= eps) return null
    return [a, b, c, d]
  }

  /** The alive faces' planes after run(): unit normal and offset, four numbers each. */
  facePlanes(): Float64Array {
    const out: number[] = []
    for (let f = 0; f < this.used; f++) {
      if (this.alive[f]) out.push(this.nx[f]!, this.ny[f]!, this.nz[f]!, this.off[f]!)
    }
    return Float64Array.from(out)
  }

  run(): HullResult {
    const simplex = this.initialSimplex()
    if (!simplex) return {volume: 0, faces: 0, vertices: this.n}
    const [a, b0, c0, d] = simplex as [number, number, number, number]
    let b = b0
    let c = c0
    // Orient the base so that d lies below it.
    let base = this.newFace(a, b, c)
    if (this.dist(base, d) > 0) {
      this.free.push(base)
      ;[b, c] = [c, b]
      base = this.newFace(a, b, c)
    }
    const faces = [base, this.newFace(b, a, d), this.newFace(c, b, d), this.newFace(a, c, d)]
    // Link the tetrahedron: each directed edge meets its reverse.
    for (const f of faces) {
      const fv = [this.va[f]!, this.vb[f]!, this.vc[f]!]
      for (let k = 0; k < 3; k++) {
        const u = fv[k]!,
          w = fv[(k + 1) % 3]!
        for (const g of faces) {
          if (g === f) continue
          const gv = [this.va[g]!, this.vb[g]!, this.vc[g]!]
          for (let m = 0; m < 3; m++) {
            if (gv[m] === w && gv[(m + 1) % 3] === u) (k === 0 ? this.n0 : k === 1 ? this.n1 : this.n2)[f] = g
          }
        }
      }
    }
    // The initial outside sets: every point is an orphan of a virtual face.
    const inSimplex = new Set(simplex)
    // Room for the points and their first runs, so nothing moves before distribute.
    this.pool = new Float64Array(this.n * 8)
    for (let i = 0; i < this.n; i++) {
      this.pool[i * 4] = this.p[i * 3]!
      this.pool[i * 4 + 1] = this.p[i * 3 + 1]!
      this.pool[i * 4 + 2] = this.p[i * 3 + 2]!
      this.pool[i * 4 + 3] = i
    }
    this.poolUsed = this.n
    let m = 0
    for (let i = 0; i < this.n; i++) {
      if (inSimplex.has(i)) continue
      let bestF = -1
      let bestD = this.eps
      for (const f of faces) {
        const s = this.dist(f, i)
        if (s > bestD) {
          bestD = s
          bestF = f
        }
      }
      if (bestF >= 0) {
        this.orphE[m] = i
        this.orphF[m] = bestF
        this.orphD[m] = bestD
        this.segLen[bestF]!++
        m++
      }
    }
    this.distribute(m, faces)
    const pending: number[] = faces.filter((f) => this.segLen[f] !== 0)
    const visible: number[] = []
    const flood: number[] = []
    const created: number[] = []
    const horizonVerts: number[] = []
    while (pending.length > 0) {
      const f = pending.pop()!
      if (!this.alive[f] || this.segLen[f] === 0) continue
      const eye = this.far[f]!
      // Flood the faces that see the eye, starting from f.
      const vis = ++this.stamp * 2
      const hidden = vis + 1
      visible.length = 0
      flood.length = 0
      this.mark[f] = vis
      visible.push(f)
      flood.push(f)
      while (flood.length > 0) {
        const g = flood.pop()!
        for (let k = 0; k < 3; k++) {
          const h = (k === 0 ? this.n0 : k === 1 ? this.n1 : this.n2)[g]!
          const m = this.mark[h]
          if (m === vis || m === hidden) continue
          if (this.dist(h, eye) > this.eps) {
            this.mark[h] = vis
            visible.push(h)
            flood.push(h)
          } else this.mark[h] = hidden
        }
      }
      // The cone: one new face per horizon edge (an edge of a visible face whose neighbour is hidden).
      created.length = 0
      horizonVerts.length = 0
      for (const g of visible) {
        const gv0 = this.va[g]!,
          gv1 = this.vb[g]!,
          gv2 = this.vc[g]!
        for (let k = 0; k < 3; k++) {
          const h = (k === 0 ? this.n0 : k === 1 ? this.n1 : this.n2)[g]!
          if (this.mark[h] === vis) continue
          const u = k === 0 ? gv0 : k === 1 ? gv1 : gv2
          const w = k === 0 ? gv1 : k === 1 ? gv2 : gv0
          if (this.tailMap[u] !== -1 || this.headMap[w] !== -1) throw new HullFailure('horizon is not a simple loop')
          const nf = this.newFace(u, w, eye)
          this.n0[nf] = h
          this.relink(h, g, nf)
          this.tailMap[u] = nf
          this.headMap[w] = nf
          horizonVerts.push(u)
          created.push(nf)
        }
      }
      for (const nf of created) {
        const t = this.tailMap[this.vb[nf]!]!
        const h = this.headMap[this.va[nf]!]!
        if (t === -1 || h === -1) throw new HullFailure('horizon is not closed')
        this.n1[nf] = t
        this.n2[nf] = h
      }
      for (const u of horizonVerts) {
        this.tailMap[u] = -1
      }
      for (const nf of created) this.headMap[this.vb[nf]!] = -1
      // Orphaned points go to a new face that sees them, or are dropped.
      let need = 0
      for (const g of visible) need += this.segLen[g]!
      this.reserve(need)
      const pool = this.pool
      const segStart = this.segStart,
        segLen = this.segLen
      const orphE = this.orphE,
        orphF = this.orphF,
        orphD = this.orphD
      const eps = this.eps
      const clear = 1000 * eps
      const nc = created.length
      // The new faces' planes side by side, so the test below reads one short array.
      if (this.planes.length < nc * 4) this.planes = new Float64Array(nc * 8)
      const planes = this.planes
      for (let c = 0; c < nc; c++) {
        const nf = created[c]!
        planes[c * 4] = this.nx[nf]!
        planes[c * 4 + 1] = this.ny[nf]!
        planes[c * 4 + 2] = this.nz[nf]!
        planes[c * 4 + 3] = this.off[nf]!
      }
      let m = 0
      let last = 0
      for (const g of visible) {
        this.alive[g] = 0
        const end = segStart[g]! + segLen[g]!
        this.poolLive -= segLen[g]!
        for (let e = segStart[g]!; e < end; e++) {
          const x = pool[e * 4]!,
            y = pool[e * 4 + 1]!,
            z = pool[e * 4 + 2]!
          if (pool[e * 4 + 3] === eye) continue
          // The first new face the point is clearly outside of will do (as in Lloyd's
          // QuickHull3D): any face that sees a point is a correct home for it. The search
          // starts at the face that took the previous point, since neighbours in a run
          // tend to lie close together; most points are homed at the first test.
          let bestC = -1
          let bestD = eps
          for (let k = 0, c = last; k < nc; k++, c = c + 1 === nc ? 0 : c + 1) {
            const s = planes[c * 4]! * x + planes[c * 4 + 1]! * y + planes[c * 4 + 2]! * z - planes[c * 4 + 3]!
            if (s > bestD) {
              bestD = s
              bestC = c
              if (s > clear) break
            }
          }
          const bestF = bestC < 0 ? -1 : created[bestC]!
          if (bestC >= 0) last = bestC
          if (bestF >= 0) {
            orphE[m] = e
            orphF[m] = bestF
            orphD[m] = bestD
            segLen[bestF]!++
            m++
          }
        }
        segLen[g] = 0
      }
      this.distribute(m, created)
      for (const g of visible) this.free.push(g)
      for (const nf of created) if (this.segLen[nf] !== 0) pending.push(nf)
    }
    let volume = 0
    let count = 0
    const p = this.p
    for (let f = 0; f < this.used; f++) {
      if (!this.alive[f]) continue
      count++
      const a3 = this.va[f]! * 3,
        b3 = this.vb[f]! * 3,
        c3 = this.vc[f]! * 3
      const ax = p[a3]!,
        ay = p[a3 + 1]!,
        az = p[a3 + 2]!
      const bx = p[b3]!,
        by = p[b3 + 1]!,
        bz = p[b3 + 2]!
      const cx = p[c3]!,
        cy = p[c3 + 1]!,
        cz = p[c3 + 2]!
      volume += ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx)
    }
    return {volume: volume / 6, faces: count, vertices: count / 2 + 2}
  }
}
