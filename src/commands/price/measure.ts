import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {measureWithFlags, notPositive, positiveNumber, writeMeasurementText} from '../../cli/measurement.js'
import type {PartMeasurement} from '../../services/price/measure.js'

const positive = Flags.custom<number>({
  parse: async (text, _ctx, opts) => {
    const n = positiveNumber(text)
    if (n === undefined) throw new Error(notPositive(opts.name, text))
    return n
  },
})

export default class PriceMeasure extends BaseCommand {
  static override summary = 'Measure a part file: size, volume, area, hull, closedness and slicing data.'
  static override description = `Reads a binary or ASCII STL, OBJ or 3MF file and measures it in float64: width (X), depth (Y) and height (Z) in mm, volume (mm³), surface area (mm²), convex hull and bounding-box volume, the number of parts, and whether the mesh is closed (with its open and non-manifold edges). slicingData is what price estimation takes, in the interface's names and types (volume and weight are strings); hours and weight come from an FDM heuristic (docs/mesh.md).

STL and OBJ carry no unit: --unit says what theirs is. A 3MF file declares its own. A file that cannot be read exits with code 2 and one line saying why.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> examples/bracket.stl',
    '<%= config.bin %> <%= command.id %> housing.3mf --layer-height 0.2 --first-layer-height 0.2',
    '<%= config.bin %> <%= command.id %> big.stl --no-hull --json | jq .slicingData',
    '<%= config.bin %> <%= command.id %> part.obj --unit in --density 1.27',
  ]
  static override args = {file: Args.string({description: 'The part file (STL, OBJ or 3MF).', required: true})}
  static override flags = {
    'layer-height': positive({description: 'Layer height for slicingData, mm.', default: 0.3}),
    'first-layer-height': positive({description: 'First layer height, mm.', default: 0.35}),
    density: positive({description: 'Material density for slicingData.weight, g/cm³.', default: 1.24}),
    unit: Flags.string({description: 'Unit of an STL or OBJ file.', options: ['mm', 'cm', 'in'], default: 'mm'}),
    'no-hull': Flags.boolean({description: 'Skip the convex hull (faster on big meshes); convexHullVolume is null.'}),
  }

  async run(): Promise<PartMeasurement> {
    const {args, flags} = await this.parse(PriceMeasure)
    const m = measureWithFlags(args.file, flags)
    if (!this.jsonEnabled()) await writeMeasurementText(m)
    return m
  }
}
