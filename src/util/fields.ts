// Object literals whose absent fields must stay absent (request bodies, --json
// results, key-value tables), written as one literal instead of a conditional
// spread per field. A leaf: anything may import it, it imports nothing.

/** `fields` without the keys whose value is undefined. */
export function defined<T extends object>(fields: T): T {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value
  return out as T
}

/**
 * `fields` without the keys whose value is undefined or the empty string: for
 * flags, where `--color ""` counts as not given.
 */
export function given<T extends object>(fields: T): T {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(fields)) if (value !== undefined && value !== '') out[key] = value
  return out as T
}
