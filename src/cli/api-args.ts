// `mfg api`'s two forms: METHOD PATH, and PATH alone as gh api takes it.
import {METHODS} from '../services/api/raw.js'
import {UsageError} from './errors.js'

/**
 * The method and path from `mfg api METHOD PATH` or, as gh api takes them, `mfg api PATH`
 * with -X/--method, else GET, or POST when fields or --input give a body (not with
 * --paginate, which follows GET lists).
 */
export function methodAndPath(
  args: {method: string; path?: string | undefined},
  flag: string | undefined,
  raw: readonly {type: string; flag?: string}[],
): {method: (typeof METHODS)[number]; path: string} {
  const named = (m: string) => (METHODS as readonly string[]).includes(m.toUpperCase())
  if (args.path === undefined) {
    if (named(args.method))
      throw new UsageError(`Missing PATH: mfg api ${args.method.toUpperCase()} /api/... (see mfg api --help).`)
    // --paginate follows GET lists: its fields are the query.
    const body =
      !raw.some((t) => t.type === 'flag' && t.flag === 'paginate') &&
      raw.some((t) => t.type === 'flag' && ['field', 'raw-field', 'input'].includes(t.flag ?? ''))
    return {method: (flag?.toUpperCase() ?? (body ? 'POST' : 'GET')) as (typeof METHODS)[number], path: args.method}
  }
  if (!named(args.method))
    throw new UsageError(`METHOD must be one of ${METHODS.join(', ')}; got ${JSON.stringify(args.method)}.`)
  if (flag !== undefined && flag.toUpperCase() !== args.method.toUpperCase())
    throw new UsageError(`-X/--method ${flag} and METHOD ${args.method} disagree: give one of them.`)
  return {method: args.method.toUpperCase() as (typeof METHODS)[number], path: args.path}
}
