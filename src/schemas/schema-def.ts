import type * as z from 'zod'

/**
 * A zod schema's public definition (`schema.def`), as the walks over a schema
 * read it: the quick check (services/validate.ts), the tree of field names
 * (unknown-fields.ts) and the CSV header's paths (cli/csv.ts). Only the fields
 * they read are named here.
 */
export interface Def {
  type: string
  checks?: z.core.$ZodCheck<unknown>[]
  coerce?: boolean
  innerType?: z.ZodType
  /** A pipe's input side (`z.string().transform(...).pipe(...)`). */
  in?: z.ZodType
  element?: z.ZodType
  options?: z.ZodType[]
  shape?: Record<string, z.ZodType>
  catchall?: z.ZodType
  keyType?: z.ZodType
  valueType?: z.ZodType
  entries?: Record<string, unknown>
  values?: unknown[]
  inclusive?: boolean
}

export const defOf = (node: z.ZodType): Def => node.def as unknown as Def

/**
 * What an object does with a field it does not name: drop it (zod's default),
 * keep it (loose), refuse it (strict); undefined when the catchall is a schema
 * of its own, which takes any name whose value it accepts.
 */
export function catchallMode(catchall: z.ZodType | undefined): 'strip' | 'loose' | 'strict' | undefined {
  if (!catchall) return 'strip'
  const def = defOf(catchall)
  if ((def.checks?.length ?? 0) > 0) return undefined
  if (def.type === 'unknown' || def.type === 'any') return 'loose'
  if (def.type === 'never') return 'strict'
  return undefined
}
