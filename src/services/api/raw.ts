import {ApiError} from '../../api/errors.js'
import {generationOf, type ApiClient, type HttpMethod} from '../../api/http.js'
import {paginateV1, type PaginateOptions} from '../../api/paginate.js'
import {InputError} from '../errors.js'
import {fieldsQuery, fillBusinessId} from './fields.js'

export {fieldPairs, parseFields, type FieldPair} from './fields.js'

export const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const

export interface RawRequestInput {
  method: HttpMethod
  path: string
  /** `-F`/`-f` fields, already built (parseFields): the body, or the query of a GET or DELETE. */
  fields?: Record<string, unknown>
  /** `--input`: the raw body text. */
  input?: string
  headers?: Record<string, string>
  /** Follow v1 list pages and merge their `data` into one array. */
  paginate?: boolean
  /**
   * With `paginate`: hand the items out as they come (RawResponse.items) rather than
   * gathered; `signal` stops the listing, `beforePage` is awaited before each page after the first.
   */
  stream?: Pick<PaginateOptions<unknown>, 'signal' | 'beforePage'>
  /** With `paginate`: told each page's status and headers as it comes (`--include`). */
  onPage?: PaginateOptions<unknown>['onPage']
  /** Replaces `{businessId}` in the path (the command fills -F values itself, with parseFields). */
  businessId?: string
}

export interface RawResponse {
  status: number
  ok: boolean
  headers: Record<string, string | string[] | undefined>
  body: unknown
  /** The mapped error of a non-2xx answer (for the exit code). */
  error?: ApiError
  /** With `stream`: the list's items, fetched page by page as they are read; a failed page is thrown there. */
  items?: AsyncIterable<unknown>
}

/** `-H 'Name: value'` → {name: value}. */
export function parseHeaders(lines: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    if (colon <= 0) throw new InputError(`-H/--header expects "Name: value", got ${JSON.stringify(line)}.`)
    out[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  return out
}

/**
 * The path to send: `{businessId}` filled in, a leading / added, and a full URL
 * taken down to its path when it is on the profile's service. A URL anywhere
 * else is refused: the profile's credentials go to its own service only.
 */
function requestPath(baseUrl: string, given: string, businessId: string | undefined): string {
  const filled = fillBusinessId(given, businessId, 'the path', encodeURIComponent)
  if (!/^[a-z][a-z\d+.-]*:/i.test(filled)) return filled.startsWith('/') ? filled : `/${filled}`
  const base = new URL(baseUrl)
  const basePath = base.pathname.replace(/\/$/, '')
  const url = URL.canParse(filled) ? new URL(filled) : undefined
  const onService =
    url !== undefined &&
    url.origin === base.origin &&
    url.username === '' &&
    url.password === '' &&
    url.pathname.startsWith(`${basePath}/`)
  if (url && onService) return url.pathname.slice(basePath.length) + url.search
  const shown = url && url.origin !== 'null' ? `${url.origin}${url.pathname}` : JSON.stringify(filled.split(/[?#]/)[0])
  throw new InputError(
    `PATH: ${shown} is not under the profile's base URL ${baseUrl}; give a path (/api/...) or a full URL under that base URL (mfg api sends the profile's credentials nowhere else).`,
  )
}

/** --paginate follows v1 list pages (GET, `{data, page, totalPages}`); any other request is refused before it is sent. */
function checkPaginate(method: HttpMethod, path: string): void {
  if (method !== 'GET') throw new InputError('--paginate works with GET on v1 lists only.')
  const generation = generationOf(path)
  if (generation !== 'v1')
    throw new InputError(
      `--paginate follows the pages of v1 lists (/api/public/v1/...) only; ${path.split('?')[0]} is a ${generation} path, whose answers are not v1 pages. Leave --paginate out (ask for a page with the endpoint's own fields, e.g. -F currentPage=2 on the v2 posts list).`,
    )
}

/**
 * Sends one request as given, with the profile's credentials. A non-2xx
 * answer is returned (ok false) with the service's error body, not thrown,
 * so the caller can print it like any other body.
 */
export async function rawRequest(client: ApiClient, input: RawRequestInput): Promise<RawResponse> {
  const path = requestPath(client.baseUrl, input.path, input.businessId)
  if (input.paginate) checkPaginate(input.method, path)
  const hasBody = input.method !== 'GET' && input.method !== 'DELETE'
  const fields = input.fields ?? {}
  let body: unknown
  if (input.input !== undefined) {
    if (Object.keys(fields).length > 0 && hasBody)
      throw new InputError('use either --input or -f/--field for the body, not both.')
    body = input.input
  } else if (hasBody && Object.keys(fields).length > 0) {
    body = fields
  }
  const query = hasBody ? {} : fieldsQuery(fields)
  const headers = {...input.headers}
  if (typeof body === 'string') headers['content-type'] ??= 'application/json'
  try {
    if (input.paginate) {
      const pages = paginateV1<unknown>(client, path, query, {
        // A page size among the fields is the user's; pages of 100 (the most v1 gives) otherwise.
        ...(query.pageSize === undefined ? {pageSize: 100} : {}),
        narrow: 'its query fields (-f status=...)',
        ...(input.stream?.signal ? {signal: input.stream.signal} : {}),
        ...(input.stream?.beforePage ? {beforePage: input.stream.beforePage} : {}),
        ...(input.onPage ? {onPage: input.onPage} : {}),
      })
      if (input.stream) return {status: 200, ok: true, headers: {}, body: undefined, items: pages}
      const items: unknown[] = []
      for await (const item of pages) items.push(item)
      return {status: 200, ok: true, headers: {}, body: items}
    }
    const res = await client.request({
      method: input.method,
      path,
      ...(Object.keys(query).length > 0 ? {query} : {}),
      ...(body === undefined ? {} : {body}),
      ...(Object.keys(headers).length > 0 ? {headers} : {}),
    })
    return {status: res.status, ok: true, headers: res.headers, body: res.body}
  } catch (error) {
    const failed = failedResponse(error)
    if (failed) return failed
    throw error
  }
}

/** A service's refusal (an ApiError with a status) as the answer it was, to print like any other; undefined for other errors. */
export function failedResponse(error: unknown): RawResponse | undefined {
  if (!(error instanceof ApiError) || error.status === undefined) return undefined
  const body = error.body ?? {
    statusCode: error.status,
    message: error.serverMessage ?? error.message,
    ...(error.details?.length ? {details: error.details} : {}),
  }
  return {status: error.status, ok: false, headers: error.headers ?? {}, body, error}
}

/** The items of `--paginate` as they come (`input.stream` given): rawRequest's list, read lazily. */
export async function* paginated(client: ApiClient, input: RawRequestInput): AsyncGenerator<unknown> {
  const listed = await rawRequest(client, input)
  if (listed.items === undefined) throw listed.error ?? new Error('the listing gave no items')
  yield* listed.items
}
