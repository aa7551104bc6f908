import {
  MeshError,
  measurePart,
  type LengthUnit,
  type Measurement,
  type PartMeasure,
  type ReadLimits,
} from '../../mesh/index.js'
import type {EstimateInput} from '../price/estimate.js'
import {unpricedReason} from '../price/measure.js'
import type {PartFigures} from './types.js'

/**
 * The one place `demand quote` measures a part file: src/mesh's measurePart, which
 * reads STL, OBJ, 3MF, STEP and IGES as solids and DXF flat patterns as sheets,
 * each within its limits. What a quote needs beyond that is checked here: a solid
 * must be closed to have a volume worth a price.
 */

export type MeasuredPart = PartMeasure

/** A part that cannot be read or measured: the demand is skipped with this reason. */
export class PartError extends Error {
  constructor(
    message: string,
    /** The file could not be read as a part at all (not a mesh, a page of HTML...), rather than refused as one. */
    readonly unreadable = false,
  ) {
    super(message)
    this.name = 'PartError'
  }
}

/** The format a part's file name says (its extension, lower case; stp → step, igs → iges). */
export function formatOf(fileName: string): string {
  const ext = /\.([^./\\]+)$/.exec(fileName)?.[1]?.toLowerCase() ?? ''
  return ext === 'stp' ? 'step' : ext === 'igs' ? 'iges' : ext
}

/** Reads and measures one downloaded part; `name` is the demand's file name (its extension is a hint). */
export async function measureQuotePart(
  path: string,
  name: string,
  opts: {thickness?: number; limits?: ReadLimits; unit?: unknown} = {},
): Promise<PartMeasure> {
  const unit = partUnit(opts.unit, name)
  let part: PartMeasure
  try {
    part = await measurePart(path, name, {
      ...(unit === undefined ? {} : {unit}),
      ...(opts.thickness === undefined ? {} : {thicknessMm: opts.thickness}),
      ...(opts.limits ? {limits: opts.limits} : {}),
    })
  } catch (error) {
    if (error instanceof MeshError) throw new PartError(error.message, error.limit === undefined)
    if (error instanceof RangeError) throw new PartError(error.message, true)
    throw error
  }
  const unpriced = part.kind === 'solid' ? unpricedReason(name, part.measurement) : undefined
  if (unpriced) throw new PartError(`${unpriced}.`)
  return part
}

/** The names a quote model's `unit` is given in, and the unit each is. */
const UNIT_NAMES: Record<string, LengthUnit> = {
  mm: 'mm',
  millimeter: 'mm',
  millimeters: 'mm',
  millimetre: 'mm',
  millimetres: 'mm',
  cm: 'cm',
  centimeter: 'cm',
  centimeters: 'cm',
  centimetre: 'cm',
  centimetres: 'cm',
  in: 'in',
  inch: 'in',
  inches: 'in',
}

/**
 * The length unit of a part as its quote model states it (`unit`, for a file that
 * declares none: STL, OBJ), or undefined when it states none. A unit mfg cannot
 * read skips the part, saying so, rather than measuring it as millimetres.
 */
export function partUnit(unit: unknown, name: string): LengthUnit | undefined {
  if (unit === undefined || unit === null || (typeof unit === 'string' && unit.trim() === '')) return undefined
  const known = typeof unit === 'string' ? UNIT_NAMES[unit.trim().toLowerCase()] : undefined
  if (known) return known
  throw new PartError(
    `${name}: the demand gives its unit as ${JSON.stringify(unit)}, which is none of mm, cm or inch; it is not measured as millimetres.`,
  )
}

const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d

/** The figures a quote shows for a measured part. */
export function figuresOf(part: PartMeasure): PartFigures {
  if (part.kind === 'solid') {
    const m: Measurement = part.measurement
    return {
      kind: 'solid',
      size: [round(m.width), round(m.depth), round(m.height)],
      volume: round(m.volume),
      area: round(m.area),
      closed: m.closed,
    }
  }
  const s = part.sheet
  return {
    kind: 'sheet',
    size: [round(s.bbox.width), round(s.bbox.height)],
    area: round(s.areaMm2),
    cutLength: round(s.cutLengthMm),
    pierces: s.pierces,
    bends: s.bendLines,
    thickness: s.thicknessMm,
  }
}

/**
 * What the price estimation takes from a measured part: a solid's measurement
 * (slicing data, sizes); a sheet's outline box and thickness as its size, its
 * area × thickness as its volume, its cut length (dfmData.allLength) and its bends.
 */
export function estimateFields(part: PartMeasure, file: string): Partial<EstimateInput> {
  if (part.kind === 'solid') return {part: {file, measurement: part.measurement}}
  const s = part.sheet
  const thickness = s.thicknessMm
  if (thickness === null)
    throw new PartError(
      `${file}: a DXF flat pattern needs a sheet thickness: the demand says none; pass --thickness MM.`,
    )
  return {
    size: {width: s.bbox.width, depth: s.bbox.height, height: thickness},
    thickness,
    volume: s.areaMm2 * thickness,
    cutLength: s.cutLengthMm,
    ...(s.bendLines > 0 ? {bends: s.bendLines} : {}),
  }
}
