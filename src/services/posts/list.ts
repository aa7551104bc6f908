import {iteratePosts, listPosts, type ListPostsQuery} from '../../api/v2/posts.js'
import {POSTS_PAGE_SIZE_MAX, type PostSort} from '../../schemas/posts.js'
import type {ServiceContext} from '../context.js'
import {InputError} from '../errors.js'
import type {PostRecord, PostsPage} from '../../schemas/read/types.js'

export interface ListPostsInput extends ListPostsQuery {
  /** The most products to return (following pages). */
  limit?: number
  /** Stops the listing (and the request in flight) when aborted. */
  signal?: AbortSignal
}

/** The `--sort` specs the service sorts by itself (its sortBy), by field path. */
export const POST_SERVICE_SORTS: Readonly<Record<string, PostSort>> = {
  createdAt: 'createdAtInc',
  '-createdAt': 'createdAtDec',
  '-views': 'viewsDec',
  '-likes': 'likesDec',
}

function check(input: ListPostsInput): void {
  if (input.pageSize !== undefined && (input.pageSize < 1 || input.pageSize > POSTS_PAGE_SIZE_MAX)) {
    throw new InputError(`--page-size must be from 1 to ${POSTS_PAGE_SIZE_MAX}, got ${input.pageSize}.`)
  }
  if (input.limit !== undefined && input.limit < 1)
    throw new InputError(`--limit must be at least 1, got ${input.limit}.`)
  if (input.currentPage !== undefined && input.currentPage < 1) {
    throw new InputError(`--page must be at least 1, got ${input.currentPage}.`)
  }
}

/** One page of the business's products with the list's paging fields. */
export async function listPostPage(ctx: ServiceContext, input: ListPostsInput): Promise<PostsPage> {
  check(input)
  const {limit, signal, ...query} = input
  const size = query.pageSize ?? (limit !== undefined && limit <= POSTS_PAGE_SIZE_MAX ? limit : undefined)
  const page = await listPosts(
    ctx.client,
    ctx.businessId,
    {...query, ...(size === undefined ? {} : {pageSize: size})},
    signal ? {signal} : {},
  )
  return limit === undefined ? page : {...page, posts: page.posts.slice(0, limit)}
}

/** Every product matching the filters, page after page (the largest pages unless a size is given). */
export async function* streamPosts(ctx: ServiceContext, input: ListPostsInput): AsyncGenerator<PostRecord> {
  check(input)
  const {limit, signal, ...query} = input
  if (limit !== undefined && limit < 1) return
  let n = 0
  const pages = iteratePosts(
    ctx.client,
    ctx.businessId,
    {...query, pageSize: query.pageSize ?? POSTS_PAGE_SIZE_MAX},
    signal ? {signal} : {},
  )
  for await (const post of pages) {
    yield post
    if (limit !== undefined && ++n >= limit) return
  }
}
