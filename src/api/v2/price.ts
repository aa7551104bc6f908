import {CURRENCIES} from '../../schemas/common.js'
import {ALLOWANCE_HEADER} from '../../schemas/pricing.js'
import {LegacyEstimationAnswerRead} from '../../schemas/read/pricing.js'
import {ValidationError} from '../errors.js'
import type {ApiClient} from '../http.js'
import {parseResponse, segment} from '../parse.js'
import type {LegacyEstimationAnswer} from '../../schemas/read/types.js'

const BASE = '/api/v2/ms-machine-learning/machine-learing/modelPriceEstimation'

export interface LegacyEstimation {
  /** One `{message, data: {price}}` per model, in order. */
  answers: LegacyEstimationAnswer
  /** `X-Daily-Allowance-Remaining`, when the service sent it. */
  allowanceRemaining?: number
}

/**
 * POST .../modelPriceEstimation/{businessId}?currency=CODE with `[{model}, ...]`.
 * A currency outside the 22 codes is refused before sending.
 */
export async function estimatePriceLegacy(
  client: ApiClient,
  businessId: string,
  models: unknown[],
  currency: string,
  opts: {signal?: AbortSignal} = {},
): Promise<LegacyEstimation> {
  const path = `${BASE}/${segment(businessId, 'businessId', 'POST', `${BASE}/{businessId}`)}`
  if (!(CURRENCIES as readonly string[]).includes(currency)) {
    throw new ValidationError({
      method: 'POST',
      path,
      clientSide: true,
      serverMessage: `currency must be one of ${CURRENCIES.join(', ')}, got ${JSON.stringify(currency)}; nothing was sent`,
    })
  }
  // An estimate changes nothing on the service (a retry may count against the daily allowance).
  const res = await client.request({
    method: 'POST',
    path,
    retry: 'safe',
    query: {currency},
    body: models.map((model) => ({model})),
    ...(opts.signal ? {signal: opts.signal} : {}),
  })
  const header = res.headers[ALLOWANCE_HEADER]
  const remaining = Number(Array.isArray(header) ? header[0] : header)
  return {
    answers: parseResponse(LegacyEstimationAnswerRead, res.body, 'POST', path, res.status, client),
    ...(header !== undefined && Number.isFinite(remaining) ? {allowanceRemaining: remaining} : {}),
  }
}
