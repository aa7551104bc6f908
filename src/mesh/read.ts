import {readFileSync} from 'node:fs'
import {MeshError} from './errors.js'
import {overLimit, resolveLimits} from './limits.js'
import {objSteps} from './obj.js'
import {runSteps, type Steps} from './steps.js'
import {asciiStlSteps, binaryStlSteps, isBinaryStlSize} from './stl.js'
import {withoutBom} from './text.js'
import {read3mf} from './threemf.js'
import type {LengthUnit, Mesh, ReadOptions} from './types.js'

const UNIT_MM: Record<LengthUnit, number> = {mm: 1, cm: 10, in: 25.4}

type Kind = 'stl' | 'obj' | '3mf' | 'step' | 'iges' | 'dxf' | 'unknown'

const EXTENSIONS: Record<string, Kind> = {
  stl: 'stl',
  obj: 'obj',
  '3mf': '3mf',
  step: 'step',
  stp: 'step',
  iges: 'iges',
  igs: 'iges',
  dxf: 'dxf',
}

/** The kind a file name's extension suggests. */
export function extensionOf(fileName: string | undefined): Kind {
  const m = /\.([a-z0-9]+)$/i.exec(fileName ?? '')
  return EXTENSIONS[m?.[1]?.toLowerCase() ?? ''] ?? 'unknown'
}

/** A DXF starts with group code 0 and SECTION, or with a 999 comment. */
export function looksLikeDxf(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 256)).toString('latin1')
  return /^\s*(0\s*\r?\n\s*SECTION\b|999\s*\r?\n)/.test(head) || head.startsWith('AutoCAD Binary DXF')
}

/** STEP, IGES or DXF: formats readMesh does not take. */
export function sniffOther(bytes: Uint8Array, hint: Kind): 'STEP' | 'IGES' | 'DXF' | undefined {
  const brep = sniffBrep(bytes)
  if (brep) return brep === 'step' ? 'STEP' : 'IGES'
  if (looksLikeDxf(bytes) || hint === 'dxf') return 'DXF'
  return undefined
}

/** True when the first bytes look like text (no NUL or other control bytes). */
function looksLikeText(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 1024)
  for (let i = 0; i < n; i++) {
    const c = bytes[i]!
    if (c < 9 || (c > 13 && c < 32) || c === 127) return false
  }
  return true
}

function firstWord(bytes: Uint8Array): string {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 4096)).toString('latin1')
  for (const line of head.split('\n')) {
    const t = line.trim()
    if (t === '' || t.startsWith('#')) continue
    return t.split(/\s+/)[0]!.toLowerCase()
  }
  return ''
}

const OBJ_WORDS = new Set(['v', 'vt', 'vn', 'vp', 'f', 'o', 'g', 's', 'l', 'mtllib', 'usemtl'])

/**
 * Reads an STL (binary or ASCII), OBJ or 3MF file into a welded triangle mesh in mm.
 * The content decides the format; the file name's extension only breaks ties.
 * Throws MeshError, with one message saying what is wrong and where, for anything unusable.
 */
export function readMesh(bytes: Uint8Array, opts: ReadOptions = {}): Mesh {
  return runSteps(readMeshSteps(bytes, opts))
}

/** readMesh in steps: yields the bytes done after each piece of an STL or OBJ file. */
export function* readMeshSteps(bytes: Uint8Array, opts: ReadOptions = {}): Steps<Mesh> {
  try {
    return yield* readAny(bytes, opts)
  } catch (err) {
    if (err instanceof MeshError) throw err
    // A safety net: whatever slipped past the readers' checks is still a file problem.
    throw new MeshError(`cannot read the file: ${(err as Error).message}`)
  }
}

function* readAny(bytes: Uint8Array, opts: ReadOptions): Steps<Mesh> {
  const scale = UNIT_MM[opts.unit ?? 'mm']
  if (scale === undefined) throw new MeshError(`unknown unit ${JSON.stringify(opts.unit)} (expected mm, cm or in)`)
  if (bytes.length === 0) throw new MeshError('the file is empty')
  const hint = extensionOf(opts.fileName)
  const isZip =
    bytes.length >= 4 &&
    bytes[0] === 0x50 &&
    bytes[1] === 0x4b &&
    (bytes[2] === 3 || bytes[2] === 5) &&
    (bytes[3] === 4 || bytes[3] === 6)

  let mesh: Mesh
  const limits = resolveLimits(opts.limits)
  const other = sniffOther(bytes, hint)
  if (other)
    throw new MeshError(
      `this is a ${other} file; this reader takes STL, OBJ and 3MF meshes (${other} files are read with the other part formats, as price measure reads them)`,
    )
  if (isZip) {
    return read3mf(bytes, limits)
  } else if (hint === '3mf') {
    throw new MeshError('3MF file is not a zip archive (it does not start with a zip header)')
  } else if (isBinaryStlSize(bytes)) {
    mesh = yield* binaryStlSteps(bytes)
  } else if (looksLikeText(bytes)) {
    // A text file may open with a byte-order mark; a binary STL's header never reaches here
    // (its size decided above), so one starting with the same bytes stays binary.
    const text = withoutBom(bytes)
    const word = firstWord(text)
    if (word === 'solid') mesh = yield* asciiStlSteps(text)
    else if (OBJ_WORDS.has(word) || hint === 'obj') mesh = yield* objSteps(text)
    else if (hint === 'stl') mesh = yield* asciiStlSteps(text)
    else if (word === '') throw new MeshError('the file holds only blanks and comments')
    else
      throw new MeshError(
        `unrecognised file format: starts with ${JSON.stringify(word.slice(0, 20))} (expected STL, OBJ, 3MF, STEP, IGES or DXF)`,
      )
  } else if ((bytes.length >= 84 || hint === 'stl') && hint !== 'obj') {
    // Binary but not the size its header announces: truncated or corrupt.
    mesh = yield* binaryStlSteps(bytes)
  } else {
    throw new MeshError(
      `unrecognised file format (${bytes.length} bytes of binary data; expected STL, OBJ, 3MF, STEP, IGES or DXF)`,
    )
  }
  if (mesh.triangleCount > limits.maxTriangles)
    throw overLimit(
      `the mesh has ${mesh.triangleCount} triangles; this reader takes at most ${limits.maxTriangles}`,
      '--max-triangles',
    )
  if (scale !== 1) {
    const p = mesh.positions
    for (let i = 0; i < p.length; i++) p[i] = p[i]! * scale
  }
  return mesh
}

/** readMesh on a file from disk, with its name as the format hint. */
export function readMeshFile(path: string, opts: Omit<ReadOptions, 'fileName'> = {}): Mesh {
  let bytes: Uint8Array
  try {
    bytes = readFileSync(path)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    throw new MeshError(
      `cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (err as Error).message}`,
    )
  }
  try {
    return readMesh(bytes, {...opts, fileName: path})
  } catch (err) {
    if (err instanceof MeshError) throw new MeshError(`${path}: ${err.message}`, err.limit)
    throw err
  }
}

export type BrepFormat = 'step' | 'iges'

/** STEP starts with its ISO 10303-21 header; IGES has fixed 80-column lines with the section letter in column 73. */
export function sniffBrep(bytes: Uint8Array): BrepFormat | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 400)).toString('latin1')
  if (/^\s*ISO-10303-21\s*;/.test(head)) return 'step'
  const first = head.split(/\r?\n/, 1)[0] ?? ''
  if (first.length >= 73 && first.length <= 82 && first[72] === 'S') return 'iges'
  return undefined
}
