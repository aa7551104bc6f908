import {FileGrantsRead} from '../../schemas/read/posts.js'
import {ValidationError} from '../errors.js'
import type {ApiClient} from '../http.js'
import {parseResponse} from '../parse.js'
import type {FileGrant} from '../../schemas/read/types.js'

const PATH = '/api/v2/ms-machine-owner/demand/access-storage'

/** GET /api/v2/ms-machine-owner/demand/access-storage?fileLink=: `[{url, token}]` for a stored file URL. */
export async function accessStorage(
  client: ApiClient,
  fileLink: string,
  opts: {signal?: AbortSignal} = {},
): Promise<FileGrant[]> {
  if (fileLink.trim() === '') {
    throw new ValidationError({
      method: 'GET',
      path: PATH,
      clientSide: true,
      serverMessage: 'fileLink must not be empty',
    })
  }
  const res = await client.request({
    method: 'GET',
    path: PATH,
    query: {fileLink: fileLink.trim()},
    ...(opts.signal ? {signal: opts.signal} : {}),
  })
  return parseResponse(FileGrantsRead, res.body, 'GET', PATH, res.status, client)
}
