import {AddModelBody, CreatePostBody, UpdatePostBody, type PostSort} from '../../schemas/posts.js'
import {AddModelAnswerRead, PostRecordRead, PostsPageRead, UploadAnswerRead} from '../../schemas/read/posts.js'
import type * as z from 'zod'

import type {ApiClient} from '../http.js'
import type {MultipartBody} from '../multipart.js'
import {checkPageCap, lastPage, repeatsPage} from '../paginate.js'
import {checkRequest, parseResponse, segment} from '../parse.js'
import {readWritten, type Written} from '../written.js'
import type {PostRecord, PostsPage} from '../../schemas/read/types.js'

const BASE = '/api/v2/ms-post/post'
const UPLOAD = `${BASE}/upload`

export interface ListPostsQuery {
  currentPage?: number
  pageSize?: number
  category?: string
  service?: string
  type?: string
  free?: boolean
  /** Sent comma-separated; a post matches any of them. */
  tags?: string[]
  formats?: string[]
  sortBy?: PostSort
}

function listPath(businessId: string): string {
  return `${BASE}/user-posts/${segment(businessId, 'businessId', 'GET', `${BASE}/user-posts/{userId}`)}`
}

/** GET /api/v2/ms-post/post/user-posts/{userId}: one page `{posts, currentPage, pageSize, total, totalPages}`. */
export async function listPosts(
  client: ApiClient,
  businessId: string,
  q: ListPostsQuery = {},
  opts: {signal?: AbortSignal} = {},
): Promise<PostsPage> {
  const path = listPath(businessId)
  const res = await client.request({
    method: 'GET',
    path,
    query: {
      currentPage: q.currentPage,
      pageSize: q.pageSize,
      category: q.category,
      service: q.service,
      type: q.type,
      free: q.free,
      tags: q.tags?.length ? q.tags.join(',') : undefined,
      formats: q.formats?.length ? q.formats.join(',') : undefined,
      sortBy: q.sortBy,
    },
    ...(opts.signal ? {signal: opts.signal} : {}),
  })
  return parseResponse(PostsPageRead, res.body, 'GET', path, res.status, client)
}

/** Every post of the list, page after page from `q.currentPage` (default 1), until `totalPages`. */
export async function* iteratePosts(
  client: ApiClient,
  businessId: string,
  q: ListPostsQuery = {},
  opts: {signal?: AbortSignal} = {},
): AsyncGenerator<PostRecord, void, undefined> {
  let page = q.currentPage ?? 1
  let previous: unknown
  for (;;) {
    const answer = await listPosts(client, businessId, {...q, currentPage: page}, opts)
    const shape = {data: answer.posts, totalPages: answer.totalPages, pageSize: answer.pageSize}
    if (repeatsPage(shape, previous)) return
    yield* answer.posts
    if (lastPage(shape, page, q.pageSize)) return
    previous = answer.posts[0]
    page++
    checkPageCap(page - (q.currentPage ?? 1), listPath(businessId))
  }
}

/** POST /api/v2/ms-post/post/{userId}: creates a product; the body is checked first. Answers the product, or not (readWritten). */
export async function createPost(client: ApiClient, businessId: string, body: unknown): Promise<Written<PostRecord>> {
  const path = `${BASE}/${segment(businessId, 'businessId', 'POST', `${BASE}/{userId}`)}`
  await checkRequest(CreatePostBody, body, 'POST', path, 'the product')
  const res = await client.request({method: 'POST', path, body})
  return readWritten(PostRecordRead, res, 'POST', path, client)
}

export interface UploadOptions {
  onProgress?: (progress: {transferred: number; total?: number}) => void
  signal?: AbortSignal
}

/** POST /api/v2/ms-post/post/upload with multipart `files` parts: answers `[{url, originalName}]`. */
export async function uploadFiles(
  client: ApiClient,
  body: MultipartBody,
  opts: UploadOptions = {},
): Promise<z.infer<typeof UploadAnswerRead>> {
  const res = await client.request({
    method: 'POST',
    path: UPLOAD,
    body,
    ...(opts.onProgress ? {onUploadProgress: opts.onProgress} : {}),
    ...(opts.signal ? {signal: opts.signal} : {}),
  })
  return parseResponse(UploadAnswerRead, res.body, 'POST', UPLOAD, res.status, client)
}

function postQuery(postId: string, method: string): {postId: string} {
  segment(postId, 'postId', method, `${UPLOAD}?postId=`)
  return {postId}
}

/** POST /api/v2/ms-post/post/upload?postId= with `{objects3D}`: adds models to a product. */
export async function addModels(
  client: ApiClient,
  postId: string,
  objects3D: unknown,
): Promise<z.infer<typeof AddModelAnswerRead>> {
  const query = postQuery(postId, 'POST')
  const body = {objects3D}
  await checkRequest(AddModelBody, body, 'POST', `${UPLOAD}?${new URLSearchParams(query)}`, 'the add-model body')
  const res = await client.request({method: 'POST', path: UPLOAD, query, body})
  return parseResponse(AddModelAnswerRead, res.body, 'POST', UPLOAD, res.status, client)
}

/** PUT /api/v2/ms-post/post/upload?postId=: changes fields of a product; answers it, or not (readWritten). */
export async function updatePost(
  client: ApiClient,
  postId: string,
  body: Record<string, unknown>,
): Promise<Written<PostRecord>> {
  const query = postQuery(postId, 'PUT')
  await checkRequest(UpdatePostBody.partial(), body, 'PUT', UPLOAD, 'the update body')
  const res = await client.request({method: 'PUT', path: UPLOAD, query, body})
  return readWritten(PostRecordRead, res, 'PUT', UPLOAD, client)
}

/** DELETE /api/v2/ms-post/post/upload?postId=: answers the product as it was. */
export async function deletePost(client: ApiClient, postId: string): Promise<PostRecord> {
  const query = postQuery(postId, 'DELETE')
  const res = await client.request({method: 'DELETE', path: UPLOAD, query})
  return parseResponse(PostRecordRead, res.body, 'DELETE', UPLOAD, res.status, client)
}
