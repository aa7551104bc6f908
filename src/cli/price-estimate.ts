// `price estimate` in a terminal: the walk that asks for what is missing, the
// retry when the service refuses a value a flag names, and the rendering of the
// answer. The pricing itself is in src/services/price.
import {ValidationError} from '../api/errors.js'
import {CURRENCIES, SERVICES} from '../schemas/common.js'
import type {ServiceContext} from '../services/context.js'
import {
  choicesFrom,
  estimatePart,
  parseBulk,
  parseOption,
  parseSize,
  probeChoices,
  type EstimateInput,
  type EstimateResult,
} from '../services/price/estimate.js'
import {InputError} from '../services/errors.js'
import {measureAnyFile, measurePart, unpricedReason, type PartMeasurement} from '../services/price/measure.js'
import {SlicerNotFoundError, findPrusaSlicer, sliceWithPrusa} from '../services/price/slicer.js'
import type {ReadLimits} from '../mesh/types.js'
import {closest} from '../util/closest.js'
import {defined, given} from '../util/fields.js'
import {UsageError} from './errors.js'
import {expandHome} from './input.js'
import {askChoice, askPath, askText, canPrompt} from './prompt.js'
import {changedLimitFlags, limitsOf, type ReaderLimitFlags} from './reader-limits.js'

type Unit = 'mm' | 'cm' | 'in'
type Field = 'technology' | 'material' | 'color' | 'option'

/** Fields the service names in a 400 that a flag or a prompt can fix. */
const FIXABLE: {path: RegExp; flag: string; field: 'service' | Field}[] = [
  {path: /^service$/, flag: '--service', field: 'service'},
  {path: /^technology$/, flag: '--technology', field: 'technology'},
  {path: /^material(\._id)?$/, flag: '--material', field: 'material'},
  {path: /^color$/, flag: '--color', field: 'color'},
  {path: /^selectedOptions\.\d+/, flag: '--option', field: 'option'},
]

/**
 * --currency (upper-cased), --legacy and --slicer checked together, before any
 * file is read or anything sent; `slicer` is the PrusaSlicer binary to run.
 */
export function checkEstimateFlags(flags: {currency?: string; legacy: boolean; slicer?: string; part?: string}): {
  currency?: string
  slicer?: string
} {
  const currency = flags.currency?.trim().toUpperCase()
  if (flags.legacy && !currency)
    throw new UsageError(`--legacy needs --currency, one of ${CURRENCIES.join(', ')}. Nothing was sent.`)
  if (currency && !(CURRENCIES as readonly string[]).includes(currency))
    throw new UsageError(`--currency must be one of ${CURRENCIES.join(', ')}; got ${JSON.stringify(flags.currency)}.`)
  const slicer = flags.slicer ? findPrusaSlicer() : undefined
  if (flags.slicer && !slicer) throw new SlicerNotFoundError()
  if (flags.slicer && !flags.part && !canPrompt())
    throw new UsageError('--slicer prusa slices a part file: pass --part FILE.')
  return {currency, slicer}
}

export function unitOf(unit: string): Unit {
  return unit === 'cm' || unit === 'in' ? unit : 'mm'
}

/** A mesh (STL, OBJ, 3MF) with its measures, as the estimate input takes it; read at once, for the prompt's check. */
export function measuredPart(file: string, unit: string, limits: ReadLimits): NonNullable<EstimateInput['part']> {
  return priceable(file, measurePart({file, unit: unitOf(unit), limits}))
}

/** The part, when its mesh has a volume to price; otherwise an InputError saying why and what to give instead. */
function priceable(file: string, measurement: PartMeasurement): NonNullable<EstimateInput['part']> {
  const unpriced = unpricedReason(file, measurement)
  if (unpriced)
    throw new InputError(
      `${unpriced}; close the mesh and give it again, or give the part's measures instead of --part: --size WxDxH (mfg price measure ${file} shows it) and --volume MM3 or --weight G`,
    )
  return {file, measurement}
}

/**
 * `--part FILE`: a mesh, or a STEP or IGES solid (the formats CNC shops are sent),
 * read and measured as `price measure` reads and measures it, whatever its name
 * says. A DXF is a flat pattern with no volume, and an open or non-manifold mesh has
 * none defined: both are refused with how to price the part from its measures.
 */
export async function partFromFlag(
  file: string,
  unit: string,
  limits: ReadLimits,
): Promise<NonNullable<EstimateInput['part']>> {
  const measurement = await measureAnyFile({file, unit: unitOf(unit), limits})
  if (!('volume' in measurement)) {
    throw new InputError(
      `${file}: a DXF is a flat pattern, with no volume to price from; give the sheet's --size and --thickness (mfg price measure ${file} --thickness MM gives its size), or a 3D file (STL, OBJ, 3MF, STEP, IGES)`,
    )
  }
  return priceable(file, measurement)
}

/** The flags of `price estimate` that describe the part and the order, as the estimate's input. */
export async function estimateInputFrom(
  flags: ReaderLimitFlags & {
    service?: string | undefined
    technology?: string | undefined
    material?: string | undefined
    color?: string | undefined
    quantity?: number | undefined
    option?: string[] | undefined
    discount?: number | undefined
    'design-fee'?: number | undefined
    'extra-fee'?: number | undefined
    volume?: number | undefined
    weight?: number | undefined
    hours?: number | undefined
    size?: string | undefined
    thickness?: number | undefined
    bends?: number | undefined
    bulk?: string | undefined
    legacy?: boolean | undefined
    part?: string | undefined
    unit: string
  },
  currency: string | undefined,
): Promise<EstimateInput> {
  const part = flags.part ? await partFromFlag(flags.part, flags.unit, limitsOf(flags)) : undefined
  return given({
    service: flags.service,
    technology: flags.technology,
    material: flags.material,
    color: flags.color,
    quantity: flags.quantity,
    options: flags.option?.map(parseOption),
    discount: flags.discount,
    designFee: flags['design-fee'],
    extraFee: flags['extra-fee'],
    volume: flags.volume,
    weight: flags.weight,
    hours: flags.hours,
    size: flags.size ? parseSize(flags.size) : undefined,
    thickness: flags.thickness,
    bends: flags.bends,
    bulk: flags.bulk ? parseBulk(flags.bulk) : undefined,
    currency,
    legacy: flags.legacy || undefined,
    part,
  })
}

/** PrusaSlicer's figures for the input's part, at the layers the estimate assumes. */
export async function sliceForEstimate(input: EstimateInput, binary: string, unit: string): Promise<void> {
  if (!input.part) throw new UsageError('--slicer prusa slices a part file: pass --part FILE.')
  input.slicer = await sliceWithPrusa({
    file: input.part.file,
    unit: unitOf(unit),
    binary,
    layerHeight: 0.3,
    firstLayerHeight: 0.35,
    density: input.part.measurement.slicingData.density,
  })
}

/** In a terminal, asks for what is missing; without one, a missing material is a usage error. */
export async function completeEstimateInput(
  ctx: ServiceContext,
  input: EstimateInput,
  unit: string,
  limits: ReadLimits,
): Promise<void> {
  if (!canPrompt()) {
    if (!input.material) throw new UsageError('Missing material: pass --material (no terminal to prompt in).')
    return
  }
  /** The choices for a field; when the material turns out to be on several machines, asks which first. */
  const choicesFor = async (field: Field) => {
    for (;;) {
      const probe = await probeChoices(ctx, input, field)
      if (probe?.field !== 'technology' || field === 'technology') return probe?.choices
      input.technology = await askChoice({flag: '--technology', message: 'Technology:', choices: probe.choices})
    }
  }
  if (!input.material) await askMachineAndMaterial(input, choicesFor)
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
  if (!input.options) input.options = await askOptions((await choicesFor('option')) ?? [])
  const measured = input.part || input.volume !== undefined || input.weight !== undefined || input.size
  if (!measured) await askPart(input, unit, limits)
}

/**
 * The part file, checked (read and measured) before the walk goes on; left empty, the
 * measures the estimate then needs: size, volume, and weight (3D printing) or thickness
 * (sheet metal), at least one of size, volume and weight.
 */
async function askPart(input: EstimateInput, unit: string, limits: ReadLimits): Promise<void> {
  let part: EstimateInput['part']
  const file = await askPath({
    flag: '--part',
    message: 'Part file (STL, OBJ or 3MF; Tab completes, empty to give its measures instead):',
    extensions: ['.stl', '.obj', '.3mf'],
    required: false,
    validate: (value) => {
      const path = expandHome(value.trim())
      if (path === '') return true
      try {
        part = measuredPart(path, unit, limits)
        return true
      } catch (error) {
        return (error as Error).message
      }
    },
  })
  if (file.trim() !== '' && part) {
    input.part = part
    return
  }
  const optionalNumber = (what: string) => (v: string) =>
    v.trim() === '' || (Number.isFinite(Number(v)) && Number(v) > 0) ? true : `${what}: a number above 0, or empty`
  const size = await askText({
    flag: '--size',
    message: 'Part size WIDTHxDEPTHxHEIGHT, mm (empty if unknown):',
    required: false,
    validate: (v) => {
      if (v.trim() === '') return true
      try {
        parseSize(v)
        return true
      } catch (error) {
        return (error as Error).message
      }
    },
  })
  if (size.trim()) input.size = parseSize(size)
  const volume = await askText({
    flag: '--volume',
    message: 'Part volume, mm³ (empty if unknown):',
    required: false,
    validate: optionalNumber('Volume'),
  })
  if (volume.trim()) input.volume = Number(volume)
  if (input.service !== 'SHEET_METAL') {
    const needed = input.size === undefined && input.volume === undefined
    const weight = await askText({
      flag: '--weight',
      message: needed ? 'Printed weight, g:' : 'Printed weight, g (empty if unknown):',
      // Checked by validate, which says what may stand in for the weight.
      required: false,
      validate: (v) =>
        needed && v.trim() === '' ? 'The size, the volume or the weight is needed' : optionalNumber('Weight')(v),
    })
    if (weight.trim()) input.weight = Number(weight)
  } else if (input.thickness === undefined) {
    const thickness = await askText({
      flag: '--thickness',
      message: 'Sheet thickness, mm:',
      validate: (v) => (Number.isFinite(Number(v)) && Number(v) > 0 ? true : 'A number above 0'),
    })
    input.thickness = Number(thickness)
  }
}

/**
 * The command line that prices the same part without prompts, for a script: every value
 * the walk asked for or the flags gave, quoted for a POSIX shell.
 */
export function equivalentCommand(
  input: EstimateInput,
  flags: ReaderLimitFlags & {unit: string; bulk?: string; currency?: string; legacy?: boolean},
): string {
  const q = (v: string | number) =>
    /^[\w@%+=:,./-]+$/.test(String(v)) ? String(v) : `'${String(v).replace(/'/g, `'\\''`)}'`
  const args: string[] = ['mfg', 'price', 'estimate']
  const add = (flag: string, value: string | number | undefined) => {
    if (value !== undefined) args.push(flag, q(value))
  }
  add('--part', input.part?.file)
  if (input.part && flags.unit !== 'mm') add('--unit', flags.unit)
  add('--service', input.service)
  add('--technology', input.technology)
  add('--material', input.material)
  add('--color', input.color)
  add('--quantity', input.quantity)
  for (const o of input.options ?? []) add('--option', `${o.refer}=${o.name}`)
  add('--discount', input.discount)
  add('--design-fee', input.designFee)
  add('--extra-fee', input.extraFee)
  add('--size', input.size ? `${input.size.width}x${input.size.depth}x${input.size.height}` : undefined)
  add('--volume', input.volume)
  add('--weight', input.weight)
  add('--hours', input.hours)
  add('--thickness', input.thickness)
  add('--bends', input.bends)
  add('--bulk', flags.bulk)
  add('--currency', flags.currency)
  if (flags.legacy) args.push('--legacy')
  for (const [flag, value] of changedLimitFlags(flags)) add(flag, value)
  return args.join(' ')
}

async function askMachineAndMaterial(
  input: EstimateInput,
  choicesFor: (field: Field) => Promise<string[] | undefined>,
): Promise<void> {
  input.service ??= await askChoice({flag: '--service', message: 'Service:', choices: SERVICES})
  if (!input.technology) {
    const techs = await choicesFor('technology')
    if (techs && techs.length === 1) input.technology = techs[0]
    else if (techs) input.technology = await askChoice({flag: '--technology', message: 'Technology:', choices: techs})
  }
  const materials = await choicesFor('material')
  input.material = materials
    ? await askChoice({flag: '--material', message: 'Material:', choices: materials})
    : await askText({flag: '--material', message: 'Material:'})
}

/** The first choice of every option question: an option not chosen adds nothing to the price. */
const NO_OPTION = '(none)'

/** One question per option group (`refer`), from the `refer=name` labels the service lists; each may be left out. */
async function askOptions(labels: string[]): Promise<{refer: string; name: string}[]> {
  const byRefer = new Map<string, string[]>()
  for (const label of labels) {
    const {refer, name} = parseOption(label)
    byRefer.set(refer, [...(byRefer.get(refer) ?? []), name])
  }
  const options: {refer: string; name: string}[] = []
  for (const [refer, names] of byRefer) {
    const name = await askChoice({
      flag: '--option',
      message: `${refer.replace(/_/g, ' ')}:`,
      choices: [NO_OPTION, ...names],
    })
    if (name !== NO_OPTION) options.push({refer, name})
  }
  return options
}

/**
 * Estimates; when the service refuses a value a flag names (an ambiguous
 * material, an unknown colour...), asks for it in a terminal and tries again,
 * or without one stops with exit 2 naming the flag and the choices.
 */
export async function estimateResolving(ctx: ServiceContext, input: EstimateInput): Promise<EstimateResult> {
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
          `${reason.replace(/\.$/, '')}: pass ${fix.flag}${choices.length > 0 ? `, one of ${choices.join(', ')}` : ''}${meantOf(input, fix.field, choices) ?? '.'}`,
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

/** `; did you mean PLA?` when the value a flag gave is close to one of the service's choices. */
function meantOf(input: EstimateInput, field: 'service' | Field, choices: string[]): string | undefined {
  const typed = field === 'option' ? undefined : input[field]
  const meant = typeof typed === 'string' ? closest(typed, choices, 1)[0] : undefined
  return meant === undefined ? undefined : `; did you mean ${meant}?`
}

/** Missing or unusable measures: say which flags give them. */
function geometryHint(error: ValidationError): Error {
  const geometry = error.details?.some((d) => /^(slicingData|thickness|volume|modelSizes)/.test(d.path))
  if (!geometry) return error
  return new UsageError(
    `${(error.serverMessage ?? 'the part measures are missing').replace(/\.$/, '')}: pass --part FILE, or --volume, --weight, --size and --thickness.`,
  )
}

/** When the v1 answer does not name its currency, --currency (a sandbox extension) may have been ignored. */
export const unconfirmedCurrency = (asked: string): string =>
  `The service did not say which currency the price is in: --currency ${asked} is an mfg sandbox extension that this service may ignore, so the price may be in your business's currency. --legacy --currency ${asked} asks for it on the interface's own terms`

/**
 * The answer as key-value lines, then with --bulk a table of quantities (and bars
 * on a terminal): one block of text each.
 */
export async function renderEstimate(r: EstimateResult, terminal: boolean): Promise<string[]> {
  const {toKeyValue} = await import('./render.js')
  const cur = r.currency ?? ''
  const money = (n: number) => `${n.toFixed(2)} ${cur}`.trim()
  const s = r.slicer
  const text = toKeyValue({
    price: money(r.price),
    quantity: r.quantity,
    'unit price': money(r.unitPrice),
    material: [r.material, r.color].filter(Boolean).join(', '),
    machine: [r.technology, r.service].filter(Boolean).join(', '),
    ...defined({
      options: r.options.length > 0 ? r.options.join('; ') : undefined,
      part: r.part || undefined,
      slicer: s
        ? `${[s.name, s.version].filter(Boolean).join(' ')}: ${s.layers} layers, ${s.estimatedTime}, ${s.filamentLength.toFixed(1)} mm${s.weight === null ? '' : `, ${s.weight.toFixed(2)} g`}`
        : undefined,
    }),
  })
  if (!r.bulk || r.bulk.length === 0) return [text]
  const rows = r.bulk.map((b) => ({
    quantity: b.quantity,
    'unit price': b.unitPrice.toFixed(2),
    total: b.total.toFixed(2),
  }))
  return [text, `\n${tableOf(rows)}`, ...(terminal ? [`\n${barChart(r.bulk, cur)}`] : [])]
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
