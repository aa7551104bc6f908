import multipart from '@fastify/multipart'
import type {FastifyInstance, FastifyRequest} from 'fastify'
import * as z from 'zod'

import {issuesToDetails, type ErrorDetail} from '../../schemas/common.js'
import {
  AddModelBody,
  CreatePostBody,
  MAX_UPLOAD_BYTES,
  POST_CATEGORIES,
  POST_SORTS,
  POST_TYPES,
  POSTS_PAGE_SIZE_DEFAULT,
  POSTS_PAGE_SIZE_MAX,
  READ_ONLY_POST_FIELDS,
  UpdatePostBody,
} from '../../schemas/posts.js'
import {SERVICES} from '../../schemas/common.js'
import {businessOf, ownBusiness, v2Auth} from '../auth.js'
import {ApiError, badRequest, notFound} from '../errors.js'
import {discardBlobs, storageUrl, streamToDisk} from '../files.js'
import {newId} from '../ids.js'
import {differs, isPlainObject} from '../records.js'
import type {Business} from '../store/businesses.js'
import type {Product} from '../store/catalog.js'
import type {StoredFile} from '../store/files.js'
import type {PostFilter, StoredPost} from '../store/posts.js'
import type {SandboxContext} from '../context.js'

/** Legacy products/posts (prefix /api/v2): list, create, upload, add model, update, delete. */

const MAX_FILES_PER_UPLOAD = 20
const quoteAll = (values: readonly string[]) => values.map((v) => JSON.stringify(v)).join(', ')

function ddmmyyyy(epoch: number): string {
  const iso = new Date(epoch).toISOString()
  return `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`
}

// ---------------------------------------------------------------- list

interface PostQuery extends PostFilter {
  currentPage: number
  pageSize: number
  sortBy: (typeof POST_SORTS)[number]
}

/** An enum query value in any letter case, answered in the interface's spelling. */
function enumValue(name: string, raw: unknown, allowed: readonly string[], details: ErrorDetail[]): string | undefined {
  if (raw === undefined) return undefined
  const value = typeof raw === 'string' ? allowed.find((a) => a.toLowerCase() === raw.trim().toLowerCase()) : undefined
  if (value === undefined) details.push({path: name, message: `must be one of ${quoteAll(allowed)}`})
  return value
}

function wholeNumber(name: string, raw: unknown, min: number, max: number, details: ErrorDetail[]): number | undefined {
  if (raw === undefined) return undefined
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    details.push({path: name, message: `must be a whole number from ${min} to ${max}`})
    return undefined
  }
  return Number(raw)
}

/** A list parameter: comma-separated and/or repeated (`tags=a,b` or `tags=a&tags=b`). */
function listValue(raw: unknown): string[] | undefined {
  if (raw === undefined) return undefined
  const values = (Array.isArray(raw) ? raw : [raw])
    .flatMap((v) => String(v).split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '')
  return values.length > 0 ? values : undefined
}

function parsePostQuery(query: Record<string, unknown>): PostQuery {
  const details: ErrorDetail[] = []
  const single = (name: string): unknown => {
    const raw = query[name]
    if (Array.isArray(raw)) {
      details.push({path: name, message: 'must be given once'})
      return undefined
    }
    return raw
  }
  const currentPage = wholeNumber('currentPage', single('currentPage'), 1, 1_000_000, details)
  const pageSize = wholeNumber('pageSize', single('pageSize'), 1, POSTS_PAGE_SIZE_MAX, details)
  const category = enumValue('category', single('category'), POST_CATEGORIES, details)
  const service = enumValue('service', single('service'), SERVICES, details)
  const type = enumValue('type', single('type'), POST_TYPES, details)
  const sortBy = enumValue('sortBy', single('sortBy'), POST_SORTS, details) as PostQuery['sortBy'] | undefined
  const freeRaw = single('free')
  const free = enumValue('free', freeRaw, ['true', 'false'], details)
  const formats = listValue(query.formats)?.map((f) => f.replace(/^\./, '').toLowerCase())
  if (details.length > 0) {
    throw badRequest(`Invalid get-posts request: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}.`, details)
  }
  return {
    currentPage: currentPage ?? 1,
    pageSize: pageSize ?? POSTS_PAGE_SIZE_DEFAULT,
    category,
    free: free === undefined ? undefined : free === 'true',
    service,
    type,
    tags: listValue(query.tags)?.map((t) => t.toLowerCase()),
    formats,
    sortBy: sortBy ?? 'createdAtDec',
  }
}

// ---------------------------------------------------------------- create, update

function invalid(what: string, error: z.ZodError, extra: ErrorDetail[] = []): ApiError {
  const details = [...extra, ...issuesToDetails(error)]
  return badRequest(`${what} (${details.map((d) => `${d.path || 'body'} ${d.message}`).join('; ')}).`, details)
}

/** A product's formats: the extensions of its models' files (a model's own name is a title, not a file). */
function formatsOf(models: Product['models']): string[] {
  const extensions = models.flatMap((m) => m.files.map((f) => /\.([a-z0-9]{1,10})$/i.exec(f.originalname)?.[1]))
  return [...new Set(extensions.filter((ext) => ext !== undefined).map((ext) => ext.toLowerCase()))]
}

function createPost(business: Business, body: CreatePostBody, now: number): Product {
  const models = body.models ?? []
  const stamp = ddmmyyyy(now)
  return {
    _id: newId(now),
    user: business.id,
    type: 'PRODUCT',
    service: body.service,
    title: body.title ?? '',
    description: body.description ?? '',
    category: body.category ?? body.service,
    tags: body.tags ?? [],
    formats: body.formats ?? formatsOf(models),
    free: body.free ?? false,
    views: 0,
    likes: 0,
    price: body.price,
    materials: body.materials,
    models,
    gallery: (body.gallery ?? []).map((g) => ({type: g.type, url: g.url, _id: g._id ?? newId(now)})),
    createdAt: stamp,
    updatedAt: stamp,
  }
}

/**
 * The update rules (docs/sandbox.md, "Products"): known fields only; read-only
 * fields (type, _id, user, views, likes, dates) may be sent back unchanged but not
 * changed, so a product stays a PRODUCT; every field is typed as on create
 * (service one of three, price fields typed, materials non-empty...); price merges
 * key by key; the rest replaces.
 */
function updatePost(stored: Product, raw: unknown, now: number): Product {
  if (!isPlainObject(raw)) {
    throw badRequest('The update body must be a JSON object with the fields to change.', [
      {path: '', message: 'must be an object'},
    ])
  }
  const body: Record<string, unknown> = {...raw}
  const readOnly: ErrorDetail[] = []
  for (const field of READ_ONLY_POST_FIELDS) {
    if (!(field in body)) continue
    const current = (stored as unknown as Record<string, unknown>)[field]
    if (field === 'type' && body.type !== 'PRODUCT') {
      readOnly.push({path: 'type', message: 'a product\'s type cannot change from "PRODUCT"'})
    } else if (field !== 'type' && differs(body[field], current)) {
      readOnly.push({path: field, message: 'is read-only; send it unchanged or leave it out'})
    }
    delete body[field]
  }
  const parsed = UpdatePostBody.partial().safeParse(body, {reportInput: true})
  if (!parsed.success || readOnly.length > 0) {
    const details = [...readOnly, ...(parsed.success ? [] : issuesToDetails(parsed.error))].map((d) =>
      d.path === '' && d.message.startsWith('unknown field')
        ? {...d, message: `${d.message}: not fields of a post`}
        : d,
    )
    throw badRequest(
      `The post update breaks the update rules (${details.map((d) => `${d.path || 'body'} ${d.message}`).join('; ')}).`,
      details,
    )
  }
  const patch = parsed.data
  if (Object.values(patch).every((v) => v === undefined)) {
    throw badRequest(
      'The update changes nothing: send any of service, price, materials, title, description, category, tags, formats, free, models, gallery.',
    )
  }
  const next: Product = {...stored}
  if (patch.service !== undefined) next.service = patch.service
  if (patch.price !== undefined) {
    const price = {...stored.price}
    if (patch.price.priceMachine !== undefined) price.priceMachine = patch.price.priceMachine
    if (patch.price.priceConception !== undefined) price.priceConception = patch.price.priceConception
    if (patch.price.priceExtra !== undefined) price.priceExtra = patch.price.priceExtra
    next.price = price
  }
  if (patch.materials !== undefined) next.materials = patch.materials
  if (patch.title !== undefined) next.title = patch.title
  if (patch.description !== undefined) next.description = patch.description
  if (patch.category !== undefined) next.category = patch.category
  if (patch.tags !== undefined) next.tags = patch.tags
  if (patch.formats !== undefined) next.formats = patch.formats
  if (patch.free !== undefined) next.free = patch.free
  if (patch.models !== undefined) next.models = patch.models
  if (patch.gallery !== undefined)
    next.gallery = patch.gallery.map((g) => ({type: g.type, url: g.url, _id: g._id ?? newId(now)}))
  next.updatedAt = ddmmyyyy(now)
  return next
}

// ---------------------------------------------------------------- postId

/** The product a `?postId=` (or `?productId=`) names: 400 when missing, 404 when not the business's. */
function postOf(ctx: SandboxContext, business: Business, query: Record<string, unknown>): StoredPost {
  const postId = query.postId
  const productId = query.productId
  const ids = [postId, productId].filter((v) => v !== undefined)
  if (ids.length === 0 || ids.some((v) => typeof v !== 'string' || v.trim() === '')) {
    throw badRequest('Name the product with the postId query parameter (productId is accepted too).', [
      {path: 'postId', message: 'is required (string)'},
    ])
  }
  if (ids.length === 2 && postId !== productId) {
    throw badRequest('postId and productId name different products; send one of them.', [
      {path: 'productId', message: 'must equal postId when both are sent'},
    ])
  }
  const id = (ids[0] as string).trim()
  const stored = ctx.store.posts.byId(business.id, id)
  if (!stored) throw notFound(`Product ${id} not found.`)
  return stored
}

// ---------------------------------------------------------------- routes

export async function postRoutes(app: FastifyInstance, ctx: SandboxContext): Promise<void> {
  const {store} = ctx
  app.addHook('onRequest', v2Auth(store))
  await app.register(multipart, {
    limits: {fileSize: MAX_UPLOAD_BYTES, files: MAX_FILES_PER_UPLOAD, fields: 20, parts: MAX_FILES_PER_UPLOAD + 20},
  })

  app.get<{Params: {userId: string}}>('/ms-post/post/user-posts/:userId', async (request) => {
    const business = ownBusiness(request, request.params.userId)
    const query = parsePostQuery((request.query ?? {}) as Record<string, unknown>)
    const {posts, total} = store.posts.list(business.id, query, query.sortBy, {
      offset: (query.currentPage - 1) * query.pageSize,
      limit: query.pageSize,
    })
    return {
      posts: posts.map((p) => p.post),
      currentPage: query.currentPage,
      pageSize: query.pageSize,
      total,
      totalPages: Math.ceil(total / query.pageSize),
    }
  })

  app.post<{Params: {userId: string}}>('/ms-post/post/:userId', async (request, reply) => {
    const business = ownBusiness(request, request.params.userId)
    const parsed = CreatePostBody.safeParse(request.body ?? undefined, {reportInput: true})
    if (!parsed.success) throw invalid('The post is invalid', parsed.error)
    const now = ctx.clock()
    const post = createPost(business, parsed.data, now)
    store.posts.insert(post, now)
    return reply.code(201).send(post)
  })

  app.post<{Querystring: Record<string, unknown>}>('/ms-post/post/upload', async (request, reply) => {
    const business = businessOf(request)
    if (request.isMultipart()) return reply.code(201).send(await upload(ctx, business, request))
    const stored = postOf(ctx, business, request.query)
    const parsed = AddModelBody.safeParse(request.body ?? undefined, {reportInput: true})
    if (!parsed.success) {
      throw invalid(
        'Send files as multipart/form-data parts named files, or add a model with a JSON body {"objects3D": {price, free, originalname, files}}',
        parsed.error,
      )
    }
    const added = Array.isArray(parsed.data.objects3D) ? parsed.data.objects3D : [parsed.data.objects3D]
    const now = ctx.clock()
    const models = [...stored.post.models, ...added]
    const post: Product = {
      ...stored.post,
      models,
      formats: [...new Set([...stored.post.formats, ...formatsOf(added)])],
      updatedAt: ddmmyyyy(now),
    }
    store.posts.update(post, now)
    return reply
      .code(201)
      .send({_id: post._id, models: post.models, createdAt: post.createdAt, updatedAt: post.updatedAt})
  })

  app.put<{Querystring: Record<string, unknown>}>('/ms-post/post/upload', async (request) => {
    const business = businessOf(request)
    const stored = postOf(ctx, business, request.query)
    const now = ctx.clock()
    const post = updatePost(stored.post, request.body, now)
    store.posts.update(post, now)
    return post
  })

  app.delete<{Querystring: Record<string, unknown>}>('/ms-post/post/upload', async (request) => {
    const business = businessOf(request)
    const stored = postOf(ctx, business, request.query)
    store.posts.softDelete(business.id, stored.post._id, ctx.clock())
    return stored.post
  })
}

/**
 * Streams every `files` part to the file store; all or nothing: when one part is
 * refused (too large, wrong field), the files already written are removed.
 */
async function upload(
  ctx: SandboxContext,
  business: Business,
  request: FastifyRequest,
): Promise<{url: string; originalName: string}[]> {
  const now = ctx.clock()
  const written: StoredFile[] = []
  try {
    for await (const part of request.parts()) {
      if (part.type !== 'file') continue
      if (part.fieldname !== 'files') {
        part.file.resume()
        throw badRequest(
          `Upload files in parts named "files"; got a file part named ${JSON.stringify(part.fieldname)}.`,
        )
      }
      const originalName = part.filename || 'file'
      written.push(
        await streamToDisk(ctx.store, part.file, {businessId: business.id, originalName, id: newId(now)}, now),
      )
    }
  } catch (error) {
    discardBlobs(ctx.store, written)
    throw multipartError(error)
  }
  if (written.length === 0) {
    throw badRequest('The upload has no files: send one or more multipart parts named "files".', [
      {path: 'files', message: 'must have at least 1 item'},
    ])
  }
  ctx.store.transaction(() => {
    for (const file of written) ctx.store.files.insert(file)
  })
  return written.map((f) => ({url: storageUrl(f.key), originalName: f.originalName}))
}

function multipartError(error: unknown): unknown {
  if (error instanceof ApiError) return error
  const code = (error as {code?: string}).code
  switch (code) {
    case 'FST_FILES_LIMIT':
    case 'FST_PARTS_LIMIT':
      return badRequest(`One upload holds at most ${MAX_FILES_PER_UPLOAD} files.`)
    case 'FST_FIELDS_LIMIT':
      return badRequest('The upload has too many non-file fields.')
    case 'FST_REQ_FILE_TOO_LARGE':
      return new ApiError(413, `A file is larger than the limit of ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB per file.`)
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
    case 'FST_PROTO_VIOLATION':
      return badRequest('The multipart body is malformed.')
    default:
      break
  }
  if (error instanceof Error && /Unexpected end of (form|multipart)|Malformed|boundary/i.test(error.message)) {
    return badRequest(`The multipart body is malformed: ${error.message}.`)
  }
  return error
}
