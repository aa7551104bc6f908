// `mfg price measure` on the direct path (see index.ts): the same measuring and
// output as its oclif command (src/commands/price/measure.ts), from src/cli/measurement.ts.
import {measureWithFlags, positiveNumber, writeMeasurementText, type MeasureFlags} from '../cli/measurement.js'
import {isTty, writeOut} from '../cli/stdio.js'
import type {DirectCommand} from './command.js'

export const command: DirectCommand = {
  values: {'layer-height': positiveNumber, 'first-layer-height': positiveNumber, density: positiveNumber},
  async run(args, flags, argv) {
    const m = measureWithFlags(args.file!, flags as unknown as MeasureFlags)
    // Piped JSON is formatJson's one compact line, written without loading the
    // colour support (chalk and node:tty) that a terminal or the text output need.
    if (flags.json === true && !isTty(process.stdout)) {
      writeOut(JSON.stringify(m))
      return
    }
    const {configureColor, writeJson} = await import('../cli/output.js')
    configureColor(argv)
    if (flags.json === true) writeJson(m)
    else await writeMeasurementText(m)
  },
}
