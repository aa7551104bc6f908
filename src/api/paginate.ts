import type {ApiClient} from './http.js'
import type {Query} from './types.js'
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
  /** The most pages to follow before failing (default MAX_PAGES). */
  maxPages?: number
  /** How the caller's user narrows the list, for the error at the cap (default `filters or --limit`); null for no advice. */
  narrow?: string | null
  signal?: AbortSignal
  /**
   * Awaited before each page after the first: the caller writes out what it
   * holds, so that a reader that has gone (aborting `signal`) is known before
   * another page is asked for.
   */
  beforePage?: () => Promise<void>
  /** Told each page's answer (status and headers) before its items are handed out: `mfg api --paginate --include`. */
  onPage?: (res: {status: number; headers: Record<string, string | string[] | undefined>}) => void
}

/**
 * Yields the items of a v1 list (`{data, page, pageSize, total, totalPages}`)
 * one by one, fetching one 1-based page at a time, so memory stays flat however
 * long the list. Stops after `totalPages`, at an empty or short page, at a page
 * that repeats the one before, or at `limit` items.
 * A `page` in `query` is the first page fetched.
 */
export async function* paginateV1<T>(
  client: ApiClient,
  path: string,
  query: Query = {},
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
      // Pages come by the hundred in a long listing: the lighter transport (RequestOptions.bulk).
      bulk: true,
      ...(opts.signal ? {signal: opts.signal} : {}),
    })
    const body = parse(res.body, path)
    if (repeatsPage(body, previous)) return
    opts.onPage?.(res)
    for (const item of body.data) {
      yield item
      if (++yielded >= limit) return
    }
    if (lastPage(body, page, opts.pageSize)) return
    previous = body.data[0]
    page++
    checkPageCap(page - (Number(firstPage ?? 1) || 1), path, opts.maxPages, opts.narrow)
    await opts.beforePage?.()
    if (opts.signal?.aborted) return
  }
}

/** The most pages one listing follows, whatever the service says: a service that never ends a list cannot hang the CLI. */
export const MAX_PAGES = 10_000

/** Throws once `pagesFetched` reaches `max`, with how to narrow the list (`narrow`, PaginateOptions). */
export function checkPageCap(
  pagesFetched: number,
  path: string,
  max = MAX_PAGES,
  narrow: string | null = 'filters or --limit',
): void {
  if (pagesFetched < max) return
  throw new ApiError({
    method: 'GET',
    path,
    code: 'too_many_pages',
    serverMessage: `stopped after ${max} pages: the service kept answering full pages${narrow === null ? '' : `; narrow the list with ${narrow}`}`,
  })
}

interface PageShape {
  data: readonly unknown[]
  totalPages?: number | undefined
  pageSize?: number | undefined
}

/**
 * Whether no page follows `body`: it is empty, its `totalPages` says so, or it is
 * shorter than the page size. Only the last page of a list is short, so a short
 * page ends the list even when `totalPages` (which a service may get wrong) says
 * more follow.
 */
export function lastPage(body: PageShape, page: number, askedSize: number | undefined): boolean {
  if (body.data.length === 0) return true
  if (body.totalPages !== undefined && page >= body.totalPages) return true
  const size = askedSize ?? body.pageSize
  return size !== undefined && body.data.length < size
}

/**
 * Whether a page begins with the item the page before began with: a service
 * that ignores the page number answers the same page again, and following it
 * (or a `totalPages` it gets wrong) would list the same items over and over.
 */
export function repeatsPage(body: PageShape, previousFirst: unknown): boolean {
  if (previousFirst === undefined || body.data.length === 0) return false
  return JSON.stringify(body.data[0]) === JSON.stringify(previousFirst)
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
