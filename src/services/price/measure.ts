import {MeshError, measureFile, type LengthUnit, type Measurement} from '../../mesh/index.js'
import {defined} from '../../util/fields.js'
import {InputError} from '../errors.js'

export interface MeasureInput {
  file: string
  unit?: LengthUnit
  layerHeight?: number
  firstLayerHeight?: number
  density?: number
  /** Compute the convex hull (default true). */
  hull?: boolean
}

/** `price measure --json`: exactly these keys, slicingData in the interface's names and types. */
export interface PartMeasurement extends Measurement {
  file: string
}

/** Reads and measures a part file; an unreadable file or a bad option is an InputError (exit 2). */
export function measurePart(input: MeasureInput): PartMeasurement {
  let m: Measurement
  try {
    m = measureFile(
      input.file,
      defined({
        unit: input.unit || undefined,
        layerHeight: input.layerHeight,
        firstLayerHeight: input.firstLayerHeight,
        density: input.density,
        hull: input.hull === false ? false : undefined,
      }),
    )
  } catch (error) {
    if (error instanceof MeshError || error instanceof RangeError) throw new InputError(error.message)
    throw error
  }
  return {
    file: input.file,
    format: m.format,
    triangles: m.triangles,
    parts: m.parts,
    closed: m.closed,
    openEdges: m.openEdges,
    nonManifoldEdges: m.nonManifoldEdges,
    width: m.width,
    depth: m.depth,
    height: m.height,
    volume: m.volume,
    area: m.area,
    convexHullVolume: m.convexHullVolume,
    boundingBoxVolume: m.boundingBoxVolume,
    slicingData: m.slicingData,
  }
}
