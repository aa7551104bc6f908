import {ReaderChild} from './child.js'
import {MeshError} from './errors.js'
import {overLimit} from './limits.js'
import type {BrepFormat} from './read.js'
import type {Mesh, MeshObject, ReadLimits} from './types.js'
import {Float64Welder, IndexBuffer} from './weld.js'

// STEP and IGES: B-rep files that OpenCascade (occt-import-js, compiled to WebAssembly)
// reads and tessellates; the triangles are welded into our Mesh and measured like any
// other. The 7.6 MB WebAssembly module is loaded on the first such file only.

// OpenCascade runs in a child process of its own (src/mesh/child.ts: started on the first
// STEP or IGES file, kept for the next ones, killed over the time or memory limit). A
// process rather than a worker thread, so that it can run with V8's baseline WebAssembly
// compiler only (`--liftoff-only`, a flag V8 reads at start): the optimising compiler
// would spend about 1 s and 180 MB recompiling OpenCascade's hot functions for the few
// files a command reads (docs/benchmarks.md, "STEP and V8's WebAssembly compilers").
// Its memory is WebAssembly's, outside V8's heap: only the watch on the process's
// resident size (Linux) caps it.
const occt = new ReaderChild({
  reader: 'OpenCascade',
  module: 'occt-import-js',
  // Its start (the WebAssembly compile) costs about 0.2 s: kept unless a file grew it past 200 MiB.
  keepUnderMb: 200,
  nodeFlags: () => ['--liftoff-only'],
  handler: `(init) => {
  const ready = init({print() {}, printErr() {}})
  return async ({format, bytes, params, maxTriangles}) => {
    const occt = await ready
    const r = format === 'step' ? occt.ReadStepFile(bytes, params) : occt.ReadIgesFile(bytes, params)
    if (!r || !r.success) return {success: false}
    let triangles = 0
    for (const m of r.meshes) triangles += Math.floor(((m.index && m.index.array.length) || 0) / 3)
    if (triangles > maxTriangles) return {success: true, triangles, meshes: []}
    const meshes = r.meshes.map((m) => ({
      name: m.name,
      position: Float64Array.from(m.attributes.position.array),
      index: Uint32Array.from((m.index && m.index.array) || []),
    }))
    return {success: true, triangles, meshes}
  }
}`,
})

interface OcctAnswer {
  success?: boolean
  triangles?: number
  meshes?: {name?: string; position: Float64Array; index: Uint32Array}[]
}

/** Ends the OpenCascade process (a test or a long-running caller may; the next file starts a new one). */
export function stopBrepWorker(): Promise<void> {
  return occt.stop()
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
  const reply = await occt.run(
    {format, bytes, params: TESSELLATION, maxTriangles: limits.maxTriangles},
    limits,
    `${label} file`,
  )
  if (reply.error !== undefined) throw new MeshError(`${label} file could not be read by OpenCascade: ${reply.error}`)
  const answer = reply.answer as OcctAnswer
  if (!answer.success) throw new MeshError(`${label} file could not be read (OpenCascade found no valid data in it)`)
  const total = answer.triangles ?? 0
  if (total === 0)
    throw new MeshError(`${label} file holds no solid or surface to measure (no faces after tessellation)`)
  if (total > limits.maxTriangles)
    throw overLimit(
      `${label} file tessellates to ${total} triangles; this reader takes at most ${limits.maxTriangles}`,
      '--max-triangles',
    )
  return weldMeshes(answer.meshes ?? [], format, label, total)
}

function weldMeshes(
  meshes: {name?: string; position: Float64Array; index: Uint32Array}[],
  format: BrepFormat,
  label: string,
  total: number,
): Mesh {
  const welder = new Float64Welder(total)
  const out = new IndexBuffer(total * 3)
  const objects: MeshObject[] = []
  meshes.forEach((m, n) => {
    const p = m.position
    const index = m.index
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
