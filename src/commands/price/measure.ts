import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {measureProgress, measureWithFlags, writeMeasurementText, writeSheetText} from '../../cli/measurement.js'
import {positiveFlag as positive, readerLimitFlags} from '../../cli/reader-limits.js'
import type {PartMeasurement, SheetPartMeasurement} from '../../services/price/measure.js'

export default class PriceMeasure extends BaseCommand {
  static override summary =
    'Measure a part file: size, volume, area, hull, closedness and slicing data; cut length and area of a DXF flat pattern.'
  static override description = `Reads a binary or ASCII STL, OBJ, 3MF, STEP (.step, .stp) or IGES (.iges, .igs) file and measures it in float64: width (X), depth (Y) and height (Z) in mm, volume (mm³), surface area (mm²), convex hull and bounding-box volume, the number of parts, and whether the mesh is closed (with its open and non-manifold edges). STEP and IGES solids are tessellated by OpenCascade (loaded on the first such file) and measured the same way. slicingData is what price estimation takes, in the interface's names and types (volume and weight are strings); hours and weight come from an FDM heuristic (https://github.com/mfg-cli/mfg/blob/main/docs/mesh.md).

A DXF file is a sheet-metal flat pattern: it prints the outline area (outer contours minus holes, mm²), the cut length of every contour (mm), the pierces (one per closed contour and per separate open chain), the bend lines (lines on a layer named like BEND, or in a dashed linetype) and the bounding box. DXF carries no thickness: --thickness passes it on.

STL and OBJ carry no unit: --unit says what theirs is (and a DXF's when it declares none). 3MF, STEP, IGES and most DXF files declare their own. Buyers' files are untrusted: a file over a reader limit (triangles, 3MF inflation ratio, STEP/IGES size and time, DXF entities) is refused; raise the limit with its flag for a file you trust. A file that cannot be read exits with code 2 and one line naming it and saying why.

A big file takes seconds: on a terminal a progress bar (bytes read and measured) is drawn on stderr, and Ctrl-C stops it while it reads and measures (exit 130, no result printed).`
  static override examples = [
    '<%= config.bin %> <%= command.id %> examples/bracket.stl',
    '<%= config.bin %> <%= command.id %> examples/housing.step',
    '<%= config.bin %> <%= command.id %> examples/plate.dxf --thickness 2',
    '<%= config.bin %> <%= command.id %> housing.3mf --layer-height 0.2 --first-layer-height 0.2',
    '<%= config.bin %> <%= command.id %> big.stl --no-hull --json | jq .slicingData',
    '<%= config.bin %> <%= command.id %> part.obj --unit in --density 1.27',
    '<%= config.bin %> <%= command.id %> trusted-scan.3mf --max-triangles 20000000 --max-ratio 100',
  ]
  static override args = {
    file: Args.string({description: 'The part file (STL, OBJ, 3MF, STEP/STP, IGES/IGS or DXF).', required: true}),
  }
  static override flags = {
    'layer-height': positive({description: 'Layer height for slicingData, mm.', default: 0.3}),
    'first-layer-height': positive({description: 'First layer height, mm.', default: 0.35}),
    density: positive({description: 'Material density for slicingData.weight, g/cm³.', default: 1.24}),
    unit: Flags.string({
      description: 'Unit of an STL or OBJ file (or of a DXF that declares none).',
      options: ['mm', 'cm', 'in'],
      default: 'mm',
    }),
    'no-hull': Flags.boolean({description: 'Skip the convex hull (faster on big meshes); convexHullVolume is null.'}),
    thickness: positive({description: 'Sheet thickness of a DXF flat pattern, mm (DXF carries none).'}),
    ...readerLimitFlags(),
  }

  async run(): Promise<PartMeasurement | SheetPartMeasurement> {
    const {args, flags} = await this.parse(PriceMeasure)
    // A big file takes seconds: a bar on a terminal, and Ctrl-C is heard between its pieces.
    const progress = await measureProgress(args.file)
    this.clearOnInterrupt = () => progress?.done()
    let m: PartMeasurement | SheetPartMeasurement
    try {
      m = await measureWithFlags(args.file, flags, progress?.update)
    } finally {
      progress?.done()
    }
    if (!this.jsonEnabled()) {
      if (m.format === 'dxf') await writeSheetText(m as SheetPartMeasurement)
      else await writeMeasurementText(m as PartMeasurement)
    }
    return m
  }
}
