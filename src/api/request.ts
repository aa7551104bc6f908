import {BlockList, isIP} from 'node:net'

import {redact} from '../schemas/secrets.js'
import {AuthenticationError, InsecureTransportError, ValidationError} from './errors.js'
import type {MultipartBody} from './multipart.js'
import type {HttpMethod, RequestOptions} from './types.js'

export type Generation = 'v1' | 'v2' | 'mcp'

/** The MCP endpoint sits under /api/v2/ but takes the v1 key only (interface, Authentication 3). */
const MCP_PREFIX = '/api/v2/ms-integrations/api/public/v1/mcp'

/** Which credentials a path needs: v2 paths the key and the auth token, others the key. */
export function generationOf(path: string): Generation {
  if (path.startsWith(MCP_PREFIX)) return 'mcp'
  if (path.startsWith('/api/v2/')) return 'v2'
  return 'v1'
}

/** A request ready for a transport: every header set, the body serialised. */
export interface PreparedRequest {
  method: HttpMethod
  url: URL
  /** The path as logs and errors show it: relative to the base URL, with its query. */
  shownPath: string
  headers: Record<string, string>
  body?: string | Buffer | MultipartBody
  /** Whether a resend is harmless: a GET, PUT or DELETE, a request with an Idempotency-Key, or one marked `retry: 'safe'`. */
  idempotent: boolean
  /** A write (a POST not marked `retry: 'safe'`): an error answer does not show it was not carried out. */
  writes?: boolean
}

/** What every request of one client shares. */
export interface RequestContext {
  baseUrl: string
  apiKey?: string
  authToken?: string
  userAgent: string
  insecure: boolean
  secrets: readonly (string | undefined)[]
}

const SAFE_METHODS = new Set<string>(['GET', 'PUT', 'DELETE', 'HEAD', 'OPTIONS'])

/**
 * Builds a request to the service, for either API generation and for MCP:
 * the URL and its query, the credentials the path's generation needs (refused
 * before sending when missing), the Idempotency-Key, the user agent, the body
 * as JSON (a string or Buffer goes as is, a MultipartBody with its type and length), and the refusal to send
 * credentials over plain http to another machine.
 */
export function prepareRequest(ctx: RequestContext, req: RequestOptions): PreparedRequest {
  const method = req.method.toUpperCase() as HttpMethod
  if (!req.path.startsWith('/')) {
    throw new ValidationError({
      method,
      path: req.path,
      serverMessage: 'the request path must start with /',
      clientSide: true,
      secrets: ctx.secrets,
    })
  }
  const url = new URL(ctx.baseUrl + req.path)
  for (const [key, value] of Object.entries(req.query ?? {})) {
    if (value === undefined) continue
    if (typeof value !== 'object') {
      url.searchParams.set(key, String(value))
      continue
    }
    url.searchParams.delete(key)
    for (const item of value) url.searchParams.append(key, item)
  }
  const basePath = new URL(ctx.baseUrl).pathname.replace(/\/$/, '')
  const shownPath = url.pathname.slice(basePath.length) + url.search
  const headers: Record<string, string> = {
    accept: 'application/json',
    'accept-encoding': 'gzip, deflate, br',
    'user-agent': ctx.userAgent,
    ...credentials(ctx, generationOf(req.path), method, shownPath),
  }
  if (req.idempotencyKey !== undefined) headers['idempotency-key'] = req.idempotencyKey
  for (const [name, value] of Object.entries(req.headers ?? {})) headers[name.toLowerCase()] = value
  if (!ctx.insecure) refuseCleartext(ctx, url, headers, method, shownPath)
  const prepared: PreparedRequest = {
    method,
    url,
    shownPath,
    headers,
    idempotent: SAFE_METHODS.has(method) || req.idempotencyKey !== undefined || req.retry === 'safe',
    ...(!SAFE_METHODS.has(method) && req.retry !== 'safe' ? {writes: true} : {}),
  }
  if (req.body !== undefined) {
    if (typeof req.body === 'string' || Buffer.isBuffer(req.body)) {
      prepared.body = req.body
    } else if (isMultipart(req.body)) {
      prepared.body = req.body
      headers['content-type'] = req.body.contentType
      headers['content-length'] = String(req.body.length)
    } else {
      prepared.body = JSON.stringify(req.body)
      headers['content-type'] ??= 'application/json'
    }
  }
  return prepared
}

/**
 * A GET to a signed link on the file host: no credentials (the link is the
 * permission), asking for no content coding (so byte counts and ranges are the file's own).
 */
export function prepareDownload(ctx: Pick<RequestContext, 'userAgent'>, link: string, headers = {}): PreparedRequest {
  let url: URL
  try {
    url = new URL(link)
  } catch {
    throw new ValidationError({method: 'GET', path: '-', serverMessage: 'the file link is not a URL', clientSide: true})
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ValidationError({
      method: 'GET',
      path: '-',
      serverMessage: `the file link must be http:// or https://, got ${url.protocol}`,
      clientSide: true,
    })
  }
  return {
    method: 'GET',
    url,
    shownPath: `${url.origin}${url.pathname}`,
    headers: {'user-agent': ctx.userAgent, 'accept-encoding': 'identity', ...headers},
    idempotent: true,
  }
}

function credentials(
  ctx: RequestContext,
  generation: Generation,
  method: HttpMethod,
  shownPath: string,
): Record<string, string> {
  const missing: string[] = []
  if (!ctx.apiKey) missing.push('API key')
  if (generation === 'v2' && !ctx.authToken) missing.push('auth token')
  if (missing.length > 0) {
    const flags = missing.map((m) => (m === 'API key' ? '--api-key' : '--auth-token')).join(' ')
    const vars = missing.map((m) => (m === 'API key' ? 'MFG_API_KEY' : 'MFG_AUTH_TOKEN')).join(' and ')
    const hint =
      generation === 'v2'
        ? `v2 calls need the API key and the auth token; set ${missing.length > 1 ? 'them' : 'it'} with mfg profile add ${flags} or ${vars}`
        : 'set it with mfg profile add --api-key or MFG_API_KEY'
    throw new AuthenticationError({
      method,
      path: shownPath,
      code: 'missing_credentials',
      secrets: ctx.secrets,
      serverMessage: `no ${missing.join(' and no ')}: ${hint}`,
    })
  }
  unsendable('API key', ctx.apiKey!, '--api-key', 'MFG_API_KEY', {method, path: shownPath, secrets: ctx.secrets})
  if (generation === 'v2')
    unsendable('auth token', ctx.authToken!, '--auth-token', 'MFG_AUTH_TOKEN', {
      method,
      path: shownPath,
      secrets: ctx.secrets,
    })
  const headers: Record<string, string> = {authorization: `Bearer ${ctx.apiKey}`}
  if (generation === 'v2') headers['x-auth-token'] = ctx.authToken as string
  return headers
}

/** Where a header value holds what HTTP forbids there (control characters but the tab, anything past Latin-1); -1 if nowhere. */
function badHeaderChar(value: string): number {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if ((c < 0x20 && c !== 0x09) || c === 0x7f || c > 0xff) return i
  }
  return -1
}

/**
 * A key or token no header can carry (a line break inside it: a password manager's entry
 * pasted whole, the key and the user name below it) is refused before sending, saying
 * where it breaks; Node would fail the request with "Invalid character in header content",
 * read as a network error that may have reached the service.
 */
function unsendable(
  what: string,
  value: string,
  flag: string,
  variable: string,
  site: {method: HttpMethod; path: string; secrets: readonly (string | undefined)[]},
): void {
  const at = badHeaderChar(value)
  if (at < 0) return
  const char = String.fromCodePoint(value.codePointAt(at)!)
  const named =
    char === '\n' || char === '\r'
      ? 'a line break'
      : char.charCodeAt(0) < 0x20 || char === '\u007f'
        ? 'a control character'
        : `the character ${JSON.stringify(char)}`
  throw new AuthenticationError({
    ...site,
    code: 'invalid_credentials',
    serverMessage: `the ${what} holds ${named} after its first ${at} characters, which a request header cannot carry (was more than the ${what} pasted?); nothing was sent. Set it again with mfg profile add ${flag} or ${variable}`,
  })
}

/** Credentials never leave over plain http for another machine unless `insecure` says so. */
function refuseCleartext(
  ctx: RequestContext,
  url: URL,
  headers: Record<string, string>,
  method: HttpMethod,
  shownPath: string,
): void {
  if (url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return
  const carried = [
    ...(headers.authorization !== undefined ? ['API key'] : []),
    ...(headers['x-auth-token'] !== undefined ? ['auth token'] : []),
  ]
  if (carried.length === 0) return
  const host = url.port === '' ? url.hostname : `${url.hostname}:${url.port}`
  throw new InsecureTransportError({
    method,
    path: shownPath,
    host,
    secrets: ctx.secrets,
    serverMessage: `refusing to send the ${carried.join(' and the ')} over plain http to ${host}: ${carried.length > 1 ? 'they' : 'it'} would travel in clear. Use an https:// base URL, or pass --insecure (or set MFG_INSECURE=1) to send anyway on a network you trust; nothing was sent`,
  })
}

const LOOPBACK = new BlockList()
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4')
LOOPBACK.addAddress('::1', 'ipv6')

/**
 * Whether a URL's hostname is this machine: `localhost`, 127.0.0.0/8 or ::1
 * (IPv4-mapped forms included). Any other name counts as remote, even one that
 * happens to resolve to a loopback address: the check is made before any lookup.
 */
export function isLoopbackHost(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '')
  if (name === 'localhost') return true
  const bare = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name
  const family = isIP(bare)
  if (family === 4) return LOOPBACK.check(bare, 'ipv4')
  if (family === 6) return LOOPBACK.check(bare, 'ipv6')
  return false
}

/**
 * Whether a body is a MultipartBody (multipart.ts), told by its tag, so that a
 * process that sends only JSON loads none of it.
 */
export function isMultipart(value: unknown): value is MultipartBody {
  return Object.prototype.toString.call(value) === '[object MultipartBody]'
}

/** Strips trailing slashes; throws a client-side ValidationError for a non-http(s) URL. */
export function normaliseBaseUrl(raw: string): string {
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    throw new ValidationError({
      method: '-',
      path: '-',
      serverMessage: `the base URL ${JSON.stringify(redact(raw))} is not a URL`,
      clientSide: true,
    })
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ValidationError({
      method: '-',
      path: '-',
      serverMessage: `the base URL must start with http:// or https://, got ${url.protocol}`,
      clientSide: true,
    })
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`
}
