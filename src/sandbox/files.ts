import {createHmac, randomBytes, timingSafeEqual} from 'node:crypto'
import {createWriteStream, existsSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {Transform, type Readable} from 'node:stream'
import {pipeline} from 'node:stream/promises'

import {MAX_UPLOAD_BYTES} from '../schemas/posts.js'
import {ApiError, forbidden} from './errors.js'
import type {StoredFile} from './store/files.js'
import type {Store} from './store/index.js'

/**
 * The sandbox's file store and signed links. A stored file has a key such as
 * `seed/demands/sensor-bracket.stl` or `uploads/<id>/<name>`; its storage URL (what
 * demands and products keep in `fileLink`/`url`) is `<STORAGE_HOST>/<key>`, and its
 * bytes are `<fileDir>/<blob>`. The file host that serves signed links is the
 * sandbox itself: `GET /files/<key>?expires=<unix s>&signature=<hex>`.
 */

/** Host of stored files' URLs (reserved .test domain, never resolved): stable across restarts and ports. */
export const STORAGE_HOST = 'https://files.mfg-sandbox.test'
/** Signed links last 30 minutes (contract, Files). */
export const LINK_VALIDITY_S = 30 * 60
/** Path prefix of the sandbox's file host. */
export const FILE_ROUTE_PREFIX = '/files/'

const KEY_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/

export const isValidKey = (key: string): boolean => key.length <= 300 && KEY_PATTERN.test(key)

/** A file name made safe for a key: its base name, with characters outside [A-Za-z0-9._-] as `_`. */
export function safeName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? ''
  const cleaned = base
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^[.]+/, '')
    .slice(-120)
  return cleaned === '' ? 'file' : cleaned
}

const CONTENT_TYPES: Record<string, string> = {
  stl: 'model/stl',
  obj: 'model/obj',
  '3mf': 'model/3mf',
  step: 'model/step',
  stp: 'model/step',
  dxf: 'image/vnd.dxf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  pdf: 'application/pdf',
}

export function contentTypeOf(name: string): string {
  const ext = name.split('.').pop()?.toLowerCase() ?? ''
  return CONTENT_TYPES[ext] ?? 'application/octet-stream'
}

export const storageUrl = (key: string): string => `${STORAGE_HOST}/${key}`

/**
 * The key of a stored file's URL: a storage URL (`https://files.mfg-sandbox.test/<key>`)
 * or a file-host URL of this sandbox (`<origin>/files/<key>`, query ignored). Undefined
 * for any other URL.
 */
export function keyOfLink(link: string, ownOrigin?: string): string | undefined {
  let url: URL
  try {
    url = new URL(link)
  } catch {
    return undefined
  }
  let key: string | undefined
  if (url.origin === STORAGE_HOST) key = url.pathname.slice(1)
  else if (ownOrigin !== undefined && url.origin === ownOrigin && url.pathname.startsWith(FILE_ROUTE_PREFIX))
    key = url.pathname.slice(FILE_ROUTE_PREFIX.length)
  return key !== undefined && isValidKey(key) ? key : undefined
}

export const blobPath = (store: Store, file: StoredFile): string => join(store.fileDir, file.blob)

/** Writes small bytes (the seed's files) synchronously and records them. */
export function putFile(
  store: Store,
  file: {key: string; businessId: string; originalName: string; bytes: Uint8Array; blob?: string},
  now: number,
): StoredFile {
  const stored: StoredFile = {
    key: file.key,
    businessId: file.businessId,
    blob: file.blob ?? newBlobId(),
    originalName: file.originalName,
    contentType: contentTypeOf(file.originalName),
    size: file.bytes.byteLength,
    createdAt: now,
  }
  writeFileSync(join(store.fileDir, stored.blob), file.bytes, {mode: 0o600})
  if (!store.files.byKey(stored.key)) store.files.insert(stored)
  return stored
}

export const newBlobId = (): string => randomBytes(12).toString('hex')

export const fileTooLarge = (name: string) =>
  new ApiError(
    413,
    `The file ${JSON.stringify(name)} is larger than the limit of ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB per file.`,
  )

/**
 * Streams an upload to disk under a new key `uploads/<id>/<name>`: bytes go to a
 * temporary file, which becomes the blob only when the whole file arrived within
 * the limit. Answers the stored file, not yet recorded (the caller records a whole
 * request's files at once).
 */
export async function streamToDisk(
  store: Store,
  source: Readable & {truncated?: boolean},
  file: {businessId: string; originalName: string; id: string},
  now: number,
  maxBytes = MAX_UPLOAD_BYTES,
): Promise<StoredFile> {
  const blob = newBlobId()
  const target = join(store.fileDir, blob)
  const partial = `${target}.part`
  let size = 0
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length
      if (size > maxBytes) callback(fileTooLarge(file.originalName))
      else callback(null, chunk)
    },
  })
  try {
    await pipeline(source, counter, createWriteStream(partial, {mode: 0o600}))
    if (source.truncated) throw fileTooLarge(file.originalName)
    renameSync(partial, target)
  } catch (error) {
    rmSync(partial, {force: true})
    if (error instanceof ApiError) throw error
    const code = (error as {code?: string}).code
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw fileTooLarge(file.originalName)
    throw error
  }
  const name = safeName(file.originalName)
  return {
    key: `uploads/${file.id}/${name}`,
    businessId: file.businessId,
    blob,
    originalName: file.originalName,
    contentType: contentTypeOf(file.originalName),
    size,
    createdAt: now,
  }
}

/** Removes blobs written for a request that then failed. */
export function discardBlobs(store: Store, files: StoredFile[]): void {
  for (const file of files) rmSync(blobPath(store, file), {force: true})
}

export const blobExists = (store: Store, file: StoredFile): boolean => existsSync(blobPath(store, file))

// ---------------------------------------------------------------- signed links

/** HMAC-SHA256 over the file-host path and the expiry, keyed by the sandbox's signing secret. */
export function linkSignature(secret: string, key: string, expires: number): string {
  return createHmac('sha256', secret).update(`file-link\n${FILE_ROUTE_PREFIX}${key}\n${expires}`).digest('hex')
}

export interface FileGrant {
  url: string
  token: string
}

/** A 30-minute signed link to a stored file, served by `fileHost` (the sandbox's origin). */
export function grantLink(store: Store, secret: string, key: string, fileHost: string, nowMs: number): FileGrant {
  const nowS = Math.floor(nowMs / 1000)
  const expires = nowS + LINK_VALIDITY_S
  const signature = linkSignature(secret, key, expires)
  store.files.addGrant(signature, key, expires, nowS)
  const token = `expires=${expires}&signature=${signature}`
  return {url: `${fileHost}${FILE_ROUTE_PREFIX}${key}?${token}`, token}
}

function sameHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8')
  const y = Buffer.from(b, 'utf8')
  return x.length === y.length && timingSafeEqual(x, y)
}

/**
 * Checks a signed link: 403 with a message saying what is wrong (not signed, the
 * path, the expiry or the signature changed, or expired). The issued-link log
 * tells a changed path from a changed expiry, since a signature alone cannot.
 */
export function verifyLink(
  store: Store,
  secret: string,
  key: string,
  query: {expires?: unknown; signature?: unknown},
  nowMs: number,
): void {
  const {expires, signature} = query
  if (expires === undefined && signature === undefined)
    throw forbidden(
      'This file link is not signed: it needs the expires and signature query parameters; ask for a new link.',
    )
  if (typeof signature !== 'string' || !/^[0-9a-f]{64}$/.test(signature))
    throw forbidden('The signature of this file link was changed (it is missing or malformed); ask for a new link.')
  const grant = store.files.grant(signature)
  if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires)) {
    throw forbidden('The expiry of this file link was changed (it is missing or not a number); ask for a new link.')
  }
  const expiresS = Number(expires)
  if (!sameHex(signature, linkSignature(secret, key, expiresS))) {
    if (grant && grant.key !== key)
      throw forbidden('The path of this file link was changed: the signature is for another file; ask for a new link.')
    if (grant && grant.expires !== expiresS)
      throw forbidden(
        'The expiry of this file link was changed: the signature is for another expiry time; ask for a new link.',
      )
    throw forbidden(
      'The signature of this file link was changed: it does not match the path and expiry; ask for a new link.',
    )
  }
  if (Math.floor(nowMs / 1000) >= expiresS) {
    throw forbidden(
      `This file link expired at ${new Date(expiresS * 1000).toISOString()}; links last 30 minutes, ask for a new link.`,
    )
  }
}

/** One file of a demand: its name and its stored link. */
export interface DemandFile {
  fileName: string
  fileLink: string
}

/**
 * A demand's files: its quote-model items' fileLinks, then a legacy `file`
 * not among them (as access/file lists them).
 */
export function demandFiles(doc: {quoteModel?: unknown; file?: unknown}): DemandFile[] {
  const files: DemandFile[] = []
  const items = Array.isArray(doc.quoteModel) ? (doc.quoteModel as Record<string, unknown>[]) : []
  for (const item of items) {
    if (typeof item.fileLink === 'string' && item.fileLink !== '') {
      const fileName = typeof item.fileName === 'string' && item.fileName !== '' ? item.fileName : item.fileLink
      files.push({fileName, fileLink: item.fileLink})
    }
  }
  if (typeof doc.file === 'string' && doc.file !== '' && !files.some((f) => f.fileLink === doc.file)) {
    files.push({fileName: doc.file.split('/').pop() ?? doc.file, fileLink: doc.file})
  }
  return files
}
