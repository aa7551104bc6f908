import {closeSync, fstatSync, openSync, readSync, statSync} from 'node:fs'

import {MeshError} from './errors.js'
import {measureMesh, measureSteps, type MeasureOptions, type Measurement} from './measure.js'
import {overLimit, resolveLimits} from './limits.js'
import {extensionOf, looksLikeDxf, readMeshFile, readMeshSteps, sniffBrep} from './read.js'
import {runStepsAsync, type Steps} from './steps.js'
import {binaryStlFileSteps, readBinaryStlFile} from './stl.js'
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
export function measureFile(
  path: string,
  opts: MeasureOptions & {unit?: LengthUnit; limits?: ReadLimits} = {},
): Measurement {
  const {unit, limits, ...measure} = opts
  return measureMesh(readPart(path, unit, resolveLimits(limits)), measure)
}

/**
 * readMeshFile, except that a binary STL is read in pieces (readBinaryStlFile), not
 * whole: the same mesh, sooner and in less memory.
 */
function readPart(path: string, unit: LengthUnit | undefined, limits: Required<ReadLimits>): Mesh {
  const scale = UNIT_MM[unit ?? 'mm']
  let mesh: Mesh | null = null
  if (scale !== undefined) {
    try {
      mesh = readBinaryStlFile(path)
      if (mesh) checkTriangles(mesh, limits)
    } catch (err) {
      if (err instanceof MeshError) throw new MeshError(`${path}: ${err.message}`, err.limit)
      throw new MeshError(`${path}: cannot read the file: ${(err as Error).message}`)
    }
  }
  if (!mesh) return readMeshFile(path, {limits, ...(unit ? {unit} : {})})
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

/** The file's bytes, read a piece at a time: yields the bytes read after each piece. */
function* fileBytesSteps(path: string, maxBytes: number): Steps<Uint8Array> {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch (err) {
    throw fileError(err)
  }
  try {
    const {size} = fstatSync(fd)
    if (size > maxBytes)
      throw new MeshError(`the file is larger than ${maxBytes} bytes, more than any part file this reader takes`)
    const bytes = Buffer.allocUnsafe(size)
    let got = 0
    while (got < size) {
      const r = readSync(fd, bytes, got, Math.min(READ_PIECE, size - got), got)
      if (r === 0) break
      got += r
      yield got
    }
    return got < size ? bytes.subarray(0, got) : bytes
  } catch (err) {
    throw err instanceof MeshError ? err : fileError(err)
  } finally {
    closeSync(fd)
  }
}

/** What a file that cannot be read is, in a reader's words. */
function fileError(err: unknown): MeshError {
  const code = (err as NodeJS.ErrnoException).code
  return new MeshError(
    code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (err as Error).message,
  )
}

/** Bytes per read of a part file loaded whole. */
const READ_PIECE = 8 * 1024 * 1024

/** The size of a file, for progress; 0 when it cannot be told. */
function sizeOf(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

async function measureAny(file: Uint8Array | string, label: string, opts: MeasurePartOptions): Promise<PartMeasure> {
  const {unit, thicknessMm, limits: raised, onProgress, ...measure} = opts
  const limits = resolveLimits(raised)
  const hint = extensionOf(label)
  const total = typeof file === 'string' ? sizeOf(file) : file.length
  /** What a step of reading the mesh or measuring it tells onProgress: bytes done (all, once read). */
  const measuring = (done: number | undefined) => onProgress?.('measuring', done ?? total, total)
  /** A mesh's measures, a stage at a time. */
  const solid = async (mesh: Mesh): Promise<PartMeasure> => ({
    kind: 'solid',
    format: mesh.format,
    measurement: await runStepsAsync(measureSteps(mesh, measure), measuring),
  })
  if (typeof file === 'string' && hint !== 'step' && hint !== 'iges' && hint !== 'dxf' && hint !== '3mf') {
    // STL (and OBJ) by path: a binary STL is read in pieces.
    const mesh = await readPartChecked(file, unit, limits, measuring)
    if (mesh) return solid(mesh)
  }
  const bytes =
    typeof file === 'string'
      ? await runStepsAsync(fileBytesSteps(file, MAX_FILE_BYTES), (done) => onProgress?.('reading', done ?? 0, total))
      : file
  if (bytes.length === 0) throw new MeshError('the file is empty')
  const brep = sniffBrep(bytes)
  if (brep) {
    // OpenCascade's and dxf-parser's readers load with the first such file.
    const {readBrep} = await import('./brep.js')
    return solid(await readBrep(bytes, brep, limits))
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
  if (isZip(bytes)) return solid(await read3mfStreaming(bytes, limits))
  const read = readMeshSteps(bytes, {fileName: label, limits, ...(unit ? {unit} : {})})
  return solid(await runStepsAsync(read, measuring))
}

/** Part files above this size are refused before reading (a binary STL of 20 million triangles is 1 GB). */
const MAX_FILE_BYTES = 1024 * 1024 * 1024

/** A binary STL read in pieces, within the triangle limit; null when the file is no binary STL. */
async function readPartChecked(
  path: string,
  unit: LengthUnit | undefined,
  limits: Required<ReadLimits>,
  onStep: (done: number | undefined) => void,
): Promise<Mesh | null> {
  let mesh: Mesh | null
  try {
    mesh = await runStepsAsync(binaryStlFileSteps(path), onStep)
  } catch (err) {
    throw err instanceof MeshError ? err : fileError(err)
  }
  if (!mesh) return null
  checkTriangles(mesh, limits)
  const scale = UNIT_MM[unit ?? 'mm']
  if (scale !== 1) {
    const p = mesh.positions
    for (let i = 0; i < p.length; i++) p[i] = p[i]! * scale
  }
  return mesh
}

/** A binary STL read whole is refused over the triangle limit, naming the flag that raises it. */
function checkTriangles(mesh: Mesh, limits: Required<ReadLimits>): void {
  if (mesh.triangleCount > limits.maxTriangles)
    throw overLimit(
      `the mesh has ${mesh.triangleCount} triangles; this reader takes at most ${limits.maxTriangles}`,
      '--max-triangles',
    )
}
