// `mfg price measure` on the direct path (see index.ts): the same measuring and
// output as its oclif command (src/commands/price/measure.ts), from src/cli/measurement.ts.
import {measureWithFlags, positiveNumber, writeMeasurementText, type MeasureFlags} from '../cli/measurement.js'
import {configureColor, writeJson} from '../cli/output.js'
import type {DirectCommand} from './index.js'

export const command: DirectCommand = {
  values: {'layer-height': positiveNumber, 'first-layer-height': positiveNumber, density: positiveNumber},
  async run(args, flags, argv) {
    configureColor(argv)
    const m = measureWithFlags(args.file!, flags as unknown as MeasureFlags)
    if (flags.json === true) writeJson(m)
    else await writeMeasurementText(m)
  },
}
