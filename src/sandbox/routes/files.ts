import {createReadStream} from 'node:fs'

import type {FastifyInstance, FastifyReply, FastifyRequest} from 'fastify'

import {businessOf, v1Auth, v2Auth} from '../auth.js'
import {getDemand} from '../demands.js'
import {badRequest, notFound, sendError} from '../errors.js'
import {
  FILE_ROUTE_PREFIX,
  blobExists,
  blobPath,
  demandFiles,
  grantLink,
  isValidKey,
  keyOfLink,
  verifyLink,
  type DemandFile,
  type FileGrant,
} from '../files.js'
import type {Business} from '../store/businesses.js'
import type {StoredFile} from '../store/files.js'
import type {SandboxContext} from '../context.js'

/** The file host of this sandbox: an explicit one, else the origin the request reached. */
function fileHost(ctx: SandboxContext, request: FastifyRequest): string {
  return ctx.fileHost ?? `${request.protocol}://${request.host}`
}

/** The stored file behind a link, if this business may have a link to it. */
function storedFileOf(ctx: SandboxContext, request: FastifyRequest, business: Business, link: string): StoredFile {
  const key = keyOfLink(link, fileHost(ctx, request))
  const file = key === undefined ? undefined : ctx.store.files.byKey(key)
  if (!file || file.businessId !== business.id || !blobExists(ctx.store, file)) {
    throw notFound(`The file ${link} is not in this business's file store.`)
  }
  return file
}

/**
 * Which of a demand's files `access/file` signs: `?fileName=` (the quote-model
 * item's fileName), else `?index=` (0-based over the demand's files), else the first.
 */
function pickFile(demandId: string, files: DemandFile[], query: Record<string, unknown>): DemandFile {
  if (files.length === 0) throw notFound(`Demand ${demandId} has no files.`)
  const {fileName, index} = query
  if (fileName !== undefined && index !== undefined)
    throw badRequest('Send fileName or index, not both.', [{path: 'index', message: 'must not be sent with fileName'}])
  if (fileName !== undefined) {
    const found = typeof fileName === 'string' ? files.find((f) => f.fileName === fileName) : undefined
    if (!found) {
      throw notFound(
        `Demand ${demandId} has no file named ${JSON.stringify(fileName)}; its files are ${files.map((f) => JSON.stringify(f.fileName)).join(', ')}.`,
      )
    }
    return found
  }
  if (index !== undefined) {
    if (typeof index !== 'string' || !/^\d+$/.test(index) || Number(index) >= files.length) {
      throw badRequest(
        `index must be a whole number from 0 to ${files.length - 1} (the demand has ${files.length} file${files.length === 1 ? '' : 's'}).`,
        [{path: 'index', message: `must be a whole number from 0 to ${files.length - 1}`}],
      )
    }
    return files[Number(index)] as DemandFile
  }
  return files[0] as DemandFile
}

/** v1 `GET /demand/access/file/{demandId}` (prefix /api/public/v1). */
export async function v1FileRoutes(app: FastifyInstance, ctx: SandboxContext): Promise<void> {
  app.addHook('onRequest', v1Auth(ctx.store))
  app.get<{Params: {demandId: string}; Querystring: Record<string, unknown>}>(
    '/demand/access/file/:demandId',
    async (request): Promise<FileGrant> => {
      const business = businessOf(request)
      const doc = getDemand(ctx.store, business, request.params.demandId)
      const chosen = pickFile(doc._id, demandFiles(doc as unknown as Record<string, unknown>), request.query)
      const file = storedFileOf(ctx, request, business, chosen.fileLink)
      return grantLink(ctx.store, ctx.signingSecret, file.key, fileHost(ctx, request), ctx.clock())
    },
  )
}

/** Legacy `GET /ms-machine-owner/demand/access-storage?fileLink=` (prefix /api/v2). */
export async function v2FileRoutes(app: FastifyInstance, ctx: SandboxContext): Promise<void> {
  app.addHook('onRequest', v2Auth(ctx.store))
  app.get<{Querystring: Record<string, unknown>}>(
    '/ms-machine-owner/demand/access-storage',
    async (request): Promise<FileGrant[]> => {
      const business = businessOf(request)
      const links = request.query.fileLink
      if (typeof links !== 'string' || links.trim() === '') {
        throw badRequest('The fileLink query parameter is required: the stored file URL to sign.', [
          {path: 'fileLink', message: Array.isArray(links) ? 'must be given once' : 'is required (string)'},
        ])
      }
      const file = storedFileOf(ctx, request, business, links.trim())
      return [grantLink(ctx.store, ctx.signingSecret, file.key, fileHost(ctx, request), ctx.clock())]
    },
  )
}

const RANGE = /^bytes=(\d*)-(\d*)$/

/**
 * `Content-Disposition: attachment` for a file name in any script (RFC 6266): a
 * `filename=` of printable ASCII (others as `_`) for old clients, and the name itself
 * as `filename*=UTF-8''…` (RFC 5987: percent-encoded beyond its attr-chars).
 */
function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_')
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`
}

/** The file host: `GET /files/<key>?expires=&signature=`, no credentials, the signature is the access. */
export async function fileHostRoutes(app: FastifyInstance, ctx: SandboxContext): Promise<void> {
  app.get(`${FILE_ROUTE_PREFIX}*`, async (request: FastifyRequest, reply: FastifyReply) => {
    const rawPath = request.url.split('?')[0] ?? ''
    const key = rawPath.slice(FILE_ROUTE_PREFIX.length)
    const query = (request.query ?? {}) as {expires?: unknown; signature?: unknown}
    if (!isValidKey(key)) {
      verifyLink(ctx.store, ctx.signingSecret, key, query, ctx.clock())
      throw notFound(`No such file: ${rawPath}.`)
    }
    verifyLink(ctx.store, ctx.signingSecret, key, query, ctx.clock())
    const file = ctx.store.files.byKey(key)
    if (!file || !blobExists(ctx.store, file)) throw notFound(`No such file: ${rawPath}.`)
    // A stored file never changes in place (new bytes get a new blob): its blob names its version.
    const etag = `"${file.blob}"`
    const modified = new Date(file.createdAt).toUTCString()
    reply
      .header('content-type', file.contentType)
      .header('accept-ranges', 'bytes')
      .header('cache-control', 'private, no-store')
      .header('etag', etag)
      .header('last-modified', modified)
      .header('content-disposition', attachment(file.originalName))
    const range = typeof request.headers.range === 'string' ? RANGE.exec(request.headers.range.trim()) : null
    // If-Range (RFC 9110, 13.1.5): the range only of the version named, else the whole file.
    const ifRange = request.headers['if-range']
    const sameVersion = typeof ifRange !== 'string' || ifRange === etag || ifRange === modified
    if (range && (range[1] !== '' || range[2] !== '') && sameVersion) {
      let start = range[1] === '' ? file.size - Number(range[2]) : Number(range[1])
      let end = range[1] === '' || range[2] === '' ? file.size - 1 : Number(range[2])
      start = Math.max(0, start)
      end = Math.min(end, file.size - 1)
      if (start > end || start >= file.size) {
        reply.header('content-range', `bytes */${file.size}`)
        return sendError(reply, 416, `The requested range lies outside the file (${file.size} bytes).`)
      }
      reply
        .code(206)
        .header('content-range', `bytes ${start}-${end}/${file.size}`)
        .header('content-length', end - start + 1)
      return reply.send(createReadStream(blobPath(ctx.store, file), {start, end}))
    }
    reply.header('content-length', file.size)
    return reply.send(createReadStream(blobPath(ctx.store, file)))
  })
}
