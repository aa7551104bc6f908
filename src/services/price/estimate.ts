import {basename, extname} from 'node:path'

import {ValidationError} from '../../api/errors.js'
import {estimatePrice} from '../../api/v1/price.js'
import {estimatePriceLegacy} from '../../api/v2/price.js'
import type {Measurement} from '../../mesh/index.js'
import {CURRENCIES, type ErrorDetail} from '../../schemas/common.js'
import {LEGACY_TECHNOLOGIES, type BulkRow} from '../../schemas/pricing.js'
import type {ServiceContext} from '../context.js'
import {defined, given} from '../../util/fields.js'
import {InputError} from '../errors.js'
import type {SliceResult} from './slicer.js'

export interface OptionChoice {
  refer: string
  name: string
}

export interface EstimateInput {
  service?: string
  technology?: string
  material?: string
  color?: string
  quantity?: number
  options?: OptionChoice[]
  /** Percent off the order total. */
  discount?: number
  /** priceConception and priceExtra per part, in the business currency. */
  designFee?: number
  extraFee?: number
  /** A measured part file: fills slicingData and modelSizes. */
  part?: {file: string; measurement: Measurement}
  /** PrusaSlicer's figures for the part (`--slicer prusa`): hours, filament, weight and layers override the heuristic. */
  slicer?: SliceResult
  /** Flags that override (or stand in for) the part's measures. */
  volume?: number
  weight?: number
  hours?: number
  size?: {width: number; depth: number; height: number}
  thickness?: number
  bends?: number
  /** A flat pattern's cut length in mm (dfmData.allLength): the laser's path, outlines and holes. */
  cutLength?: number
  /** Quantities for a bulk table. */
  bulk?: number[]
  currency?: string
  /** Use the legacy modelPriceEstimation (needs `currency`). */
  legacy?: boolean
}

export interface EstimateResult {
  price: number
  /** null when the service did not say (v1 against a service without the [ext] fields). */
  currency: string | null
  quantity: number
  unitPrice: number
  service: string | null
  technology: string | null
  material: string
  color?: string
  options: string[]
  interface: 'v1' | 'legacy'
  message: string
  bulk?: BulkRow[]
  /** Legacy only: estimations left today (X-Daily-Allowance-Remaining). */
  allowanceRemaining?: number
  part?: string
  /** With `--slicer prusa`: what PrusaSlicer said about the part. */
  slicer?: SlicerSummary
}

export interface SlicerSummary {
  name: 'PrusaSlicer'
  version: string | null
  hours: number
  estimatedTime: string
  filamentLength: number
  weight: number | null
  layers: number
}

/** Options as `refer=name`, the form of `--option`. */
export function parseOption(text: string): OptionChoice {
  const i = text.indexOf('=')
  if (i <= 0 || i === text.length - 1)
    throw new InputError(
      `--option must look like refer=name, for example lead_time="Express (3 working days)"; got ${JSON.stringify(text)}.`,
    )
  return {refer: text.slice(0, i).trim(), name: text.slice(i + 1).trim()}
}

/** `--bulk 1,10,100`: distinct whole numbers ≥ 1, in the order given. */
export function parseBulk(text: string): number[] {
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  const out: number[] = []
  for (const s of items) {
    if (!/^\d+$/.test(s) || Number(s) < 1)
      throw new InputError(
        `--bulk takes whole quantities from 1, separated by commas (1,10,100); got ${JSON.stringify(s)}.`,
      )
    if (!out.includes(Number(s))) out.push(Number(s))
  }
  if (out.length === 0) throw new InputError('--bulk needs at least one quantity, for example 1,10,100.')
  return out
}

/** `--size 40x30x20`: width × depth × height in mm. */
export function parseSize(text: string): {width: number; depth: number; height: number} {
  const parts = text.split(/[x×*,]/i).map((s) => Number(s.trim()))
  if (parts.length !== 3 || parts.some((n) => !Number.isFinite(n) || n <= 0))
    throw new InputError(`--size takes WIDTHxDEPTHxHEIGHT in mm, for example 40x30x20; got ${JSON.stringify(text)}.`)
  const [width, depth, height] = parts as [number, number, number]
  return {width, depth, height}
}

/** The part as the service's quote model (v1 QuoteModelPublicDto; also the legacy `model`). */
export function buildModel(input: EstimateInput): Record<string, unknown> {
  const m = input.part?.measurement
  const slicing: Record<string, unknown> = m ? {...m.slicingData} : {}
  if (input.slicer) {
    // The slicer's weight is filament at the measurement's density: the engine rescales it like the heuristic's.
    slicing.hours = input.slicer.hours
    slicing.filament_length = input.slicer.filamentLength
    slicing.number_of_layers = input.slicer.layers
    if (input.slicer.weight !== null) slicing.weight = input.slicer.weight.toFixed(2)
  }
  if (input.size) Object.assign(slicing, input.size)
  if (input.volume !== undefined) slicing.volume = input.volume.toFixed(3)
  if (input.weight !== undefined) {
    slicing.weight = input.weight.toFixed(2)
    // A weight given by hand is the part's own; the engine rescales a slicer weight by density only.
    delete slicing.density
  }
  if (input.hours !== undefined) slicing.hours = input.hours
  const sizes = m ?? input.size
  return {
    ...(input.part
      ? {
          fileName: basename(input.part.file),
          modelType: extname(input.part.file).slice(1).toLowerCase() || 'stl',
          viewerType: '3D',
          unit: 'mm',
        }
      : {}),
    ...given({service: input.service, technology: input.technology, color: input.color}),
    // The interface's material is an object of the catalogue; a name goes in its `materials`.
    ...(input.material ? {material: {materials: input.material}} : {}),
    quantity: input.quantity ?? 1,
    selectedOptions: (input.options ?? []).map((o) => ({refer: o.refer, name: o.name})),
    ...defined({
      discount: input.discount,
      priceConception: input.designFee,
      priceExtra: input.extraFee,
      slicingData: Object.keys(slicing).length > 0 ? slicing : undefined,
      modelSizes: sizes ? {width: sizes.width, height: sizes.height, depth: sizes.depth, unit: 'mm'} : undefined,
      thickness: input.thickness,
      bendingData: input.bends ? {bends: Array.from({length: input.bends}, (_, i) => ({index: i + 1}))} : undefined,
      dfmData: input.cutLength === undefined ? undefined : {allLength: round3(input.cutLength)},
    }),
  }
}

/** mm to three decimals, as the service's lengths are written. */
const round3 = (n: number) => Math.round(n * 1000) / 1000

/**
 * The allowed values a 400 lists for one field (`must be one of "A", "B"`), or
 * undefined when the service did not list them.
 */
export function choicesFrom(details: readonly ErrorDetail[] | undefined, path: string | RegExp): string[] | undefined {
  const detail = details?.find((d) => (typeof path === 'string' ? d.path === path : path.test(d.path)))
  const list = detail?.message.split(/one of /)[1]
  if (!list) return undefined
  const values = [...list.matchAll(/"((?:\\.|[^"\\])*)"/g)].map((x) => JSON.parse(`"${x[1]}"`) as string)
  return values.length > 0 ? values : undefined
}

/**
 * Asks the v1 estimation which values a field may take, for prompts: the model is
 * sent with `?` in that field and the 400's details list the business's choices
 * (the interface has no catalogue endpoint). When the material is on several
 * machines the answer lists technologies instead: `field` says which list it is.
 * Undefined when the answer lists nothing.
 */
export async function probeChoices(
  ctx: ServiceContext,
  input: EstimateInput,
  field: 'technology' | 'material' | 'color' | 'option',
): Promise<{field: 'technology' | 'material' | 'color' | 'option'; choices: string[]} | undefined> {
  const model = buildModel({...input, part: undefined, bulk: undefined})
  delete model.slicingData
  if (field === 'option') model.selectedOptions = [{refer: '?', name: '?'}]
  else model[field] = '?'
  try {
    await estimatePrice(ctx.client, ctx.businessId, model)
    return undefined
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error
    const own = choicesFrom(error.details, field === 'option' ? /^selectedOptions\.0$/ : field)
    if (own) return {field, choices: own}
    const technologies = field === 'technology' ? undefined : choicesFrom(error.details, 'technology')
    return technologies ? {field: 'technology', choices: technologies} : undefined
  }
}

function slicerSummary(s: SliceResult): SlicerSummary {
  return {
    name: s.slicer,
    version: s.version,
    hours: s.hours,
    estimatedTime: s.estimatedTime,
    filamentLength: s.filamentLength,
    weight: s.weight,
    layers: s.layers,
  }
}

/** The part file and the slicer's summary, where the input has them. */
const partAndSlicer = (input: EstimateInput) => ({
  part: input.part?.file,
  slicer: input.slicer ? slicerSummary(input.slicer) : undefined,
})

const optionLabels = (input: EstimateInput) => (input.options ?? []).map((o) => `${o.refer}=${o.name}`)
const round2 = (x: number) => Math.round(x * 100 + 1e-7) / 100

/** Prices the part on v1 (default) or on the legacy interface (`legacy`, with `currency`). */
export async function estimatePart(ctx: ServiceContext, input: EstimateInput): Promise<EstimateResult> {
  if (input.legacy) return estimateLegacy(ctx, input)
  const model = buildModel(input)
  if (input.bulk) model.bulkPricing = input.bulk
  const answer = await estimatePrice(
    ctx.client,
    ctx.businessId,
    model,
    input.currency ? {currency: input.currency} : {},
  )
  const d = answer.data
  const quantity = d.quantity ?? input.quantity ?? 1
  return {
    price: d.price,
    // The currency query is a sandbox extension: a service that does not name the answer's
    // currency may have ignored it (and priced in the business's), so the asked one is no answer.
    currency: d.currency ?? null,
    quantity,
    unitPrice: d.unitPrice ?? round2(d.price / quantity),
    service: d.service ?? input.service ?? null,
    technology: d.technology ?? input.technology ?? null,
    material: d.material ?? input.material ?? '',
    ...given({color: input.color}),
    options: optionLabels(input),
    interface: 'v1',
    message: answer.message,
    ...defined({bulk: d.bulk, ...partAndSlicer(input)}),
  }
}

async function estimateLegacy(ctx: ServiceContext, input: EstimateInput): Promise<EstimateResult> {
  const currency = input.currency
  if (!currency || !(CURRENCIES as readonly string[]).includes(currency))
    throw new InputError(
      `--legacy needs --currency, one of ${CURRENCIES.join(', ')}${currency ? `; got ${JSON.stringify(currency)}` : ''}. Nothing was sent.`,
    )
  let {service, technology} = input
  if (!service || !technology) {
    // The legacy body needs both; the v1 estimate (which spends no allowance) says which machine the material is on.
    const probe = await estimatePrice(ctx.client, ctx.businessId, buildModel(input))
    service ??= probe.data.service
    technology ??= probe.data.technology
    if (!service || !technology)
      throw new InputError(
        "--legacy needs the part's service and technology, and the v1 estimate did not say which machine the material is on: give the technology (--technology), and with price estimate the service (--service).",
      )
  }
  const legacyTechnology = (LEGACY_TECHNOLOGIES as readonly string[]).includes(technology.toUpperCase())
    ? technology.toUpperCase()
    : 'DEFAULT'
  const base = {
    slicingData: {},
    postProduction: [],
    viewerType: '3D',
    ...buildModel({...input, service, technology: legacyTechnology}),
  }
  const quantities = [input.quantity ?? 1, ...(input.bulk ?? [])]
  const models = quantities.map((quantity) => ({...base, quantity}))
  const {answers, allowanceRemaining} = await estimatePriceLegacy(ctx.client, ctx.businessId, models, currency)
  const prices = answers.map((a) => a.data.price)
  const quantity = input.quantity ?? 1
  const price = prices[0] as number
  return {
    price,
    currency,
    quantity,
    unitPrice: round2(price / quantity),
    service,
    technology,
    material: input.material ?? '',
    ...given({color: input.color}),
    options: optionLabels(input),
    interface: 'legacy',
    message: answers[0]?.message ?? '',
    ...(input.bulk
      ? {
          bulk: input.bulk.map((q, i) => {
            const total = prices[i + 1] as number
            return {quantity: q, unitPrice: round2(total / q), total}
          }),
        }
      : {}),
    ...defined({allowanceRemaining, ...partAndSlicer(input)}),
  }
}
