import {closeSync, openSync, statSync, type Stats} from 'node:fs'
import {open, stat} from 'node:fs/promises'
import {basename} from 'node:path'

import {NotFoundError} from '../../api/errors.js'
import {MultipartBody} from '../../api/multipart.js'
import {
  addModels as sendModels,
  createPost as sendCreate,
  deletePost as sendDelete,
  updatePost as sendUpdate,
  uploadFiles as sendUpload,
} from '../../api/v2/posts.js'
import type {Written} from '../../api/written.js'
import {MAX_UPLOAD_BYTES, READ_ONLY_POST_FIELDS} from '../../schemas/posts.js'
import type {ServiceContext} from '../context.js'
import {InputError} from '../errors.js'
import type {PostRecord} from '../../schemas/read/types.js'
import {fileReason} from '../../util/file-reason.js'

type Ctx = Pick<ServiceContext, 'client'>

export interface MaterialInput {
  title: string
  type: string
  price: number
  currency: string
}

/**
 * Reads `title:type:price:currency`. Fields are taken from the right, so a
 * title may hold colons (`Steel: brushed:sheet:12.5:EUR`).
 */
export function parseMaterial(spec: string): MaterialInput {
  const parts = spec.split(':')
  if (parts.length < 4) {
    throw new InputError(
      `--material ${JSON.stringify(spec)} must be title:type:price:currency, for example PLA:plastic:25:EUR.`,
    )
  }
  const currency = parts.pop()!.trim()
  const priceText = parts.pop()!.trim()
  const type = parts.pop()!.trim()
  const title = parts.join(':').trim()
  const price = Number(priceText)
  if (priceText === '' || !Number.isFinite(price) || price < 0) {
    throw new InputError(
      `--material ${JSON.stringify(spec)}: the price must be a non-negative number, got ${JSON.stringify(priceText)}.`,
    )
  }
  return {title, type, price, currency}
}

export interface PostFields {
  service?: string
  priceMachine?: string
  priceConception?: number
  priceExtra?: number
  materials?: MaterialInput[]
  title?: string
  description?: string
  category?: string
  tags?: string[]
  formats?: string[]
  free?: boolean
}

/** A create or update body: the file's fields, with the flags' values laid over them (price merges key by key). */
export function buildPostBody(
  fromFile: Record<string, unknown> | undefined,
  fields: PostFields,
): Record<string, unknown> {
  const body: Record<string, unknown> = {...fromFile}
  const price: Record<string, unknown> = {
    ...(typeof body.price === 'object' && body.price !== null ? (body.price as Record<string, unknown>) : {}),
  }
  if (fields.priceMachine !== undefined) price.priceMachine = fields.priceMachine
  if (fields.priceConception !== undefined) price.priceConception = fields.priceConception
  if (fields.priceExtra !== undefined) price.priceExtra = fields.priceExtra
  if (Object.keys(price).length > 0) body.price = price
  const plain = ['service', 'materials', 'title', 'description', 'category', 'tags', 'formats', 'free'] as const
  for (const key of plain) if (fields[key] !== undefined) body[key] = fields[key]
  return body
}

/** Creates a product; the answer may come without it (201/202/204 without a body: `record` absent). */
export function createPost(ctx: ServiceContext, body: Record<string, unknown>): Promise<Written<PostRecord>> {
  if (body.type === undefined) body = {...body, type: 'PRODUCT'}
  return sendCreate(ctx.client, ctx.businessId, body)
}

/**
 * A create or update body without the fields the service sets (READ_ONLY_POST_FIELDS),
 * so that a post as `post list --json` prints it, edited, updates the product (the
 * service takes them back only unchanged, and a copy of them changes nothing) or
 * creates a copy of it. A create keeps `type`, which its schema checks; an update
 * (`id` given) has no such field, so there a type other than PRODUCT, or a file of
 * another product (`_id`), is refused here.
 */
export function withoutReadOnly(
  body: Record<string, unknown>,
  id?: string,
): {body: Record<string, unknown>; leftOut: string[]} {
  if (id !== undefined && body._id !== undefined && body._id !== id) {
    throw new InputError(
      `_id: the file is product ${JSON.stringify(body._id)}, not ${JSON.stringify(id)} (the product to change); remove _id or pass its id.`,
    )
  }
  if (id !== undefined && body.type !== undefined && body.type !== 'PRODUCT') {
    throw new InputError(`type: a product's type is always "PRODUCT", got ${JSON.stringify(body.type)}.`)
  }
  const leftOut = READ_ONLY_POST_FIELDS.filter((field) => field in body && (field !== 'type' || id !== undefined))
  if (leftOut.length === 0) return {body, leftOut}
  const kept = {...body}
  for (const field of leftOut) delete kept[field]
  return {body: kept, leftOut}
}

/** Changes a product; the answer may come without it (`record` absent). */
export function updatePost(ctx: Ctx, id: string, body: Record<string, unknown>): Promise<Written<PostRecord>> {
  if (Object.keys(body).length === 0) {
    throw new InputError('Nothing to change: pass a flag such as --service, or --file with the fields to change.')
  }
  return sendUpdate(ctx.client, id, body)
}

/** What a delete left: the product as it was, or, when the answer to it was lost, how. */
export interface DeletedPost {
  /** The product as it was (the service's answer); only `_id` when `lostAnswer` is set. */
  post: PostRecord
  /**
   * How the attempt that deleted the product ended (`502`, `ECONNRESET`): its answer
   * was lost, and the retry found the product gone (404).
   */
  lostAnswer?: string
}

/**
 * Deletes a product. A DELETE is resent after a failure that may come after the work
 * (a proxy's 502, a reset); the resend then finds no such product (404). That 404,
 * in answer to a retry, means the product is gone as asked: it is reported deleted,
 * without the record the lost answer carried.
 */
export async function deletePost(ctx: Ctx, id: string): Promise<DeletedPost> {
  try {
    return {post: await sendDelete(ctx.client, id)}
  } catch (error) {
    if (!(error instanceof NotFoundError) || error.lostAnswer === undefined) throw error
    return {post: {_id: id} as PostRecord, lostAnswer: error.lostAnswer}
  }
}

export interface ModelFields {
  name?: string
  price?: number
  free?: boolean
  fileUrls?: string[]
}

/** One model from flags: its files named after the last path segment of each URL. */
export function modelFromFlags(fields: ModelFields): Record<string, unknown> {
  const urls = fields.fileUrls ?? []
  if (urls.length === 0) throw new InputError('A model needs at least one --file-url (or pass --file with objects3D).')
  const files = urls.map(modelFile)
  return {
    originalname: fields.name ?? files[0]!.originalname,
    price: fields.price ?? 0,
    free: fields.free ?? false,
    files,
  }
}

/** A model's file from its --file-url, named by the URL's last segment; a local path is refused with what to do. */
function modelFile(url: string): {originalname: string; url: string} {
  const parsed = URL.parse(url)
  if (!parsed || !/^https?:$/.test(parsed.protocol)) {
    throw new InputError(
      `--file-url ${url} is not an http(s) URL. A file on this machine is uploaded first: mfg post upload ${url} prints the URL to give here.`,
    )
  }
  let name = ''
  try {
    name = decodeURIComponent(parsed.pathname.split('/').pop() ?? '')
  } catch {
    // A malformed escape: the URL names the file.
  }
  return {originalname: name || url, url}
}

/** `objects3D` from a file: one model object, an array of them, or `{objects3D: ...}`. */
export function modelsFromFile(value: unknown): unknown {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && 'objects3D' in value) {
    return (value as {objects3D: unknown}).objects3D
  }
  return value
}

export function addModels(ctx: Ctx, id: string, objects3D: unknown) {
  return sendModels(ctx.client, id, objects3D)
}

export interface UploadFile {
  path: string
  name: string
  size: number
  /** The file as checked: one that differs from it when it is sent has changed meanwhile. */
  checked: Pick<Stats, 'size' | 'mtimeMs' | 'ino' | 'dev'>
}

/** Checks the files before anything is sent: readable regular files of at most 50 MiB each. */
export function checkUploadFiles(paths: readonly string[]): UploadFile[] {
  if (paths.length === 0) throw new InputError('Name at least one file to upload.')
  if (paths.length > 20) throw new InputError(`At most 20 files per upload, got ${paths.length}.`)
  return paths.map((path) => {
    const checked = readableStats(path)
    if (checked.size > MAX_UPLOAD_BYTES) {
      throw new InputError(
        `${path} is ${checked.size} bytes; uploads are limited to ${MAX_UPLOAD_BYTES} bytes (50 MiB) a file.`,
      )
    }
    return {path, name: basename(path), size: checked.size, checked}
  })
}

/** A regular file this process may read (it is opened once to know); else an InputError naming it and why. */
function readableStats(path: string): Stats {
  try {
    const st = statSync(path)
    if (!st.isFile()) throw new InputError(`${path} is not a regular file.`)
    closeSync(openSync(path, 'r'))
    return st
  } catch (error) {
    if (error instanceof InputError) throw error
    throw new InputError(`Cannot read ${path}: ${fileReason(error)}. Nothing was uploaded.`)
  }
}

/**
 * Uploads files as multipart `files` parts. Each file is read from disk as it is
 * sent, so memory stays flat however large it is; one that changes meanwhile stops
 * the upload (readUnchanged).
 */
export async function uploadFiles(
  ctx: Ctx,
  files: readonly UploadFile[],
  onProgress?: (p: {transferred: number; total?: number}) => void,
) {
  const body = new MultipartBody(
    files.map((f) => ({field: 'files', filename: f.name, size: f.size, read: () => readUnchanged(f)})),
  )
  return sendUpload(ctx.client, body, onProgress ? {onProgress} : {})
}

/**
 * A file's bytes, read as they are sent, when it is still the file checked; else an
 * InputError naming it and what happened (it shrank, grew, was rewritten or removed:
 * a CAD program exporting it again, say), thrown before its part ends, so that the
 * service never gets a whole body and stores none of its files. Sending it again
 * would send another file than the one checked, so the error is the user's to act on.
 */
async function* readUnchanged(file: UploadFile): AsyncGenerator<Uint8Array> {
  const handle = await open(file.path, 'r').catch((error: unknown) => {
    throw stopped(file, (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'was removed' : cannotRead(error))
  })
  try {
    const opened = changeOf(file, await handle.stat())
    if (opened) throw stopped(file, opened)
    let read = 0
    for await (const chunk of handle.createReadStream({autoClose: false}) as AsyncIterable<Buffer>) {
      read += chunk.length
      if (read > file.size) throw stopped(file, changeOf(file, await handle.stat()) ?? 'grew')
      yield chunk
    }
    const now = await stat(file.path).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw error
    })
    const change =
      changeOf(file, now) ?? changeOf(file, await handle.stat()) ?? (read < file.size ? 'shrank' : undefined)
    if (change) throw stopped(file, change)
  } catch (error) {
    throw error instanceof InputError ? error : stopped(file, cannotRead(error))
  } finally {
    await handle.close()
  }
}

/** How a file differs from the one checked, in words ("was removed"); undefined when it does not. */
function changeOf(file: UploadFile, now: Stats | undefined): string | undefined {
  const was = file.checked
  if (now === undefined) return 'was removed'
  if (now.size !== was.size) return `changed size (${was.size} bytes when checked, ${now.size} now)`
  if (now.ino !== was.ino || now.dev !== was.dev || now.mtimeMs !== was.mtimeMs) return 'was rewritten'
  return undefined
}

const cannotRead = (error: unknown) => `could not be read any more (${fileReason(error)})`

function stopped(file: UploadFile, what: string): InputError {
  return new InputError(
    `${file.path} ${what} while it was being uploaded. The upload was stopped before its end, so none of its files was stored; upload again once the file is complete.`,
  )
}
