import {getDemand, updateDemand as putDemand} from '../../api/v1/demands.js'
import type {Written} from '../../api/written.js'
import {UpdateDemandBody, type Stage} from '../../schemas/demand.js'
import {withCurrencyCode} from '../../schemas/common.js'
import type {ServiceContext} from '../context.js'
import {InputError} from '../errors.js'
import {validateObject} from '../validate.js'
import type {DemandRecord} from '../../schemas/read/types.js'

/** The common fields `demand update` takes as flags. */
export interface UpdateFields {
  status?: Stage
  substatus?: string
  material?: string
  quantity?: number
  color?: string
  priceTotal?: number
  priceDelivery?: number
  takenAs?: 'QUOTE' | 'ORDER'
  paymentStatus?: string
  trackId?: string
  shippingProvider?: string
  fabricatedDate?: string
  archive?: boolean
  /** Merged over the file's shippingAddress, field by field. */
  shippingAddress?: Record<string, string>
}

/**
 * Merges a body from a file (optional) with the flag fields (flags win) and
 * validates the result with the shared schema before anything is sent.
 */
export async function buildUpdateBody(
  fromFile: Record<string, unknown> | undefined,
  fields: UpdateFields,
): Promise<UpdateDemandBody> {
  const body: Record<string, unknown> = {...fromFile}
  const set = (key: string, value: unknown) => {
    if (value !== undefined) body[key] = value
  }
  if (fields.status !== undefined || fields.substatus !== undefined) {
    const prev = (body.demandStatusInfo ?? {}) as Record<string, unknown>
    body.demandStatusInfo = {
      ...prev,
      ...(fields.status === undefined ? {} : {status: fields.status}),
      ...(fields.substatus === undefined ? {} : {substatus: fields.substatus}),
    }
  }
  if (fields.takenAs !== undefined) {
    body.jobDetails = {...((body.jobDetails ?? {}) as Record<string, unknown>), takenAs: fields.takenAs}
  }
  set('material', fields.material)
  set('quantity', fields.quantity)
  set('color', fields.color)
  set('priceTotal', fields.priceTotal)
  set('priceDelivery', fields.priceDelivery)
  set('paymentStatus', fields.paymentStatus)
  set('trackId', fields.trackId)
  set('shippingProvider', fields.shippingProvider)
  set('fabricatedDate', fields.fabricatedDate)
  set('archive', fields.archive)
  if (fields.shippingAddress !== undefined) {
    body.shippingAddress = {...((body.shippingAddress ?? {}) as Record<string, unknown>), ...fields.shippingAddress}
  }
  if (Object.keys(body).length === 0) {
    throw new InputError(
      'nothing to update: pass a field flag (for example --status or --material) or --file with an update body.',
    )
  }
  // Unknown fields are refused rather than dropped: a silently ignored typo would look like a successful update.
  return withCurrencyCode(await validateObject(body, UpdateDemandBody.strict(), 'update body'))
}

/** A demand after a change the service confirmed. */
export interface ChangedDemand {
  /**
   * The demand as the service has it now: its answer, or read back when the answer
   * was empty or partial; when reading back failed too, what the answer said with `_id`.
   */
  record: DemandRecord
  /** Where `record` comes from. */
  source: 'answer' | 'read-back' | 'partial'
  /** The status the service confirmed the change with. */
  status: number
  /** Said to the user when the answer was not the full record (and how that was made up for). */
  note?: string
}

/** Sends a v1 update; an answer without the full record is made up for by reading the demand back. */
export async function updateDemand(
  ctx: Pick<ServiceContext, 'client'>,
  id: string,
  body: UpdateDemandBody,
): Promise<ChangedDemand> {
  return settleChange(ctx, id, await putDemand(ctx.client, id, body))
}

/**
 * What a confirmed change left: the answer when it is the whole record, else the
 * demand read back (one GET). A change the service confirmed is a success even
 * when reading back fails: the record is then what the answer said, and the note
 * says why it may be incomplete.
 */
export async function settleChange(
  ctx: Pick<ServiceContext, 'client'>,
  id: string,
  written: Written<DemandRecord>,
): Promise<ChangedDemand> {
  if (written.record && isWhole(written.record))
    return {record: written.record, source: 'answer', status: written.status}
  const answered = written.record ?? {...(isObject(written.partial) ? written.partial : {}), _id: id}
  const why = written.why ?? "the service's answer lacks the demand's order number or stage"
  try {
    const record = await getDemand(ctx.client, id)
    return {record, source: 'read-back', status: written.status, note: `${why}; the demand was read back`}
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error)
    return {
      record: answered as DemandRecord,
      source: 'partial',
      status: written.status,
      note: `the service confirmed the change (${written.status}), but ${why}, and reading it back failed: ${reason}`,
    }
  }
}

/** Whether an answer is the whole record rather than `_id` and the changed fields. */
function isWhole(record: DemandRecord): boolean {
  return record.orderNumber !== undefined && record.demandStatusInfo?.status !== undefined
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
