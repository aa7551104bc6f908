import * as z from 'zod'

import {CURRENCIES, Service} from './common.js'

/**
 * Wire schemas of the two price-estimation interfaces (v1 QuoteModelPublicDto and
 * the legacy modelPriceEstimation body) and of their answers. Shared by the CLI's
 * client and the sandbox. The request schemas are loose: unknown fields pass, so a
 * full quote-model item from a demand can be sent as is.
 */

const str = z.string()
const num = z.number()
const bool = z.boolean()

/** A number, or a numeric string (`"18686.146"`), which the interface shows for volume and weight. */
export const NumberLike = z.union([num, str.regex(/^\s*\d+(\.\d+)?([eE][+-]?\d+)?\s*$/, 'must be a number')])
export type NumberLike = z.infer<typeof NumberLike>

/** The legacy technologies (interface, legacy price estimation). Sheet metal uses DEFAULT. */
export const LEGACY_TECHNOLOGIES = ['SLA', 'FDM', 'SLS', 'CNC', 'DEFAULT'] as const
export const LegacyTechnology = z.enum(LEGACY_TECHNOLOGIES)

export const VIEWER_TYPES = ['3D', '2D'] as const

export const PricingSlicingData = z
  .looseObject({
    width: num.nonnegative(),
    height: num.nonnegative(),
    depth: num.nonnegative(),
    density: num.nonnegative(),
    filament_length: num.nonnegative(),
    hours: num.nonnegative(),
    minimum_bounding_box: num.nonnegative(),
    convex_hull: num.nonnegative(),
    total_print_area: num.nonnegative(),
    number_of_layers: num.nonnegative(),
    volume: NumberLike,
    weight: NumberLike,
  })
  .partial()
export type PricingSlicingData = z.infer<typeof PricingSlicingData>

export const PricingOption = z
  .looseObject({
    _id: str,
    refer: str,
    name: str,
    type: str,
    priceMultiplier: num,
    fixedPrice: z.looseObject({price: num, currency: str}).partial(),
    percentage: num,
    isDeffault: bool,
  })
  .partial()
export type PricingOption = z.infer<typeof PricingOption>

/** `material`: an object of the business's catalogue (matched by `_id`, else by `materials` name) or a name. */
export const PricingMaterial = z.union([
  str,
  z
    .looseObject({
      _id: str,
      machine: str,
      service: str,
      materials: str,
      price: num,
      currency: str,
      technology: str,
      description: str,
      colors: z.array(z.unknown()),
      density: z.looseObject({value: num, unit: str}).partial(),
      startupCost: z.looseObject({price: num.nullable(), currency: str}).partial(),
      unit: str,
      factor: str,
    })
    .partial(),
])
export type PricingMaterial = z.infer<typeof PricingMaterial>

const Xyz = z.looseObject({x_index: num, y_index: num, z_index: num}).partial()

/** v1 POST /api/public/v1/price-estimation/{businessId} body. */
export const QuoteModelPublicDto = z.looseObject({
  bulkPricing: z.array(z.number().int().min(1).max(1_000_000)).max(50).optional(),
  dfmData: z
    .looseObject({
      anomalies: z.array(z.looseObject({title: str, description: str}).partial()),
      coloredSvg: str,
      scaledFile: str,
      allLength: num.nonnegative(),
      allSurface: num.nonnegative(),
      height: num,
      width: num,
    })
    .partial()
    .optional(),
  unit: str.optional(),
  technologyAlias: str.optional(),
  fileLink: str.optional(),
  fileName: str.optional(),
  modelType: str.optional(),
  viewerType: str.optional(),
  service: Service.optional(),
  technology: str.optional(),
  priceCalculatorTool: str.optional(),
  color: str.optional(),
  colorHex: str.optional(),
  colorNameKey: str.optional(),
  infill: str.optional(),
  resolution: str.optional(),
  tolerance: str.optional(),
  note: str.optional(),
  priceMachine: str.optional(),
  isSupported: bool.optional(),
  machineCanPrint: bool.optional(),
  position: num.optional(),
  quantity: z.number().int().min(1).max(1_000_000).optional(),
  scale: num.positive().optional(),
  priceConception: num.nonnegative().optional(),
  priceExtra: num.nonnegative().optional(),
  /** Percent, 0 to 100, off the order total. */
  discount: num.min(0).max(100).optional(),
  volume: NumberLike.optional(),
  coordinates: Xyz.optional(),
  modelSizes: z.looseObject({width: num, height: num, depth: num, unit: str, scale: num}).partial().optional(),
  material: PricingMaterial.optional(),
  selectedOptions: z.array(PricingOption).optional(),
  slicingData: PricingSlicingData.optional(),
  postProduction: z.array(z.unknown()).optional(),
  /** Sheet metal: sheet thickness, mm (the create-demand field of that name). */
  thickness: num.positive().optional(),
  /** Sheet metal: each item of `bends` is one bend (the quote-model item's bendingData). */
  bendingData: z
    .looseObject({bends: z.array(z.unknown())})
    .partial()
    .optional(),
})
export type QuoteModelPublicDto = z.infer<typeof QuoteModelPublicDto>

/** The fields a legacy model must carry (interface, legacy price estimation). */
export const LEGACY_REQUIRED_FIELDS = [
  'slicingData',
  'selectedOptions',
  'material',
  'postProduction',
  'service',
  'technology',
  'viewerType',
  'quantity',
] as const

/** One legacy model: the v1 fields, with the required ones required and the legacy enums. */
export const LegacyModel = QuoteModelPublicDto.extend({
  slicingData: PricingSlicingData,
  selectedOptions: z.array(PricingOption),
  material: PricingMaterial,
  postProduction: z.array(z.unknown()),
  service: Service,
  technology: LegacyTechnology,
  viewerType: z.enum(VIEWER_TYPES),
  quantity: z.number().int().min(1).max(1_000_000),
})
export type LegacyModel = z.infer<typeof LegacyModel>

/** At most this many models in one legacy estimation body. */
export const LEGACY_ESTIMATION_MAX_MODELS = 100

export const LegacyEstimationBody = z
  .array(z.looseObject({model: LegacyModel}))
  .min(1)
  .max(LEGACY_ESTIMATION_MAX_MODELS)
export type LegacyEstimationBody = z.infer<typeof LegacyEstimationBody>

export const LegacyCurrency = z.enum(CURRENCIES)

/** One line of a bulk price table. */
export const BulkRow = z.object({quantity: z.number().int(), unitPrice: num, total: num})
export type BulkRow = z.infer<typeof BulkRow>

/**
 * v1 answer. `price` is the interface's field; the others are sandbox extensions
 * ([ext], docs/pricing.md) that a client must treat as optional.
 */
export const EstimationAnswer = z.looseObject({
  message: str,
  data: z.looseObject({
    price: num,
    currency: str.optional(),
    quantity: num.optional(),
    unitPrice: num.optional(),
    service: str.optional(),
    technology: str.optional(),
    material: str.optional(),
    bulk: z.array(BulkRow).optional(),
  }),
})
/** Legacy answer: one `{message, data: {price}}` per model, in order. */
export const LegacyEstimationAnswer = z.array(z.looseObject({message: str, data: z.looseObject({price: num})}))

/** The header that carries the legacy daily allowance left. */
export const ALLOWANCE_HEADER = 'x-daily-allowance-remaining'
