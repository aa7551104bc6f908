// What `file link` prints of an issued link: the signature stays hidden unless
// asked for, and a link served by the embedded sandbox is said to be short-lived.
import type {IssuedLink} from '../services/files/link.js'
import {given} from '../util/fields.js'

/** `file link --json`: the link, its token, the file and when it expires. */
export interface LinkResult {
  url: string
  token: string
  fileName: string
  expiresAt?: string
}

export function linkResult(link: IssuedLink): LinkResult {
  return {url: link.url, token: link.token, fileName: link.fileName, ...given({expiresAt: link.expiresAt})}
}

/** The line shown without --show-url: the file and the link without its signature. */
export function linkLine(link: IssuedLink): string {
  return `Link issued for ${link.fileName || 'the file'} at ${link.shownUrl}${link.expiresAt ? `, expires ${link.expiresAt}` : ''} (signature hidden; --show-url or --json prints it).`
}

/**
 * The warning for a link of the embedded sandbox, which runs in this process: its
 * port closes when the command exits.
 */
export function embeddedLinkWarning(demandId: string | undefined): string {
  return `the embedded sandbox serving this link stops when this command exits, so the link will not open. To save the file now: mfg file download ${demandId ?? 'DEMAND_ID'}. For links that open: run mfg sandbox serve --port 4010 in another terminal (the same data, served until Ctrl-C) and point mfg at it with MFG_BASE_URL=http://127.0.0.1:4010 and the MFG_API_KEY and MFG_BUSINESS_ID it prints (--show-secrets)`
}
