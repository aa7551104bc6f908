// PrusaSlicer's own figures for the print-time reference parts, recorded in
// test/fixtures/prusa/reference.json by `npx tsx bench/mesh-print.ts --record`, and our
// estimate against them. Used by bench/mesh-print.ts and test/mesh/print-accuracy.test.ts.
import {readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {basename, resolve} from 'node:path'

import {measureFile} from '../../src/mesh/index.js'
import {sliceWithPrusa, type SliceResult} from '../../src/services/price/slicer.js'
import {MESHES, meshPath} from '../helpers/meshes.js'

export const REFERENCE = resolve(import.meta.dirname, '../fixtures/prusa/reference.json')

/** The targets: median and worst absolute error of the hours against PrusaSlicer. */
export const MEDIAN_TARGET = 0.1
export const WORST_TARGET = 0.3

export interface ReferencePart {
  file: string
  hours: number
  estimatedTime: string
  filamentLength: number
  layers: number
}
export interface Reference {
  slicer: string
  version: string
  settings: SliceResult['settings']
  parts: ReferencePart[]
}

/**
 * Every distinct part: each part file of test/fixtures/meshes once (the logo's other formats
 * and its ASCII copy are the same part; open-box.stl is cube20 without its top, which
 * PrusaSlicer closes, so not a part of its own), and the generated torus.
 */
export function referenceFiles(): string[] {
  const same = new Set(['logo-ascii.stl', 'open-box.stl'])
  const stl = readdirSync(MESHES).filter((f) => f.endsWith('.stl') && !same.has(f))
  return [...stl, 'torus-100k.stl'].sort()
}

export function readReference(): Reference {
  return JSON.parse(readFileSync(REFERENCE, 'utf8')) as Reference
}

/** Slices one reference part with PrusaSlicer at slicer.ts's settings (the `--slicer prusa` ones). */
export async function slicePart(
  file: string,
): Promise<ReferencePart & {settings: SliceResult['settings']; version: string | null}> {
  const r = await sliceWithPrusa({file: meshPath(file)})
  const {hours, estimatedTime, filamentLength, layers, settings, version} = r
  return {file, hours, estimatedTime, filamentLength, layers, settings, version}
}

/** Slices every reference part and writes reference.json. */
export async function recordReference(): Promise<Reference> {
  const parts = []
  for (const f of referenceFiles()) parts.push(await slicePart(f))
  const first = parts[0]!
  const ref: Reference = {
    slicer: 'PrusaSlicer',
    version: first.version ?? 'unknown',
    settings: first.settings,
    parts: parts.map(({file, hours, estimatedTime, filamentLength, layers}) => ({
      file,
      hours,
      estimatedTime,
      filamentLength,
      layers,
    })),
  }
  writeFileSync(REFERENCE, `${JSON.stringify(ref, null, 2)}\n`)
  return ref
}

export interface Compared {
  file: string
  theirs: number
  ours: number
  /** ours / theirs − 1. */
  error: number
}

/** Our hours (measureFile at the defaults, the settings PrusaSlicer was run at) against each part's. */
export function compare(parts: ReferencePart[]): Compared[] {
  return parts.map((p) => {
    const ours = measureFile(meshPath(p.file), {hull: false}).slicingData.hours
    return {file: basename(p.file), theirs: p.hours, ours, error: ours / p.hours - 1}
  })
}

/** Median and worst absolute error, and the worst part. */
export function summary(rows: Compared[]): {median: number; worst: number; worstFile: string} {
  const abs = rows.map((r) => Math.abs(r.error)).sort((a, b) => a - b)
  const n = abs.length
  const median = n % 2 ? abs[(n - 1) / 2]! : (abs[n / 2 - 1]! + abs[n / 2]!) / 2
  const w = rows.reduce((a, b) => (Math.abs(b.error) > Math.abs(a.error) ? b : a))
  return {median, worst: Math.abs(w.error), worstFile: w.file}
}
