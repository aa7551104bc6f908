/**
 * Field selection for output without loading any schema: `--json FIELDS` taken
 * from the arguments, and records cut down to the fields asked for. Checking the
 * paths against a command's fields is field-paths.ts, loaded only when needed.
 */

/** A token that can only be a list of field paths: names, dots and digits, comma-separated. */
const FIELD_LIST = /^[A-Za-z_$][\w$]*(\.[\w$]+)*(,[A-Za-z_$][\w$]*(\.[\w$]+)*)*$/

/** Comma-separated paths, trimmed, empty ones left out. */
export function splitPaths(spec: string): string[] {
  return spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
}

/**
 * `--json FIELDS` and `--json=FIELDS` taken out of the arguments, leaving a bare
 * `--json` for oclif's own (boolean) flag. A separate word after `--json` is a
 * field list when it can only be one: it looks like a list of paths and either
 * the command takes no arguments or every path starts with one of `names`
 * (otherwise it is the command's argument, as in `demand get --json ID`).
 */
export function takeJsonFields(
  argv: readonly string[],
  names: readonly string[] | undefined,
  hasArgs: boolean,
): {argv: string[]; fields?: string[]} {
  const out: string[] = []
  let fields: string[] | undefined
  const end = argv.indexOf('--')
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (end !== -1 && i >= end) {
      out.push(arg)
      continue
    }
    if (arg.startsWith('--json=')) {
      fields = splitPaths(arg.slice('--json='.length))
      out.push('--json')
      continue
    }
    out.push(arg)
    const next = argv[i + 1]
    if (arg !== '--json' || next === undefined || !FIELD_LIST.test(next)) continue
    const paths = splitPaths(next)
    const known = names !== undefined && paths.every((p) => names.includes(p.split('.')[0] ?? p))
    if (!hasArgs || known) {
      fields = paths
      i++
    }
  }
  return fields === undefined ? {argv: out} : {argv: out, fields}
}

/** A field's value by dotted path; undefined when any step is missing. */
export function valueAt(obj: unknown, path: string): unknown {
  let cur: unknown = obj
  for (const part of path.split('.')) {
    if (cur === null || cur === undefined || typeof cur !== 'object') return undefined
    cur = (cur as Record<string, unknown>)[part]
  }
  return cur
}

/** A record cut down to `fields`, keyed by path (as `--ndjson --columns` prints them); missing ones null. */
export function pick(record: unknown, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const f of fields) out[f] = valueAt(record, f) ?? null
  return out
}

/** A command's result with `fields` picked: from each item of a list, or from the one record. */
export function select(result: unknown, fields: readonly string[] | undefined): unknown {
  if (!fields) return result
  return Array.isArray(result) ? result.map((r) => pick(r, fields)) : pick(result, fields)
}
