// The part readers' limits as flags, shared by `price measure`, `price estimate` and `demand quote`:
// buyers' files are untrusted, and each limit is raised for a file the operator trusts.
import {Flags} from '@oclif/core'

// The defaults are the readers' own (src/mesh/limits.ts), shown in each flag's help.
import {DEFAULT_LIMITS} from '../mesh/limits.js'
import type {ReadLimits} from '../mesh/types.js'

/** A flag value that must be a number above 0; undefined when it is not. */
export function positiveNumber(text: string): number | undefined {
  const n = Number(text)
  return Number.isFinite(n) && n > 0 ? n : undefined
}

/** The message for a value positiveNumber refuses. */
export function notPositive(flag: string, text: string): string {
  return `--${flag} must be a number above 0, got ${text}`
}

/** A flag that takes a number above 0. */
export const positiveFlag = Flags.custom<number>({
  parse: async (text, _ctx, opts) => {
    const n = positiveNumber(text)
    if (n === undefined) throw new Error(notPositive(opts.name, text))
    return n
  },
})

/**
 * The readers' limits, each a flag (in `helpGroup` when given). With `dependsOn` the flags
 * show no default (oclif would count a default as given); the readers' own apply.
 */
export function readerLimitFlags(helpGroup?: string, dependsOn?: string[]) {
  const g = {...(helpGroup === undefined ? {} : {helpGroup}), ...(dependsOn ? {dependsOn} : {})}
  const d = (value: number) => (dependsOn ? {} : {default: value})
  return {
    'max-triangles': positiveFlag({
      ...g,
      description: 'Most triangles a mesh may have (3MF after components, STEP/IGES after tessellation).',
      ...d(DEFAULT_LIMITS.maxTriangles),
    }),
    'max-ratio': positiveFlag({
      ...g,
      description: 'Most a 3MF model part may inflate, times its compressed size.',
      ...d(DEFAULT_LIMITS.maxRatio),
    }),
    'max-entities': positiveFlag({
      ...g,
      description: 'Most entities a DXF file may hold (blocks expanded).',
      ...d(DEFAULT_LIMITS.maxEntities),
    }),
    'max-brep-bytes': positiveFlag({
      ...g,
      description: 'Largest STEP or IGES file read, bytes.',
      ...d(DEFAULT_LIMITS.maxBrepBytes),
    }),
    'max-seconds': positiveFlag({
      ...g,
      description: 'Most seconds the reader process may take on one STEP, IGES (OpenCascade) or DXF (dxf-parser) file.',
      ...d(DEFAULT_LIMITS.maxSeconds),
    }),
    'max-reader-mb': positiveFlag({
      ...g,
      description:
        'Most memory (MiB, resident; watched on Linux) the STEP, IGES or DXF reader process may use on one file.',
      ...d(DEFAULT_LIMITS.maxReaderMb),
    }),
  }
}

/** The reader-limit flags, parsed. */
export interface ReaderLimitFlags {
  'max-triangles'?: number
  'max-ratio'?: number
  'max-entities'?: number
  'max-brep-bytes'?: number
  'max-seconds'?: number
  'max-reader-mb'?: number
}

/** The readers' limits the flags give. */
export function limitsOf(flags: ReaderLimitFlags): ReadLimits {
  const limits: ReadLimits = {}
  if (flags['max-triangles'] !== undefined) limits.maxTriangles = flags['max-triangles']
  if (flags['max-ratio'] !== undefined) limits.maxRatio = flags['max-ratio']
  if (flags['max-entities'] !== undefined) limits.maxEntities = flags['max-entities']
  if (flags['max-brep-bytes'] !== undefined) limits.maxBrepBytes = flags['max-brep-bytes']
  if (flags['max-seconds'] !== undefined) limits.maxSeconds = flags['max-seconds']
  if (flags['max-reader-mb'] !== undefined) limits.maxReaderMb = flags['max-reader-mb']
  return limits
}

/** The reader-limit flags given away from the readers' defaults, as [--flag, value], for a command line. */
export function changedLimitFlags(flags: ReaderLimitFlags): [string, number][] {
  return (Object.entries(limitsOf(flags)) as [keyof ReadLimits, number][])
    .filter(([key, value]) => value !== DEFAULT_LIMITS[key])
    .map(([key, value]) => [`--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, value])
}
