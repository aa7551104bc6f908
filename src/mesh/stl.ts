import {MeshError} from './errors.js'
import {forEachLine, parseNumber, quote, tokens} from './text.js'
import type {Mesh} from './types.js'
import {Float64Welder, IndexBuffer, NotFiniteError, weldFloat32} from './weld.js'

const HEADER = 84
const RECORD = 50

/** True when the size is exactly what the triangle count in the header announces. */
export function isBinaryStlSize(bytes: Uint8Array): boolean {
  if (bytes.length < HEADER) return false
  const n = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(80, true)
  return bytes.length === HEADER + RECORD * n
}

export function readBinaryStl(bytes: Uint8Array): Mesh {
  if (bytes.length < HEADER) {
    throw new MeshError(`binary STL too short: ${bytes.length} bytes, the header alone needs 84`)
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const n = view.getUint32(80, true)
  const held = Math.floor((bytes.length - HEADER) / RECORD)
  if (held < n) {
    throw new MeshError(`binary STL truncated: header says ${n} triangles, file holds ${held}`)
  }
  const extra = bytes.length - HEADER - RECORD * n
  // A few bytes of padding are harmless; a whole record or more means the count is wrong.
  if (extra >= RECORD) {
    throw new MeshError(
      `binary STL corrupt: header says ${n} triangles (${HEADER + RECORD * n} bytes) but the file has ${bytes.length} bytes`,
    )
  }
  if (n === 0) throw new MeshError('binary STL has no triangles')
  const triangles = new Uint32Array(n * 3)
  // Records are 50 bytes, so their floats sit on 2-byte boundaries: read each 32-bit
  // pattern as two little-endian 16-bit halves of one view over the file, no copy and no
  // DataView call per coordinate. Big-endian hosts and odd offsets get a converted copy.
  const words = (HEADER + RECORD * n) >> 1
  let u16: Uint16Array
  if (LITTLE_ENDIAN && bytes.byteOffset % 2 === 0) u16 = new Uint16Array(bytes.buffer, bytes.byteOffset, words)
  else {
    u16 = new Uint16Array(words)
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    for (let i = 0; i < words; i++) u16[i] = view.getUint16(2 * i, true)
  }
  try {
    const {positions, count} = weldFloat32(u16, n, (HEADER + 12) >> 1, RECORD >> 1, triangles)
    return {format: 'stl-binary', positions, triangles, vertexCount: count, triangleCount: n}
  } catch (err) {
    if (err instanceof NotFiniteError) throw new MeshError(`binary STL corrupt: ${err.message}`)
    throw err
  }
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

export function readAsciiStl(bytes: Uint8Array): Mesh {
  const welder = new Float64Welder(Math.max(16, Math.floor(bytes.length / 400)))
  const tris = new IndexBuffer()
  let inSolid = false
  let solids = 0
  let facetLine = 0 // line of the open facet, 0 when none
  let lastLine = 0
  const corners: number[] = []
  forEachLine(bytes, (line, no) => {
    const tk = tokens(line)
    const kw = tk[0]
    if (kw === undefined) return
    lastLine = no
    switch (kw.toLowerCase()) {
      case 'solid':
        if (inSolid) throw new MeshError(`ASCII STL line ${no}: 'solid' inside a solid (missing endsolid)`)
        inSolid = true
        solids++
        return
      case 'facet':
        if (!inSolid) throw new MeshError(`ASCII STL line ${no}: 'facet' outside a solid`)
        if (facetLine) throw new MeshError(`ASCII STL line ${no}: 'facet' before the facet of line ${facetLine} ended`)
        facetLine = no
        corners.length = 0
        return
      case 'outer':
      case 'endloop':
        if (!facetLine) throw new MeshError(`ASCII STL line ${no}: '${kw}' outside a facet`)
        return
      case 'vertex': {
        if (!facetLine) throw new MeshError(`ASCII STL line ${no}: 'vertex' outside a facet`)
        const x = parseNumber(tk[1])
        const y = parseNumber(tk[2])
        const z = parseNumber(tk[3])
        if (tk.length !== 4 || !Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(z)) {
          throw new MeshError(`ASCII STL line ${no}: bad vertex ${quote(line.trim())}, expected 'vertex x y z'`)
        }
        corners.push(welder.add(x, y, z))
        return
      }
      case 'endfacet':
        if (!facetLine) throw new MeshError(`ASCII STL line ${no}: 'endfacet' outside a facet`)
        if (corners.length < 3) {
          throw new MeshError(
            `ASCII STL line ${no}: the facet of line ${facetLine} has ${corners.length} vertices, needs 3`,
          )
        }
        for (let i = 1; i + 1 < corners.length; i++) tris.push3(corners[0]!, corners[i]!, corners[i + 1]!)
        facetLine = 0
        return
      case 'endsolid':
        if (facetLine) throw new MeshError(`ASCII STL line ${no}: 'endsolid' inside the facet of line ${facetLine}`)
        if (!inSolid) throw new MeshError(`ASCII STL line ${no}: 'endsolid' without 'solid'`)
        inSolid = false
        return
      default:
        throw new MeshError(`ASCII STL line ${no}: unexpected ${quote(kw)}`)
    }
  })
  if (solids === 0) throw new MeshError('ASCII STL has no solid')
  if (facetLine) throw new MeshError(`ASCII STL truncated: the facet of line ${facetLine} has no endfacet`)
  if (inSolid) throw new MeshError(`ASCII STL truncated: no endsolid after line ${lastLine}`)
  if (tris.length === 0) throw new MeshError('ASCII STL has no facets')
  return {
    format: 'stl-ascii',
    positions: welder.positions(),
    triangles: tris.toArray(),
    vertexCount: welder.count,
    triangleCount: tris.length / 3,
  }
}
