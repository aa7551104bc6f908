import {measureMesh, type MeasureOptions, type Measurement} from './measure.js'
import {readMeshFile} from './read.js'
import type {LengthUnit} from './types.js'

export {MeshError} from './errors.js'
export type {LengthUnit, Mesh, MeshFormat, MeshObject, ReadOptions} from './types.js'
export {readMesh, readMeshFile} from './read.js'
export {layerCount, measureMesh, type MeasureOptions, type Measurement, type SlicingData} from './measure.js'
export {convexHullVolume} from './hull.js'

/** Reads a part file from disk and measures it; MeshError messages start with the path. */
export function measureFile(path: string, opts: MeasureOptions & {unit?: LengthUnit} = {}): Measurement {
  const {unit, ...measure} = opts
  return measureMesh(readMeshFile(path, unit ? {unit} : {}), measure)
}
