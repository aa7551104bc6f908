import {UsageError} from './errors.js'
import {parseSort} from './flags.js'

/** How a list command honours `--sort`: by the service, or over the whole list by the CLI. */
export interface SortPlan<S extends string> {
  /** The service's own name for the order, when it sorts. */
  service?: S
  /** The field the CLI sorts by after fetching every page, when the service cannot. */
  client?: string
}

/**
 * Decides who sorts: the service when `serviceSorts` has the spec (`-createdAt`),
 * else the CLI over every page. A client-side sort of one `--page` would be a
 * partial sort: refused, naming --all.
 */
export function planSort<S extends string>(
  spec: string | undefined,
  serviceSorts: Readonly<Record<string, S>>,
  page: number | undefined,
  what: string,
): SortPlan<S> {
  const sort = parseSort(spec)
  if (!sort) return {}
  const key = `${sort.desc ? '-' : ''}${sort.field}`
  const service = Object.hasOwn(serviceSorts, key) ? serviceSorts[key] : undefined
  if (service !== undefined) return {service}
  if (page !== undefined) {
    throw new UsageError(
      `--sort ${spec} cannot be used with --page: the service sorts only by ${what}, so the CLI sorts the whole list itself. Leave out --page (every page is then fetched and sorted), or use --all.`,
    )
  }
  return {client: sort.field}
}

/** The notice when a client-side sort makes a command fetch every page. */
export const fetchAllNotice = (field: string, what: string): string =>
  `Sorting by ${field}: the service sorts only by ${what}, so every page is fetched first.`
