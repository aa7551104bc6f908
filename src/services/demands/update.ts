import {updateDemand as putDemand} from '../../api/v1/demands.js'
import {UpdateDemandBody, type Stage} from '../../schemas/demand.js'
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
}

/**
 * Merges a body from a file (optional) with the flag fields (flags win) and
 * validates the result with the shared schema before anything is sent.
 */
export function buildUpdateBody(fromFile: Record<string, unknown> | undefined, fields: UpdateFields): UpdateDemandBody {
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
  if (Object.keys(body).length === 0) {
    throw new InputError(
      'nothing to update: pass a field flag (for example --status or --material) or --file with an update body.',
    )
  }
  // Unknown fields are refused rather than dropped: a silently ignored typo would look like a successful update.
  return validateObject(body, UpdateDemandBody.strict(), 'update body')
}

export function updateDemand(
  ctx: Pick<ServiceContext, 'client'>,
  id: string,
  body: UpdateDemandBody,
): Promise<DemandRecord> {
  return putDemand(ctx.client, id, body)
}
