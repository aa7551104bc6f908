import {CURRENCIES, type Currency, type ErrorDetail} from '../schemas/common.js'
import type {BulkRow, PricingOption, QuoteModelPublicDto} from '../schemas/pricing.js'
import type {Business} from './store/businesses.js'
import type {CustomerOption, Machine, Material} from './store/catalog.js'
import type {Store} from './store/index.js'

/**
 * The sandbox's pricing engine, shared by v1 price-estimation and the legacy
 * modelPriceEstimation. Pure functions over the business's catalogue; the
 * formulas, constants and worked examples are in docs/pricing.md.
 */

/** Units of each currency for 1 EUR. Fixed, so estimates are reproducible (docs/pricing.md). */
export const EUR_RATES: Readonly<Record<Currency, number>> = {
  EUR: 1,
  USD: 1.08,
  CNY: 7.8,
  GBP: 0.85,
  TND: 3.35,
  ZAR: 20,
  GHS: 16.5,
  NGN: 1650,
  XAF: 655.957,
  KES: 140,
  KWD: 0.333,
  MAD: 10.8,
  AED: 3.97,
  EGP: 52.5,
  DZD: 145,
  CAD: 1.47,
  AUD: 1.65,
  INR: 90,
  MXN: 19.5,
  CZK: 25,
  SGD: 1.45,
  MYR: 5,
}

/** Engine constants where the catalogue has no field (docs/pricing.md, "Machine time"). */
export const ENGINE = {
  /** FDM without slicer hours: print minutes per cm³ of part. */
  fdmMinutesPerCm3: 6,
  /** SLA: hours per mm of part height (0.05 mm layers at 9 s each). */
  slaHoursPerMm: 0.05,
  /** SLA: resin used = part volume × this (supports and rinse loss). */
  slaResinFactor: 1.1,
  /** SLS and other powder processes: hours per cm³ of part. */
  slsHoursPerCm3: 0.025,
  /** CNC: fixturing, probing and tool changes per part, hours. */
  cncHandlingHours: 0.25,
  /** CNC: material removal rate in cm³/min, by material name; `default` otherwise. */
  cncRemovalRate: {'Aluminium 6061': 8, Brass: 6, 'Steel S235': 3, default: 3} as Record<string, number>,
  /** Sheet metal: loading and unloading per part, hours. */
  sheetHandlingHours: 0.05,
  /** Sheet metal: laser speed × thickness, mm²/min (speed in mm/min = this / thickness), by material name. */
  laserSpeedThickness: {'Steel S235': 6000, 'Aluminium 5754': 4500, default: 4000} as Record<string, number>,
  /** Sheet metal: a stock thickness matches a measured one within this, mm. */
  thicknessTolerance: 0.05,
} as const

/** Half-up rounding to cents, robust to binary noise (0.415 → 0.42). */
export function round2(x: number): number {
  return Math.round(x * 100 + 1e-7 * Math.sign(x)) / 100
}

/** An amount in `from` expressed in `to` through the EUR rate table, not rounded. */
export function convert(amount: number, from: string, to: string): number {
  return (amount / rateOf(from)) * rateOf(to)
}

function rateOf(currency: string): number {
  const rate = (EUR_RATES as Record<string, number>)[currency.toUpperCase()]
  if (rate === undefined) throw new PricingInputError(`No exchange rate for ${currency}.`, [])
  return rate
}

export function isCurrency(code: string): code is Currency {
  return (CURRENCIES as readonly string[]).includes(code)
}

/** A request the catalogue cannot price: a 400 with per-field details. */
export class PricingInputError extends Error {
  constructor(
    message: string,
    readonly details: ErrorDetail[],
  ) {
    super(message)
    this.name = 'PricingInputError'
  }
}

/** What the engine prices with: one business's catalogue. */
export interface Catalog {
  /** The business's currency: fees in the request (priceConception, priceExtra) are in it. */
  currency: string
  machines: readonly Machine[]
  materials: readonly Material[]
  options: readonly CustomerOption[]
}

/** A business's catalog as the engine reads it, from the store. */
export function catalogOf(store: Store, business: Business): Catalog {
  return {
    currency: business.currency,
    machines: store.catalog.machines(business.id),
    materials: store.catalog.materials(business.id),
    options: store.catalog.options(business.id),
  }
}

export interface Selection {
  machine: Machine
  material: Material
  options: CustomerOption[]
  color?: string
}

const quoted = (values: readonly string[]) => values.map((v) => JSON.stringify(v)).join(', ')
const oneOf = (values: readonly string[]) => `must be one of ${quoted(values)}`
const uniq = (values: readonly string[]) => [...new Set(values)]
const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase()

/** How an option is named in messages and in `--option`: `refer=name`. */
export const optionLabel = (o: {refer?: string; name?: string}) => `${o.refer ?? ''}=${o.name ?? ''}`

/**
 * Finds the machine, material, options and colour a request names, in this order:
 * service, technology, material (object `_id`, else name), then colour and options.
 * An unknown or ambiguous value is a PricingInputError whose detail lists the
 * allowed values as `must be one of "A", "B"`, so a client can offer them.
 */
export function resolveSelection(
  catalog: Catalog,
  req: Pick<QuoteModelPublicDto, 'service' | 'technology' | 'material' | 'color' | 'selectedOptions'>,
  prefix = '',
): Selection {
  const at = (path: string) => prefix + path
  let machines = catalog.machines.filter((m) => m.status === 'active')
  if (machines.length === 0)
    throw new PricingInputError('This business has no active machine, so it cannot price parts.', [])
  if (req.service) {
    const offered = uniq(machines.map((m) => m.service))
    machines = machines.filter((m) => m.service === req.service)
    if (machines.length === 0)
      throw new PricingInputError(`This business offers no ${req.service}.`, [
        {path: at('service'), message: oneOf(offered)},
      ])
  }
  const technology = req.technology?.trim()
  if (technology && !same(technology, 'DEFAULT')) {
    const offered = uniq(machines.map((m) => m.technology))
    machines = machines.filter((m) => same(m.technology, technology))
    if (machines.length === 0)
      throw new PricingInputError(
        `Unknown technology ${JSON.stringify(technology)}${req.service ? ` for ${req.service}` : ''}.`,
        [{path: at('technology'), message: oneOf(offered)}],
      )
  }
  const onMachines = (m: Material) => machines.some((x) => x._id === m.machine)
  const available = catalog.materials.filter(onMachines)
  const names = uniq(available.map((m) => m.materials))
  const scope = [req.service, technology && !same(technology, 'DEFAULT') ? technology : undefined]
    .filter(Boolean)
    .join(' ')
  if (req.material === undefined || req.material === '')
    throw new PricingInputError(`The material is required.`, [
      {path: at('material'), message: `is required; ${oneOf(names)}`},
    ])
  let candidates: Material[]
  let label: string
  const byId = typeof req.material === 'object' ? req.material._id : undefined
  if (byId) {
    label = byId
    const found = catalog.materials.find((m) => m._id === byId)
    if (!found)
      throw new PricingInputError(`Material ${byId} is not in this business's catalogue.`, [
        {path: at('material._id'), message: `is not a material of this business; name one of ${quoted(names)}`},
      ])
    candidates = onMachines(found) ? [found] : []
    label = found.materials
  } else {
    const name = typeof req.material === 'string' ? req.material : req.material.materials
    if (!name)
      throw new PricingInputError('The material needs an _id or a name (materials).', [
        {path: at('material'), message: `is required; ${oneOf(names)}`},
      ])
    label = name
    candidates = available.filter((m) => same(m.materials, name))
  }
  if (candidates.length === 0) {
    const elsewhere = catalog.materials.filter((m) => same(m.materials, label))
    const where = elsewhere
      .map((m) => catalog.machines.find((x) => x._id === m.machine))
      .filter((m): m is Machine => m !== undefined)
      .map((m) => `${m.technology} (${m.service})`)
    throw new PricingInputError(
      where.length > 0
        ? `${label} is not offered${scope ? ` for ${scope}` : ''}; it is offered with ${uniq(where).join(', ')}.`
        : `Unknown material ${JSON.stringify(label)}${scope ? ` for ${scope}` : ''}.`,
      [{path: at('material'), message: oneOf(names)}],
    )
  }
  if (candidates.length > 1) {
    const techs = uniq(
      candidates
        .map((m) => machines.find((x) => x._id === m.machine))
        .filter((m): m is Machine => m !== undefined)
        .map((m) => m.technology),
    )
    throw new PricingInputError(
      `${label} is offered by more than one machine (${techs.join(', ')}); name the technology.`,
      [{path: at('technology'), message: oneOf(techs)}],
    )
  }
  const material = candidates[0] as Material
  const machine = machines.find((m) => m._id === material.machine) as Machine

  const details: ErrorDetail[] = []
  let color: string | undefined
  if (req.color !== undefined && req.color !== '') {
    const c = material.colors.find((x) => same(x.name, req.color as string) || same(x.hex, req.color as string))
    if (c) color = c.name
    else details.push({path: at('color'), message: oneOf(material.colors.map((x) => x.name))})
  }
  const offered = catalog.options.filter((o) => o.services.includes(machine.service))
  const options: CustomerOption[] = []
  ;(req.selectedOptions ?? []).forEach((sel: PricingOption, i) => {
    const found = sel._id
      ? offered.find((o) => o._id === sel._id)
      : offered.find((o) => sel.refer !== undefined && same(o.refer, sel.refer) && same(o.name, sel.name ?? ''))
    if (!found) {
      details.push({path: at(`selectedOptions.${i}`), message: oneOf(offered.map(optionLabel))})
      return
    }
    if (options.some((o) => o.refer === found.refer)) {
      details.push({path: at(`selectedOptions.${i}.refer`), message: `${found.refer} is chosen more than once`})
      return
    }
    options.push(found)
  })
  if (details.length > 0)
    throw new PricingInputError(
      `Invalid ${details.map((d) => d.path.slice(prefix.length).split('.')[0]).join(' and ')} for ${material.materials} on ${machine.technology}.`,
      details,
    )
  return {machine, material, options, ...(color ? {color} : {})}
}

/** The part's measures the engine uses, in mm, mm², mm³, g and hours. */
export interface Geometry {
  width?: number
  depth?: number
  height?: number
  volume?: number
  boundingBoxVolume?: number
  /** Printed (FDM slicer) weight, g, at `density`. */
  weight?: number
  density?: number
  hours?: number
  thickness?: number
  cutLength?: number
  sheetArea?: number
  bends: number
}

const numberOf = (v: number | string | undefined): number | undefined => {
  if (v === undefined) return undefined
  const n = typeof v === 'number' ? v : Number(v)
  return Number.isFinite(n) ? n : undefined
}
const positive = (v: number | undefined) => (v !== undefined && v > 0 ? v : undefined)
const LENGTH_UNITS: Record<string, number> = {mm: 1, cm: 10, in: 25.4, inch: 25.4, m: 1000}

/** Reads the geometry from slicingData first, then modelSizes, volume, dfmData, thickness and bendingData. */
export function geometryOf(dto: QuoteModelPublicDto): Geometry {
  const s = dto.slicingData ?? {}
  const sizes = dto.modelSizes ?? {}
  const k = LENGTH_UNITS[(sizes.unit ?? 'mm').toLowerCase()] ?? 1
  const sized = (v: number | undefined) => (v === undefined ? undefined : v * k)
  const width = positive(s.width) ?? positive(sized(sizes.width))
  const depth = positive(s.depth) ?? positive(sized(sizes.depth))
  const height = positive(s.height) ?? positive(sized(sizes.height))
  const box = width !== undefined && depth !== undefined && height !== undefined ? width * depth * height : undefined
  return {
    width,
    depth,
    height,
    volume: positive(numberOf(s.volume)) ?? positive(numberOf(dto.volume)),
    boundingBoxVolume: positive(s.minimum_bounding_box) ?? box,
    weight: positive(numberOf(s.weight)),
    density: positive(s.density),
    hours: positive(s.hours),
    thickness: positive(dto.thickness),
    cutLength: positive(dto.dfmData?.allLength),
    sheetArea: positive(dto.dfmData?.allSurface),
    bends: dto.bendingData?.bends?.length ?? 0,
  }
}

export interface PriceRequest {
  selection: Selection
  geometry: Geometry
  quantity: number
  /** Design and extra fees per part, in the business currency. */
  priceConception?: number
  priceExtra?: number
  /** Percent off the order total. */
  discount?: number
  /** Currency of the answer. */
  currency: string
  /** Currency of the request's fees (the business's). */
  feesCurrency: string
}

/** Every step of one estimate; money in EUR (the pricing base) until `price`. */
export interface PriceBreakdown {
  service: Machine['service']
  technology: string
  machine: string
  material: string
  /** Material used per part, in `materialUnit` (kg or l). */
  materialAmount: number
  materialUnit: 'kg' | 'l'
  /** Machine hours per part. */
  hours: number
  materialCost: number
  machineCost: number
  bends: number
  bendCost: number
  /** Machine technology factor × material factor. */
  factor: number
  production: number
  fees: number
  base: number
  optionMultiplier: number
  optionPercentage: number
  optionFixed: number
  withOptions: number
  minimumPrice: number
  /** Price of one part, EUR. */
  unit: number
  quantity: number
  subtotal: number
  startupCost: number
  beforeDiscount: number
  discountPercent: number
  discountAmount: number
  totalEur: number
  currency: string
  rate: number
  /** The order total in `currency`: the answer's `price`. */
  price: number
  /** price / quantity, in `currency`. */
  unitPrice: number
}

const toEur = (amount: number, currency: string) => amount / rateOf(currency)

function required(what: string, path: string, technology: string, also = ''): PricingInputError {
  return new PricingInputError(`${what} is needed to price ${technology}${also}.`, [
    {path, message: `is required for ${technology}${also}`},
  ])
}

/** Material amount (kg or l) and machine hours per part, by technology (docs/pricing.md). */
function usage(
  machine: Machine,
  material: Material,
  g: Geometry,
  prefix: string,
): {amount: number; hours: number; bends: number} {
  const tech = machine.technology.toUpperCase()
  const rho = material.density.value
  /** kg or l of a mass in grams. */
  const amountOfGrams = (grams: number) => (material.unit === 'l' ? grams / rho / 1000 : grams / 1000)
  /** kg or l of a volume in mm³. */
  const amountOfVolume = (mm3: number) => (material.unit === 'l' ? mm3 / 1e6 : (mm3 / 1000) * (rho / 1000))
  const volumePath = `${prefix}slicingData.volume`

  if (machine.service === '3D_PRINTING') {
    if (tech === 'FDM') {
      if (g.weight === undefined && g.volume === undefined)
        throw required('The part weight or volume', volumePath, 'FDM', ' (or slicingData.weight)')
      const grams =
        g.weight !== undefined ? g.weight * (g.density ? rho / g.density : 1) : ((g.volume as number) / 1000) * rho
      const hours = g.hours ?? ((g.volume ?? (grams / rho) * 1000) / 1000) * (ENGINE.fdmMinutesPerCm3 / 60)
      return {amount: amountOfGrams(grams), hours, bends: 0}
    }
    if (g.volume === undefined) throw required('The part volume', volumePath, tech)
    if (tech === 'SLA') {
      if (g.height === undefined) throw required('The part height', `${prefix}slicingData.height`, 'SLA')
      return {
        amount: amountOfVolume(g.volume * ENGINE.slaResinFactor),
        hours: g.height * ENGINE.slaHoursPerMm,
        bends: 0,
      }
    }
    return {amount: amountOfVolume(g.volume), hours: (g.volume / 1000) * ENGINE.slsHoursPerCm3, bends: 0}
  }

  if (machine.service === 'CNC_MACHINING') {
    if (g.volume === undefined) throw required('The part volume', volumePath, 'CNC_MACHINING')
    if (g.boundingBoxVolume === undefined)
      throw required(
        'The part size',
        `${prefix}slicingData.width`,
        'CNC_MACHINING',
        ' (width, depth and height, or minimum_bounding_box)',
      )
    const stock = Math.max(g.boundingBoxVolume, g.volume)
    const removed = stock - g.volume
    const rate = ENGINE.cncRemovalRate[material.materials] ?? (ENGINE.cncRemovalRate.default as number)
    return {amount: amountOfVolume(stock), hours: ENGINE.cncHandlingHours + removed / 1000 / rate / 60, bends: 0}
  }

  // Sheet metal: a flat blank of the stock thickness, laser cut along its outline, then bent.
  const measured = g.thickness ?? minPositive(g.width, g.depth, g.height)
  if (measured === undefined)
    throw required('The sheet thickness', `${prefix}thickness`, 'SHEET_METAL', ' (or the part size)')
  const stockThicknesses = material.thicknesses ?? [measured]
  const thickness = stockThicknesses.find((t) => t >= measured - ENGINE.thicknessTolerance)
  if (thickness === undefined)
    throw new PricingInputError(
      `${material.materials} sheet is stocked up to ${Math.max(...stockThicknesses)} mm; the part is ${measured} mm thick.`,
      [{path: `${prefix}thickness`, message: `must be one of ${stockThicknesses.join(', ')} mm`}],
    )
  const area =
    g.volume !== undefined
      ? g.volume / measured
      : (g.sheetArea ?? (g.width !== undefined && g.depth !== undefined ? g.width * g.depth : undefined))
  if (area === undefined)
    throw required('The part volume or sheet area', volumePath, 'SHEET_METAL', ' (or dfmData.allSurface)')
  const cutLength = g.cutLength ?? 4 * Math.sqrt(area)
  const k = ENGINE.laserSpeedThickness[material.materials] ?? (ENGINE.laserSpeedThickness.default as number)
  const speed = k / thickness
  return {
    amount: amountOfVolume(area * thickness),
    hours: ENGINE.sheetHandlingHours + cutLength / speed / 60,
    bends: g.bends,
  }
}

function minPositive(...values: (number | undefined)[]): number | undefined {
  const v = values.filter((x): x is number => x !== undefined && x > 0)
  return v.length > 0 ? Math.min(...v) : undefined
}

/** Prices one part request: the steps of docs/pricing.md, rounded to cents where it says. */
export function priceModel(req: PriceRequest, prefix = ''): PriceBreakdown {
  const {machine, material, options} = req.selection
  const use = usage(machine, material, req.geometry, prefix)
  const materialCost = round2(use.amount * toEur(material.price, material.currency))
  const machineCost = round2(use.hours * toEur(machine.hourlyRate, machine.currency))
  const bendCost = round2(use.bends * toEur(machine.pricePerBend ?? 0, machine.currency))
  const factor = machine.technologyFactor * (Number(material.factor) || 1)
  const production = round2((materialCost + machineCost + bendCost) * factor)
  const fees = round2(toEur((req.priceConception ?? 0) + (req.priceExtra ?? 0), req.feesCurrency))
  const base = round2(production + fees)
  let optionMultiplier = 1
  let optionPercentage = 0
  let optionFixed = 0
  for (const o of options) {
    if (o.type === 'price_multiplier') optionMultiplier *= o.priceMultiplier ?? 1
    else if (o.type === 'percentage') optionPercentage += o.percentage ?? 0
    else if (o.type === 'fixedPrice' && o.fixedPrice) optionFixed += toEur(o.fixedPrice.price, o.fixedPrice.currency)
  }
  optionFixed = round2(optionFixed)
  const withOptions = round2(base * optionMultiplier * (1 + optionPercentage / 100) + optionFixed)
  const minimumPrice = round2(toEur(machine.minimumPrice, machine.currency))
  const unit = Math.max(withOptions, minimumPrice)
  const subtotal = round2(unit * req.quantity)
  const startupCost = round2(
    toEur(machine.startupCost, machine.currency) +
      (material.startupCost.price ? toEur(material.startupCost.price, material.startupCost.currency) : 0),
  )
  const beforeDiscount = round2(subtotal + startupCost)
  const discountPercent = req.discount ?? 0
  const discountAmount = round2((beforeDiscount * discountPercent) / 100)
  const totalEur = round2(beforeDiscount - discountAmount)
  const rate = rateOf(req.currency)
  const price = round2(totalEur * rate)
  return {
    service: machine.service,
    technology: machine.technology,
    machine: machine.name,
    material: material.materials,
    materialAmount: use.amount,
    materialUnit: material.unit,
    hours: use.hours,
    materialCost,
    machineCost,
    bends: use.bends,
    bendCost,
    factor,
    production,
    fees,
    base,
    optionMultiplier,
    optionPercentage,
    optionFixed,
    withOptions,
    minimumPrice,
    unit,
    quantity: req.quantity,
    subtotal,
    startupCost,
    beforeDiscount,
    discountPercent,
    discountAmount,
    totalEur,
    currency: req.currency,
    rate,
    price,
    unitPrice: round2(price / req.quantity),
  }
}

export interface Estimate {
  breakdown: PriceBreakdown
  /** One row per `bulkPricing` quantity, in the order asked. */
  bulk?: BulkRow[]
}

/** Resolves and prices one request (v1 body or legacy model) for a catalogue. */
export function estimate(
  catalog: Catalog,
  dto: QuoteModelPublicDto,
  opts: {currency: string; prefix?: string},
): Estimate {
  const prefix = opts.prefix ?? ''
  const selection = resolveSelection(catalog, dto, prefix)
  const base = {
    selection,
    geometry: geometryOf(dto),
    priceConception: dto.priceConception,
    priceExtra: dto.priceExtra,
    discount: dto.discount,
    currency: opts.currency,
    feesCurrency: catalog.currency,
  }
  const breakdown = priceModel({...base, quantity: dto.quantity ?? 1}, prefix)
  if (!dto.bulkPricing) return {breakdown}
  const bulk = dto.bulkPricing.map((quantity) => {
    const b = priceModel({...base, quantity}, prefix)
    return {quantity, unitPrice: b.unitPrice, total: b.price}
  })
  return {breakdown, bulk}
}
