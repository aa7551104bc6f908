import {Flags} from '@oclif/core'

import {SERVICES} from '../schemas/common.js'
import {POST_CATEGORIES, POST_TYPES} from '../schemas/posts.js'
import {InputError} from '../services/errors.js'
import {
  buildPostBody,
  modelFromFlags,
  modelsFromFile,
  parseMaterial,
  type PostFields,
  withoutReadOnly,
} from '../services/posts/write.js'
import {defined} from '../util/fields.js'
import {UsageError} from './errors.js'
import type {PostRecord} from '../schemas/read/types.js'
import {fileFlag, objectFromFile} from './flags.js'

/** `post list`'s filters: every filter of the service's list call. */
export function postFilterFlags() {
  return {
    category: Flags.string({description: 'Only this category.', options: [...POST_CATEGORIES]}),
    service: Flags.string({description: 'Only this service.', options: [...SERVICES]}),
    type: Flags.string({description: 'Only this post type (products are PRODUCT).', options: [...POST_TYPES]}),
    free: Flags.boolean({description: 'Only free products (--no-free: only paid ones).', allowNo: true}),
    tags: Flags.string({description: 'Comma-separated tags; a product matches any.'}),
    formats: Flags.string({description: 'Comma-separated file formats such as stl,step; a product matches any.'}),
  }
}

/** A comma-separated flag as its trimmed, non-empty items. */
export const splitList = (s: string | undefined) =>
  s
    ?.split(',')
    .map((x) => x.trim())
    .filter(Boolean)

/** Flags shared by `post create` and `post update` for the product's fields (service and category are per command). */
export function postFieldFlags() {
  return {
    'price-machine': Flags.string({description: 'Machine price (price.priceMachine), a number.', helpGroup: 'PRODUCT'}),
    'price-conception': Flags.string({
      description: 'Design fee (price.priceConception), a number.',
      helpGroup: 'PRODUCT',
    }),
    'price-extra': Flags.string({description: 'Raw material cost (price.priceExtra), a number.', helpGroup: 'PRODUCT'}),
    material: Flags.string({
      description:
        'A material as title:type:price:currency, for example PLA:plastic:25:EUR (repeatable; replaces the list).',
      multiple: true,
      helpGroup: 'PRODUCT',
    }),
    title: Flags.string({description: 'Title.', helpGroup: 'PRODUCT'}),
    description: Flags.string({description: 'Description.', helpGroup: 'PRODUCT'}),
    tags: Flags.string({description: 'Comma-separated tags (replaces the list).', helpGroup: 'PRODUCT'}),
    formats: Flags.string({description: 'Comma-separated file formats such as stl,step.', helpGroup: 'PRODUCT'}),
    free: Flags.boolean({description: 'Free product (--no-free: paid).', allowNo: true, helpGroup: 'PRODUCT'}),
  }
}

/**
 * The flags of `post create` and `post update`: --file (a JSON object of fields),
 * the product's fields, service, and category (whose default differs).
 */
export function postWriteFlags(fileDescription: string, categoryDescription: string) {
  return {
    file: fileFlag(fileDescription),
    ...postFieldFlags(),
    service: Flags.string({description: 'Service.', options: [...SERVICES]}),
    category: Flags.string({description: categoryDescription, options: [...POST_CATEGORIES]}),
  }
}

/**
 * The body `post create` and `post update` (`id`) send: --file's JSON object with
 * the flags' fields laid over it, without the fields the service sets; `leftOut`
 * says which the file held (withoutReadOnly), for the command to note.
 */
export async function postBodyFrom(
  flags: PostFieldFlagValues & {file?: string},
  id?: string,
): Promise<{body: Record<string, unknown>; note?: string}> {
  const fromFile = await objectFromFile(flags.file)
  const {body, leftOut} = withoutReadOnly(buildPostBody(fromFile, postFieldsFrom(flags)), id)
  return {body, ...(leftOut.length > 0 ? {note: `Left out the fields the service sets: ${leftOut.join(', ')}.`} : {})}
}

interface PostFieldFlagValues {
  service?: string
  category?: string
  'price-machine'?: string
  'price-conception'?: string
  'price-extra'?: string
  material?: string[]
  title?: string
  description?: string
  tags?: string
  formats?: string
  free?: boolean
}

function number(raw: string, flag: string): number {
  const n = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(n) || n < 0) {
    throw new InputError(`${flag} must be a non-negative number, got ${JSON.stringify(raw)}.`)
  }
  return n
}

const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)

/** The product fields the flags give. */
export function postFieldsFrom(flags: PostFieldFlagValues): PostFields {
  const out: PostFields = {}
  if (flags.service !== undefined) out.service = flags.service
  if (flags.category !== undefined) out.category = flags.category
  if (flags['price-machine'] !== undefined) out.priceMachine = String(number(flags['price-machine'], '--price-machine'))
  if (flags['price-conception'] !== undefined)
    out.priceConception = number(flags['price-conception'], '--price-conception')
  if (flags['price-extra'] !== undefined) out.priceExtra = number(flags['price-extra'], '--price-extra')
  if (flags.material?.length) out.materials = flags.material.map(parseMaterial)
  if (flags.title !== undefined) out.title = flags.title
  if (flags.description !== undefined) out.description = flags.description
  if (flags.tags !== undefined) out.tags = list(flags.tags)
  if (flags.formats !== undefined) out.formats = list(flags.formats)
  if (flags.free !== undefined) out.free = flags.free
  return out
}

/** A table row of `post list`: the materials and models lists as counts (none when absent). */
export function postRow(post: PostRecord): Record<string, unknown> {
  return {
    ...post,
    materials: Array.isArray(post.materials) ? post.materials.length : 0,
    models: Array.isArray(post.models) ? post.models.length : 0,
  }
}

/** `(3D_PRINTING, machine price 12.50)`, with what the answer gave; empty when it gave neither. */
export function postSummary(post: PostRecord): string {
  const parts = [
    ...(post.service ? [post.service] : []),
    ...(post.price?.priceMachine !== undefined ? [`machine price ${post.price.priceMachine}`] : []),
  ]
  return parts.length > 0 ? ` (${parts.join(', ')})` : ''
}

/**
 * The models `post add-model` sends: --file's JSON (one model, an array, or
 * {"objects3D": ...}), else one model described by the flags.
 */
export async function modelsFrom(flags: {
  file?: string | undefined
  name?: string | undefined
  price?: string | undefined
  free?: boolean | undefined
  'file-url'?: string[] | undefined
}): Promise<unknown> {
  if (flags.file !== undefined) {
    const {readTextInput} = await import('./input.js')
    const {text, source} = await readTextInput(flags.file)
    try {
      return modelsFromFile(JSON.parse(text) as unknown)
    } catch (error) {
      throw new UsageError(`${source}: invalid JSON (${(error as Error).message}).`)
    }
  }
  const price = flags.price === undefined ? undefined : Number(flags.price)
  if (price !== undefined && (!Number.isFinite(price) || price < 0 || flags.price!.trim() === '')) {
    throw new UsageError(`--price must be a non-negative number, got ${JSON.stringify(flags.price)}.`)
  }
  return modelFromFlags(defined({name: flags.name, price, free: flags.free || undefined, fileUrls: flags['file-url']}))
}
