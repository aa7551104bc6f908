// What `price measure` accepts and prints: its flags' check, the measuring, and its
// text output (src/commands/price/measure.ts stays a thin command).
import {basename} from 'node:path'

import {
  measureAnyFile,
  type AnyMeasureInput,
  type PartMeasurement,
  type SheetPartMeasurement,
} from '../services/price/measure.js'
import {ciIsSet} from './prompt.js'
import {limitsOf, type ReaderLimitFlags} from './reader-limits.js'
import {isTty} from './stdio.js'

/** The flags of `price measure`, parsed. */
export interface MeasureFlags extends ReaderLimitFlags {
  'layer-height': number
  'first-layer-height': number
  density: number
  unit: string
  'no-hull'?: boolean
  thickness?: number
}

/**
 * Measures the file as the flags ask: a solid, or a DXF flat pattern. `onProgress` is
 * told how far a big file is (bytes done of the file's size, while it is read, then measured).
 */
export function measureWithFlags(
  file: string,
  flags: MeasureFlags,
  onProgress?: AnyMeasureInput['onProgress'],
): Promise<PartMeasurement | SheetPartMeasurement> {
  return measureAnyFile({
    file,
    unit: flags.unit as 'mm' | 'cm' | 'in',
    layerHeight: flags['layer-height'],
    firstLayerHeight: flags['first-layer-height'],
    density: flags.density,
    hull: !flags['no-hull'],
    ...(flags.thickness !== undefined ? {thicknessMm: flags.thickness} : {}),
    limits: limitsOf(flags),
    ...(onProgress ? {onProgress} : {}),
  })
}

/** What draws a big file's progress on stderr while it is measured. */
export interface MeasureProgress {
  update: NonNullable<AnyMeasureInput['onProgress']>
  /** Erases the bar. */
  done(): void
}

/**
 * A bar on stderr for `file` (bytes read, then measured, of its size), drawn only when
 * stderr is a terminal and CI is not set; undefined otherwise.
 */
export async function measureProgress(file: string): Promise<MeasureProgress | undefined> {
  if (!isTty(process.stderr) || ciIsSet()) return undefined
  const {ByteProgressBar} = await import('./progress.js')
  const bar = new ByteProgressBar(process.stderr, true)
  const name = basename(file)
  return {update: (stage, done, total) => bar.update(`${stage} ${name}`, done, total), done: () => bar.done()}
}

/** A measure in mm, as the text output shows it. */
const f = (n: number, digits = 3) => n.toFixed(digits)

/** One aligned line per measure on stdout; the table code is loaded here, so that --json loads none. */
async function writeKeyValue(record: Record<string, unknown>): Promise<void> {
  const [{toKeyValue}, {writeOut}] = await Promise.all([import('./render.js'), import('./output.js')])
  writeOut(toKeyValue(record))
}

/** Without `--json`, for a DXF flat pattern: one aligned line per measure, in mm. */
export async function writeSheetText(m: SheetPartMeasurement): Promise<void> {
  await writeKeyValue({
    file: m.file,
    format: m.format,
    unit: m.sourceUnit === 'mm' ? 'mm' : `${m.sourceUnit} (converted to mm)`,
    'area mm²': f(m.areaMm2),
    'cut length mm': f(m.cutLengthMm),
    pierces: m.pierces,
    contours: `${m.outlines} outline${m.outlines === 1 ? '' : 's'}, ${m.holes} hole${m.holes === 1 ? '' : 's'}, ${m.openChains} open`,
    'bend lines': m.bendLines === 0 ? 0 : `${m.bendLines} (${f(m.bendLengthMm)} mm)`,
    'bbox W×H mm': `${f(m.bbox.width, 4)} × ${f(m.bbox.height, 4)} (from ${f(m.bbox.minX)}, ${f(m.bbox.minY)})`,
    'thickness mm': m.thicknessMm === null ? '(not given: --thickness)' : f(m.thicknessMm),
  })
}

/** Without `--json`: one aligned line per measure, in mm. */
export async function writeMeasurementText(m: PartMeasurement): Promise<void> {
  await writeKeyValue({
    file: m.file,
    format: m.format,
    triangles: m.triangles,
    parts: m.parts,
    closed: m.closed ? 'yes' : `no (${m.openEdges} open, ${m.nonManifoldEdges} non-manifold edges)`,
    'size W×D×H mm': `${f(m.width, 4)} × ${f(m.depth, 4)} × ${f(m.height, 4)}`,
    'volume mm³': f(m.volume),
    'area mm²': f(m.area),
    'convex hull mm³': m.convexHullVolume === null ? '(skipped)' : f(m.convexHullVolume),
    'bounding box mm³': f(m.boundingBoxVolume),
    layers: m.slicingData.number_of_layers,
    'filament mm': f(m.slicingData.filament_length, 1),
    'weight g': m.slicingData.weight,
    'print hours': f(m.slicingData.hours, 2),
  })
}
