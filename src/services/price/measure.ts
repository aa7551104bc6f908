import {
  MeshError,
  PART_FORMATS,
  measureFile,
  measurePart as measureAnyPart,
  type LengthUnit,
  type MeasurePartOptions,
  type Measurement,
  type ReadLimits,
  type SheetMeasurement,
} from '../../mesh/index.js'
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
  /** Raised reader limits for a trusted file. */
  limits?: ReadLimits
}

/** `price measure --json`: exactly these keys, slicingData in the interface's names and types. */
export interface PartMeasurement extends Measurement {
  file: string
}

/** The mesh reader's options from a measure input: only those given. */
function readOptions(input: MeasureInput) {
  return defined({
    unit: input.unit || undefined,
    layerHeight: input.layerHeight,
    firstLayerHeight: input.firstLayerHeight,
    density: input.density,
    hull: input.hull === false ? false : undefined,
  })
}

/** Reads and measures a part file; an unreadable file or a bad option is an InputError (exit 2). */
export function measurePart(input: MeasureInput): PartMeasurement {
  let m: Measurement
  try {
    m = measureFile(input.file, {...readOptions(input), ...defined({limits: input.limits})})
  } catch (error) {
    if (error instanceof MeshError || error instanceof RangeError) throw new InputError(error.message)
    throw error
  }
  return partMeasurement(input.file, m)
}

/** What `price measure --json` shows of a solid: the measurement's figures, named by file. */
function partMeasurement(file: string, m: Measurement): PartMeasurement {
  return {
    file,
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

/** What tells whether a measured solid encloses a volume: its edge census. */
type Edges = Pick<Measurement, 'closed' | 'openEdges' | 'nonManifoldEdges'>

const count = (n: number, what: string) => `${n} ${what.replace('#', n === 1 ? '' : 's')}`

/**
 * Why a measured solid cannot be priced, starting with its file name; undefined when it can.
 * Only a closed mesh, each edge in exactly two triangles, has a volume: an open one's
 * figure depends on where the part sits (it is measured against the origin), and an edge
 * in three or more triangles leaves what is inside unclear. Everything that prices a
 * measured mesh asks this (price estimate, demand quote); price measure only shows it.
 */
export function unpricedReason(file: string, m: Edges): string | undefined {
  if (m.closed) return undefined
  const faults: string[] = []
  if (m.openEdges > 0) faults.push(`open (${count(m.openEdges, 'open edge#')})`)
  if (m.nonManifoldEdges > 0)
    faults.push(`not manifold (${count(m.nonManifoldEdges, 'edge#')} shared by more than two triangles)`)
  const what = faults.length > 0 ? `is ${faults.join(' and ')}` : 'has no edges (only degenerate triangles)'
  return `${file}: the mesh ${what}, so its volume is not defined and cannot be priced`
}

/** `price measure --json` for a DXF flat pattern: the sheet's figures in mm. */
export interface SheetPartMeasurement extends SheetMeasurement {
  file: string
}

export interface AnyMeasureInput extends MeasureInput {
  /** Sheet thickness for a DXF, mm (DXF carries none). */
  thicknessMm?: number
  /** Told how far the reading and measuring of a big file is (MeasurePartOptions.onProgress). */
  onProgress?: MeasurePartOptions['onProgress']
}

/**
 * Reads and measures a part file of any format: STL, OBJ, 3MF, STEP, IGES as a solid,
 * DXF as a flat pattern. An unreadable or unknown file is an InputError (exit 2) naming
 * the file and the formats allowed.
 */
export async function measureAnyFile(input: AnyMeasureInput): Promise<PartMeasurement | SheetPartMeasurement> {
  let m
  try {
    m = await measureAnyPart(input.file, input.file, {
      ...readOptions(input),
      ...defined({thicknessMm: input.thicknessMm, limits: input.limits, onProgress: input.onProgress}),
    })
  } catch (error) {
    if (error instanceof MeshError || error instanceof RangeError) {
      const message = error.message
      throw new InputError(/named as (STEP|IGES)/.test(message) ? `${message}; allowed: ${PART_FORMATS}` : message)
    }
    throw error
  }
  if (m.kind === 'sheet') return {file: input.file, ...m.sheet}
  return partMeasurement(input.file, m.measurement)
}
