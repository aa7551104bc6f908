import * as z from 'zod'

import {SERVICES, TECHNIQUES} from '../common.js'
import {STAGES, TAKEN_AS, TYPE_DELIVERY} from '../demand.js'
import {
  bool,
  count,
  epochMs,
  isoDate,
  list,
  num,
  openEnum,
  page,
  record,
  summary,
  text,
  type FieldSetter,
} from './core.js'

/**
 * Demands as the CLI reads them (v1 and legacy). Only `_id` is required: every
 * other field may be absent, and is when the service sent `null`.
 */

/** A record answered with `id` instead of `_id` is read with that id. */
function idFromId(obj: Readonly<Record<string, unknown>>, set: FieldSetter): void {
  if (obj._id !== undefined && obj._id !== null) return
  const id = obj.id
  if (typeof id === 'string' || typeof id === 'number') set('_id', String(id), 'absent, read from id')
}

const opt = {
  text: () => text().optional(),
  num: () => num().optional(),
  bool: () => bool().optional(),
  iso: () => isoDate().optional(),
  epoch: () => epochMs().optional(),
}

const address = () =>
  record({
    address: opt.text(),
    vat: opt.text(),
    firstName: opt.text(),
    lastName: opt.text(),
    email: opt.text(),
    phone: opt.text(),
    city: opt.text(),
    region: opt.text(),
    country: opt.text(),
    zip: opt.text(),
    companyName: opt.text(),
  }).optional()

/**
 * One tracking entry. An entry without a status is left out of the list (and noted); one
 * without a readable date is kept, its date unknown: the stage it names still happened.
 */
export const TrackingEntryRead = record({status: text(), date: opt.epoch()})

const tracking = () => list(TrackingEntryRead, {dropUnreadable: true}).optional()

/** The fields of a quote model item the CLI shows or totals. */
export const QuoteModelItemRead = record({
  _id: opt.text(),
  fileName: opt.text(),
  fileLink: opt.text(),
  service: openEnum(SERVICES).optional(),
  technology: opt.text(),
  material: opt.text(),
  color: opt.text(),
  quantity: opt.num(),
  pricePerPiece: opt.num(),
  startupCost: opt.num(),
  currency: opt.text(),
  draftId: opt.text(),
})

/** A demand as v1 answers it (list, get, create, update). */
export const DemandRecordRead = record(
  {
    _id: text(),
    orderNumber: opt.num(),
    type: opt.text(),
    currency: opt.text(),
    technique: openEnum(TECHNIQUES).optional(),
    material: opt.text(),
    color: opt.text(),
    priceToClient: opt.num(),
    priceToManufacturer: opt.num(),
    priceTotal: opt.num(),
    platformFee: opt.num(),
    priceDelivery: opt.num(),
    taxPaid: opt.num(),
    taxPercentage: opt.num(),
    taxName: opt.text(),
    paymentStatus: opt.text(),
    archive: opt.bool(),
    fabricatedDate: opt.text(),
    createdAt: opt.iso(),
    updatedAt: opt.iso(),
    demandStatusInfo: record({status: openEnum(STAGES).optional(), substatus: opt.text()}).optional(),
    billingAddress: address(),
    shippingAddress: address(),
    quoteModel: list(QuoteModelItemRead, {dropUnreadable: true}).optional(),
    tracking: tracking(),
    dateAccepted: opt.epoch(),
    producedAt: opt.epoch(),
    startedShippingAt: opt.epoch(),
    deliveredAt: opt.epoch(),
    uniqueItems: opt.num(),
    total: opt.num(),
    subtotal: opt.num(),
    feesTotalAmount: opt.num(),
    pricePerPiece: opt.num(),
    startupCost: opt.num(),
    discount: opt.num(),
    quantity: opt.num(),
    leadTime: opt.num(),
    shippingDuration: opt.num(),
    isPaid: opt.bool(),
    status: opt.text(),
    draftId: opt.text(),
    jobDetails: record({takenAs: openEnum(TAKEN_AS).optional()}).optional(),
    paymentAuthToken: opt.text(),
  },
  {fix: idFromId, fromId: true},
)
export type DemandRecordRead = z.infer<typeof DemandRecordRead>

/** The interface's other top-level fields of a v1 demand: a record carries them as the service sent them (its `id` is read as `_id`). */
const OTHER_V1_FIELDS = [
  'referral',
  'isDashboardReferrer',
  'business',
  'client',
  'machineOwner',
  'jobOfferId',
  'post',
  'machineOwnerEmail',
  'quoteFileModel',
  'couponCode',
  'file',
  'dfmCheckData',
  'modelSizes',
  'resolution',
  'tolerance',
  'coloredSvg',
  'filling',
  'amount',
  'thickness',
  'priceMin',
  'priceConception',
  'priceExtra',
  'fixedPrice',
  'minEstimatedPrice',
  'maxEstimatedPrice',
  'remark',
  'declinedBy',
  'priceByMachines',
  'additionalFees',
  'messages',
  'phone',
  'address',
  'country',
  'city',
  'region',
  'zip',
  'firstName',
  'lastName',
  'email',
  'typeDelivery',
  'isRated',
  'isCompany',
  'conception',
  'useTotalPrice',
  'useDifferentAddresses',
  'priceToPartner',
  'priceMachine',
  'priceToMachnieOwner',
  'trackId',
  'shippingProvider',
  'settings',
  'shippingAddressDetails',
  'billingAddressDetails',
  'packingSlipData',
] as const

let fieldsRead: z.ZodObject | undefined

/**
 * The fields a v1 demand can be asked for by name (`--json FIELDS`, `--columns`,
 * `--sort`): those read above and the interface's others. For checking names
 * only, so built when a command first asks (not by every command that reads a
 * page); records are read with DemandRecordRead, which does not walk the others.
 */
export function demandFieldsRead(): z.ZodObject {
  fieldsRead ??= DemandRecordRead.extend(
    Object.fromEntries(OTHER_V1_FIELDS.map((name) => [name, z.unknown().optional()])),
  )
  return fieldsRead
}

/** The answer of a v1 create: a list of demands (also `{data: [...]}`, one object, or ids alone). */
export const CreatedDemandsRead = list(DemandRecordRead)

/** What a batch reads of each created demand: the fields reconciliation and the counts need, and no others. */
export const CreatedDemandSummaryRead = summary(
  {_id: text(), orderNumber: opt.num(), draftId: opt.text(), status: opt.text(), createdAt: opt.iso()},
  {fix: idFromId, fromId: true},
)
export const CreatedSummariesRead = list(CreatedDemandSummaryRead)

/** A v1 list page; the paging fields are absent when the service did not send usable ones. */
export const DemandPageRead = page('data', DemandRecordRead, {
  page: count(1).optional(),
  pageSize: count(1).optional(),
  total: count().optional(),
  totalPages: count().optional(),
})
export type DemandPageRead = z.infer<typeof DemandPageRead>

/** A demand as the legacy interface answers it (list by ids, get, create, by-product order, delete). */
export const LegacyDemandRecordRead = record(
  {
    _id: text(),
    orderNumber: opt.num(),
    remark: list(z.unknown()).optional(),
    thickness: opt.num(),
    tolerance: opt.num(),
    quantity: opt.num(),
    typeDelivery: openEnum(TYPE_DELIVERY).optional(),
    priceDelivery: opt.num(),
    /** An id, or the customer's record. */
    client: z.union([text(), record({})]).optional(),
    machineOwner: z.union([text(), record({})]).optional(),
    technique: openEnum(TECHNIQUES).optional(),
    file: opt.text(),
    email: opt.text(),
    phone: opt.text(),
    country: opt.text(),
    city: opt.text(),
    zip: opt.text(),
    status: opt.text(),
    material: opt.text(),
    currency: opt.text(),
    priceToClient: opt.text(),
    priceMachine: opt.text(),
    priceConception: opt.num(),
    priceExtra: opt.num(),
    priceToMachnieOwner: opt.text(),
    priceTotal: opt.num(),
    draftId: opt.text(),
    tracking: tracking(),
    createdAt: opt.iso(),
    updatedAt: opt.iso(),
  },
  {fix: idFromId, fromId: true},
)
export type LegacyDemandRecordRead = z.infer<typeof LegacyDemandRecordRead>

/** A legacy list, create or order answer. */
export const LegacyDemandsRead = list(LegacyDemandRecordRead)
