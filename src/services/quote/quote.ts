import {ValidationError} from '../../api/errors.js'
import {getDemand} from '../../api/v1/demands.js'
import {PRODUCTION_STAGES} from '../../schemas/demand.js'
import type {DemandRecord} from '../../schemas/read/types.js'
import type {ServiceContext} from '../context.js'
import {InputError} from '../errors.js'
import {DownloadError} from '../files/download.js'
import {estimatePart, type EstimateInput, type OptionChoice} from '../price/estimate.js'
import {sliceWithPrusa} from '../price/slicer.js'
import {quoteDigest, readDigest, writeDigest} from './digest.js'
import {fetchPart, forgetPart} from './files.js'
import {PartError, estimateFields, figuresOf, formatOf, measureQuotePart} from './measure-part.js'
import type {QuoteOptions, QuoteOutcome, QuotedPart} from './types.js'
import {sendOnly, writeQuote} from './write.js'

export type {QuoteGuards, QuoteOptions, QuoteOutcome, QuotedPart, QuoteStatus} from './types.js'

type Item = Record<string, unknown>
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined)
const num = (v: unknown): number | undefined => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined
}
export const round2 = (x: number) => Math.round(x * 100 + 1e-7) / 100

/** The unit price a quote-model item holds now: pricePerPiece, else its machine, design and extra prices. */
function currentUnit(item: Item): number | undefined {
  const own = num(item.pricePerPiece)
  if (own !== undefined) return own
  const parts = [num(item.priceMachine), num(item.priceConception), num(item.priceExtra)]
  return parts.every((p) => p === undefined) ? undefined : round2(parts.reduce<number>((a, p) => a + (p ?? 0), 0))
}

/** The estimation input of one part: what the item says, or the run's overrides. */
function pricingOf(item: Item, record: DemandRecord, options: QuoteOptions): EstimateInput {
  const selected = Array.isArray(item.selectedOptions) ? (item.selectedOptions as Item[]) : []
  const choices: OptionChoice[] = selected.flatMap((o) =>
    str(o.refer) && str(o.name) ? [{refer: String(o.refer), name: String(o.name)}] : [],
  )
  const currency = options.currency ?? str(record.currency)
  const input: EstimateInput = {quantity: num(item.quantity) ?? 1, options: choices}
  // A machine or material given for the run replaces the part's, and what went with it
  // (its service, its colour) is left for the estimation to take from the business's catalogue.
  const overridden = options.technology !== undefined || options.material !== undefined
  const service = overridden ? undefined : (str(item.service) ?? str(record.technique))
  const technology = options.technology ?? (options.material ? undefined : str(item.technology))
  const material = options.material ?? str(item.material) ?? str(record.material)
  const color = overridden ? undefined : str(item.color)
  if (service) input.service = service
  if (technology) input.technology = technology
  if (material) input.material = material
  if (color) input.color = color
  if (currency) input.currency = currency
  if (options.legacy) input.legacy = true
  return input
}

/** A part the slicer can speak for: 3D printing on FDM, or with neither said (the estimation's default). */
function isFdm(pricing: EstimateInput): boolean {
  return (pricing.service ?? '3D_PRINTING') === '3D_PRINTING' && (pricing.technology ?? 'FDM').toUpperCase() === 'FDM'
}

/** Why one part could not be quoted, when the reason is the part's (its file, its material), not the service's health. */
function partReason(error: unknown): string | undefined {
  if (error instanceof PartError || error instanceof InputError || error instanceof DownloadError) return error.message
  if (error instanceof ValidationError)
    return `the price estimation refused it: ${error.serverMessage ?? error.message}`.split('\n')[0]
  return undefined
}

/** Downloads, measures and prices one part; a part-level failure is kept on the part. */
async function quotePart(
  ctx: ServiceContext,
  record: DemandRecord,
  item: Item,
  at: {index: number; count: number},
  options: QuoteOptions,
): Promise<QuotedPart> {
  const fileName = str(item.fileName) ?? str(item.fileLink) ?? `part ${at.index + 1}`
  const pricing = pricingOf(item, record, options)
  const part: QuotedPart = {index: at.index, fileName, format: formatOf(fileName), quantity: pricing.quantity ?? 1}
  const current = currentUnit(item)
  if (current !== undefined) part.currentUnitPrice = current
  try {
    options.onPart?.({demandId: record._id, fileName, index: at.index, count: at.count})
    const file = await fetchPart(
      ctx,
      record._id,
      {fileName, fileLink: String(item.fileLink), index: at.index},
      {cacheDir: options.cacheDir, several: at.count > 1, ...(options.signal ? {signal: options.signal} : {})},
    )
    Object.assign(part, {bytes: file.bytes, sha256: file.sha256, cached: file.cached})
    const thickness = options.thickness ?? num(record.thickness)
    const measured = await measureQuotePart(file.path, fileName, {
      unit: item.unit,
      ...(thickness === undefined ? {} : {thickness}),
      ...(options.limits ? {limits: options.limits} : {}),
    }).catch((error: unknown) => {
      if (error instanceof PartError && error.unreadable) forgetPart(options.cacheDir, String(item.fileLink), file.path)
      throw error
    })
    part.format = measured.format
    part.measured = figuresOf(measured)
    const fields = estimateFields(measured, fileName)
    if (options.slicer && fields.part && isFdm(pricing)) {
      fields.slicer = await sliceWithPrusa({
        file: file.path,
        binary: options.slicer.binary,
        layerHeight: 0.3,
        firstLayerHeight: 0.35,
        density: fields.part.measurement.slicingData.density,
      })
      part.slicedBy = `PrusaSlicer ${fields.slicer.version ?? ''}`.trim()
    }
    const price = await estimatePart(ctx, {...pricing, ...fields})
    const unitPrice = writtenUnit(price)
    const startup = Math.max(0, round2(price.price - unitPrice * price.quantity))
    Object.assign(part, {
      service: price.service,
      technology: price.technology,
      material: price.material,
      quantity: price.quantity,
      unitPrice,
      total: price.price,
      currency: price.currency,
      difference: current === undefined ? null : round2(price.price - (current * price.quantity + startupOf(item))),
    })
    if (startup > 0) part.startupCost = startup
  } catch (error) {
    const reason = partReason(error)
    if (reason === undefined) throw error
    part.error = reason
  }
  return part
}

const startupOf = (item: Item) => num(item.startupCost) ?? 0

/**
 * The unit price to write, so that the demand's total (unit × quantity + setup) is the
 * estimate's total: a unit price rounded up to the cent (26.00 for 3 is 8.67 each, 26.01)
 * or a total below unit × quantity (a discount) gives the unit price that fits, rounded
 * down to the cent; what that leaves goes to the setup cost.
 */
function writtenUnit(price: {price: number; unitPrice: number; quantity: number}): number {
  if (price.quantity <= 0 || round2(price.unitPrice * price.quantity) <= price.price) return price.unitPrice
  return Math.floor((price.price / price.quantity) * 100 + 1e-7) / 100
}

/** The reason a guard stops the demand, if one does. */
function guardReason(parts: QuotedPart[], total: number, options: QuoteOptions): string | undefined {
  const g = options.guards ?? {}
  const dear = parts.find((p) => g.maxUnitPrice !== undefined && (p.unitPrice ?? 0) > g.maxUnitPrice)
  if (dear) return `${dear.fileName}: unit price ${dear.unitPrice} is above --max-unit-price ${g.maxUnitPrice}`
  if (g.minTotal !== undefined && total < g.minTotal) return `parts total ${total} is below --min-total ${g.minTotal}`
  if (g.maxTotal !== undefined && total > g.maxTotal) return `parts total ${total} is above --max-total ${g.maxTotal}`
  return undefined
}

/** The demand's files with their quote-model items and positions. */
function partItems(record: DemandRecord): {item: Item; index: number}[] {
  const items = (Array.isArray(record.quoteModel) ? record.quoteModel : []) as Item[]
  return items.map((item, index) => ({item, index})).filter(({item}) => str(item.fileLink) !== undefined)
}

/**
 * Quotes one demand: every part file fetched (cache first), measured and priced
 * with the business's own machines, materials and options; with `apply` the prices
 * are written with the update operation (and with `send` the demand moves to
 * quote_sent). Never throws for a part or a guard: the outcome says skipped and why.
 * A failure of the service itself (network, 5xx, auth) is thrown.
 */
export async function quoteDemand(ctx: ServiceContext, demandId: string, options: QuoteOptions): Promise<QuoteOutcome> {
  const record = await getDemand(ctx.client, demandId)
  const outcome = startOutcome(record, options)
  const files = partItems(record)
  const skip = (reason: string): QuoteOutcome => ({...outcome, status: 'skipped', reason})
  const stage = record.demandStatusInfo?.status
  if (stage && (stage === 'cancelled' || (PRODUCTION_STAGES as readonly string[]).includes(stage)))
    return skip(
      `the demand is ${stage === 'cancelled' ? 'cancelled' : `in production (${stage})`}: its quote is settled`,
    )
  if (files.length === 0) return skip('the demand has no part files')
  const only = options.guards?.onlyFormats
  if (only && only.length > 0) {
    const other = files.find(({item}) => !only.includes(formatOf(String(item.fileName ?? item.fileLink))))
    if (other)
      return skip(`${String(other.item.fileName ?? other.item.fileLink)} is not in --only-format ${only.join(',')}`)
  }
  for (const {item, index} of files) {
    outcome.parts.push(await quotePart(ctx, record, item, {index, count: files.length}, options))
  }
  const priced = outcome.parts.filter((p) => p.error === undefined)
  const failed = outcome.parts.filter((p) => p.error !== undefined)
  const partsTotal = round2(priced.reduce((sum, p) => sum + (p.total ?? 0), 0))
  outcome.currency = priced[0]?.currency ?? outcome.currency
  if (failed.length > 0 && (!options.allowPartial || priced.length === 0))
    return skip(
      `${failed.map((p) => p.error).join('; ')}${priced.length > 0 ? ' (--allow-partial writes the rest)' : ''}`,
    )
  outcome.partsTotal = partsTotal
  outcome.difference = outcome.currentPartsTotal === null ? null : round2(partsTotal - outcome.currentPartsTotal)
  const guard = guardReason(priced, partsTotal, options)
  if (guard) return skip(guard)
  const digest = quoteDigest({
    files: outcome.parts.map((p) => [p.fileName, p.sha256 ?? null]),
    pricing: {legacy: options.legacy ?? false, technology: options.technology, material: options.material},
    prices: outcome.parts.map((p) => [p.service, p.technology, p.material, p.quantity, p.unitPrice, p.total]),
  })
  outcome.digest = digest
  const holds = priced.every(
    (p) => p.currentUnitPrice !== undefined && Math.abs(p.currentUnitPrice - (p.unitPrice ?? 0)) < 0.005,
  )
  const stored = readDigest(ctx, options.stateDir, demandId)
  if (!options.force && holds && stored?.digest === digest) {
    const unchanged = {
      ...outcome,
      status: 'unchanged' as const,
      reason: 'files, prices and rules unchanged since the last quote',
    }
    if (!options.apply || !options.send) return unchanged
    // The buyer already has this very quote and the demand still says so: a daily
    // `--apply --send` run must not email it again.
    if (stored.sent && stage === 'quote_sent')
      return {...unchanged, reason: `${unchanged.reason}, and already sent (--force sends it again)`}
    // The prices stand; --send still sends them.
    const sent = await sendOnly(ctx, unchanged)
    if (sent.sent) writeDigest(ctx, options.stateDir, demandId, {digest, sent: true})
    return sent
  }
  if (!options.apply) return {...outcome, status: 'would-quote'}
  const written = await writeQuote(ctx, record, outcome, options)
  writeDigest(ctx, options.stateDir, demandId, {digest, sent: written.sent})
  return written
}

function startOutcome(record: DemandRecord, options: QuoteOptions): QuoteOutcome {
  const subtotal = num(record.subtotal)
  return {
    demandId: record._id,
    ...(record.orderNumber === undefined ? {} : {orderNumber: record.orderNumber}),
    ...(record.demandStatusInfo?.status ? {stage: record.demandStatusInfo.status} : {}),
    status: 'would-quote',
    parts: [],
    currency: str(record.currency) ?? null,
    partsTotal: null,
    currentPartsTotal: subtotal ?? null,
    difference: null,
    written: false,
    sent: false,
    interface: options.legacy ? 'legacy' : 'v1',
  }
}
