import type {DemandRecord} from '../../schemas/read/types.js'
import type {ServiceContext} from '../context.js'
import {buildUpdateBody, updateDemand} from '../demands/update.js'
import type {QuoteOptions, QuoteOutcome} from './types.js'

const num = (v: unknown): number => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v
  return typeof n === 'number' && Number.isFinite(n) ? n : 0
}
const round2 = (x: number) => Math.round(x * 100 + 1e-7) / 100

/**
 * Writes a priced quote with one v1 update: each priced part's quote-model item
 * gets its unit price (pricePerPiece), setup cost, currency and quantity, and the
 * demand its total (parts + delivery + fees it already holds); with `send`, the same
 * update moves it to quote_sent. Items that were not priced are sent back as read.
 */
export async function writeQuote(
  ctx: ServiceContext,
  record: DemandRecord,
  outcome: QuoteOutcome,
  options: QuoteOptions,
): Promise<QuoteOutcome> {
  const items = (Array.isArray(record.quoteModel) ? record.quoteModel : []) as Record<string, unknown>[]
  const quoteModel = items.map((item, index) => {
    const part = outcome.parts.find((p) => p.index === index && p.error === undefined)
    if (!part || part.unitPrice === undefined) return item
    return {
      ...item,
      pricePerPiece: part.unitPrice,
      startupCost: part.startupCost ?? 0,
      quantity: part.quantity,
      ...(part.currency ? {currency: part.currency} : {}),
      ...(part.material ? {material: part.material} : {}),
      ...(part.technology ? {technology: part.technology} : {}),
    }
  })
  const priceTotal = round2((outcome.partsTotal ?? 0) + num(record.priceDelivery) + num(record.feesTotalAmount))
  const body = await buildUpdateBody(
    {quoteModel},
    {priceTotal, ...(options.send ? {status: 'quote_sent' as const} : {})},
  )
  const changed = await updateDemand(ctx, record._id, body)
  const stage = changed.record.demandStatusInfo?.status
  return {
    ...outcome,
    status: 'quoted',
    written: true,
    sent: options.send === true && stage === 'quote_sent',
    ...(stage ? {stage} : {}),
  }
}

/** Moves a demand whose prices already stand to quote_sent (emails the buyer). */
export async function sendOnly(ctx: ServiceContext, outcome: QuoteOutcome): Promise<QuoteOutcome> {
  const changed = await updateDemand(ctx, outcome.demandId, await buildUpdateBody(undefined, {status: 'quote_sent'}))
  const stage = changed.record.demandStatusInfo?.status
  return {...outcome, sent: stage === 'quote_sent', ...(stage ? {stage} : {})}
}
