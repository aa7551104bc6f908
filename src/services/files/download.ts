import {once} from 'node:events'
import {
  accessSync,
  constants,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import {join, resolve} from 'node:path'

import {codingsOf, decodedStream, unknownCoding} from '../../api/decode.js'
import {ApiError} from '../../api/errors.js'
import {sleep} from '../../api/retry.js'
import {describeNetworkFailure} from '../../api/response-error.js'
import type {StreamResponse} from '../../api/types.js'
import {getDemand} from '../../api/v1/demands.js'
import {redact} from '../../schemas/secrets.js'
import type {ServiceContext} from '../context.js'
import {fileReason} from '../../util/file-reason.js'
import {InputError} from '../errors.js'
import {demandFileLink, maskLink, pathMatches, storageFileLink} from './link.js'

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
  makeOutDir(opts.outDir, outDir)
  const folders = targets.filter((t) => isFolder(t.path)).map((t) => t.path)
  if (folders.length > 0) {
    throw new InputError(
      `--out ${opts.outDir} has a folder where a file goes: ${folders.join(', ')}; --force replaces files only. Choose another --out.`,
    )
  }
  if (!opts.force) {
    const existing = targets.filter((t) => existsSync(t.path)).map((t) => t.path)
    if (existing.length > 0) {
      throw new InputError(`Not overwriting ${existing.join(', ')}: pass --force to replace, or choose another --out.`)
    }
  }
  return targets
}

const isFolder = (path: string): boolean => statSync(path, {throwIfNoEntry: false})?.isDirectory() ?? false

/** Makes the folder --out names, if needed; an InputError (nothing downloaded) when it is no folder this process may write in. */
function makeOutDir(given: string, outDir: string): void {
  try {
    if (existsSync(outDir) && !isFolder(outDir)) throw new InputError(`--out ${given} is a file, not a folder.`)
    mkdirSync(outDir, {recursive: true})
    accessSync(outDir, constants.W_OK)
  } catch (error) {
    if (error instanceof InputError) throw error
    // Without --out the folder is the current one, which the user did not name as --out.
    const where = given === '.' ? 'the current folder (choose another with --out)' : `--out ${given}`
    throw new InputError(`Cannot write in ${where}: ${fileReason(error, true)}. Nothing was downloaded.`)
  }
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

export interface DownloadFileOptions {
  /** A link already issued; otherwise the issuer is asked first. */
  url?: string
  /** Keep the bytes of an earlier partial `<path>.part` and ask for the rest, as they are. */
  resume?: boolean
  /**
   * What the file is (its stored link, without a query). With it, the version the file host
   * names (ETag, else Last-Modified) is kept beside the partial file (`<path>.part.json`), and
   * a partial file an earlier run left is resumed only when it is of this source and the host
   * names a version: the Range request carries If-Range, so a file changed since is sent whole.
   */
  source?: string
  onProgress?: (p: DownloadProgress) => void
  /** New links asked for after an expiry before giving up. Default 3. */
  maxRelinks?: number
  /** Overwrite an existing file. */
  force?: boolean
  signal?: AbortSignal
}

/**
 * Streams one file from the file host to `<path>.part`, then renames it. The
 * request goes through the client's pipeline as a download: only the signed
 * link is sent, never the API key, and failures before an answer are retried
 * there. A transfer cut off mid-way resumes with a Range request when the
 * client's RetryPolicy allows another try (and after the wait it says); a 403
 * saying the link expired asks for a new link; the size written must match the
 * size announced.
 */
export async function downloadFile(
  ctx: Ctx,
  target: Pick<DownloadTarget, 'fileName' | 'path'>,
  issue: LinkIssuer,
  opts: DownloadFileOptions = {},
): Promise<DownloadedFile> {
  const transfer = new Transfer(ctx, target, issue, opts)
  await transfer.start(opts.url)
  for (;;) {
    const step = await transfer.attempt()
    if (step === 'again') continue
    // A file that came out short, with no try left, fails on its size.
    if (step === 'complete' || !(await transfer.mayResume(step))) return transfer.finish()
  }
}

/**
 * What one request of a transfer came to: the file complete, cut off mid-way,
 * ended short of the size announced, or a reason to ask again at once (a new
 * link, a range the host could not serve).
 */
type Step = 'complete' | 'cut' | 'short' | 'again'

/** One file's transfer: its link, what is on the disk, and the steps from one request to the next. */
class Transfer {
  private readonly part: string
  private url = ''
  private written = 0
  private expected: number | undefined
  private links = 0
  private relinks = 0
  private cuts = 0
  private resumed = false
  /** Whether the last answer came compressed: its ranges and sizes are then not the file's. */
  private encoded = false
  /** What broke the last transfer off. */
  private cut: unknown
  /** The version of the file the bytes on the disk are of (a strong ETag or Last-Modified), when the host named one. */
  private version: string | undefined
  /** Where the source and version of the partial file are kept (with `source`). */
  private readonly record: string

  constructor(
    private readonly ctx: Ctx,
    private readonly target: Pick<DownloadTarget, 'fileName' | 'path'>,
    private readonly issue: LinkIssuer,
    private readonly opts: DownloadFileOptions,
  ) {
    this.part = `${target.path}.part`
    this.record = `${this.part}.json`
  }

  async start(url: string | undefined): Promise<void> {
    const earlier = this.opts.source === undefined ? undefined : this.earlierVersion()
    if (earlier !== undefined) this.version = earlier
    const keep = (this.opts.resume || earlier !== undefined) && existsSync(this.part)
    this.written = keep ? statSync(this.part).size : 0
    if (this.written === 0) this.restart()
    this.url = url ?? (await this.issue())
    this.links = 1
  }

  /** One request: its answer checked, then its body appended to the partial file. */
  async attempt(): Promise<Step> {
    const res = await this.open()
    if (res === undefined) return 'again'
    this.encoded = this.checkCoding(res)
    let append = false
    if (res.status === 206 && this.encoded && this.written > 0) {
      // A range of the compressed bytes: not where the file stops. Start over.
      res.body.destroy()
      this.restart()
      return 'again'
    }
    if (res.status === 206 && !this.encoded) {
      const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(header(res, 'content-range') ?? '')
      if (!range || Number(range[1]) !== this.written) {
        // Not the part asked for: start over.
        res.body.destroy()
        this.restart()
        return 'again'
      }
      if (range[3] !== '*') this.expected = Number(range[3])
      append = true
      this.resumed = true
    } else {
      const length = this.encoded ? undefined : header(res, 'content-length')
      this.expected = length === undefined ? undefined : Number(length)
      this.written = 0
    }
    this.noteVersion(res, !append)
    this.cut = await this.write(res, append)
    if (this.cut !== undefined) return 'cut'
    const size = statSync(this.part).size
    if (this.expected !== undefined && size < this.expected) {
      this.written = size
      return 'short'
    }
    return 'complete'
  }

  /**
   * After a cut, or a file that came out short: the client's RetryPolicy says
   * whether to resume (a GET resent, as after a reset connection), and when.
   * A cut with no try left fails here; a short file answers false.
   */
  async mayResume(step: 'cut' | 'short'): Promise<boolean> {
    const code = step === 'cut' ? describeNetworkFailure(this.cut, undefined).code : 'ECONNRESET'
    const decision = this.ctx.client.retryPolicy.decide({
      failure: {kind: 'network', code, neverSent: false},
      idempotent: true,
      retries: this.cuts++,
      command: this.ctx.client.budget.state(),
    })
    if (!this.opts.signal?.aborted && decision.retry) {
      // What a compressed answer left is resumed from nowhere the host knows.
      if (this.encoded) this.restart()
      this.ctx.client.budget.addFailing(decision.waitMs)
      await sleep(decision.waitMs, this.opts.signal)
      return true
    }
    if (step === 'short') return false
    throw new DownloadError(
      `Downloading ${this.target.fileName} was cut off after ${this.written} bytes: ${this.mask(code)}`,
    )
  }

  finish(): DownloadedFile {
    const size = statSync(this.part).size
    if (this.expected !== undefined && size !== this.expected) {
      this.restart()
      throw new DownloadError(
        `${this.target.fileName}: the file host announced ${this.expected} bytes but ${size} were written; the partial file was removed.`,
      )
    }
    if (!this.opts.force && existsSync(this.target.path)) {
      throw new InputError(`Not overwriting ${this.target.path}: pass --force to replace it.`)
    }
    try {
      renameSync(this.part, this.target.path)
    } catch (error) {
      throw this.cannotWrite(error, this.target.path)
    }
    rmSync(this.record, {force: true})
    return {
      fileName: this.target.fileName,
      path: this.target.path,
      bytes: size,
      ...(this.expected === undefined ? {} : {expectedBytes: this.expected}),
      links: this.links,
      resumed: this.resumed,
    }
  }

  /** The answer to a GET of the link (from where the partial file stops); undefined to ask again at once. */
  private async open(): Promise<StreamResponse | undefined> {
    try {
      return await this.ctx.client.stream({
        url: this.url,
        ...(this.written > 0
          ? {
              headers: {
                range: `bytes=${this.written}-`,
                ...(this.version === undefined ? {} : {'if-range': this.version}),
              },
            }
          : {}),
        ...(this.opts.signal ? {signal: this.opts.signal} : {}),
      })
    } catch (error) {
      if (!(error instanceof ApiError) || error.status === undefined) {
        const why = error instanceof ApiError ? (error.serverMessage ?? error.message) : String(error)
        throw new DownloadError(`Downloading ${this.target.fileName} from ${this.shown()} failed: ${this.mask(why)}`)
      }
      const message = this.mask(error.serverMessage ?? `HTTP ${error.status}`)
      if (error.status === 403 && /expired/i.test(message) && this.relinks < (this.opts.maxRelinks ?? 3)) {
        this.relinks++
        this.url = await this.issue()
        this.links++
        return undefined
      }
      if (error.status === 416 && this.written > 0) {
        // The partial file does not fit the file any more: start over.
        this.restart()
        return undefined
      }
      if (error.status === 403) throw new DownloadError(`The file host refused ${this.shown()} (403): ${message}`)
      throw new DownloadError(`The file host answered ${error.status} for ${this.shown()}: ${message}`)
    }
  }

  /**
   * Appends the body to the partial file chunk by chunk, so that when the
   * transfer breaks, what arrived is on the disk and the next request resumes
   * from there. Answers the failure that cut it, if any.
   */
  private async write(res: StreamResponse, append: boolean): Promise<unknown> {
    const writer = createWriteStream(this.part, {flags: append ? 'a' : 'w', mode: 0o644})
    const body = decodedStream(res.body, res.headers)
    // A disk that fails (no space, no permission) ends the transfer: nothing to resume.
    let diskError: unknown
    writer.on('error', (error) => {
      diskError ??= error
      body.destroy()
    })
    let failure: unknown
    try {
      for await (const chunk of body) {
        const buf = chunk as Buffer
        this.written += buf.length
        this.opts.onProgress?.({
          fileName: this.target.fileName,
          transferred: this.written,
          ...(this.expected === undefined ? {} : {total: this.expected}),
        })
        if (!writer.write(buf)) await once(writer, 'drain')
      }
    } catch (error) {
      failure = error
    }
    if (!writer.destroyed) {
      await new Promise<void>((done) =>
        writer.end((error?: Error | null) => {
          diskError ??= error ?? undefined
          done()
        }),
      )
    }
    if (diskError !== undefined) throw this.cannotWrite(diskError, this.part)
    if (failure !== undefined) this.written = statSync(this.part).size
    return failure
  }

  /** A DownloadError for a file that could not be written: the partial file removed, and said so. */
  private cannotWrite(error: unknown, path: string): DownloadError {
    const partial = statSync(this.part, {throwIfNoEntry: false})?.isFile() ?? false
    if (partial) rmSync(this.part, {force: true})
    rmSync(this.record, {force: true})
    const removed = partial ? '; the partial file was removed' : ''
    return new DownloadError(`Cannot write ${path}: ${fileReason(error, true)}${removed}.`)
  }

  /** Whether the answer is compressed (it is then decompressed); a DownloadError for a coding mfg cannot undo. */
  private checkCoding(res: StreamResponse): boolean {
    const coding = unknownCoding(res.headers)
    if (coding !== undefined) {
      res.body.destroy()
      throw new DownloadError(
        `The file host sent ${this.target.fileName} in a content coding mfg cannot read (${coding}).`,
      )
    }
    return codingsOf(res.headers).length > 0
  }

  private restart(): void {
    this.written = 0
    this.version = undefined
    rmSync(this.part, {force: true})
    rmSync(this.record, {force: true})
  }

  /** The version an earlier run's partial file of the same source is of; undefined when there is none to trust. */
  private earlierVersion(): string | undefined {
    try {
      const kept = JSON.parse(readFileSync(this.record, 'utf8')) as {source?: unknown; version?: unknown}
      return kept.source === this.opts.source && typeof kept.version === 'string' ? kept.version : undefined
    } catch {
      return undefined
    }
  }

  /** Notes the version the host named for the bytes about to be written (with `source`), so another run can resume them. */
  private noteVersion(res: StreamResponse, whole: boolean): void {
    const etag = header(res, 'etag')
    const version = etag !== undefined && !etag.startsWith('W/') ? etag : header(res, 'last-modified')
    // A range of another version would have been refused (If-Range): the bytes before it are of this one.
    if (whole || this.version === undefined) this.version = version
    if (this.opts.source === undefined) return
    try {
      if (this.version === undefined || this.encoded) rmSync(this.record, {force: true})
      else writeFileSync(this.record, `${JSON.stringify({source: this.opts.source, version: this.version})}\n`)
    } catch {
      // Only a later run's resuming needs it: without it, that run starts the file over.
      rmSync(this.record, {force: true})
    }
  }

  private shown(): string {
    return maskLink(this.url)
  }

  /** A message with the link's signature (and any other secret) masked. */
  private mask(text: string): string {
    return redact(text.replaceAll(this.url, this.shown()))
  }
}

function header(res: StreamResponse, name: string): string | undefined {
  const v = res.headers[name]
  return Array.isArray(v) ? v[0] : v
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
    const file = await downloadFile(ctx, target, demandFileIssuer(ctx, demandId, target, targets.length > 1), {
      // A partial file an interrupted run left of this file is resumed (when the host names its version).
      source: target.fileLink.split(/[?#]/)[0]!,
      ...(opts.force ? {force: true} : {}),
      ...(opts.onProgress ? {onProgress: opts.onProgress} : {}),
      ...(opts.signal ? {signal: opts.signal} : {}),
    })
    opts.onFileDone?.(file)
    done.push(file)
  }
  return done
}
