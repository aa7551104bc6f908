import {getDemand} from '../../api/v1/demands.js'
import {accessFile} from '../../api/v1/files.js'
import {accessStorage} from '../../api/v2/files.js'
import type {ServiceContext} from '../context.js'
import {InputError} from '../errors.js'
import type {FileGrant} from '../../schemas/read/types.js'

type Ctx = Pick<ServiceContext, 'client'>

/** A signed link with what can be shown of it without the signature. */
export interface IssuedLink {
  /** The full signed link: the signature is the access, so print it only when asked. */
  url: string
  token: string
  fileName: string
  /** ISO time the link stops working, when the link says. */
  expiresAt?: string
  /** The link without its query (no signature): safe to show. */
  shownUrl: string
}

export function describeGrant(grant: FileGrant): IssuedLink {
  let fileName = ''
  let shownUrl = '(link)'
  let expiresAt: string | undefined
  try {
    const u = new URL(grant.url)
    fileName = decodeURIComponent(u.pathname.split('/').pop() ?? '')
    shownUrl = `${u.origin}${u.pathname}`
    const expires = Number(u.searchParams.get('expires'))
    if (u.searchParams.has('expires') && Number.isFinite(expires)) expiresAt = new Date(expires * 1000).toISOString()
  } catch {
    // An unreadable URL keeps the defaults; it is never shown.
  }
  return {url: grant.url, token: grant.token, fileName, shownUrl, ...(expiresAt ? {expiresAt} : {})}
}

/** Masks the signature (and any other query) of a link for messages: keeps origin and path only. */
export function maskLink(url: string): string {
  try {
    const u = new URL(url)
    return `${u.origin}${u.pathname}${u.search ? '?…' : ''}`
  } catch {
    return url.replace(/\?.*$/, '?…')
  }
}

/** A stored file URL as sent to access-storage: a signed link's query (its signature) is dropped. */
export function storageLinkOf(link: string): string {
  const trimmed = link.trim()
  if (trimmed === '') throw new InputError('--file-link must not be empty.')
  try {
    const u = new URL(trimmed)
    if (u.searchParams.has('signature') || u.searchParams.has('expires')) return `${u.origin}${u.pathname}`
  } catch {
    throw new InputError(`--file-link must be a URL, got ${JSON.stringify(trimmed)}.`)
  }
  return trimmed
}

/** v1 `access/file/{demandId}`: a link to one of the demand's files (the first unless one is named). */
export async function demandFileLink(
  ctx: Ctx,
  demandId: string,
  pick: {fileName?: string; index?: number} = {},
): Promise<IssuedLink> {
  if (pick.fileName !== undefined && pick.index !== undefined)
    throw new InputError('Pass --file-name or --index, not both.')
  return describeGrant(await accessFile(ctx.client, demandId, pick))
}

/** Legacy `access-storage?fileLink=`: a link to a stored file URL. */
export async function storageFileLink(ctx: Ctx, fileLink: string): Promise<IssuedLink> {
  const grants = await accessStorage(ctx.client, storageLinkOf(fileLink))
  const first = grants[0]
  if (!first) throw new Error('the service answered no link for this file')
  return describeGrant(first)
}

/**
 * demandFileLink named as the demand names the file (its quote-model fileName), not
 * as the file host stores it (a stored name may have lost its letters: `_-only.stl`).
 * Without --file-name the demand is read for it; when that fails or the link is not
 * to the file expected, the stored name stays.
 */
export async function namedDemandFileLink(
  ctx: Ctx,
  demandId: string,
  pick: {fileName?: string; index?: number} = {},
): Promise<IssuedLink> {
  const link = await demandFileLink(ctx, demandId, pick)
  if (pick.fileName !== undefined) return {...link, fileName: pick.fileName}
  const demand = await getDemand(ctx.client, demandId).catch(() => undefined)
  const items = (Array.isArray(demand?.quoteModel) ? demand.quoteModel : []) as Record<string, unknown>[]
  const item = items.filter((i) => typeof i.fileLink === 'string' && i.fileLink !== '')[pick.index ?? 0]
  const named = item && typeof item.fileName === 'string' && item.fileName !== ''
  return named && pathMatches(link.url, item.fileLink as string) ? {...link, fileName: item.fileName as string} : link
}

/** Whether a signed link is to a stored file URL (its path ends with the stored one's). */
export function pathMatches(signed: string, stored: string): boolean {
  try {
    return new URL(signed).pathname.endsWith(new URL(stored).pathname)
  } catch {
    return false
  }
}
