import {readFileSync, statSync} from 'node:fs'

import {MeshError} from './errors.js'
import {measureMesh, type MeasureOptions, type Measurement} from './measure.js'
import {resolveLimits} from './limits.js'
import {extensionOf, looksLikeDxf, readMesh, readMeshFile, sniffBrep} from './read.js'
import {readBinaryStlFile} from './stl.js'
import {read3mfStreaming} from './threemf.js'
import type {LengthUnit, MeasurePartOptions, Mesh, PartMeasure, ReadLimits} from './types.js'

export {MeshError} from './errors.js'
export type {
  Box2,
  LengthUnit,
  MeasurePartOptions,
  Mesh,
  MeshFormat,
  MeshObject,
  PartFormat,
  PartMeasure,
  ReadLimits,
  ReadOptions,
  SheetMeasurement,
} from './types.js'
export {readMesh, readMeshFile} from './read.js'
export {layerCount, measureMesh, type MeasureOptions, type Measurement, type SlicingData} from './measure.js'
export {convexHullVolume} from './hull.js'
export {DEFAULT_LIMITS, limitAdvice} from './limits.js'

const UNIT_MM: Record<LengthUnit, number> = {mm: 1, cm: 10, in: 25.4}

/** Reads a part file from disk and measures it; MeshError messages start with the path. */
export function measureFile(path: string, opts: MeasureOptions & {unit?: LengthUnit} = {}): Measurement {
  const {unit, ...measure} = opts
  return measureMesh(readPart(path, unit), measure)
}

/**
 * readMeshFile, except that a binary STL is read in pieces (readBinaryStlFile), not
 * whole: the same mesh, sooner and in less memory.
 */
function readPart(path: string, unit: LengthUnit | undefined): Mesh {
  const scale = UNIT_MM[unit ?? 'mm']
  let mesh: Mesh | null = null
  if (scale !== undefined) {
    try {
      mesh = readBinaryStlFile(path)
    } catch (err) {
      if (err instanceof MeshError) throw new MeshError(`${path}: ${err.message}`, err.limit)
      throw new MeshError(`${path}: cannot read the file: ${(err as Error).message}`)
    }
  }
  if (!mesh) return readMeshFile(path, unit ? {unit} : {})
  if (scale !== 1) {
    const p = mesh.positions
    for (let i = 0; i < p.length; i++) p[i] = p[i]! * scale
  }
  return mesh
}

/** What measurePart takes, by extension, for messages. */
export const PART_FORMATS = 'STL, OBJ, 3MF, STEP/STP, IGES/IGS or DXF'

const isZip = (b: Uint8Array): boolean => b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && (b[2] === 3 || b[2] === 5)

/**
 * Reads and measures a part file of any format: a solid (STL, OBJ, 3MF, STEP, IGES)
 * as a mesh, a DXF flat pattern as a sheet. `file` is the bytes or a path; `name` the
 * file name (its extension is a hint; the content decides). Every reader stays within
 * `opts.limits` (DEFAULT_LIMITS unless raised). Rejects with a MeshError whose message
 * starts with the file's name.
 */
export async function measurePart(
  file: Uint8Array | string,
  name?: string,
  opts: MeasurePartOptions = {},
): Promise<PartMeasure> {
  const label = name ?? (typeof file === 'string' ? file : 'part')
  try {
    return await measureAny(file, label, opts)
  } catch (err) {
    if (err instanceof MeshError) throw new MeshError(`${label}: ${err.message}`, err.limit)
    if (err instanceof RangeError) throw new MeshError(`${label}: ${err.message}`)
    throw new MeshError(`${label}: cannot read the file: ${(err as Error).message}`)
  }
}

function readBytes(path: string, maxBytes: number): Uint8Array {
  try {
    if (statSync(path).size > maxBytes)
      throw new MeshError(`the file is larger than ${maxBytes} bytes, more than any part file this reader takes`)
    return readFileSync(path)
  } catch (err) {
    if (err instanceof MeshError) throw err
    const code = (err as NodeJS.ErrnoException).code
    throw new MeshError(
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (err as Error).message,
    )
  }
}

async function measureAny(file: Uint8Array | string, label: string, opts: MeasurePartOptions): Promise<PartMeasure> {
  const {unit, thicknessMm, limits: raised, ...measure} = opts
  const limits = resolveLimits(raised)
  const hint = extensionOf(label)
  if (typeof file === 'string' && hint !== 'step' && hint !== 'iges' && hint !== 'dxf' && hint !== '3mf') {
    // STL (and OBJ) by path: a binary STL is read in pieces.
    const mesh = readPartChecked(file, unit, limits)
    if (mesh) return {kind: 'solid', format: mesh.format, measurement: measureMesh(mesh, measure)}
  }
  const bytes = typeof file === 'string' ? readBytes(file, MAX_FILE_BYTES) : file
  if (bytes.length === 0) throw new MeshError('the file is empty')
  const brep = sniffBrep(bytes)
  if (brep) {
    // OpenCascade's and dxf-parser's readers load with the first such file.
    const {readBrep} = await import('./brep.js')
    const mesh = await readBrep(bytes, brep, limits)
    return {kind: 'solid', format: brep, measurement: measureMesh(mesh, measure)}
  }
  if (hint === 'step' || hint === 'iges')
    throw new MeshError(
      hint === 'step'
        ? 'named as STEP but does not start with the ISO-10303-21 header'
        : 'named as IGES but has no IGES start section (80-column lines, S in column 73)',
    )
  if (looksLikeDxf(bytes) || hint === 'dxf') {
    const dxfOpts = {...(unit ? {unit} : {}), ...(thicknessMm !== undefined ? {thicknessMm} : {})}
    const {readDxf} = await import('./dxf.js')
    return {kind: 'sheet', format: 'dxf', sheet: await readDxf(bytes, limits, dxfOpts)}
  }
  if (isZip(bytes)) {
    const mesh = await read3mfStreaming(bytes, limits)
    return {kind: 'solid', format: '3mf', measurement: measureMesh(mesh, measure)}
  }
  const mesh = readMesh(bytes, {fileName: label, limits, ...(unit ? {unit} : {})})
  return {kind: 'solid', format: mesh.format, measurement: measureMesh(mesh, measure)}
}

/** Part files above this size are refused before reading (a binary STL of 20 million triangles is 1 GB). */
const MAX_FILE_BYTES = 1024 * 1024 * 1024

/** A binary STL read in pieces, within the triangle limit; null when the file is no binary STL. */
function readPartChecked(path: string, unit: LengthUnit | undefined, limits: Required<ReadLimits>): Mesh | null {
  let mesh: Mesh | null
  try {
    mesh = readBinaryStlFile(path)
  } catch (err) {
    if (err instanceof MeshError) throw err
    const code = (err as NodeJS.ErrnoException).code
    throw new MeshError(
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (err as Error).message,
    )
  }
  if (!mesh) return null
  if (mesh.triangleCount > limits.maxTriangles)
    throw new MeshError(
      `the mesh has ${mesh.triangleCount} triangles; this reader takes at most ${limits.maxTriangles}; if the file is trusted, raise the limit with --max-triangles`,
    )
  const scale = UNIT_MM[unit ?? 'mm']
  if (scale !== 1) {
    const p = mesh.positions
    for (let i = 0; i < p.length; i++) p[i] = p[i]! * scale
  }
  return mesh
}
