import {
  deleteLegacyDemand,
  getLegacyDemand,
  listLegacyDemands,
  orderProducts,
  updateLegacyDemand,
  type LegacyUpdateAnswer,
} from '../../api/v2/demands.js'
import {LegacyUpdateBody, MAX_LEGACY_LIST_IDS, ProductOrderItem, type Lang} from '../../schemas/legacy-demand.js'
import {ConflictError} from '../../api/errors.js'
import type {Written} from '../../api/written.js'
import type {ServiceContext} from '../context.js'
import {InputError} from '../errors.js'
import {validateObject} from '../validate.js'
import type {LegacyDemandRecord} from '../../schemas/read/types.js'

type Ctx = Pick<ServiceContext, 'client'>

export function getLegacy(ctx: Ctx, id: string): Promise<LegacyDemandRecord> {
  return getLegacyDemand(ctx.client, id)
}

/** What a delete left: the cancelled record, and whether the demand was so before this request. */
export interface Deleted {
  record: LegacyDemandRecord
  /** The service answered 409 and the demand, read back, is cancelled and archived: nothing left to do. */
  already: boolean
}

/**
 * Cancels (and archives) a demand through the legacy DELETE; answers the
 * cancelled record. The service refuses a DELETE of a demand already cancelled
 * with a conflict, which is also what a resend meets after a first attempt whose
 * answer was lost (a proxy's 502, a reset): a conflict is read back, and a demand
 * found cancelled and archived is as asked, not a failure.
 */
export async function deleteLegacy(ctx: Ctx, id: string): Promise<Deleted> {
  try {
    return {record: await deleteLegacyDemand(ctx.client, id), already: false}
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error
    const record = await getLegacyDemand(ctx.client, id).catch(() => undefined)
    if (!record || !cancelledAndArchived(record)) throw error
    return {record, already: true}
  }
}

/** Whether a legacy record (whose stage and archive flag are fields beyond its schema) is cancelled and archived. */
function cancelledAndArchived(record: LegacyDemandRecord): boolean {
  const extra = record as {demandStatusInfo?: {status?: unknown}; archive?: unknown}
  const stage = extra.demandStatusInfo?.status ?? record.status
  return String(stage).toLowerCase() === 'cancelled' && String(extra.archive) === 'true'
}

/** Merges a body from a file with flag fields (flags win) and checks it: only the eight legacy fields are allowed. */
export function buildLegacyUpdate(
  fromFile: Record<string, unknown> | undefined,
  fields: Partial<LegacyUpdateBody>,
): Promise<LegacyUpdateBody> {
  const body: Record<string, unknown> = {...fromFile}
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue
    body[k] =
      k === 'shippingAddress' ? {...((body.shippingAddress ?? {}) as Record<string, unknown>), ...(v as object)} : v
  }
  if (Object.keys(body).length === 0) {
    throw new InputError(
      'nothing to update: pass a field flag (for example --material or --quantity) or --file with a legacy update body.',
    )
  }
  return validateObject(
    body,
    LegacyUpdateBody,
    'legacy update body (allowed: material, resolution, filling, quantity, color, thickness, tolerance, shippingAddress)',
  )
}

/** The legacy update; its answer (the changed fields with `_id`) may be absent: `record` is then undefined. */
export function updateLegacy(ctx: Ctx, id: string, body: LegacyUpdateBody): Promise<Written<LegacyUpdateAnswer>> {
  return updateLegacyDemand(ctx.client, id, body)
}

export interface LegacyListResult {
  /** The demands found, in the order of the ids asked for. */
  records: LegacyDemandRecord[]
  missing: string[]
}

/**
 * Reads demands by stored ids through the legacy list call, 500 ids a request,
 * yielding each batch in the order asked (ids the service does not know are
 * collected in `missing`). Repeated ids are asked once and answered at each place.
 */
export async function* listLegacyByIds(
  ctx: Ctx,
  ids: readonly string[],
  missing: string[] = [],
): AsyncGenerator<LegacyDemandRecord> {
  if (ids.length === 0) throw new InputError('no demand ids given; pass --ids a,b,c or --ids-file FILE.')
  for (let start = 0; start < ids.length; start += MAX_LEGACY_LIST_IDS) {
    const slice = ids.slice(start, start + MAX_LEGACY_LIST_IDS)
    const unique = [...new Set(slice)]
    const records = await listLegacyDemands(ctx.client, unique)
    const byId = new Map(records.map((r) => [r._id, r]))
    for (const id of slice) {
      const record = byId.get(id)
      if (record) yield record
      else missing.push(id)
    }
  }
}

/** Splits `a,b c\nd` into ids: commas, white space and line breaks all separate. */
export function splitIds(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean)
}

/** Checks one by-product order item. */
export function checkProductOrder(item: Record<string, unknown>): Promise<ProductOrderItem> {
  return validateObject(item, ProductOrderItem.strict(), 'by-product order')
}

/** Places by-product orders (POST .../demand/products?lang=). */
export function placeProductOrders(ctx: Ctx, items: ProductOrderItem[], lang: Lang): Promise<LegacyDemandRecord[]> {
  return orderProducts(ctx.client, items, lang)
}
