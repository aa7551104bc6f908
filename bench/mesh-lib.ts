// Shared by the mesh benchmarks: big binary STL files generated on the spot, so nothing
// large is committed. Corners are written as float32 exactly as exporters do, shared
// vertices bit for bit equal, with outward unit normals.
import {writeFileSync} from 'node:fs'

type Vertex = (i: number, j: number) => [number, number, number]

/** Writes triangles (as vertex-id triples into `vertex`) as a binary STL. */
function writeStl(file: string, count: number, corners: (t: number, k: number) => [number, number, number]): void {
  const buf = Buffer.alloc(84 + 50 * count)
  buf.write('mfg bench mesh', 0, 'latin1')
  buf.writeUInt32LE(count, 80)
  const f = new Float32Array(9)
  for (let t = 0; t < count; t++) {
    for (let k = 0; k < 3; k++) {
      const [x, y, z] = corners(t, k)
      f[k * 3] = x
      f[k * 3 + 1] = y
      f[k * 3 + 2] = z
    }
    const ux = f[3]! - f[0]!,
      uy = f[4]! - f[1]!,
      uz = f[5]! - f[2]!
    const vx = f[6]! - f[0]!,
      vy = f[7]! - f[1]!,
      vz = f[8]! - f[2]!
    const nx = uy * vz - uz * vy,
      ny = uz * vx - ux * vz,
      nz = ux * vy - uy * vx
    const len = Math.hypot(nx, ny, nz) || 1
    let o = 84 + 50 * t
    buf.writeFloatLE(nx / len, o)
    buf.writeFloatLE(ny / len, o + 4)
    buf.writeFloatLE(nz / len, o + 8)
    o += 12
    for (let i = 0; i < 9; i++, o += 4) buf.writeFloatLE(f[i]!, o)
  }
  writeFileSync(file, buf)
}

/** A grid of u × v quads on a closed surface, two triangles each, wrapping both ways. */
function writeGrid(file: string, u: number, v: number, at: Vertex): number {
  const cache = new Map<number, [number, number, number]>()
  const vert = (i: number, j: number): [number, number, number] => {
    const key = (i % u) * v + (j % v)
    let p = cache.get(key)
    if (!p) cache.set(key, (p = at(i % u, j % v)))
    return p
  }
  writeStl(file, u * v * 2, (t, k) => {
    const q = t >> 1
    const i = Math.floor(q / v),
      j = q % v
    const quad: [number, number][] =
      t & 1
        ? [
            [i, j],
            [i + 1, j + 1],
            [i, j + 1],
          ]
        : [
            [i, j],
            [i + 1, j],
            [i + 1, j + 1],
          ]
    const [a, b] = quad[k]!
    return vert(a, b)
  })
  return u * v * 2
}

/**
 * A torus of `u × v` quads (R 50, r 20 mm): 1,000 × 500 gives 1,000,000 triangles and
 * 500,000 vertices, about a third of them on the convex hull's curved outer side.
 */
export function writeTorus(file: string, u = 1000, v = 500, R = 50, r = 20): number {
  return writeGrid(file, u, v, (i, j) => {
    const a = (2 * Math.PI * i) / u,
      b = (2 * Math.PI * j) / v
    return [(R + r * Math.cos(b)) * Math.cos(a), (R + r * Math.cos(b)) * Math.sin(a), r * Math.sin(b)]
  })
}

/**
 * A UV sphere of radius 50 mm with `u` meridians and `rings` rings: 1,000 × 501 gives
 * 1,000,000 triangles (fans at the poles) and 500,002 vertices, every one on the hull.
 */
export function writeSphere(file: string, u = 1000, rings = 501, radius = 50): number {
  const at = (ring: number, i: number): [number, number, number] => {
    if (ring === 0) return [0, 0, radius]
    if (ring === rings) return [0, 0, -radius]
    const th = (Math.PI * ring) / rings,
      ph = (2 * Math.PI * (i % u)) / u
    return [radius * Math.sin(th) * Math.cos(ph), radius * Math.sin(th) * Math.sin(ph), radius * Math.cos(th)]
  }
  // Triangles: a fan at each pole, two per quad between rings.
  const count = 2 * u + 2 * u * (rings - 2)
  writeStl(file, count, (t, k) => {
    let tri: [number, number][]
    if (t < u)
      tri = [
        [0, 0],
        [1, t],
        [1, t + 1],
      ]
    else if (t < 2 * u) {
      const i = t - u
      tri = [
        [rings, 0],
        [rings - 1, i + 1],
        [rings - 1, i],
      ]
    } else {
      const q = (t - 2 * u) >> 1
      const ring = 1 + Math.floor(q / u),
        i = q % u
      tri =
        (t - 2 * u) & 1
          ? [
              [ring, i],
              [ring + 1, i + 1],
              [ring, i + 1],
            ]
          : [
              [ring, i],
              [ring + 1, i],
              [ring + 1, i + 1],
            ]
    }
    const [r, i] = tri[k]!
    return at(r, i)
  })
  return count
}
