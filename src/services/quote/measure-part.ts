import {extname} from 'node:path'

import {MeshError, measureFile, type Measurement} from '../../mesh/index.js'
import type {EstimateInput} from '../price/estimate.js'
import type {PartFigures} from './types.js'

/**
 * The one place `demand quote` measures a part file. Today it reads the mesh
 * formats (STL, OBJ, 3MF) through src/mesh; STEP, IGES and DXF are named here so
 * that a demand holding one is skipped with a clear reason until src/mesh reads
 * them (its measurePart, which answers a solid or a flat sheet).
 */

/** A flat pattern as the DXF reader measures it: the few figures a sheet quote uses. */
export interface SheetFigures {
  areaMm2: number
  cutLengthMm: number
  pierces: number
  bendLines: number
  bbox: {width: number; height: number}
  thicknessMm: number | null
}

export type MeasuredPart =
  {kind: 'solid'; format: string; measurement: Measurement} | {kind: 'sheet'; format: 'dxf'; sheet: SheetFigures}

/** A part that cannot be read or measured: the demand is skipped with this reason. */
export class PartError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'PartError'
  }
}

const MESH = new Set(['stl', 'obj', '3mf'])
const LATER = new Set(['step', 'stp', 'iges', 'igs', 'dxf'])

/** The format a part's file name says (its extension, lower case; stp → step, igs → iges). */
export function formatOf(fileName: string): string {
  const ext = extname(fileName).slice(1).toLowerCase()
  return ext === 'stp' ? 'step' : ext === 'igs' ? 'iges' : ext
}

/** Reads and measures one downloaded part; `name` is the demand's file name (its extension is the format). */
export async function measureQuotePart(
  path: string,
  name: string,
  _opts: {thickness?: number} = {},
): Promise<MeasuredPart> {
  const ext = extname(name).slice(1).toLowerCase()
  if (LATER.has(ext)) throw new PartError(`${name}: ${ext.toUpperCase()} files cannot be measured by this mfg yet.`)
  if (!MESH.has(ext) && ext !== '')
    throw new PartError(`${name}: .${ext} is not a part format mfg reads (STL, OBJ, 3MF).`)
  try {
    const measurement = measureFile(path)
    if (!measurement.closed)
      throw new PartError(
        `${name}: the mesh is open (${measurement.openEdges} open edges), so its volume cannot be trusted for a price.`,
      )
    return {kind: 'solid', format: measurement.format, measurement}
  } catch (error) {
    if (error instanceof PartError) throw error
    if (error instanceof MeshError || error instanceof RangeError)
      throw new PartError(error.message.replace(path, name))
    throw error
  }
}

const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d

/** The figures a quote shows for a measured part. */
export function figuresOf(part: MeasuredPart): PartFigures {
  if (part.kind === 'solid') {
    const m = part.measurement
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

/** What the price estimation takes from a measured part. */
export function estimateFields(part: MeasuredPart, file: string): Partial<EstimateInput> {
  if (part.kind === 'solid') return {part: {file, measurement: part.measurement}}
  const s = part.sheet
  const thickness = s.thicknessMm
  if (thickness === null)
    throw new PartError('a DXF flat pattern needs a sheet thickness: the demand says none; pass --thickness MM.')
  return {
    size: {width: s.bbox.width, depth: s.bbox.height, height: thickness},
    thickness,
    volume: s.areaMm2 * thickness,
    ...(s.bendLines > 0 ? {bends: s.bendLines} : {}),
  }
}
