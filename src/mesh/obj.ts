import {MeshError} from './errors.js'
import {runSteps, type Steps} from './steps.js'
import {lineSteps, parseNumber, quote, tokens} from './text.js'
import type {Mesh} from './types.js'
import {Float64Welder, IndexBuffer} from './weld.js'

const INDEX = /^-?\d+$/

/**
 * Wavefront OBJ: `v` and `f` lines (polygons fan-triangulated; `a`, `a/b`, `a//c`, `a/b/c`,
 * negative indices counted back from the last vertex). Everything else is ignored.
 * Vertices are welded by exact coordinates on first use, so unused ones are dropped.
 */
export function readObj(bytes: Uint8Array): Mesh {
  return runSteps(objSteps(bytes))
}

/** readObj in steps: yields the bytes done after each chunk of lines. */
export function* objSteps(bytes: Uint8Array): Steps<Mesh> {
  let raw = new Float64Array(3 * 4096)
  let nv = 0
  let welded = new Int32Array(4096).fill(-1)
  const welder = new Float64Welder(Math.max(16, Math.floor(bytes.length / 120)))
  const tris = new IndexBuffer()
  const face: number[] = []

  yield* lineSteps(bytes, (line, no) => {
    const c0 = line.charCodeAt(0)
    // Fast reject of comments and keywords other than v / f.
    if (c0 !== 118 && c0 !== 102 && c0 !== 32 && c0 !== 9) return
    const tk = tokens(line)
    const kw = tk[0]
    if (kw === 'v') {
      const x = parseNumber(tk[1])
      const y = parseNumber(tk[2])
      const z = parseNumber(tk[3])
      if (!Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(z)) {
        throw new MeshError(`OBJ line ${no}: bad vertex ${quote(line.trim())}, expected 'v x y z'`)
      }
      if ((nv + 1) * 3 > raw.length) {
        const grown = new Float64Array(raw.length * 2)
        grown.set(raw)
        raw = grown
        const w = new Int32Array(welded.length * 2).fill(-1)
        w.set(welded)
        welded = w
      }
      raw[nv * 3] = x
      raw[nv * 3 + 1] = y
      raw[nv * 3 + 2] = z
      nv++
    } else if (kw === 'f' || kw === 'fo') {
      if (tk.length < 4) {
        throw new MeshError(`OBJ line ${no}: face has ${tk.length - 1} vertices, needs at least 3`)
      }
      face.length = 0
      for (let i = 1; i < tk.length; i++) {
        const ref = tk[i]!
        const slash = ref.indexOf('/')
        const head = slash === -1 ? ref : ref.slice(0, slash)
        if (!INDEX.test(head)) throw new MeshError(`OBJ line ${no}: bad face vertex ${quote(ref)}`)
        const n = Number(head)
        const index = n > 0 ? n - 1 : nv + n
        if (n === 0 || index < 0 || index >= nv) {
          throw new MeshError(`OBJ line ${no}: face refers to vertex ${n} of ${nv}`)
        }
        let w = welded[index]!
        if (w === -1) {
          w = welder.add(raw[index * 3]!, raw[index * 3 + 1]!, raw[index * 3 + 2]!)
          welded[index] = w
        }
        face.push(w)
      }
      for (let i = 1; i + 1 < face.length; i++) tris.push3(face[0]!, face[i]!, face[i + 1]!)
    }
  })
  if (tris.length === 0) {
    throw new MeshError(nv === 0 ? 'OBJ has no vertices and no faces' : `OBJ has ${nv} vertices but no faces`)
  }
  return {
    format: 'obj',
    positions: welder.positions(),
    triangles: tris.toArray(),
    vertexCount: welder.count,
    triangleCount: tris.length / 3,
  }
}
