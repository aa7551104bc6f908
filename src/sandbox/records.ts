import {normalizeDate} from '../schemas/common.js'
import {STAGE_INFO, type Stage} from '../schemas/demand.js'
import type {AddressRecord, DemandDoc, TrackingEntry} from './store/demands.js'

/**
 * How a demand record is derived. A stored demand keeps what callers submitted
 * (merged over time) under `_input`; every record field is computed from that
 * input plus the few facts only the service owns (id, order number, stage,
 * tracking, taken-as, timestamps). See docs/sandbox.md, "Money fields".
 */

export type DemandInput = Record<string, unknown>

/** Facts owned by the service, carried from one version of a demand to the next. */
export interface DemandFacts {
  _id: string
  business: string
  orderNumber: number
  createdAt: string
  updatedAt: string
  stage: Stage
  takenAs: 'QUOTE' | 'ORDER'
  tracking: TrackingEntry[]
  client: string | null
}

export const PLATFORM_FEE = 0
export const TAX_NAME = 'VAT'

export const round2 = (n: number): number => Math.round((n + Number.EPSILON) * 100) / 100

/** A number from a number or a numeric string (the interface sends some prices as strings); else 0. */
export function amount(value: unknown): number {
  if (typeof value === 'number') return Number.isFinite(value) ? value : 0
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value)
    return Number.isFinite(n) ? n : 0
  }
  return 0
}

function optionalAmount(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined
  return amount(value)
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

/** Objects merge key by key (recursively); arrays and scalars replace. */
export function mergeInput(base: DemandInput, patch: DemandInput): DemandInput {
  const out: DemandInput = {...base}
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue
    const current = out[key]
    out[key] = isPlainObject(value) && isPlainObject(current) ? mergeInput(current, value) : value
  }
  return out
}

/**
 * Whether `given` would change `current`: for objects, whether any given key
 * differs; arrays must match in length and element by element.
 */
export function differs(given: unknown, current: unknown): boolean {
  if (isPlainObject(given)) {
    if (!isPlainObject(current)) return true
    return Object.entries(given).some(([key, value]) => value !== undefined && differs(value, current[key]))
  }
  if (Array.isArray(given)) {
    if (!Array.isArray(current) || current.length !== given.length) return true
    return given.some((value, i) => differs(value, current[i]))
  }
  return given !== current
}

/** Gives every quote model item an `_id`, a `position` and a quantity. */
export function normalizeQuoteModel(items: unknown, newId: () => string): Record<string, unknown>[] {
  if (!Array.isArray(items)) return []
  return items.map((item, index) => {
    const it = isPlainObject(item) ? item : {}
    return {
      ...it,
      _id: str(it._id) ?? newId(),
      position: typeof it.position === 'number' ? it.position : index,
      quantity: typeof it.quantity === 'number' ? it.quantity : 1,
    }
  })
}

/** Input keys the record computes itself; the submitted values are kept in `_input` only. */
const COMPUTED = new Set([
  '_input',
  'priceToClient',
  'priceToMachnieOwner',

  'priceToManufacturer',
  'total',
  'subtotal',
  'feesTotalAmount',
  'pricePerPiece',
  'startupCost',
  'discount',
  'uniqueItems',
  'isPaid',
  'status',
  'tracking',
  'orderNumber',
  'createdAt',
  'updatedAt',
  '_id',
  'business',
  'paymentAuthToken',
])

function addressRecord(input: DemandInput, kind: 'billing' | 'shipping'): AddressRecord {
  const contact: Record<string, unknown> = {}
  for (const key of [
    'address',
    'phone',
    'city',
    'region',
    'country',
    'zip',
    'firstName',
    'lastName',
    'email',
    'companyName',
  ]) {
    if (typeof input[key] === 'string') contact[key] = input[key]
  }
  const details = isPlainObject(input[`${kind}AddressDetails`])
    ? (input[`${kind}AddressDetails`] as Record<string, unknown>)
    : {}
  const given = isPlainObject(input[`${kind}Address`]) ? (input[`${kind}Address`] as Record<string, unknown>) : {}
  return {
    address: '',
    phone: '',
    city: '',
    region: '',
    country: '',
    zip: '',
    companyName: '',
    ...contact,
    ...details,
    ...given,
  }
}

interface Money {
  subtotal: number
  startupCost: number
  discount: number
  feesTotalAmount: number
  priceDelivery: number
  platformFee: number
  priceTotal: number
  taxPercentage: number
  taxPaid: number
  total: number
  pricePerPiece: number
  quantity: number
}

/** The money fields of a demand from its submitted prices (docs/sandbox.md, "Money fields"). */
export function computeMoney(input: DemandInput): Money {
  const items = Array.isArray(input.quoteModel) ? (input.quoteModel as Record<string, unknown>[]) : []
  let subtotal = 0
  let startupCost = 0
  let pieces = 0
  for (const item of items) {
    const quantity = typeof item.quantity === 'number' ? item.quantity : 1
    const unit =
      optionalAmount(item.pricePerPiece) ??
      amount(item.priceMachine) + amount(item.priceConception) + amount(item.priceExtra)
    const setup = amount(item.startupCost)
    subtotal += unit * quantity + setup - amount(item.discountAmount)
    startupCost += setup
    pieces += quantity
  }
  const quantity = typeof input.quantity === 'number' ? input.quantity : items.length > 0 ? pieces : 1
  if (items.length === 0) {
    subtotal = (amount(input.priceMachine) + amount(input.priceConception) + amount(input.priceExtra)) * quantity
  }
  subtotal = round2(subtotal)
  const additionalFees = Array.isArray(input.additionalFees)
    ? input.additionalFees.reduce<number>(
        (sum, fee) => sum + (isPlainObject(fee) ? amount(fee.price ?? fee.amount) : amount(fee)),
        0,
      )
    : 0
  const platformFee = PLATFORM_FEE
  const feesTotalAmount = round2(additionalFees + amount(input.priceSurcharge) + platformFee)
  const priceDelivery = round2(amount(input.priceDelivery))
  const fixedTotal = input.useTotalPrice !== false ? optionalAmount(input.priceTotal) : undefined
  const discounted = optionalAmount(input.discountedTotalPrice)
  const undiscounted = fixedTotal ?? subtotal + feesTotalAmount + priceDelivery
  // discountedTotalPrice fixes the total after discount; the discount is then what it takes off.
  const discount =
    discounted !== undefined && input.discountedAmount === undefined
      ? round2(Math.max(0, undiscounted - discounted))
      : round2(amount(input.discountedAmount))
  const priceTotal = round2(discounted ?? undiscounted - discount)
  const invoice = isPlainObject(input.invoiceData)
    ? input.invoiceData
    : isPlainObject(input.jobDetails) && isPlainObject(input.jobDetails.invoiceData)
      ? input.jobDetails.invoiceData
      : {}
  const taxPercentage = optionalAmount(input.taxPercentage) ?? optionalAmount(invoice.taxPercentage) ?? 0
  const taxPaid =
    input.overRideTax === true && input.taxPaid !== undefined
      ? round2(amount(input.taxPaid))
      : round2((priceTotal * taxPercentage) / 100)
  const total = round2(priceTotal + taxPaid)
  return {
    subtotal,
    startupCost: round2(startupCost),
    discount,
    feesTotalAmount,
    priceDelivery,
    platformFee,
    priceTotal,
    taxPercentage,
    taxPaid,
    total,
    pricePerPiece: quantity > 0 ? round2(subtotal / quantity) : 0,
    quantity,
  }
}

/** Days of delivery: the legacy shippingMethod's daysToDeliver, else 0 for pickup and 3 otherwise. */
function shippingDays(input: DemandInput): number {
  const days = isPlainObject(input.shippingMethod) ? input.shippingMethod.daysToDeliver : undefined
  if (typeof days === 'number' && Number.isFinite(days) && days >= 0) return days
  return input.typeDelivery === 'pickup directly' ? 0 : 3
}

/** The stored demand for an input and the service's facts. */
export function deriveDemand(input: DemandInput, facts: DemandFacts, businessCurrency: string): DemandDoc {
  const items = Array.isArray(input.quoteModel) ? (input.quoteModel as Record<string, unknown>[]) : []
  const first = items[0] ?? {}
  const money = computeMoney(input)
  const echoed: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(input)) if (!COMPUTED.has(key)) echoed[key] = value
  const paymentStatus = str(input.paymentStatus) ?? 'PENDING_PAYMENT'
  const demandStatusInfo = isPlainObject(input.demandStatusInfo) ? input.demandStatusInfo : {}
  const fabricated = str(input.fabricatedDate)
  const core = {
    _id: facts._id,
    business: facts.business,
    orderNumber: facts.orderNumber,
    type: (str(input.type) ?? 'normal').toUpperCase(),
    currency: str(input.currency) ?? businessCurrency,
    technique: str(input.technique) ?? str(first.service) ?? '',
    material: str(input.material) ?? str(first.material) ?? '',
    color: str(input.color) ?? str(first.color) ?? '',
    priceToClient: money.total,
    priceToManufacturer: round2(money.total - money.platformFee),
    priceTotal: money.priceTotal,
    platformFee: money.platformFee,
    priceDelivery: money.priceDelivery,
    taxPaid: money.taxPaid,
    taxPercentage: money.taxPercentage,
    taxName: TAX_NAME,
    paymentStatus,
    archive: input.archive === true,
    fabricatedDate: fabricated ? (normalizeDate(fabricated) ?? null) : null,
    createdAt: facts.createdAt,
    updatedAt: facts.updatedAt,
    demandStatusInfo: {status: facts.stage, substatus: str(demandStatusInfo.substatus) ?? ''},
    billingAddress: addressRecord(input, 'billing'),
    shippingAddress: addressRecord(input, 'shipping'),
    quoteModel: items,
    tracking: facts.tracking,
    uniqueItems: Math.max(1, items.length),
    total: money.total,
    subtotal: money.subtotal,
    feesTotalAmount: money.feesTotalAmount,
    pricePerPiece: money.pricePerPiece,
    startupCost: money.startupCost,
    discount: money.discount,
    quantity: money.quantity,
    leadTime: input.type === 'express' ? 3 : 7,
    shippingDuration: shippingDays(input),
    isPaid: paymentStatus === 'PAID',
    status: STAGE_INFO[facts.stage].display,
    client: facts.client,
    jobDetails: {...(isPlainObject(input.jobDetails) ? input.jobDetails : {}), takenAs: facts.takenAs},
  }
  // Record fields first, then what the caller sent that the record does not define, then the input.
  const doc: DemandDoc = {...core}
  for (const [key, value] of Object.entries(echoed)) if (!(key in core)) doc[key] = value
  doc._input = input
  return doc
}

/** The service-owned facts of a stored demand. */
export function factsOf(doc: DemandDoc): DemandFacts {
  return {
    _id: doc._id,
    business: doc.business,
    orderNumber: doc.orderNumber,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    stage: doc.demandStatusInfo.status,
    takenAs: doc.jobDetails.takenAs,
    tracking: doc.tracking,
    client: doc.client,
  }
}

export function inputOf(doc: DemandDoc): DemandInput {
  return isPlainObject(doc._input) ? doc._input : {}
}

/** The v1 demand record. */
export function v1Record(doc: DemandDoc): Record<string, unknown> {
  const {_input: _unused, ...record} = doc
  return record
}

const money2 = (n: number): string => round2(n).toFixed(2)

function legacyDate(iso: string | null): string | null {
  if (!iso) return null
  const [y, m, d] = iso.split('-')
  return `${d}/${m}/${y}`
}

function numberOrNull(value: unknown): number | null {
  if (value === undefined || value === null || value === '') return null
  const n = amount(value)
  return typeof value === 'number' || (typeof value === 'string' && Number.isFinite(Number(value))) ? n : null
}

/** The stage epoch fields (ms) a demand has reached. */
function epochFields(input: DemandInput): Record<string, number> {
  const out: Record<string, number> = {}
  for (const key of ['dateAccepted', 'producedAt', 'startedShippingAt', 'deliveredAt']) {
    if (typeof input[key] === 'number') out[key] = input[key]
  }
  return out
}

/** The legacy (v2) demand record: string prices, legacy status text, client as an id. */
export function legacyRecord(doc: DemandDoc): Record<string, unknown> {
  const input = inputOf(doc)
  const items = doc.quoteModel
  const sum = (key: string): number =>
    items.reduce((s, it) => s + amount(it[key]) * (typeof it.quantity === 'number' ? it.quantity : 1), 0)
  const priceMachine = items.length > 0 ? sum('priceMachine') : amount(input.priceMachine) * doc.quantity
  const priceConception = items.length > 0 ? sum('priceConception') : amount(input.priceConception) * doc.quantity
  const priceExtra = items.length > 0 ? sum('priceExtra') : amount(input.priceExtra) * doc.quantity
  const file = str(input.file) ?? str(items[0]?.fileLink) ?? ''
  const shipping = doc.shippingAddress
  return {
    _id: doc._id,
    orderNumber: doc.orderNumber,
    remark: Array.isArray(input.remark) ? input.remark : [],
    thickness: numberOrNull(input.thickness),
    tolerance: numberOrNull(input.tolerance),
    quantity: doc.quantity,
    typeDelivery: str(input.typeDelivery) ?? 'home delivery',
    priceDelivery: doc.priceDelivery,
    client: doc.client,
    machineOwner: doc.business,
    technique: doc.technique,
    material: doc.material,
    color: doc.color,
    resolution: str(input.resolution) ?? '',
    filling: typeof input.filling === 'number' ? input.filling : null,
    file,
    email: str(input.email) ?? str(shipping.email) ?? '',
    phone: str(input.phone) ?? shipping.phone,
    country: str(input.country) ?? shipping.country,
    city: str(input.city) ?? shipping.city,
    zip: str(input.zip) ?? shipping.zip,
    address: str(input.address) ?? shipping.address,
    firstName: str(input.firstName) ?? str(shipping.firstName) ?? '',
    lastName: str(input.lastName) ?? str(shipping.lastName) ?? '',
    status: STAGE_INFO[doc.demandStatusInfo.status].legacy,
    demandStatusInfo: doc.demandStatusInfo,
    priceToClient: money2(doc.priceToClient),
    priceMachine: money2(priceMachine),
    priceConception: round2(priceConception),
    priceExtra: round2(priceExtra),
    priceToMachnieOwner: money2(doc.priceToManufacturer),
    settings: isPlainObject(input.settings) ? input.settings : {notification: {user: true, machineOwner: true}},
    currency: doc.currency,
    type: str(input.type) ?? 'normal',
    quoteModel: doc.quoteModel,
    tracking: doc.tracking,
    paymentStatus: doc.paymentStatus,
    priceTotal: doc.priceTotal,
    taxPaid: doc.taxPaid,
    platformFee: doc.platformFee,
    processorExtraFees: 0,
    priceSurcharge: amount(input.priceSurcharge),
    fabricatedDate: legacyDate(doc.fabricatedDate),
    archive: doc.archive,
    ...(doc.draftId !== undefined ? {draftId: doc.draftId} : {}),
    ...(typeof input.productId === 'string' ? {productId: input.productId} : {}),
    ...epochFields(input),
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  }
}

/**
 * The legacy create answer: the legacy record (tracking, payment and price
 * fields, orderNumber, timestamps, client as an id) over an echo of the fields
 * the caller submitted. Where both have a field, the record's value wins.
 */
export function legacyCreateRecord(doc: DemandDoc): Record<string, unknown> {
  const echo: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(inputOf(doc))) if (!COMPUTED.has(key)) echo[key] = value
  return {...echo, ...legacyRecord(doc)}
}
