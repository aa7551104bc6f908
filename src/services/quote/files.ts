import {createHash} from 'node:crypto'
import {
  createReadStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import {join} from 'node:path'

import type {ServiceContext} from '../context.js'
import {demandFileIssuer, downloadFile, safeFileName, type DownloadTarget} from '../files/download.js'

/**
 * A demand's part files, downloaded once: each file lands under the cache by the
 * SHA-256 of its content, and an index maps the stored file link to that hash, so
 * the next run (or another demand with the same file) reads it from the disk
 * after checking the hash again.
 */

export interface CachedPart {
  path: string
  sha256: string
  bytes: number
  cached: boolean
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

const linkKey = (fileLink: string) => createHash('sha256').update(fileLink.replace(/\?.*$/, '')).digest('hex')

/** The content-addressed path of a hash: `<cache>/<hash>.<ext>` (the extension keeps the format hint). */
function contentPath(cacheDir: string, sha256: string, fileName: string): string {
  const ext = /\.([A-Za-z0-9]{1,8})$/.exec(fileName)?.[1]?.toLowerCase()
  return join(cacheDir, ext ? `${sha256}.${ext}` : sha256)
}

/** The cached file for a stored link, when it is there and its content still has its hash. */
async function fromCache(cacheDir: string, fileLink: string, fileName: string): Promise<CachedPart | undefined> {
  const index = join(cacheDir, 'links', linkKey(fileLink))
  if (!existsSync(index)) return undefined
  const sha256 = readFileSync(index, 'utf8').trim()
  const path = contentPath(cacheDir, sha256, fileName)
  if (!existsSync(path) || (await sha256Of(path)) !== sha256) return undefined
  return {path, sha256, bytes: statSync(path).size, cached: true}
}

/** One of a demand's files: from the cache, or downloaded through a fresh signed link and verified. */
export async function fetchPart(
  ctx: Pick<ServiceContext, 'client'>,
  demandId: string,
  target: Omit<DownloadTarget, 'path'>,
  opts: {cacheDir: string; several: boolean; signal?: AbortSignal},
): Promise<CachedPart> {
  const hit = await fromCache(opts.cacheDir, target.fileLink, target.fileName)
  if (hit) return hit
  const incoming = join(opts.cacheDir, 'incoming')
  mkdirSync(join(opts.cacheDir, 'links'), {recursive: true, mode: 0o700})
  mkdirSync(incoming, {recursive: true, mode: 0o700})
  const temp = join(incoming, `${process.pid}-${Date.now()}-${safeFileName(target.fileName, 'part')}`)
  const full = {...target, path: temp}
  try {
    const file = await downloadFile(ctx, full, demandFileIssuer(ctx, demandId, full, opts.several), {
      force: true,
      ...(opts.signal ? {signal: opts.signal} : {}),
    })
    const sha256 = await sha256Of(temp)
    const path = contentPath(opts.cacheDir, sha256, target.fileName)
    renameSync(temp, path)
    writeFileSync(join(opts.cacheDir, 'links', linkKey(target.fileLink)), `${sha256}\n`)
    return {path, sha256, bytes: file.bytes, cached: false}
  } finally {
    rmSync(temp, {force: true})
  }
}

/**
 * Drops a stored link's file from the cache: it could not be read as a part (a
 * file host that answered a sign-in page, a file cut short), so the next run
 * downloads it again.
 */
export function forgetPart(cacheDir: string, fileLink: string, path: string): void {
  rmSync(join(cacheDir, 'links', linkKey(fileLink)), {force: true})
  rmSync(path, {force: true})
}
