import {z} from 'zod'

import type {ApiClient} from '../http.js'
import {parseResponse, segment} from '../parse.js'

/** A legacy demand record; only the id is relied on, every other field is kept as sent. */
export const LegacyDemandRecord = z.looseObject({
  _id: z.string(),
  status: z.string().optional(),
})
export type LegacyDemandRecord = z.infer<typeof LegacyDemandRecord>

const BASE = '/api/v2/ms-machine-owner/demand'

/** GET /api/v2/ms-machine-owner/demand/{id}. */
export async function getLegacyDemand(
  client: ApiClient,
  id: string,
  opts: {signal?: AbortSignal} = {},
): Promise<LegacyDemandRecord> {
  const path = `${BASE}/${segment(id, 'demand id', 'GET', `${BASE}/{id}`)}`
  const res = await client.request({method: 'GET', path, ...(opts.signal ? {signal: opts.signal} : {})})
  return parseResponse(LegacyDemandRecord, res.body, 'GET', path, res.status)
}
