import type {FastifyInstance, FastifyReply} from 'fastify'

import {CURRENCIES, issuesToDetails, type ErrorDetail} from '../../schemas/common.js'
import {
  ALLOWANCE_HEADER,
  LEGACY_REQUIRED_FIELDS,
  LegacyEstimationBody,
  QuoteModelPublicDto,
} from '../../schemas/pricing.js'
import {ownBusiness, v1Auth, v2Auth} from '../auth.js'
import {ApiError, badRequest} from '../errors.js'
import {catalogOf, estimate, isCurrency, PricingInputError, type Estimate} from '../pricing.js'
import {DAILY_ESTIMATION_ALLOWANCE, secondsToUtcMidnight, utcDay} from '../store/allowance.js'
import type {SandboxContext} from '../context.js'

export const V1_ESTIMATION_PATH = '/api/public/v1/price-estimation/:businessId'
export const LEGACY_ESTIMATION_PATH = '/api/v2/ms-machine-learning/machine-learing/modelPriceEstimation/:businessId'

/** The currency query: required on the legacy route, optional ([ext]) on v1. */
function currencyOf(raw: unknown, fallback: string | undefined): string {
  if ((raw === undefined || raw === '') && fallback) return fallback
  const code = typeof raw === 'string' ? raw.trim().toUpperCase() : ''
  if (isCurrency(code)) return code
  const what =
    raw === undefined || raw === ''
      ? 'The currency query parameter is required'
      : `Unknown currency ${JSON.stringify(raw)}`
  throw badRequest(`${what}; use one of ${CURRENCIES.join(', ')}.`, [
    {path: 'currency', message: `must be one of ${CURRENCIES.map((c) => JSON.stringify(c)).join(', ')}`},
  ])
}

/**
 * The legacy body's problems: a missing required model field says "is required"
 * (zod would list an enum's values instead), then every other schema issue.
 */
function legacyDetails(body: unknown, issues: ErrorDetail[]): ErrorDetail[] {
  const missing: ErrorDetail[] = []
  if (Array.isArray(body)) {
    body.forEach((item: unknown, i) => {
      const model = (item as {model?: unknown} | null)?.model
      if (model === null || typeof model !== 'object' || Array.isArray(model)) return
      for (const field of LEGACY_REQUIRED_FIELDS)
        if ((model as Record<string, unknown>)[field] === undefined)
          missing.push({path: `${i}.model.${field}`, message: 'is required'})
    })
  }
  const seen = new Set(missing.map((d) => d.path))
  return [...missing, ...readable(issues.filter((d) => !seen.has(d.path)))]
}

/** zod says "Invalid input" for a union; say what `material` may be. */
function readable(details: ErrorDetail[]): ErrorDetail[] {
  return details.map((d) =>
    /(^|\.)material$/.test(d.path) && d.message === 'Invalid input'
      ? {...d, message: 'must be a material object ({_id} or {materials}) or a material name'}
      : d,
  )
}

const money = (n: number) => n.toFixed(2)

function describe(e: Estimate): string {
  const b = e.breakdown
  return `${b.quantity} × ${b.material} on ${b.technology} (${b.service}): ${money(b.price)} ${b.currency}`
}

/** Price estimation on both generations: v1 price-estimation and legacy modelPriceEstimation. */
export async function pricingRoutes(app: FastifyInstance, ctx: SandboxContext): Promise<void> {
  const {store} = ctx

  await app.register(async (v1) => {
    v1.addHook('onRequest', v1Auth(store))
    v1.post<{Params: {businessId: string}; Querystring: {currency?: unknown}}>(V1_ESTIMATION_PATH, async (request) => {
      const business = ownBusiness(request, request.params.businessId)
      const currency = currencyOf(request.query.currency, business.currency)
      const parsed = QuoteModelPublicDto.safeParse(request.body ?? undefined, {reportInput: true})
      if (!parsed.success) {
        const details = readable(issuesToDetails(parsed.error))
        throw badRequest(
          `Invalid price-estimation body: ${details.map((d) => `${d.path || '(body)'} ${d.message}`).join('; ')}.`,
          details,
        )
      }
      let result: Estimate
      try {
        result = estimate(catalogOf(store, business), parsed.data, {currency})
      } catch (error) {
        if (error instanceof PricingInputError) throw badRequest(error.message, error.details)
        throw error
      }
      const b = result.breakdown
      return {
        message: `Estimated price for ${describe(result)}.`,
        data: {
          price: b.price,
          currency: b.currency,
          quantity: b.quantity,
          unitPrice: b.unitPrice,
          service: b.service,
          technology: b.technology,
          material: b.material,
          ...(result.bulk ? {bulk: result.bulk} : {}),
        },
      }
    })
  })

  await app.register(async (v2) => {
    v2.addHook('onRequest', v2Auth(store))
    v2.post<{Params: {businessId: string}; Querystring: {currency?: unknown}}>(
      LEGACY_ESTIMATION_PATH,
      async (request, reply: FastifyReply) => {
        const business = ownBusiness(request, request.params.businessId)
        const currency = currencyOf(request.query.currency, undefined)
        const now = ctx.clock()
        const day = utcDay(now)
        const limit = DAILY_ESTIMATION_ALLOWANCE
        const left = Math.max(0, limit - store.allowance.used(business.id, day))
        reply.header(ALLOWANCE_HEADER, String(left))
        const spent = (message: string, remaining: number) =>
          new ApiError(429, message, undefined, {
            'retry-after': String(secondsToUtcMidnight(now)),
            [ALLOWANCE_HEADER]: String(remaining),
          })
        if (left === 0)
          throw spent(`The daily allowance of ${limit} price estimations is spent; it renews at 00:00 UTC.`, 0)

        const parsed = LegacyEstimationBody.safeParse(request.body ?? undefined, {reportInput: true})
        if (!parsed.success) {
          const details = legacyDetails(request.body, issuesToDetails(parsed.error))
          throw badRequest(
            `Invalid estimation body (an array of {model}, 1 to 100): ${details
              .slice(0, 10)
              .map((d) => `${d.path || '(body)'} ${d.message}`)
              .join('; ')}${details.length > 10 ? '; …' : ''}.`,
            details,
          )
        }
        const catalog = catalogOf(store, business)
        const results: Estimate[] = []
        const details: ErrorDetail[] = []
        const messages: string[] = []
        parsed.data.forEach(({model}, i) => {
          try {
            results.push(estimate(catalog, model, {currency, prefix: `${i}.model.`}))
          } catch (error) {
            if (!(error instanceof PricingInputError)) throw error
            details.push(...error.details)
            messages.push(`model ${i}: ${error.message}`)
          }
        })
        if (messages.length > 0) throw badRequest(`Cannot price ${messages.join(' ')}`, details)

        const taken = store.allowance.take(business.id, day, results.length, limit)
        if (!taken.ok)
          throw spent(
            `This body asks for ${results.length} estimations but only ${taken.remaining} of the daily ${limit} are left; send fewer models or wait for 00:00 UTC.`,
            taken.remaining,
          )
        reply.header(ALLOWANCE_HEADER, String(taken.remaining))
        return results.map((r) => ({
          message: `Estimated price for ${describe(r)}. ${taken.remaining} of ${limit} daily estimations left.`,
          data: {price: r.breakdown.price},
        }))
      },
    )
  })
}
