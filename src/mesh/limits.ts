import {MeshError} from './errors.js'
import type {ReadLimits} from './types.js'

/**
 * The defaults of ReadLimits: far above any part a shop is asked to quote (a binary STL
 * of 5 million triangles is 250 MB), low enough that a file of 10 MB or less is read in
 * well under 500 MB of memory. docs/mesh.md ("Hostile files") explains each figure.
 */
export const DEFAULT_LIMITS: Required<ReadLimits> = {
  maxTriangles: 5_000_000,
  maxRatio: 25,
  maxBrepBytes: 64 * 1024 * 1024,
  maxEntities: 100_000,
  // The reader's own time, so that the whole command stays under 5 s with its start-up.
  maxSeconds: 4,
  maxReaderMb: 320,
}

/** The caller's limits over the defaults; each must be a positive number. */
export function resolveLimits(limits: ReadLimits | undefined): Required<ReadLimits> {
  const out = {...DEFAULT_LIMITS}
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof ReadLimits)[]) {
    const v = limits?.[key]
    if (v === undefined) continue
    if (!(typeof v === 'number' && v > 0))
      throw new MeshError(`limit ${key} must be a number above 0, got ${String(v)}`)
    out[key] = v
  }
  return out
}

/** How a refusal over a limit ends: the flag that raises it. */
export const limitAdvice = (flag: string): string => `; if the file is trusted, raise the limit with ${flag}`

/** The refusal of a file over a limit: names the limit and the flag that raises it. */
export function overLimit(what: string, flag: string): MeshError {
  return new MeshError(`${what}${limitAdvice(flag)}`, {flag})
}
