import {once} from 'node:events'
import {createWriteStream, existsSync, mkdirSync, renameSync, rmSync, statSync} from 'node:fs'
import {get as httpGet, type IncomingMessage} from 'node:http'
import {get as httpsGet} from 'node:https'
import {join, resolve} from 'node:path'

import {getDemand} from '../../api/v1/demands.js'
import {redact} from '../../schemas/secrets.js'
import type {ServiceContext} from '../context.js'
import {InputError} from '../errors.js'
import {demandFileLink, maskLink, storageFileLink} from './link.js'

type Ctx = Pick<ServiceContext, 'client'>

/** A failed transfer from the file host: exit 1, the link's signature never in the message. */
export class DownloadError extends Error {
  readonly exitCode = 1
  readonly code = 'download_failed'
  constructor(message: string) {
    super(redact(message))
    this.name = 'DownloadError'
  }
}

export interface DownloadTarget {
  /** The name the service gave the file (quote-model fileName). */
  fileName: string
  /** The stored file URL (quote-model fileLink). */
  fileLink: string
  /** Position among the demand's files, for `access/file?index=`. */
  index: number
  /** Where it will be written. */
  path: string
}

export interface DownloadProgress {
  fileName: string
  transferred: number
  total?: number
}

export interface DownloadedFile {
  fileName: string
  path: string
  bytes: number
  /** Content-Length (or the Content-Range total) the file host announced. */
  expectedBytes?: number
  /** Signed links used: more than 1 when one expired on the way. */
  links: number
  /** Whether a transfer was resumed with a Range request. */
  resumed: boolean
}

/**
 * A file name safe to write inside the output folder: the last path segment
 * only, no control or reserved characters, no leading dots (so never `..`).
 */
export function safeFileName(name: string, fallback: string): string {
  const last = name.split(/[\\/]/).pop() ?? ''
  const cleaned = last
    // eslint-disable-next-line no-control-regex -- control characters are what is removed
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .replace(/[<>:"|?*]/g, '_')
    .trim()
    .replace(/^\.+/, '')
    .slice(0, 200)
  return cleaned === '' ? fallback : cleaned
}

/** The demand's files and where each goes; refuses to overwrite unless `force`. */
export async function planDownload(
  ctx: Ctx,
  demandId: string,
  opts: {outDir: string; force?: boolean},
): Promise<DownloadTarget[]> {
  const demand = await getDemand(ctx.client, demandId)
  const items = (Array.isArray(demand.quoteModel) ? demand.quoteModel : []) as Record<string, unknown>[]
  const outDir = resolve(opts.outDir)
  const used = new Set<string>()
  const targets: DownloadTarget[] = []
  for (const item of items) {
    const fileLink = typeof item.fileLink === 'string' ? item.fileLink : ''
    if (fileLink === '') continue
    const index = targets.length
    const given = typeof item.fileName === 'string' && item.fileName !== '' ? item.fileName : fileLink
    let name = safeFileName(given, `file-${index + 1}`)
    // Two items with one name would overwrite each other: number the later ones.
    for (let n = 2; used.has(name.toLowerCase()); n++) name = name.replace(/(\.[^.]*)?$/, (ext) => `-${n}${ext}`)
    used.add(name.toLowerCase())
    targets.push({fileName: given, fileLink, index, path: join(outDir, name)})
  }
  if (targets.length === 0) throw new InputError(`Demand ${demandId} has no files to download.`)
  if (!opts.force) {
    const existing = targets.filter((t) => existsSync(t.path)).map((t) => t.path)
    if (existing.length > 0) {
      throw new InputError(`Not overwriting ${existing.join(', ')}: pass --force to replace, or choose another --out.`)
    }
  }
  mkdirSync(outDir, {recursive: true})
  return targets
}

/** A function that asks the service for a fresh signed link to one file. */
export type LinkIssuer = () => Promise<string>

/** The link issuer for one of a demand's files: v1 access/file, checked against the stored URL. */
export function demandFileIssuer(ctx: Ctx, demandId: string, target: DownloadTarget, several: boolean): LinkIssuer {
  return async () => {
    const link = await demandFileLink(ctx, demandId, several ? {index: target.index} : {})
    if (pathMatches(link.url, target.fileLink)) return link.url
    // The service signed another file (it may not know ?index=): sign the stored URL itself.
    return (await storageFileLink(ctx, target.fileLink)).url
  }
}

function pathMatches(signed: string, stored: string): boolean {
  try {
    return new URL(signed).pathname.endsWith(new URL(stored).pathname)
  } catch {
    return false
  }
}

export interface DownloadFileOptions {
  /** A link already issued; otherwise the issuer is asked first. */
  url?: string
  /** Keep the bytes of an earlier partial `<path>.part` and ask for the rest. */
  resume?: boolean
  onProgress?: (p: DownloadProgress) => void
  /** Transfers cut off before the end, retried (resuming) before giving up. Default 3. */
  maxRetries?: number
  /** New links asked for after an expiry before giving up. Default 3. */
  maxRelinks?: number
  /** Overwrite an existing file. */
  force?: boolean
  signal?: AbortSignal
}

/**
 * Streams one file from the file host to `<path>.part`, then renames it. The
 * file host is unauthenticated: only the signed link is sent, never the API
 * key. A 403 saying the link expired asks for a new link and resumes with a
 * Range request (starting over when the host ignores it); the size written
 * must match the size announced.
 */
export async function downloadFile(
  target: Pick<DownloadTarget, 'fileName' | 'path'>,
  issue: LinkIssuer,
  opts: DownloadFileOptions = {},
): Promise<DownloadedFile> {
  const part = `${target.path}.part`
  let written = opts.resume && existsSync(part) ? statSync(part).size : 0
  if (written === 0) rmSync(part, {force: true})
  let url = opts.url ?? (await issue())
  let links = 1
  let retries = 0
  let relinks = 0
  let resumed = false
  let expected: number | undefined
  const maxRetries = opts.maxRetries ?? 3
  const maxRelinks = opts.maxRelinks ?? 3
  const shown = () => maskLink(url)

  for (;;) {
    let res: HostResponse
    try {
      res = await getFromHost(url, written > 0 ? {range: `bytes=${written}-`} : {}, opts.signal)
    } catch (error) {
      if (opts.signal?.aborted || ++retries > maxRetries) {
        throw new DownloadError(`Downloading ${target.fileName} from ${shown()} failed: ${causeOf(error)}`)
      }
      continue
    }
    if (res.status === 403) {
      const message = await errorMessage(res)
      if (/expired/i.test(message) && relinks < maxRelinks) {
        relinks++
        url = await issue()
        links++
        continue
      }
      throw new DownloadError(`The file host refused ${shown()} (403): ${message}`)
    }
    if (res.status === 416 && written > 0) {
      // The partial file does not fit the file any more: start over.
      res.body.destroy()
      written = 0
      rmSync(part, {force: true})
      continue
    }
    let append = false
    if (res.status === 206) {
      const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(res.header('content-range') ?? '')
      if (!range || Number(range[1]) !== written) {
        res.body.destroy()
        written = 0
        rmSync(part, {force: true})
        continue
      }
      if (range[3] !== '*') expected = Number(range[3])
      append = true
      resumed = true
    } else if (res.status === 200) {
      const length = res.header('content-length')
      expected = length === null ? undefined : Number(length)
      written = 0
    } else {
      const message = await errorMessage(res)
      throw new DownloadError(`The file host answered ${res.status} for ${shown()}: ${message}`)
    }

    // Written chunk by chunk so that, when the transfer breaks, what arrived is
    // flushed to disk and the next request resumes from there.
    const writer = createWriteStream(part, {flags: append ? 'a' : 'w', mode: 0o644})
    let failure: unknown
    try {
      for await (const chunk of res.body) {
        const buf = chunk as Buffer
        written += buf.length
        opts.onProgress?.({
          fileName: target.fileName,
          transferred: written,
          ...(expected === undefined ? {} : {total: expected}),
        })
        if (!writer.write(buf)) await once(writer, 'drain')
      }
    } catch (error) {
      failure = error
    }
    await new Promise<void>((done, fail) => writer.end((error?: Error | null) => (error ? fail(error) : done())))
    if (failure !== undefined) {
      written = statSync(part).size
      if (opts.signal?.aborted || ++retries > maxRetries) {
        throw new DownloadError(
          `Downloading ${target.fileName} was cut off after ${written} bytes: ${causeOf(failure)}`,
        )
      }
      continue
    }
    const size = statSync(part).size
    if (expected !== undefined && size < expected && retries < maxRetries) {
      retries++
      written = size
      continue
    }
    if (expected !== undefined && size !== expected) {
      rmSync(part, {force: true})
      throw new DownloadError(
        `${target.fileName}: the file host announced ${expected} bytes but ${size} were written; the partial file was removed.`,
      )
    }
    if (!opts.force && existsSync(target.path)) {
      throw new InputError(`Not overwriting ${target.path}: pass --force to replace it.`)
    }
    renameSync(part, target.path)
    return {
      fileName: target.fileName,
      path: target.path,
      bytes: size,
      ...(expected === undefined ? {} : {expectedBytes: expected}),
      links,
      resumed,
    }
  }
}

async function errorMessage(res: HostResponse): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  try {
    for await (const chunk of res.body) {
      if (size < 64 * 1024) chunks.push(chunk as Buffer)
      size += (chunk as Buffer).length
    }
  } catch {
    // A broken error body: the status says enough.
  }
  const text = Buffer.concat(chunks).toString('utf8')
  try {
    const body = JSON.parse(text) as {message?: unknown}
    if (typeof body.message === 'string') return redact(body.message)
  } catch {
    // Not JSON: the text or the status says it.
  }
  return redact(text.slice(0, 200) || `HTTP ${res.status}`)
}

interface HostResponse {
  status: number
  header(name: string): string | undefined
  body: IncomingMessage
}

/**
 * One GET to the file host on a connection of its own (closed afterwards): no
 * credentials, only the signed link; redirects followed (up to 5).
 */
function getFromHost(
  url: string,
  headers: Record<string, string>,
  signal?: AbortSignal,
  hops = 0,
): Promise<HostResponse> {
  return new Promise((resolve, reject) => {
    let target: URL
    try {
      target = new URL(url)
    } catch {
      reject(new DownloadError(`The file link is not a URL: ${maskLink(url)}`))
      return
    }
    const get = target.protocol === 'https:' ? httpsGet : httpGet
    const req = get(
      target,
      {
        headers: {...headers, 'user-agent': `mfg node/${process.versions.node}`},
        agent: false,
        ...(signal ? {signal} : {}),
      },
      (res) => {
        const status = res.statusCode ?? 0
        const location = res.headers.location
        if (status >= 300 && status < 400 && location && hops < 5) {
          res.resume()
          resolve(getFromHost(new URL(location, target).toString(), headers, signal, hops + 1))
          return
        }
        resolve({
          status,
          header: (name) => {
            const v = res.headers[name.toLowerCase()]
            return Array.isArray(v) ? v[0] : v
          },
          body: res,
        })
      },
    )
    req.setTimeout(30_000, () => req.destroy(Object.assign(new Error('no data for 30 s'), {code: 'ETIMEDOUT'})))
    req.on('error', reject)
  })
}

function causeOf(error: unknown): string {
  const e = error as {code?: string; cause?: {code?: string; message?: string}; message?: string}
  return redact(e.code ?? e.cause?.code ?? e.cause?.message ?? e.message ?? String(error))
}

export interface DownloadDemandOptions {
  outDir: string
  force?: boolean
  onProgress?: (p: DownloadProgress) => void
  onFileDone?: (f: DownloadedFile) => void
  signal?: AbortSignal
}

/** Every file of a demand, one after the other, each through a fresh signed link. */
export async function downloadDemandFiles(
  ctx: Ctx,
  demandId: string,
  opts: DownloadDemandOptions,
): Promise<DownloadedFile[]> {
  const targets = await planDownload(ctx, demandId, opts)
  const done: DownloadedFile[] = []
  for (const target of targets) {
    const file = await downloadFile(target, demandFileIssuer(ctx, demandId, target, targets.length > 1), {
      ...(opts.force ? {force: true} : {}),
      ...(opts.onProgress ? {onProgress: opts.onProgress} : {}),
      ...(opts.signal ? {signal: opts.signal} : {}),
    })
    opts.onFileDone?.(file)
    done.push(file)
  }
  return done
}
