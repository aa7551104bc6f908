import type {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js'
import * as z from 'zod'

import {CURRENCIES, SERVICES, issuesToDetails} from '../../schemas/common.js'
import {QuoteModelPublicDto} from '../../schemas/pricing.js'
import {badRequest} from '../errors.js'
import {ENGINE, EUR_RATES, catalogOf, estimate, isCurrency} from '../pricing.js'
import type {Business} from '../store/businesses.js'
import type {Machine, Material} from '../store/catalog.js'
import type {DemandDoc} from '../store/demands.js'
import type {Store} from '../store/index.js'
import {ok, run, type ToolEnv} from './result.js'

/** Pricing tools: estimate_price, list_machines, get_pricing_setup, get_pattern_status. */

const READ = {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false} as const

const same = (a: string, b: string | undefined) => b === undefined || a.toLowerCase() === b.trim().toLowerCase()

/** The list_machines answer: every machine of the business with its materials nested (`price machines` reads it). */
export function listMachines(
  store: Store,
  businessId: string,
  currency: string,
  filter: {service?: string; technology?: string} = {},
): {currency: string; machines: (Omit<Machine, 'business'> & {materials: Omit<Material, 'business' | 'machine'>[]})[]} {
  const materials = store.catalog.materials(businessId)
  const machines = store.catalog
    .machines(businessId)
    .filter((m) => same(m.service, filter.service) && same(m.technology, filter.technology))
    .map(({business: _business, ...machine}) => ({
      ...machine,
      materials: materials
        .filter((mat) => mat.machine === machine._id)
        .map(({business: _b, machine: _m, ...mat}) => mat),
    }))
  return {currency, machines}
}

/** How the engine turns a part into material and machine time, by technology (docs/pricing.md, 2.1). */
const TECHNOLOGY_RULES: Record<string, {needs: string; materialUse: string; machineTime: string}> = {
  FDM: {
    needs: 'slicingData.weight (g) or the part volume; slicingData.hours when known',
    materialUse: 'printed weight (rescaled to the material density), else volume × density; priced per kg',
    machineTime: `slicingData.hours, else ${ENGINE.fdmMinutesPerCm3} minutes per cm³ of part`,
  },
  SLA: {
    needs: 'the part volume and height',
    materialUse: `resin = volume × ${ENGINE.slaResinFactor} (supports and rinse loss); priced per litre`,
    machineTime: `${ENGINE.slaHoursPerMm} hours per mm of part height`,
  },
  SLS: {
    needs: 'the part volume',
    materialUse: 'powder = part volume × density; priced per kg',
    machineTime: `${ENGINE.slsHoursPerCm3} hours per cm³ of part`,
  },
  CNC: {
    needs: 'the part volume and size (width, depth, height or minimum_bounding_box)',
    materialUse: 'stock = the bounding box (at least the part volume) × density; priced per kg',
    machineTime: `${ENGINE.cncHandlingHours} h handling + removed volume ÷ removal rate (cm³/min: ${Object.entries(
      ENGINE.cncRemovalRate,
    )
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')})`,
  },
  LASER: {
    needs:
      'thickness (or the part size) and the part volume or sheet area (dfmData.allSurface); bends from bendingData',
    materialUse: 'blank = area × stock thickness (the first stocked thickness ≥ the part) × density; priced per kg',
    machineTime: `${ENGINE.sheetHandlingHours} h handling + cut length (dfmData.allLength, else 4√area) ÷ laser speed (${Object.entries(
      ENGINE.laserSpeedThickness,
    )
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')} mm²/min ÷ thickness); plus bends × the machine price per bend`,
  },
}

const PRICE_STEPS = [
  'materialCost = material used × material price per kg or l',
  'machineCost = machine hours × machine hourly rate (+ bends × price per bend for sheet metal)',
  'production = (materialCost + machineCost) × machine technologyFactor × material factor',
  'base = production + priceConception (design fee) + priceExtra (extra fee)',
  'with options = base × Π price_multiplier × (1 + Σ percentage / 100) + Σ fixedPrice',
  'unit price = max(with options, machine minimumPrice)',
  'order = unit price × quantity + startup cost (machine + material, once per order)',
  'total = order − discount %, converted at the fixed rate table to the asked currency',
]

/**
 * Pattern-pricing samples (the sandbox's rule, docs/mcp.md): a demand of the
 * business is a sample for a catalogue material when it is not cancelled, its
 * total is above 0 (it was priced), and it or one of its parts names that
 * material (by name, any case, or by material id) for that material's service
 * (the part's service, else the demand's technique; none given matches). A
 * demand counts once per material. A material is trained from MIN_PATTERN_SAMPLES on.
 */
export const MIN_PATTERN_SAMPLES = 3

function allDemands(store: Store, business: Business): DemandDoc[] {
  const all: DemandDoc[] = []
  for (const archived of [false, true]) {
    for (let offset = 0; ; offset += 500) {
      const {data} = store.demands.list({businessId: business.id, archived, sort: 'asc', limit: 500, offset})
      all.push(...data)
      if (data.length < 500) break
    }
  }
  return all
}

function partsOf(doc: DemandDoc): {material?: string; service?: string}[] {
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined)
  const parts = (doc.quoteModel ?? []).map((item) => ({
    material: str(item.material),
    service: str(item.service) ?? str(doc.technique),
  }))
  return [{material: str(doc.material), service: str(doc.technique)}, ...parts]
}

export function patternStatus(store: Store, business: Business) {
  const demands = allDemands(store, business).filter(
    (d) => d.demandStatusInfo.status !== 'cancelled' && typeof d.total === 'number' && d.total > 0,
  )
  const materials = store.catalog.materials(business.id).map((mat) => {
    const matching = demands.filter((d) =>
      partsOf(d).some(
        (p) =>
          p.material !== undefined &&
          (p.material.trim().toLowerCase() === mat.materials.toLowerCase() || p.material === mat._id) &&
          (p.service === undefined || p.service === mat.service),
      ),
    )
    const last = matching.map((d) => d.createdAt).sort()
    return {
      materialId: mat._id,
      material: mat.materials,
      service: mat.service,
      technology: mat.technology,
      samples: matching.length,
      trained: matching.length >= MIN_PATTERN_SAMPLES,
      ...(last.length > 0 ? {lastSampleAt: last[last.length - 1]} : {}),
    }
  })
  return {
    minimumSamples: MIN_PATTERN_SAMPLES,
    rule: `A material is trained for pattern pricing once at least ${MIN_PATTERN_SAMPLES} of the business's priced demands (total above 0, not cancelled) name it for its service, in the demand or one of its parts.`,
    trained: [...new Set(materials.filter((m) => m.trained).map((m) => m.material))],
    materials,
  }
}

const EstimateInput = z
  .looseObject({
    service: z.enum(SERVICES).optional().describe('3D_PRINTING, CNC_MACHINING or SHEET_METAL.'),
    technology: z.string().optional().describe('FDM, SLA, SLS, CNC or LASER (list_machines shows them).'),
    material: z
      .union([z.string(), z.looseObject({_id: z.string().optional(), materials: z.string().optional()})])
      .describe('Material name (for example "PLA") or {_id} of a list_machines material.'),
    quantity: z.number().int().min(1).optional().describe('Parts, default 1.'),
    color: z.string().optional(),
    selectedOptions: z
      .array(z.looseObject({refer: z.string(), name: z.string()}))
      .optional()
      .describe('Customer options by refer and name, as get_pricing_setup lists them (e.g. lead_time / Express).'),
    slicingData: z
      .looseObject({})
      .optional()
      .describe(
        'Part measures: width, depth, height (mm), volume (mm³), weight (g), hours... measure_part gives them.',
      ),
    modelSizes: z.looseObject({}).optional(),
    volume: z.union([z.number(), z.string()]).optional().describe('Part volume, mm³.'),
    thickness: z.number().optional().describe('Sheet metal: thickness, mm.'),
    bulkPricing: z.array(z.number().int()).optional().describe('Also price these quantities.'),
    priceConception: z.number().optional().describe('Design fee per part, business currency.'),
    priceExtra: z.number().optional().describe('Extra fee per part, business currency.'),
    discount: z.number().optional().describe('Percent off the order total.'),
    currency: z.string().optional().describe('Currency of the answer; default the business currency.'),
  })
  .describe('The part, in the fields of the v1 price-estimation request (QuoteModelPublicDto), plus currency.')

const EstimateOutput = z.looseObject({
  message: z.string(),
  price: z.number(),
  currency: z.string(),
  quantity: z.number(),
  unitPrice: z.number(),
})

/** What get_pricing_setup answers: per service and technology the rules, machines and materials; then options and rates. */
function pricingSetup(store: Store, business: Business, service: (typeof SERVICES)[number] | undefined) {
  const machines = store.catalog.machines(business.id).filter((m) => service === undefined || m.service === service)
  const materials = store.catalog.materials(business.id)
  const keys = [...new Set(machines.map((m) => `${m.service}/${m.technology}`))]
  const technologies = keys.map((key) => {
    const [svc, technology] = key.split('/') as [string, string]
    const own = machines.filter((m) => m.service === svc && m.technology === technology)
    const rule = TECHNOLOGY_RULES[technology.toUpperCase()] ?? TECHNOLOGY_RULES.SLS
    return {
      service: svc,
      technology,
      ...rule,
      machines: own.map((m) => ({
        _id: m._id,
        name: m.name,
        status: m.status,
        hourlyRate: m.hourlyRate,
        currency: m.currency,
        startupCost: m.startupCost,
        minimumPrice: m.minimumPrice,
        technologyFactor: m.technologyFactor,
        ...(m.pricePerBend !== undefined ? {pricePerBend: m.pricePerBend} : {}),
        buildVolume: m.buildVolume,
      })),
      materials: materials
        .filter((mat) => own.some((m) => m._id === mat.machine))
        .map((mat) => ({
          _id: mat._id,
          name: mat.materials,
          machine: mat.machine,
          price: mat.price,
          unit: mat.unit,
          currency: mat.currency,
          density: mat.density.value,
          factor: mat.factor,
          startupCost: mat.startupCost.price ?? 0,
          colors: mat.colors.map((c) => c.name),
          ...(mat.thicknesses ? {thicknesses: mat.thicknesses} : {}),
        })),
    }
  })
  const options = store.catalog
    .options(business.id)
    .filter((o) => service === undefined || o.services.includes(service))
    .map(({business: _b, created: _c, ...o}) => ({
      ...o,
      effect:
        o.type === 'price_multiplier'
          ? `× ${o.priceMultiplier ?? 1}`
          : o.type === 'percentage'
            ? `+ ${o.percentage ?? 0} %`
            : `+ ${o.fixedPrice?.price ?? 0} ${o.fixedPrice?.currency ?? ''}`.trim(),
    }))
  return {
    currency: business.currency,
    technologies,
    steps: PRICE_STEPS,
    options,
    currencyRates: {base: 'EUR', rates: EUR_RATES},
  }
}

export function registerPricingTools(server: McpServer, env: ToolEnv): void {
  const {ctx, business} = env
  const {store} = ctx

  server.registerTool(
    'estimate_price',
    {
      title: 'Estimate a part price',
      description:
        "Prices a part with the business's own machines, materials, options and rates (the engine of the price-estimation endpoint) and answers the order total, the unit price and, with bulkPricing, a price per quantity; changes nothing. Give the material and the part's measures (slicingData from measure_part); an unknown or missing value is an error listing what is allowed.",
      inputSchema: EstimateInput,
      outputSchema: EstimateOutput,
      annotations: READ,
    },
    async (args) =>
      run(() => {
        const {currency: asked, ...rest} = args as Record<string, unknown> & {currency?: string}
        const dto = {...rest, material: typeof rest.material === 'string' ? {materials: rest.material} : rest.material}
        const currency = asked === undefined ? business.currency : asked.trim().toUpperCase()
        if (!isCurrency(currency))
          throw badRequest(`Unknown currency ${JSON.stringify(asked)}; use one of ${CURRENCIES.join(', ')}.`)
        const parsed = QuoteModelPublicDto.safeParse(dto)
        if (!parsed.success) {
          const details = issuesToDetails(parsed.error)
          throw badRequest(
            `Invalid part: ${details.map((d) => `${d.path || '(part)'} ${d.message}`).join('; ')}.`,
            details,
          )
        }
        const result = estimate(catalogOf(store, business), parsed.data, {currency})
        const b = result.breakdown
        return ok({
          message: `Estimated price for ${b.quantity} × ${b.material} on ${b.technology} (${b.service}): ${b.price.toFixed(2)} ${b.currency}.`,
          price: b.price,
          currency: b.currency,
          quantity: b.quantity,
          unitPrice: b.unitPrice,
          service: b.service,
          technology: b.technology,
          machine: b.machine,
          material: b.material,
          ...(result.bulk ? {bulk: result.bulk} : {}),
          breakdown: b,
        })
      }),
  )

  server.registerTool(
    'list_machines',
    {
      title: 'List machines',
      description:
        "Lists the business's machines (service, technology, hourly rate, startup cost, part minimum) and, on each, the materials with their prices, units, densities and colours; changes nothing. Use the names it gives in estimate_price and create_quotes.",
      inputSchema: z.strictObject({
        service: z.enum(SERVICES).optional().describe('Only machines of this service.'),
        technology: z.string().optional().describe('Only machines of this technology (FDM, SLA, SLS, CNC, LASER).'),
      }),
      outputSchema: z.looseObject({currency: z.string(), machines: z.array(z.looseObject({_id: z.string()}))}),
      annotations: READ,
    },
    async (args) => run(() => ok(listMachines(store, business.id, business.currency, args))),
  )

  server.registerTool(
    'get_pricing_setup',
    {
      title: 'Get the pricing setup',
      description:
        'Explains how the business prices parts: for each service and technology, what the engine needs, how material use and machine time are computed, the machines and materials with their rates; then the price steps common to all, the customer options (lead time, infill, precision...) with their effect, and the currency rates. Changes nothing.',
      inputSchema: z.strictObject({
        service: z.enum(SERVICES).optional().describe('Only this service.'),
      }),
      outputSchema: z.looseObject({
        currency: z.string(),
        technologies: z.array(z.looseObject({service: z.string(), technology: z.string()})),
        options: z.array(z.looseObject({refer: z.string(), name: z.string()})),
      }),
      annotations: READ,
    },
    async ({service}) => run(() => ok(pricingSetup(store, business, service))),
  )

  server.registerTool(
    'get_pattern_status',
    {
      title: 'Get pattern-pricing status',
      description: `Reports which of the business's materials are trained for pattern-matching pricing, with the number of samples each has: priced, not cancelled demands that name the material for its service. A material is trained from ${MIN_PATTERN_SAMPLES} samples on. Changes nothing.`,
      inputSchema: z.strictObject({}),
      outputSchema: z.looseObject({
        minimumSamples: z.number(),
        trained: z.array(z.string()),
        materials: z.array(z.looseObject({material: z.string(), samples: z.number(), trained: z.boolean()})),
      }),
      annotations: READ,
    },
    async () => run(() => ok(patternStatus(store, business))),
  )
}
