import * as z from 'zod'

import {CurrencyCode, DateText, Service, Technique} from './common.js'

const str = z.string()
const num = z.number()
const int = z.number().int()
const bool = z.boolean()

export const DEMAND_TYPES = ['normal', 'express', 'product_sale'] as const
export const TYPE_DELIVERY = ['home delivery', 'pickup directly'] as const
export const TAKEN_AS = ['QUOTE', 'ORDER'] as const
export const PAYMENT_PROVIDERS = [
  'CARD_PROCESSOR',
  'PROVIDER_B',
  'PROVIDER_C',
  'BANK_TRANSFER',
  'WALLET_PROVIDER',
  'PURCHASE_ORDER',
  'MANUAL_VALIDATION',
] as const

export const Address = z
  .object({
    address: str,
    vat: str,
    firstName: str,
    lastName: str,
    email: str,
    phone: str,
    city: str,
    region: str,
    country: str,
    zip: str,
    companyName: str,
  })
  .partial()
export const AddressDetails = z.object({address: str, city: str, region: str, country: str, zip: str}).partial()

export const SelectedOption = z
  .looseObject({
    refer: str,
    name: str,
    type: str,
    priceMultiplier: num,
    fixedPrice: z.object({price: num, currency: str}).partial(),
    percentage: num,
    isDeffault: bool,
    created: str,
    finishId: str,
    machineId: str,
    materialId: str,
  })
  .partial()

export const SlicingData = z
  .looseObject({
    width: num,
    height: num,
    depth: num,
    density: num,
    filament_length: num,
    hours: num,
    minimum_bounding_box: num,
    convex_hull: num,
    total_print_area: num,
    number_of_layers: num,
    volume: str,
    weight: str,
  })
  .partial()

/** One part of a demand (quote model item), as sent and as answered. */
export const QuoteModelItem = z
  .looseObject({
    _id: str,
    fileName: str,
    fileLink: str,
    modelType: str,
    screenshotLink: str,
    multiViewScreenshotsLink: str,
    viewerType: z.enum(['3D', '2D']),
    unit: str,
    position: int,
    partId: str,
    draftId: str,
    isSupported: bool,
    machineCanPrint: bool,
    scale: num,
    volume: num,
    total_print_area: num,
    modelSizes: z.looseObject({width: num, height: num, depth: num, scale: num, unit: str}).partial(),
    coordinates: z.looseObject({x_index: num, y_index: num, z_index: num}).partial(),
    service: Service,
    technology: str,
    technologyAlias: str,
    technologyFactor: num,
    priceCalculatorTool: z.enum(['default', 'custom']),
    material: str,
    color: str,
    colorHex: str,
    colorNameKey: str,
    infill: str,
    resolution: str,
    tolerance: str,
    selectedOptions: z.array(SelectedOption),
    slicingData: SlicingData,
    priceMachine: z.union([str, num]),
    priceConception: num,
    priceExtra: num,
    pricePerPiece: num,
    startupCost: num,
    price_min: num,
    priceEngine: num,
    priceWithMargin: num,
    discount: num,
    discountAmount: num,
    priceSurcharge: num,
    expectedPrice: num,
    priceMinPart: num,
    lastTest: num,
    currency: str,
    bulkPricing: z.array(z.unknown()),
    quantity: int.min(1),
    postProduction: z.array(z.unknown()),
    note: str,
    customerNote: str,
    productionNote: str,
    erpProductId: int,
    substatus: str,
    substatusNotes: str,
    progress: num,
    failure: z.object({option: str, description: str}).partial(),
    materialUsage: str,
    leadTimeIncluded: bool,
    marginIncluded: bool,
    postProductionIncluded: bool,
    quantityIncluded: bool,
    startupCostIncluded: bool,
    technologyFactorIncluded: bool,
    customOptionsIncluded: bool,
  })
  .partial()
export type QuoteModelItem = z.infer<typeof QuoteModelItem>

/** Demand stages (contract, Stages). */
export const STAGES = [
  'quote_sent',
  'special_verified',
  'special_accepted',
  'done',
  'in_shipping',
  'delivered',
  'cancelled',
] as const
export type Stage = (typeof STAGES)[number]
export const Stage = z.enum(STAGES)
export const DemandStatusInfo = z.object({status: str, substatus: str}).partial()

/** A new demand's status, when given: the first stage only (it moves through the others afterwards). */
const NewDemandStatusInfo = z
  .object({
    status: str.check((payload) => {
      if (payload.value !== 'quote_sent') {
        payload.issues.push({
          code: 'custom',
          message: 'a new demand starts in "quote_sent"; move it with an update afterwards',
          input: payload.value,
          continue: true,
        })
      }
    }),
    substatus: str,
  })
  .partial()

/** Payment statuses an update may set (contract). */
export const PAYMENT_STATUSES = ['PENDING_PAYMENT', 'PAID'] as const

const JobDetails = z
  .object({
    invoiceData: z
      .object({
        invoiceDate: str,
        dueDate: str,
        taxCustomer: str,
        customerTaxType: str,
        taxProvider: str,
        note: str,
        taxPercentage: num,
      })
      .partial(),
    manufacturingPartner: str,
    roomOwnerPartner: str,
    roomClientPartner: str,
    jobSubmissionDate: str,
    manufacturerGain: z.object({type: z.enum(['PERCENTAGE', 'AMOUNT'])}).partial(),
    jobOfferOrderStatus: z.enum(['PENDING', 'PAID']),
    takenAs: z.enum(TAKEN_AS),
    visibility: z.enum(['PUBLIC', 'RESTRICTED']),
    includeAllPartners: bool,
    allowDemandToJobFeed: bool,
    allowedNetworks: z.array(z.unknown()),
    allowedPartners: z.array(z.unknown()),
    clientSettings: z
      .object({allowClientPartnerChat: bool, allowClientSeeOffers: bool, allowClientAcceptOffers: bool})
      .partial(),
    partnerSettings: z.object({transferOldFeesToPartner: bool}).partial(),
    offers: z.array(
      z
        .looseObject({
          offeringBusiness: str,
          priceTotal: num,
          priceDelivery: num,
          quoteModel: z.array(
            z.object({priceConception: num, priceExtra: num, priceMachine: num, quantity: num}).partial(),
          ),
          deliveryDate: str,
          roomOwnerPartner: str,
          roomClientPartner: str,
          isSelected: bool,
          useTotalPrice: bool,
          offerCreationDate: str,
        })
        .partial(),
    ),
    oldPartners: z.array(
      z.object({partnerId: str, date: str, roomOwnerPartner: str, roomClientPartner: str}).partial(),
    ),
  })
  .partial()

/** Fields shared by the v1 create and update requests. */
const demandFields = {
  jobDetails: JobDetails,
  referral: str,
  draftId: str.min(1).max(200),
  business: str,
  id: str,
  client: str.nullable(),
  machineOwner: str,
  post: str,
  machineOwnerEmail: str,
  quoteModel: z.array(QuoteModelItem),
  quoteFileModel: z.record(str, z.unknown()),
  couponCode: z.record(str, z.unknown()),
  file: z.record(str, z.unknown()),
  dfmCheckData: z.record(str, z.unknown()),
  modelSizes: z.record(str, z.unknown()),
  dateAccepted: num,
  producedAt: num,
  startedShippingAt: num,
  deliveredAt: num,
  technique: Technique,
  material: str,
  resolution: str,
  tolerance: str,
  coloredSvg: str,
  color: str,
  filling: num,
  amount: num,
  quantity: int.min(1),
  thickness: num,
  priceMin: num,
  priceConception: num,
  priceExtra: num,
  priceTotal: num,
  priceDelivery: num,
  fixedPrice: num,
  minEstimatedPrice: num,
  maxEstimatedPrice: num.nullable(),
  remark: z.array(z.unknown()),
  declinedBy: z.array(z.unknown()),
  priceByMachines: z.array(z.unknown()),
  additionalFees: z.array(z.unknown()),
  messages: z.array(z.object({message: str, role: str, timeStamp: str}).partial()),
  phone: str,
  address: str,
  country: str,
  city: str,
  region: str,
  zip: str,
  firstName: str,
  lastName: str,
  email: str,
  type: z.enum(DEMAND_TYPES),
  typeDelivery: z.enum(TYPE_DELIVERY),
  isRated: bool,
  isCompany: bool,
  archive: bool,
  conception: bool,
  useTotalPrice: bool,
  demandStatusInfo: DemandStatusInfo,
  priceToClient: str,
  priceToPartner: str,
  priceMachine: str,
  priceToMachnieOwner: str,
  currency: CurrencyCode,
  trackId: str,
  shippingProvider: str,
  fabricatedDate: DateText,
  settings: z.object({notification: z.object({user: bool, machineOwner: bool}).partial()}).partial(),
  billingAddress: Address,
  shippingAddress: Address,
  packingSlipData: z.unknown(),
}

/**
 * The contract's minimal demand (both generations): a non-empty quoteModel, or
 * technique and material. A `.check()` that pushes its issue itself, as
 * `.superRefine` would word it: superRefine makes an `addIssue` closure on every
 * parse, which, until the engine has optimised the parse, keeps each row parsed
 * alive through the young-generation collections (a first pass over 10,000 CSV
 * rows carried about 3 MB more through each).
 */
export function requireModelOrMaterial(
  payload: z.core.ParsePayload<{
    quoteModel?: unknown[] | undefined
    technique?: string | undefined
    material?: string | undefined
  }>,
): void {
  const item = payload.value
  const hasModel = Array.isArray(item.quoteModel) && item.quoteModel.length > 0
  if (!hasModel && !(item.technique && item.material)) {
    payload.issues.push({
      code: 'custom',
      path: item.technique ? ['material'] : ['technique'],
      message: 'a demand needs a non-empty quoteModel, or technique and material',
      input: item,
      continue: true,
    })
  }
}

/** One item of the v1 create-quotes body (CreateDemandRequestData). Unknown fields are dropped. */
export const CreateDemandItem = z
  .object({
    ...demandFields,
    demandStatusInfo: NewDemandStatusInfo,
    isDashboardReferrer: bool,
    jobOfferId: str,
    useDifferentAddresses: bool,
    shippingAddressDetails: AddressDetails,
    billingAddressDetails: AddressDetails,
  })
  .partial()
  .check(requireModelOrMaterial)
export type CreateDemandItem = z.infer<typeof CreateDemandItem>

export const MAX_BATCH = 100
export const CreateDemandBody = z.array(CreateDemandItem).min(1).max(MAX_BATCH)

/** The v1 update body (UpdateDemandRequestData). */
export const UpdateDemandBody = z
  .object({
    ...demandFields,
    demandStatusInfo: z.object({status: Stage, substatus: str}).partial(),
    invoiceData: JobDetails.shape.invoiceData,
    discountedTotalPrice: num,
    discountedAmount: num,
    priceSurcharge: num,
    taxPaid: num,
    taxPercentage: num,
    overRideTax: bool,
    companyName: str,
    taxNumber: str,
    taxOffice: str,
    paymentProvider: z.enum(PAYMENT_PROVIDERS),
    paymentStatus: z.enum(PAYMENT_STATUSES),
  })
  .partial()
export type UpdateDemandBody = z.infer<typeof UpdateDemandBody>

export const TrackingEntry = z.looseObject({status: str, date: num})

/**
 * A demand as the sandbox answers it in v1: the strict shape its tests check.
 * The CLI reads answers with read/demand.ts; read/types.ts names that read shape `DemandRecord`.
 */
export const DemandRecord = z.looseObject({
  _id: str,
  orderNumber: int.optional(),
  type: str.optional(),
  currency: str.optional(),
  technique: str.optional(),
  material: str.optional(),
  color: str.optional(),
  priceToClient: num.optional(),
  priceToManufacturer: num.optional(),
  priceTotal: num.optional(),
  platformFee: num.optional(),
  priceDelivery: num.optional(),
  taxPaid: num.optional(),
  taxPercentage: num.optional(),
  taxName: str.optional(),
  paymentStatus: str.optional(),
  archive: bool.optional(),
  fabricatedDate: str.nullable().optional(),
  createdAt: str.optional(),
  updatedAt: str.optional(),
  demandStatusInfo: DemandStatusInfo.optional(),
  billingAddress: z.looseObject({}).optional(),
  shippingAddress: z.looseObject({}).optional(),
  quoteModel: z.array(z.looseObject({})).optional(),
  tracking: z.array(TrackingEntry).optional(),
  uniqueItems: int.optional(),
  total: num.optional(),
  subtotal: num.optional(),
  feesTotalAmount: num.optional(),
  pricePerPiece: num.optional(),
  startupCost: num.optional(),
  discount: num.optional(),
  quantity: int.optional(),
  leadTime: num.optional(),
  shippingDuration: num.optional(),
  isPaid: bool.optional(),
  status: str.optional(),
  draftId: str.optional(),
  jobDetails: z.looseObject({}).optional(),
  paymentAuthToken: str.optional(),
})
/**
 * What a batch reads of each created demand (both generations): parsing only
 * these fields keeps big batches from spending their time on full records.
 */
export const CreatedDemandSummary = z.object({
  _id: str,
  orderNumber: int.optional(),
  draftId: str.optional(),
  status: str.optional(),
})

/** A v1 list page as the sandbox answers it (strict); the CLI reads pages with read/demand.ts. */
export const DemandPage = z.looseObject({
  data: z.array(DemandRecord),
  page: int,
  pageSize: int,
  total: int,
  totalPages: int,
})
/** A v1 list page as the CLI holds it: paging fields absent when the service sent no usable ones. */

/** The `{type}` segment of the v1 list path (contract: case-insensitive, QUOTE/ORDER accepted). */
export const LIST_TYPES = ['quotes', 'orders', 'all'] as const
export const ListType = z.enum(LIST_TYPES)
export type ListType = z.infer<typeof ListType>
export const V1_PAGE_SIZE_DEFAULT = 20
export const V1_PAGE_SIZE_MAX = 100

export const STAGE_INFO: Record<Stage, {legacy: string; display: string; tracking: string}> = {
  quote_sent: {legacy: 'Quote Sent', display: 'Quote Sent', tracking: 'quote sent'},
  special_verified: {legacy: 'Special Verified', display: 'In Review', tracking: 'special verified'},
  special_accepted: {legacy: 'Special Accepted', display: 'In Production', tracking: 'special accepted'},
  done: {legacy: 'Done', display: 'Ready to Ship', tracking: 'done'},
  in_shipping: {legacy: 'In Shipping', display: 'In Shipping', tracking: 'in shipping'},
  delivered: {legacy: 'Delivered', display: 'Delivered', tracking: 'delivered'},
  cancelled: {legacy: 'Cancelled', display: 'Cancelled', tracking: 'cancelled'},
}
export const STAGE_MOVES: Record<Stage, readonly Stage[]> = {
  quote_sent: ['special_verified', 'cancelled'],
  special_verified: ['special_accepted', 'quote_sent', 'cancelled'],
  special_accepted: ['done'],
  done: ['in_shipping'],
  in_shipping: ['delivered'],
  delivered: [],
  cancelled: [],
}
/** Epoch field set when a demand enters a stage. */
export const STAGE_EPOCH_FIELD: Partial<
  Record<Stage, 'dateAccepted' | 'producedAt' | 'startedShippingAt' | 'deliveredAt'>
> = {
  special_accepted: 'dateAccepted',
  done: 'producedAt',
  in_shipping: 'startedShippingAt',
  delivered: 'deliveredAt',
}
/** Fields frozen from production (special_accepted) on. */
export const FROZEN_FROM_PRODUCTION = [
  'material',
  'quantity',
  'color',
  'resolution',
  'filling',
  'thickness',
  'tolerance',
  'quoteModel',
  'technique',
] as const
export const PRODUCTION_STAGES: readonly Stage[] = ['special_accepted', 'done', 'in_shipping', 'delivered']
