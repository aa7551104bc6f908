import type {Occt} from 'occt-import-js'

import {MeshError} from './errors.js'
import {overLimit} from './limits.js'
import type {Mesh, MeshObject, ReadLimits} from './types.js'
import {Float64Welder, IndexBuffer} from './weld.js'

// STEP and IGES: B-rep files that OpenCascade (occt-import-js, compiled to WebAssembly)
// reads and tessellates; the triangles are welded into our Mesh and measured like any
// other. The 7.6 MB WebAssembly module is loaded on the first such file only.

export type BrepFormat = 'step' | 'iges'

/** STEP starts with its ISO 10303-21 header; IGES has fixed 80-column lines with the section letter in column 73. */
export function sniffBrep(bytes: Uint8Array): BrepFormat | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 400)).toString('latin1')
  if (/^\s*ISO-10303-21\s*;/.test(head)) return 'step'
  const first = head.split(/\r?\n/, 1)[0] ?? ''
  if (first.length >= 73 && first.length <= 82 && first[72] === 'S') return 'iges'
  return undefined
}

let occtPromise: Promise<Occt> | undefined

/** The OpenCascade module, instantiated once; its own console output is dropped (stdout is data only). */
function occt(): Promise<Occt> {
  occtPromise ??= import('occt-import-js').then((m) => m.default({print: () => {}, printErr: () => {}}))
  return occtPromise
}

/** How finely curved faces are cut into triangles: 0.05% of the mean bounding-box size, 0.25 rad. */
const TESSELLATION = {
  linearUnit: 'millimeter',
  linearDeflectionType: 'bounding_box_ratio',
  linearDeflection: 0.0005,
  angularDeflection: 0.25,
} as const

/** Reads a STEP or IGES file into a welded mesh in mm (the file's own unit is converted). */
export async function readBrep(bytes: Uint8Array, format: BrepFormat, limits: Required<ReadLimits>): Promise<Mesh> {
  const label = format === 'step' ? 'STEP' : 'IGES'
  if (bytes.length > limits.maxBrepBytes)
    throw overLimit(
      `${label} file is ${bytes.length} bytes; this reader takes at most ${limits.maxBrepBytes}`,
      '--max-brep-bytes',
    )
  const module = await occt()
  let result
  try {
    result = format === 'step' ? module.ReadStepFile(bytes, TESSELLATION) : module.ReadIgesFile(bytes, TESSELLATION)
  } catch (err) {
    // A WebAssembly abort leaves the module unusable: the next file loads a fresh one.
    occtPromise = undefined
    throw new MeshError(`${label} file could not be read by OpenCascade: ${(err as Error).message}`)
  }
  if (!result.success) throw new MeshError(`${label} file could not be read (OpenCascade found no valid data in it)`)
  let total = 0
  for (const m of result.meshes) total += Math.floor((m.index?.array.length ?? 0) / 3)
  if (total === 0)
    throw new MeshError(`${label} file holds no solid or surface to measure (no faces after tessellation)`)
  if (total > limits.maxTriangles)
    throw overLimit(
      `${label} file tessellates to ${total} triangles; this reader takes at most ${limits.maxTriangles}`,
      '--max-triangles',
    )
  return weldMeshes(result.meshes, format, label, total)
}

function weldMeshes(
  meshes: {name?: string; attributes: {position: {array: ArrayLike<number>}}; index?: {array: ArrayLike<number>}}[],
  format: BrepFormat,
  label: string,
  total: number,
): Mesh {
  const welder = new Float64Welder(total)
  const out = new IndexBuffer(total * 3)
  const objects: MeshObject[] = []
  meshes.forEach((m, n) => {
    const p = m.attributes.position.array
    const index = m.index?.array ?? []
    const vertices = Math.floor(p.length / 3)
    const map = new Uint32Array(vertices)
    for (let i = 0; i < vertices; i++)
      map[i] = welder.add(p[i * 3]!, p[i * 3 + 1]!, p[i * 3 + 2]!, () => `${label} shape ${n + 1}, vertex ${i}`)
    const first = out.length / 3
    for (let i = 0; i + 2 < index.length; i += 3) {
      const a = index[i]!
      const b = index[i + 1]!
      const c = index[i + 2]!
      if (a >= vertices || b >= vertices || c >= vertices)
        throw new MeshError(`${label} shape ${n + 1}: triangle refers to a missing vertex`)
      out.push3(map[a]!, map[b]!, map[c]!)
    }
    const o: MeshObject = {firstTriangle: first, triangleCount: out.length / 3 - first}
    if (m.name) o.name = m.name
    objects.push(o)
  })
  return {
    format,
    positions: welder.positions(),
    triangles: out.toArray(),
    vertexCount: welder.count,
    triangleCount: out.length / 3,
    objects,
  }
}
