import type {ApiClient} from './http.js'
import {ApiError} from './errors.js'

/** One v1 list page as far as paging needs it. */
export interface V1Page<T> {
  data: T[]
  page: number
  pageSize: number
  total: number
  totalPages: number
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
    if (body.data.length === 0 || page >= body.totalPages) return
    page++
  }
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
