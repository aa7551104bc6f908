import {iteratePosts, listPosts, type ListPostsQuery} from '../../api/v2/posts.js'
import {POSTS_PAGE_SIZE_MAX} from '../../schemas/posts.js'
import type {ServiceContext} from '../context.js'
import {InputError} from '../errors.js'
import type {PostRecord, PostsPage} from '../../schemas/read/types.js'

export type ListPostsInput = ListPostsQuery

function check(input: ListPostsInput): void {
  if (input.pageSize !== undefined && (input.pageSize < 1 || input.pageSize > POSTS_PAGE_SIZE_MAX)) {
    throw new InputError(`--page-size must be from 1 to ${POSTS_PAGE_SIZE_MAX}, got ${input.pageSize}.`)
  }
  if (input.currentPage !== undefined && input.currentPage < 1) {
    throw new InputError(`--page must be at least 1, got ${input.currentPage}.`)
  }
}

/** One page of the business's products with the list's paging fields. */
export function listPostPage(ctx: ServiceContext, input: ListPostsInput): Promise<PostsPage> {
  check(input)
  return listPosts(ctx.client, ctx.businessId, input)
}

/** Every product matching the filters, page after page (the largest pages unless a size is given). */
export function streamPosts(ctx: ServiceContext, input: ListPostsInput): AsyncIterable<PostRecord> {
  check(input)
  return iteratePosts(ctx.client, ctx.businessId, {...input, pageSize: input.pageSize ?? POSTS_PAGE_SIZE_MAX})
}
