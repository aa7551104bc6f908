import * as z from 'zod'

import {Currency, HttpUrl, SERVICES, Service} from './common.js'

/** Legacy products/posts: wire shapes shared by the client and the sandbox (interface, Products/posts). */

export const POST_TYPES = ['POST', 'STORY', 'PRODUCT'] as const
export const PostType = z.enum(POST_TYPES)
export const POST_CATEGORIES = [
  ...SERVICES,
  'Electronics',
  'Architecture',
  'Mechanics',
  'Automotive',
  'others',
] as const
export const PostCategory = z.enum(POST_CATEGORIES)
export const POST_SORTS = ['createdAtInc', 'createdAtDec', 'viewsDec', 'likesDec'] as const
export const PostSort = z.enum(POST_SORTS)
export type PostSort = z.infer<typeof PostSort>

/** Get posts `pageSize` (contract, Limits). */
export const POSTS_PAGE_SIZE_DEFAULT = 5
export const POSTS_PAGE_SIZE_MAX = 50
/** One uploaded file (contract, Limits). */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024
/** Models one add-model request may carry. */
export const MAX_MODELS_PER_REQUEST = 20

const text = z.string().trim().min(1, 'must not be empty')
const amount = z.number().finite().min(0)
/** A price as a number or a numeric string; stored as a string with 2 decimals (priceMachine). */
const priceString = z
  .union([amount, z.string().regex(/^\s*\d+(\.\d+)?\s*$/, 'must be a non-negative number or numeric string')])
  .transform((v) => Number(v).toFixed(2))

/** On create priceMachine is required and the two fees default to 0. */
export const PostPrice = z.strictObject({
  priceMachine: priceString,
  priceConception: amount.default(0),
  priceExtra: amount.default(0),
})
export const PostPricePatch = z.strictObject({
  priceMachine: priceString.optional(),
  priceConception: amount.optional(),
  priceExtra: amount.optional(),
})

export const PostMaterial = z.strictObject({
  title: text,
  type: z.string().trim(),
  price: amount,
  currency: z
    .string()
    .transform((s) => s.toUpperCase())
    .pipe(Currency),
})

export const ModelFile = z.strictObject({originalname: text, url: HttpUrl})
export const PostModel = z.strictObject({
  price: amount,
  free: z.boolean(),
  originalname: text,
  files: z.array(ModelFile).min(1).max(50),
})
export type PostModel = z.infer<typeof PostModel>

export const GalleryItem = z.object({type: text, url: HttpUrl, _id: z.string().optional()})

const tag = z.string().trim().min(1, 'must not be empty').max(50)
const format = z
  .string()
  .trim()
  .transform((s) => s.replace(/^\./, '').toLowerCase())
  .pipe(z.string().regex(/^[a-z0-9]{1,10}$/, 'must be a file extension such as stl'))

/** Fields a client may set on create or update (besides type). */
const editable = {
  service: Service,
  price: PostPrice,
  materials: z.array(PostMaterial).min(1, 'must have at least 1 item').max(50),
  title: z.string().trim().max(200),
  description: z.string().max(5000),
  category: PostCategory,
  tags: z.array(tag).max(30),
  formats: z.array(format).max(20),
  free: z.boolean(),
  models: z.array(PostModel).max(50),
  gallery: z.array(GalleryItem).max(50),
}

/** POST /ms-post/post/{userId}: price, materials, service required; type PRODUCT (the default). */
export const CreatePostBody = z.strictObject({
  ...editable,
  type: z.literal('PRODUCT', 'a product is created with type "PRODUCT"').optional(),
  title: editable.title.optional(),
  description: editable.description.optional(),
  category: editable.category.optional(),
  tags: editable.tags.optional(),
  formats: editable.formats.optional(),
  free: editable.free.optional(),
  models: editable.models.optional(),
  gallery: editable.gallery.optional(),
})
export type CreatePostBody = z.infer<typeof CreatePostBody>

/** PUT /ms-post/post/upload?postId=: any editable field; price merges key by key. */
export const UpdatePostBody = z.strictObject({
  ...editable,
  price: PostPricePatch,
})
export type UpdatePostBody = Partial<z.infer<typeof UpdatePostBody>>

/** Fields of a post a client never sets; an update may send them back unchanged. */
export const READ_ONLY_POST_FIELDS = ['_id', 'user', 'type', 'views', 'likes', 'createdAt', 'updatedAt'] as const

/** POST /ms-post/post/upload?postId= with JSON `objects3D`: one model, or an array of them. */
export const AddModelBody = z.strictObject({
  objects3D: z.union([PostModel, z.array(PostModel).min(1).max(MAX_MODELS_PER_REQUEST)]),
})

/**
 * A post as the sandbox answers it (strict). The CLI reads answers with
 * read/posts.ts; read/types.ts names the read shapes.
 */
export const PostRecord = z.looseObject({
  _id: z.string(),
  user: z.string(),
  type: PostType,
  service: Service,
  title: z.string().optional(),
  category: z.string().optional(),
  tags: z.array(z.string()).optional(),
  formats: z.array(z.string()).optional(),
  free: z.boolean().optional(),
  views: z.number().optional(),
  likes: z.number().optional(),
  price: z.looseObject({priceMachine: z.string(), priceConception: z.number(), priceExtra: z.number()}),
  materials: z.array(z.looseObject({title: z.string(), type: z.string(), price: z.number(), currency: z.string()})),
  models: z.array(
    z.looseObject({
      price: z.number(),
      free: z.boolean(),
      originalname: z.string(),
      files: z.array(z.looseObject({originalname: z.string(), url: z.string()})),
    }),
  ),
  gallery: z.array(z.looseObject({type: z.string(), url: z.string()})).optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
})

/** Get posts answer (contract, Products). */
export const PostsPage = z.looseObject({
  posts: z.array(PostRecord),
  currentPage: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
})

/** Upload answer item. */
export const UploadedFile = z.looseObject({url: z.string(), originalName: z.string()})
export const UploadAnswer = z.array(UploadedFile)

/** Add-model answer. */
export const AddModelAnswer = z.looseObject({
  _id: z.string(),
  models: PostRecord.shape.models,
  createdAt: z.string(),
  updatedAt: z.string(),
})

/** File access grant (v1 access/file answers one, legacy access-storage an array of them). */
export const FileGrant = z.looseObject({url: z.string(), token: z.string()})
export const FileGrants = z.array(FileGrant)
