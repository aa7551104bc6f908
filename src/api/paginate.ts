import type {ApiClient} from './http.js'
import {ApiError} from './errors.js'

/** One v1 list page as far as paging needs it; the tolerant reader leaves out paging fields it cannot use. */
export interface V1Page<T> {
  data: T[]
  page?: number
  pageSize?: number
  total?: number
  totalPages?: number
}

export interface PaginateOptions<T> {
  /** Items per request (the service caps it at 100). */
  pageSize?: number
  /** Stop after this many items. */
  limit?: number
  /** Checks one page's body; the default checks the v1 list shape only. */
  parsePage?: (body: unknown, path: string) => V1Page<T>
  signal?: AbortSignal
}

/**
 * Yields the items of a v1 list (`{data, page, pageSize, total, totalPages}`)
 * one by one, fetching one 1-based page at a time, so memory stays flat however
 * long the list. Stops after `totalPages`, at an empty page, or at `limit` items.
 * A `page` in `query` is the first page fetched.
 */
export async function* paginateV1<T>(
  client: ApiClient,
  path: string,
  query: Record<string, string | number | boolean | undefined> = {},
  opts: PaginateOptions<T> = {},
): AsyncGenerator<T, void, undefined> {
  const limit = opts.limit ?? Number.POSITIVE_INFINITY
  if (limit <= 0) return
  const parse = opts.parsePage ?? ((body: unknown) => checkPage<T>(body, path))
  const {page: firstPage, ...rest} = query
  let page = typeof firstPage === 'number' ? firstPage : Number(firstPage ?? 1) || 1
  let yielded = 0
  let previous: unknown
  for (;;) {
    const res = await client.request({
      method: 'GET',
      path,
      query: {...rest, page, ...(opts.pageSize === undefined ? {} : {pageSize: opts.pageSize})},
      ...(opts.signal ? {signal: opts.signal} : {}),
    })
    const body = parse(res.body, path)
    for (const item of body.data) {
      yield item
      if (++yielded >= limit) return
    }
    if (body.data.length === 0 || lastPage(body, page, opts.pageSize, previous)) return
    previous = body.data[0]
    page++
  }
}

/**
 * Whether no page follows `body`: its `totalPages` says so; or, when the service
 * sent none, the page is shorter than the page size, or begins with the same
 * item as the page before (a service that ignores the page number).
 */
export function lastPage(
  body: {data: readonly unknown[]; totalPages?: number | undefined; pageSize?: number | undefined},
  page: number,
  askedSize: number | undefined,
  previousFirst: unknown,
): boolean {
  if (body.totalPages !== undefined) return page >= body.totalPages
  const size = askedSize ?? body.pageSize
  if (size !== undefined && body.data.length < size) return true
  return previousFirst !== undefined && JSON.stringify(body.data[0]) === JSON.stringify(previousFirst)
}

function checkPage<T>(body: unknown, path: string): V1Page<T> {
  const b = body as Partial<V1Page<T>> | null
  const bad = (field: string, want: string): never => {
    throw new ApiError({
      method: 'GET',
      path,
      code: 'bad_response',
      serverMessage: `unexpected list response: ${field} must be ${want}`,
    })
  }
  if (typeof b !== 'object' || b === null) return bad('the body', 'an object')
  if (!Array.isArray(b.data)) bad('data', 'an array')
  for (const f of ['page', 'pageSize', 'total', 'totalPages'] as const) {
    if (typeof b[f] !== 'number') bad(f, 'a number')
  }
  return b as V1Page<T>
}
