import {Flags} from '@oclif/core'

import {ValidationError} from '../../api/errors.js'
import {BaseCommand} from '../../cli/base-command.js'
import {UsageError} from '../../cli/errors.js'
import {isTty, writeOut} from '../../cli/output.js'
import {askChoice, askText, canPrompt} from '../../cli/prompt.js'
import {CURRENCIES, SERVICES} from '../../schemas/common.js'
import type {ServiceContext} from '../../services/context.js'
import {
  choicesFrom,
  estimatePart,
  parseBulk,
  parseOption,
  parseSize,
  probeChoices,
  type EstimateInput,
  type EstimateResult,
} from '../../services/price/estimate.js'
import {measurePart} from '../../services/price/measure.js'
import {SLICERS, SlicerNotFoundError, findPrusaSlicer, sliceWithPrusa} from '../../services/price/slicer.js'

const number = (min: number, max = Infinity) =>
  Flags.custom<number>({
    parse: async (text, _ctx, opts) => {
      const n = Number(text)
      if (text.trim() === '' || !Number.isFinite(n) || n < min || n > max)
        throw new Error(
          `--${opts.name} must be a number from ${min}${max === Infinity ? '' : ` to ${max}`}, got ${text}`,
        )
      return n
    },
  })

/** Fields the service names in a 400 that a flag or a prompt can fix. */
const FIXABLE: {path: RegExp; flag: string; field: 'service' | 'technology' | 'material' | 'color' | 'option'}[] = [
  {path: /^service$/, flag: '--service', field: 'service'},
  {path: /^technology$/, flag: '--technology', field: 'technology'},
  {path: /^material(\._id)?$/, flag: '--material', field: 'material'},
  {path: /^color$/, flag: '--color', field: 'color'},
  {path: /^selectedOptions\.\d+/, flag: '--option', field: 'option'},
]

export default class PriceEstimate extends BaseCommand {
  static override summary = "Estimate a part's price with the business's own machines, materials and options."
  static override description = `Sends the part to the v1 price estimation (or with --legacy to the legacy modelPriceEstimation) and shows the order total, the unit price and, with --bulk, a table of quantities.

The part's measures come from --part FILE (STL, OBJ, 3MF: slicingData and modelSizes are filled from the file), or from --volume, --weight, --hours, --size and --thickness. --service and --technology may be left out when one machine offers the material: --part bracket.stl --material PLA is enough. When the material is on several machines, a terminal asks which; without one the command exits with code 2 naming --technology and the choices.

In a terminal, whatever is missing (service, technology, material, colour, quantity, options, part file) is asked for, with the business's choices: they are read from the estimation's own validation answer, as the interface has no catalogue endpoint.

--slicer prusa slices the part with the PrusaSlicer command line (prusa-slicer on PATH, or MFG_PRUSA_SLICER) at 0.3 mm layers (0.35 mm first), 1.75 mm filament and 1.24 g/cm³, and sends its print time, filament length, weight and layer count instead of the built-in heuristic. Without PrusaSlicer it exits with code 2 saying how to install it.

--legacy needs --currency (one of the 22 codes); it spends one of the business's daily estimations per quantity priced, and shows how many are left. Prices are pricing estimates, not quotes (docs/pricing.md).`
  static override examples = [
    '<%= config.bin %> <%= command.id %> --part bracket.stl --material PLA',
    '<%= config.bin %> <%= command.id %> --part bracket.stl --material PETG --color Black --quantity 20 --option lead_time="Express (3 working days)"',
    '<%= config.bin %> <%= command.id %> --part housing.stl --material "Aluminium 6061" --bulk 1,10,100',
    '<%= config.bin %> <%= command.id %> --technology LASER --material "Steel S235" --size 200x100x3 --bends 2 --quantity 25 --json',
    '<%= config.bin %> <%= command.id %> --part bracket.stl --material PLA --legacy --currency USD',
    '<%= config.bin %> <%= command.id %> --part bracket.stl --material PETG --slicer prusa',
    '<%= config.bin %> <%= command.id %>',
  ]
  static override flags = {
    part: Flags.string({description: 'Part file (STL, OBJ or 3MF) to measure.', helpValue: 'FILE'}),
    unit: Flags.string({description: 'Unit of an STL or OBJ part file.', options: ['mm', 'cm', 'in'], default: 'mm'}),
    service: Flags.string({description: 'Manufacturing service.', options: [...SERVICES]}),
    technology: Flags.string({description: 'FDM, SLA, SLS, CNC, LASER... (default: the machine the material is on).'}),
    material: Flags.string({description: 'Material name, for example PLA or "Aluminium 6061".'}),
    color: Flags.string({description: 'Colour name (or hex) of the material.'}),
    quantity: Flags.integer({description: 'Number of parts.', min: 1}),
    option: Flags.string({
      description: 'A customer option as refer=name, for example lead_time="Express (3 working days)". Repeatable.',
      multiple: true,
    }),
    discount: number(0, 100)({description: 'Percent off the order total.'}),
    'design-fee': number(0)({description: 'Design fee per part (priceConception), business currency.'}),
    'extra-fee': number(0)({description: 'Extra fee per part (priceExtra), business currency.'}),
    volume: number(0)({description: 'Part volume, mm³ (overrides --part).'}),
    weight: number(0)({description: 'Printed weight, g (overrides --part).'}),
    hours: number(0)({description: 'FDM print hours (overrides --part).'}),
    size: Flags.string({description: 'Part size WIDTHxDEPTHxHEIGHT, mm (overrides --part).', helpValue: 'WxDxH'}),
    thickness: number(0)({description: 'Sheet metal: sheet thickness, mm.'}),
    bends: Flags.integer({description: 'Sheet metal: number of bends.', min: 0}),
    bulk: Flags.string({description: 'Also price these quantities, for example 1,10,100.', helpValue: 'Q1,Q2,...'}),
    currency: Flags.string({description: `Currency of the answer: ${CURRENCIES.join(', ')}.`}),
    slicer: Flags.string({
      description: 'Slice the part with this slicer for print hours, filament and layers (needs PrusaSlicer).',
      options: [...SLICERS],
    }),
    legacy: Flags.boolean({
      description: 'Use the legacy modelPriceEstimation (needs --currency; spends the daily allowance).',
    }),
  }

  async run(): Promise<EstimateResult> {
    const {flags} = await this.parse(PriceEstimate)
    const currency = flags.currency?.trim().toUpperCase()
    if (flags.legacy && !currency)
      throw new UsageError(`--legacy needs --currency, one of ${CURRENCIES.join(', ')}. Nothing was sent.`)
    if (currency && !(CURRENCIES as readonly string[]).includes(currency))
      throw new UsageError(`--currency must be one of ${CURRENCIES.join(', ')}; got ${JSON.stringify(flags.currency)}.`)
    const slicer = flags.slicer ? findPrusaSlicer() : undefined
    if (flags.slicer && !slicer) throw new SlicerNotFoundError()
    if (flags.slicer && !flags.part && !canPrompt())
      throw new UsageError('--slicer prusa slices a part file: pass --part FILE.')
    const input: EstimateInput = {
      ...(flags.service ? {service: flags.service} : {}),
      ...(flags.technology ? {technology: flags.technology} : {}),
      ...(flags.material ? {material: flags.material} : {}),
      ...(flags.color ? {color: flags.color} : {}),
      ...(flags.quantity === undefined ? {} : {quantity: flags.quantity}),
      ...(flags.option ? {options: flags.option.map(parseOption)} : {}),
      ...(flags.discount === undefined ? {} : {discount: flags.discount}),
      ...(flags['design-fee'] === undefined ? {} : {designFee: flags['design-fee']}),
      ...(flags['extra-fee'] === undefined ? {} : {extraFee: flags['extra-fee']}),
      ...(flags.volume === undefined ? {} : {volume: flags.volume}),
      ...(flags.weight === undefined ? {} : {weight: flags.weight}),
      ...(flags.hours === undefined ? {} : {hours: flags.hours}),
      ...(flags.size ? {size: parseSize(flags.size)} : {}),
      ...(flags.thickness === undefined ? {} : {thickness: flags.thickness}),
      ...(flags.bends === undefined ? {} : {bends: flags.bends}),
      ...(flags.bulk ? {bulk: parseBulk(flags.bulk)} : {}),
      ...(currency ? {currency} : {}),
      ...(flags.legacy ? {legacy: true} : {}),
    }
    if (flags.part)
      input.part = {file: flags.part, measurement: measurePart({file: flags.part, unit: unitOf(flags.unit)})}
    const ctx = await this.context(flags).service()
    if (canPrompt()) await this.askMissing(ctx, input, flags.unit)
    else if (!input.material) throw new UsageError('Missing material: pass --material (no terminal to prompt in).')
    if (slicer) {
      if (!input.part) throw new UsageError('--slicer prusa slices a part file: pass --part FILE.')
      input.slicer = await sliceWithPrusa({
        file: input.part.file,
        unit: unitOf(flags.unit),
        binary: slicer,
        layerHeight: 0.3,
        firstLayerHeight: 0.35,
        density: input.part.measurement.slicingData.density,
      })
    }
    const result = await this.estimateResolving(ctx, input)
    if (!this.jsonEnabled()) await this.render(result)
    if (result.allowanceRemaining !== undefined)
      this.note(`Legacy daily estimations left today: ${result.allowanceRemaining}.`)
    return result
  }

  /** The interactive walk: service, technology, material, colour, quantity, options and part, where missing. */
  private async askMissing(ctx: ServiceContext, input: EstimateInput, unit: string): Promise<void> {
    /** The choices for a field; when the material turns out to be on several machines, asks which first. */
    const choicesFor = async (field: 'technology' | 'material' | 'color' | 'option') => {
      for (;;) {
        const probe = await probeChoices(ctx, input, field)
        if (probe?.field !== 'technology' || field === 'technology') return probe?.choices
        input.technology = await askChoice({flag: '--technology', message: 'Technology:', choices: probe.choices})
      }
    }
    if (!input.material) {
      input.service ??= await askChoice({flag: '--service', message: 'Service:', choices: SERVICES})
      if (!input.technology) {
        const techs = await choicesFor('technology')
        if (techs && techs.length === 1) input.technology = techs[0]
        else if (techs)
          input.technology = await askChoice({flag: '--technology', message: 'Technology:', choices: techs})
      }
      const materials = await choicesFor('material')
      input.material = materials
        ? await askChoice({flag: '--material', message: 'Material:', choices: materials})
        : await askText({flag: '--material', message: 'Material:'})
    }
    if (!input.color) {
      const colors = await choicesFor('color')
      if (colors && colors.length > 1)
        input.color = await askChoice({flag: '--color', message: 'Colour:', choices: colors})
    }
    if (input.quantity === undefined) {
      const q = await askText({
        flag: '--quantity',
        message: 'Quantity:',
        default: '1',
        validate: (v) => (/^\s*[1-9]\d*\s*$/.test(v) ? true : 'A whole number from 1'),
      })
      input.quantity = Number(q)
    }
    if (!input.options) {
      const labels = (await choicesFor('option')) ?? []
      const byRefer = new Map<string, string[]>()
      for (const label of labels) {
        const {refer, name} = parseOption(label)
        byRefer.set(refer, [...(byRefer.get(refer) ?? []), name])
      }
      input.options = []
      for (const [refer, names] of byRefer) {
        const name = await askChoice({flag: '--option', message: `${refer.replace(/_/g, ' ')}:`, choices: names})
        input.options.push({refer, name})
      }
    }
    const measured = input.part || input.volume !== undefined || input.weight !== undefined || input.size
    if (!measured) {
      const file = await askText({
        flag: '--part',
        message: 'Part file (STL, OBJ or 3MF; empty to skip):',
        required: false,
      })
      if (file.trim())
        input.part = {file: file.trim(), measurement: measurePart({file: file.trim(), unit: unitOf(unit)})}
    }
  }

  /**
   * Estimates; when the service refuses a value a flag names (an ambiguous
   * material, an unknown colour...), asks for it in a terminal and tries again,
   * or without one stops with exit 2 naming the flag and the choices.
   */
  private async estimateResolving(ctx: ServiceContext, input: EstimateInput): Promise<EstimateResult> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await estimatePart(ctx, input)
      } catch (error) {
        if (!(error instanceof ValidationError) || error.clientSide || error.status !== 400) throw error
        const fix = FIXABLE.find((f) => error.details?.some((d) => f.path.test(d.path)))
        if (!fix) throw geometryHint(error)
        const detail = error.details?.find((d) => fix.path.test(d.path))
        const choices = choicesFrom(error.details, fix.path) ?? []
        const reason = error.serverMessage ?? detail?.message ?? 'invalid value'
        if (!canPrompt() || choices.length === 0 || attempt >= 4)
          throw new UsageError(
            `${reason.replace(/\.$/, '')}: pass ${fix.flag}${choices.length > 0 ? `, one of ${choices.join(', ')}` : ''}.`,
          )
        const picked = await askChoice({flag: fix.flag, message: `${fix.flag.slice(2)}:`, choices})
        if (fix.field === 'option') {
          const index = Number(/^selectedOptions\.(\d+)/.exec(detail?.path ?? '')?.[1] ?? 0)
          const options = [...(input.options ?? [])]
          options[index] = parseOption(picked)
          input.options = options
        } else input[fix.field] = picked
      }
    }
  }

  private async render(r: EstimateResult): Promise<void> {
    const {toKeyValue} = await import('../../cli/render.js')
    const cur = r.currency ?? ''
    const money = (n: number) => `${n.toFixed(2)} ${cur}`.trim()
    writeOut(
      toKeyValue({
        price: money(r.price),
        quantity: r.quantity,
        'unit price': money(r.unitPrice),
        material: [r.material, r.color].filter(Boolean).join(', '),
        machine: [r.technology, r.service].filter(Boolean).join(', '),
        ...(r.options.length > 0 ? {options: r.options.join('; ')} : {}),
        ...(r.part ? {part: r.part} : {}),
        ...(r.slicer
          ? {
              slicer: `${[r.slicer.name, r.slicer.version].filter(Boolean).join(' ')}: ${r.slicer.layers} layers, ${r.slicer.estimatedTime}, ${r.slicer.filamentLength.toFixed(1)} mm${r.slicer.weight === null ? '' : `, ${r.slicer.weight.toFixed(2)} g`}`,
            }
          : {}),
      }),
    )
    if (!r.bulk || r.bulk.length === 0) return
    const rows = r.bulk.map((b) => ({
      quantity: b.quantity,
      'unit price': b.unitPrice.toFixed(2),
      total: b.total.toFixed(2),
    }))
    writeOut(`\n${tableOf(rows)}`)
    if (isTty(process.stdout)) writeOut(`\n${barChart(r.bulk, cur)}`)
  }
}

function unitOf(unit: string): 'mm' | 'cm' | 'in' {
  return unit === 'cm' || unit === 'in' ? unit : 'mm'
}

/** Missing or unusable measures: say which flags give them. */
function geometryHint(error: ValidationError): Error {
  const geometry = error.details?.some((d) => /^(slicingData|thickness|volume|modelSizes)/.test(d.path))
  if (!geometry) return error
  return new UsageError(
    `${(error.serverMessage ?? 'the part measures are missing').replace(/\.$/, '')}: pass --part FILE, or --volume, --weight, --size and --thickness.`,
  )
}

function tableOf(rows: Record<string, unknown>[]): string {
  const cols = Object.keys(rows[0] ?? {})
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)))
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(width[i] as number)).join('  ')
  return [line(cols), ...rows.map((r) => line(cols.map((c) => String(r[c]))))].join('\n')
}

/** Unit price per quantity as horizontal bars, longest = the highest unit price. */
function barChart(rows: {quantity: number; unitPrice: number}[], currency: string): string {
  const max = Math.max(...rows.map((r) => r.unitPrice), 0.01)
  const qWidth = Math.max(...rows.map((r) => String(r.quantity).length))
  return rows
    .map((r) => {
      const n = Math.max(1, Math.round((r.unitPrice / max) * 40))
      return `${String(r.quantity).padStart(qWidth)} │${'█'.repeat(n)} ${r.unitPrice.toFixed(2)} ${currency}`.trimEnd()
    })
    .join('\n')
}
