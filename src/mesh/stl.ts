import {closeSync, fstatSync, openSync, readSync} from 'node:fs'

import {MeshError} from './errors.js'
import {runSteps, type Steps} from './steps.js'
import {lineSteps, parseNumber, quote, tokens} from './text.js'
import type {Mesh} from './types.js'
import {Float32Welder, Float64Welder, IndexBuffer, NotFiniteError, weldInfo, type StageClock} from './weld.js'

const HEADER = 84
const RECORD = 50

/** True when the size is exactly what the triangle count in the header announces. */
export function isBinaryStlSize(bytes: Uint8Array): boolean {
  if (bytes.length < HEADER) return false
  const n = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(80, true)
  return bytes.length === HEADER + RECORD * n
}

export function readBinaryStl(bytes: Uint8Array): Mesh {
  return runSteps(binaryStlSteps(bytes))
}

/** readBinaryStl in steps: yields the bytes done after each piece of PIECE records. */
export function* binaryStlSteps(bytes: Uint8Array): Steps<Mesh> {
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
  // Records are 50 bytes, so half of the floats sit on 2-byte boundaries: a DataView reads
  // them in place (V8 compiles its getInt32 to one unaligned load), no copy of the file.
  const welder = new Float32Welder(n)
  while (welder.done < n) {
    weldPiece(welder, view, HEADER + welder.done * RECORD, Math.min(PIECE, n - welder.done))
    yield HEADER + welder.done * RECORD
  }
  return finishBinary(welder)
}

/** Welds `count` records from `offset`; a coordinate that is no finite number is a corrupt file. */
function weldPiece(welder: Float32Welder, view: DataView, offset: number, count: number): void {
  try {
    welder.add(view, offset, count)
  } catch (err) {
    if (err instanceof NotFiniteError) throw new MeshError(`binary STL corrupt: ${err.message}`)
    throw err
  }
}

function finishBinary(welder: Float32Welder): Mesh {
  const {floats, sums, edgeCounts} = welder.finish()
  const triangles = welder.triangles
  // The float64 positions are made when first read: measuring without the hull needs
  // none (the welder summed the measures), which spares 24 bytes per vertex.
  let positions: Float64Array | null = null
  const mesh: Mesh = {
    format: 'stl-binary',
    get positions(): Float64Array {
      return (positions ??= new Float64Array(floats))
    },
    set positions(p: Float64Array) {
      positions = p
    },
    triangles,
    vertexCount: welder.count,
    triangleCount: welder.n,
  }
  weldInfo.set(mesh, {sums, floats, triangles, positions: () => positions, edgeCounts})
  return mesh
}

/** Records per read of readBinaryStlFile: about 1 MB. */
const PIECE = 20000

/**
 * Reads a binary STL file a megabyte at a time into one reused buffer, when its size is
 * exactly what its header announces (and it is no zip and not named .3mf: those read.ts
 * reads otherwise). Null for any other file, or when it cannot be opened: the caller then
 * reads it whole (readMeshFile), which gives the right message for what is wrong.
 * Reading whole costs a fresh page per 4 kB of file (50 MB: 30 ms here) and that memory.
 * A clock, if given, gets the time spent reading and summing measures (bench/mesh-measure.ts).
 */
export function readBinaryStlFile(path: string, clock: StageClock | null = null): Mesh | null {
  return runSteps(binaryStlFileSteps(path, clock))
}

/** readBinaryStlFile in steps: yields the bytes done after each piece it reads. */
export function* binaryStlFileSteps(path: string, clock: StageClock | null = null): Steps<Mesh | null> {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return null
  }
  try {
    let buffer: Uint8Array
    let n: number
    try {
      const stat = fstatSync(fd)
      if (!stat.isFile() || stat.size < HEADER || /\.3mf$/i.test(path)) return null
      buffer = new Uint8Array(Math.min(stat.size, HEADER + PIECE * RECORD))
      if (readSync(fd, buffer, 0, HEADER, 0) !== HEADER) return null
      n = new DataView(buffer.buffer, buffer.byteOffset, HEADER).getUint32(80, true)
      const zip = buffer[0] === 0x50 && buffer[1] === 0x4b && (buffer[2] === 3 || buffer[2] === 5)
      if (n === 0 || stat.size !== HEADER + RECORD * n || zip) return null
    } catch {
      return null
    }
    const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength)
    const welder = new Float32Welder(n, clock)
    let position = HEADER
    while (welder.done < n) {
      const count = Math.min(PIECE, n - welder.done)
      readPiece(fd, buffer, count * RECORD, position, clock)
      weldPiece(welder, view, 0, count)
      position += count * RECORD
      yield position
    }
    return finishBinary(welder)
  } finally {
    closeSync(fd)
  }
}

/** Reads `bytes` bytes of the file at `position` into the start of `buffer`. */
function readPiece(fd: number, buffer: Uint8Array, bytes: number, position: number, clock: StageClock | null): void {
  let got = 0
  while (got < bytes) {
    let r: number
    const started = clock ? performance.now() : 0
    try {
      r = readSync(fd, buffer, got, bytes - got, position + got)
    } catch (err) {
      throw new MeshError(`cannot read the file: ${(err as Error).message}`)
    }
    if (clock) clock.read += performance.now() - started
    if (r === 0) throw new MeshError('binary STL truncated: the file got shorter while being read')
    got += r
  }
}

export function readAsciiStl(bytes: Uint8Array): Mesh {
  return runSteps(asciiStlSteps(bytes))
}

/** readAsciiStl in steps: yields the bytes done after each chunk of lines. */
export function* asciiStlSteps(bytes: Uint8Array): Steps<Mesh> {
  const welder = new Float64Welder(Math.max(16, Math.floor(bytes.length / 400)))
  const tris = new IndexBuffer()
  let inSolid = false
  let solids = 0
  let facetLine = 0 // line of the open facet, 0 when none
  let lastLine = 0
  const corners: number[] = []
  yield* lineSteps(bytes, (line, no) => {
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
