import type {QuoteModelPublicDto} from '../../schemas/pricing.js'
import {EstimationAnswerRead} from '../../schemas/read/pricing.js'
import type {ApiClient} from '../http.js'
import {parseResponse, segment} from '../parse.js'
import type {EstimationAnswer} from '../../schemas/read/types.js'

const BASE = '/api/public/v1/price-estimation'

/**
 * POST /api/public/v1/price-estimation/{businessId}. `currency` is a sandbox
 * extension ([ext], docs/pricing.md): sent only when given; the real service
 * answers in the business's currency.
 */
export async function estimatePrice(
  client: ApiClient,
  businessId: string,
  body: QuoteModelPublicDto | Record<string, unknown>,
  opts: {currency?: string; signal?: AbortSignal} = {},
): Promise<EstimationAnswer> {
  const path = `${BASE}/${segment(businessId, 'businessId', 'POST', `${BASE}/{businessId}`)}`
  // An estimate changes nothing on the service: safe to send again after any failure.
  const res = await client.request({
    method: 'POST',
    path,
    body,
    retry: 'safe',
    ...(opts.currency ? {query: {currency: opts.currency}} : {}),
    ...(opts.signal ? {signal: opts.signal} : {}),
  })
  return parseResponse(EstimationAnswerRead, res.body, 'POST', path, res.status, client)
}
