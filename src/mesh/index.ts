import {MeshError} from './errors.js'
import {measureMesh, type MeasureOptions, type Measurement} from './measure.js'
import {readMeshFile} from './read.js'
import {readBinaryStlFile} from './stl.js'
import type {LengthUnit, Mesh} from './types.js'

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
      if (err instanceof MeshError) throw new MeshError(`${path}: ${err.message}`)
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
