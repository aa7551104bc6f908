import * as z from 'zod'

import {CurrencyCode, DateText, Technique} from './common.js'
import {Address, AddressDetails, DEMAND_TYPES, TAKEN_AS, TYPE_DELIVERY, requireModelOrMaterial} from './demand.js'

/**
 * Wire schemas of the legacy v2 demand interface (interface.md, "Legacy v2:
 * demands"; contract.md, Demands). Unknown fields of create items are dropped,
 * like v1; the legacy update is strict because only its eight fields may change.
 */

const str = z.string()

/** Legacy status text a new demand may be created with: only the first stage, in any case and spacing. */
const isQuoteSentText = (value: string) =>
  value
    .trim()
    .toLowerCase()
    .replace(/[_\s]+/g, ' ') === 'quote sent'
const num = z.number()
const int = z.number().int()
const bool = z.boolean()

/** Numbers that the legacy interface documents as numbers but that clients often send as numeric strings. */
const numeric = z.union([num, str.regex(/^\s*-?\d+(\.\d+)?\s*$/, 'must be a number')])

/** One part of a create-demands item: `material` and `machine` are catalogue ids. */
export const LegacyQuoteModelItem = z
  .looseObject({
    _id: str,
    viewerType: z.enum(['3D', '2D']),
    discount: num,
    quantity: int.min(1),
    color: str,
    colorHex: str,
    priceCalculatorTool: z.enum(['default', 'custom']),
    scale: num,
    fileLink: str,
    fileName: str,
    modelType: str,
    service: z.enum(['3D_PRINTING', 'CNC_MACHINING', 'SHEET_METAL']),
    technology: str,
    /** Material id (a name is accepted too). */
    material: str,
    /** Machine id. */
    machine: str,
    priceMachine: z.union([str, num]),
    priceConception: num,
    priceExtra: num,
    price_min: num,
    priceWithMargin: num,
    pricePerPiece: num,
    currency: str,
    startupCost: num,
    priceEngine: num,
    discountAmount: num,
  })
  .partial()
export type LegacyQuoteModelItem = z.infer<typeof LegacyQuoteModelItem>

export const ShippingMethod = z.looseObject({regionTo: str, price: num, currency: str, daysToDeliver: num}).partial()

/** One item of the create-demands body. */
export const CreateLegacyDemandItem = z
  .object({
    quoteModel: z.array(LegacyQuoteModelItem),
    minEstimatedPrice: num,
    maxEstimatedPrice: num.nullable(),
    email: str,
    country: str,
    address: str,
    phone: str,
    zip: str,
    firstName: str,
    lastName: str,
    city: str,
    region: str,
    typeDelivery: z.enum(TYPE_DELIVERY),
    isCompany: bool,
    taxType: str,
    shippingAddressDetails: AddressDetails,
    billingAddressDetails: AddressDetails,
    shippingAddress: Address,
    billingAddress: Address,
    /** A customer id, or null when the customer details are given instead. */
    client: str.nullable(),
    machineOwner: str,
    business: str,
    technique: Technique,
    shippingMethod: ShippingMethod,
    currency: CurrencyCode,
    remark: z.array(str),
    type: z.enum(DEMAND_TYPES),
    /** Legacy status text; a new demand can only start as "quote sent". */
    status: str.check((payload) => {
      if (!isQuoteSentText(payload.value)) {
        payload.issues.push({
          code: 'custom',
          message: 'a new demand starts as "quote sent"; it moves through the stages afterwards',
          input: payload.value,
          continue: true,
        })
      }
    }),
    fixedPrice: num,
    priceDelivery: num,
    fabricatedDate: DateText,
    priceMin: num,
    priceMinPart: num,
    draftId: str.min(1).max(200),
    referral: str,
    material: str,
    color: str,
    resolution: str,
    filling: num,
    quantity: int.min(1),
    thickness: num,
    tolerance: numeric,
    file: str,
    settings: z.object({notification: z.object({user: bool, machineOwner: bool}).partial()}).partial(),
    priceToClient: str,
    priceMachine: str,
    priceConception: num,
    priceExtra: num,
    priceToMachnieOwner: str,
    /** Accepted alias of `priceToMachnieOwner` (contract); stored under the interface's spelling. */
    priceToMachineOwner: str,
    priceTotal: num,
    jobDetails: z.looseObject({takenAs: z.enum(TAKEN_AS)}).partial(),
  })
  .partial()
  .check(requireModelOrMaterial)
export type CreateLegacyDemandItem = z.infer<typeof CreateLegacyDemandItem>

export const MAX_LEGACY_BATCH = 100
export const CreateLegacyDemandBody = z.array(CreateLegacyDemandItem).min(1).max(MAX_LEGACY_BATCH)
export type CreateLegacyDemandBody = z.infer<typeof CreateLegacyDemandBody>

/** Languages of the by-product order's `lang` query parameter. */
export const LANGS = ['en', 'fr', 'de', 'es'] as const
export const Lang = z.enum(LANGS)
export type Lang = z.infer<typeof Lang>

/** One item of the by-product order body (`POST .../demand/products?lang=`). */
export const ProductOrderItem = z.object({
  productId: str.min(1),
  /** The business's fixed referral value, sent exactly. */
  referral: str,
  material: str.optional(),
  resolution: str.optional(),
  filling: num.optional(),
  quantity: int.min(1).optional(),
  color: str.optional(),
  /** Laser-cutting thickness, mm. */
  thickness: num.optional(),
  /** CNC precision. */
  tolerance: numeric.optional(),
  shippingMethod: z.looseObject({method: str, type: str, currency: str, price: num}).partial().optional(),
  shippingAddress: Address.optional(),
  clientInfo: z
    .looseObject({
      _id: str,
      firstName: str,
      lastName: str,
      email: str,
      phone: str,
      companyName: str,
      address: str,
      city: str,
      region: str,
      country: str,
      zip: str,
    })
    .partial()
    .optional(),
  /** **[ext]** Replay key, as in create-demands. */
  draftId: str.min(1).max(200).optional(),
})
export type ProductOrderItem = z.infer<typeof ProductOrderItem>
export const ProductOrderBody = z.array(ProductOrderItem).min(1).max(MAX_LEGACY_BATCH)

/** `POST .../demand/list` body. */
export const MAX_LEGACY_LIST_IDS = 500
export const LegacyListBody = z.object({demands: z.array(str.min(1)).min(1).max(MAX_LEGACY_LIST_IDS)})
export type LegacyListBody = z.infer<typeof LegacyListBody>

/** The legacy update body: only these fields may change. */
export const LegacyUpdateBody = z
  .strictObject({
    material: str,
    resolution: str,
    filling: num,
    quantity: int.min(1),
    color: str,
    thickness: num,
    tolerance: numeric,
    shippingAddress: Address,
  })
  .partial()
export type LegacyUpdateBody = z.infer<typeof LegacyUpdateBody>
export const LEGACY_UPDATE_FIELDS = Object.keys(LegacyUpdateBody.shape) as (keyof LegacyUpdateBody)[]

/**
 * A demand as the sandbox's legacy interface answers it (strict). The CLI reads
 * answers with read/demand.ts; read/types.ts names that read shape `LegacyDemandRecord`.
 */
export const LegacyDemandRecord = z.looseObject({
  _id: str,
  orderNumber: int.optional(),
  remark: z.array(z.unknown()).optional(),
  thickness: num.nullable().optional(),
  tolerance: num.nullable().optional(),
  quantity: int.optional(),
  typeDelivery: str.optional(),
  priceDelivery: num.optional(),
  client: z.union([str, z.looseObject({}), z.null()]).optional(),
  machineOwner: z.union([str, z.looseObject({})]).optional(),
  technique: str.optional(),
  file: str.optional(),
  email: str.optional(),
  phone: str.optional(),
  country: str.optional(),
  city: str.optional(),
  zip: str.optional(),
  status: str.optional(),
  priceToClient: str.optional(),
  priceMachine: str.optional(),
  priceConception: num.optional(),
  priceExtra: num.optional(),
  priceToMachnieOwner: str.optional(),
  settings: z.looseObject({}).optional(),
  draftId: str.optional(),
  tracking: z.array(z.looseObject({status: str, date: num})).optional(),
  createdAt: str.optional(),
  updatedAt: str.optional(),
})
