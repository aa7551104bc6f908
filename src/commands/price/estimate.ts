import {Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {numberFlag} from '../../cli/flags.js'
import {isTty, writeOut} from '../../cli/output.js'
import * as estimate from '../../cli/price-estimate.js'
import {limitsOf, readerLimitFlags} from '../../cli/reader-limits.js'
import {CURRENCIES, SERVICES} from '../../schemas/common.js'
import type {EstimateResult} from '../../services/price/estimate.js'
import {SLICERS} from '../../services/price/slicer.js'

export default class PriceEstimate extends BaseCommand {
  static override summary = "Estimate a part's price with the business's own machines, materials and options."
  static override description = `Sends the part to the v1 price estimation (or with --legacy to the legacy modelPriceEstimation) and shows the order total, the unit price and, with --bulk, a table of quantities.

The part's measures come from --part FILE (STL, OBJ, 3MF, or a STEP or IGES solid: slicingData and modelSizes are filled from the file, as price measure measures it), or from --volume, --weight, --hours, --size and --thickness. A mesh that is not closed (open edges, or edges shared by more than two triangles) has no defined volume: it is refused (exit code 2), naming its edges; give its --size and --volume instead. --service and --technology may be left out when one machine offers the material: --part examples/bracket.stl --material PLA is enough. When the material is on several machines, a terminal asks which; without one the command exits with code 2 naming --technology and the choices.

In a terminal, whatever is missing (service, technology, material, colour, quantity, options, part file) is asked for, with the business's choices: they are read from the estimation's own validation answer, as the interface has no catalogue endpoint.

Buyers' files are untrusted: a part file over a reader limit (triangles, 3MF inflation ratio, STEP/IGES size and time, DXF entities) is refused, as price measure refuses it; raise the limit with its flag (PART FILE LIMITS) for a file you trust.

--slicer prusa slices the part with the PrusaSlicer command line (prusa-slicer on PATH, or MFG_PRUSA_SLICER) at 0.3 mm layers (0.35 mm first), 1.75 mm filament and 1.24 g/cm³, and sends its print time, filament length, weight and layer count instead of the built-in heuristic. Without PrusaSlicer it exits with code 2 saying how to install it.

--legacy needs --currency (one of the 22 codes); it spends one of the business's daily estimations per quantity priced, and shows how many are left. Prices are pricing estimates, not quotes (https://github.com/mfg-cli/mfg/blob/main/docs/pricing.md).`
  static override examples = [
    '<%= config.bin %> <%= command.id %> --part examples/bracket.stl --material PLA',
    '<%= config.bin %> <%= command.id %> --part examples/bracket.stl --material PETG --color Black --quantity 20 --option lead_time="Express (3 working days)"',
    '<%= config.bin %> <%= command.id %> --part housing.stl --material "Aluminium 6061" --bulk 1,10,100',
    '<%= config.bin %> <%= command.id %> --technology LASER --material "Steel S235" --size 200x100x3 --bends 2 --quantity 25 --json',
    '<%= config.bin %> <%= command.id %> --part examples/bracket.stl --material PLA --legacy --currency USD',
    '<%= config.bin %> <%= command.id %> --part examples/bracket.stl --material PETG --slicer prusa',
    '<%= config.bin %> <%= command.id %> --part examples/housing.step --material "Aluminium 6061" --max-seconds 60',
    '<%= config.bin %> <%= command.id %>',
  ]
  static override flags = {
    part: Flags.string({description: 'Part file (STL, OBJ, 3MF, STEP or IGES) to measure.', helpValue: 'FILE'}),
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
    discount: numberFlag(0, 100)({description: 'Percent off the order total.'}),
    'design-fee': numberFlag(0)({description: 'Design fee per part (priceConception), business currency.'}),
    'extra-fee': numberFlag(0)({description: 'Extra fee per part (priceExtra), business currency.'}),
    volume: numberFlag(0)({description: 'Part volume, mm³ (overrides --part).'}),
    weight: numberFlag(0)({description: 'Printed weight, g (overrides --part).'}),
    hours: numberFlag(0)({description: 'FDM print hours (overrides --part).'}),
    size: Flags.string({description: 'Part size WIDTHxDEPTHxHEIGHT, mm (overrides --part).', helpValue: 'WxDxH'}),
    thickness: numberFlag(0)({description: 'Sheet metal: sheet thickness, mm.'}),
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
    ...readerLimitFlags('PART FILE LIMITS'),
  }

  async run(): Promise<EstimateResult> {
    const {flags} = await this.parse(PriceEstimate)
    const {currency, slicer} = estimate.checkEstimateFlags(flags)
    const input = await estimate.estimateInputFrom(flags, currency)
    const ctx = await this.context(flags).service()
    // What the flags gave, to tell whether the prompts (or a retry's question) added anything.
    const asGiven = JSON.stringify(input)
    await estimate.completeEstimateInput(ctx, input, flags.unit, limitsOf(flags))
    if (slicer) await estimate.sliceForEstimate(input, slicer, flags.unit)
    const result = await estimate.estimateResolving(ctx, input)
    // After a walk through the prompts: the same estimate as one line, for a script (stderr).
    if (JSON.stringify({...input, slicer: undefined}) !== asGiven && (await import('../../cli/prompt.js')).canPrompt())
      this.note(`The same without prompts: ${estimate.equivalentCommand(input, flags)}`)
    if (!this.jsonEnabled())
      for (const text of await estimate.renderEstimate(result, isTty(process.stdout))) writeOut(text)
    if (currency && result.currency === null) this.warnNote(estimate.unconfirmedCurrency(currency), true)
    if (result.allowanceRemaining !== undefined)
      this.note(`Legacy daily estimations left today: ${result.allowanceRemaining}.`)
    return result
  }
}
