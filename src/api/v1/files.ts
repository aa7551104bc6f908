import {FileGrantRead} from '../../schemas/read/posts.js'
import type {ApiClient} from '../http.js'
import {parseResponse, segment} from '../parse.js'
import type {FileGrant} from '../../schemas/read/types.js'

const BASE = '/api/public/v1/demand/access/file'

export interface AccessFileQuery {
  /** The quote-model item's fileName (sandbox: picks one of several files). */
  fileName?: string
  /** 0-based index over the demand's files (sandbox). */
  index?: number
}

/** GET /api/public/v1/demand/access/file/{demandId}: a signed link `{url, token}`, valid 30 minutes. */
export async function accessFile(
  client: ApiClient,
  demandId: string,
  q: AccessFileQuery = {},
  opts: {signal?: AbortSignal} = {},
): Promise<FileGrant> {
  const path = `${BASE}/${segment(demandId, 'demand id', 'GET', `${BASE}/{demandId}`)}`
  const res = await client.request({
    method: 'GET',
    path,
    query: {fileName: q.fileName, index: q.index},
    ...(opts.signal ? {signal: opts.signal} : {}),
  })
  return parseResponse(FileGrantRead, res.body, 'GET', path, res.status, client)
}
