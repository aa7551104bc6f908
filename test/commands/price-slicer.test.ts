import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {openSeededStore} from '../../src/sandbox/index.js'
import {estimate, type Catalog} from '../../src/sandbox/pricing.js'
import {QuoteModelPublicDto} from '../../src/schemas/pricing.js'
import {buildModel, type EstimateInput} from '../../src/services/price/estimate.js'
import {measurePart} from '../../src/services/price/measure.js'
import {findPrusaSlicer, sliceWithPrusa} from '../../src/services/price/slicer.js'
import {json, runCli, startCliSandbox, type CliSandbox} from '../helpers/cli.js'
import {meshPath} from '../helpers/meshes.js'

// `--slicer prusa` runs the real PrusaSlicer where it is installed (not in CI, which installs
// only jq): each test asserts on whichever path applies, and the no-slicer message always.
const CUBE = meshPath('cube20.stl')
const installed = findPrusaSlicer() !== undefined

let sb: CliSandbox
let catalog: Catalog
beforeAll(async () => {
  sb = await startCliSandbox()
  const store = openSeededStore({memory: true})
  const business = store.businesses.all()[0]!
  catalog = {
    currency: business.currency,
    machines: store.catalog.machines(business.id),
    materials: store.catalog.materials(business.id),
    options: store.catalog.options(business.id),
  }
  store.close()
})
afterAll(() => sb.close())

const NOT_FOUND =
  /PrusaSlicer not found: --slicer prusa needs the prusa-slicer command line on PATH.*apt-get install prusa-slicer.*or drop --slicer/s

interface SlicedEstimate {
  price: number
  quantity: number
  slicer?: {name: string; version: string | null; layers: number; hours: number; filamentLength: number; weight: number}
}

describe('mfg price estimate --slicer prusa', () => {
  it(
    installed
      ? 'slices cube20.stl: 66 layers, and the engine prices the slicer figures'
      : 'says PrusaSlicer is missing',
    async () => {
      const argv = ['price', 'estimate', '--part', CUBE, '--material', 'PETG', '--quantity', '10', '--slicer', 'prusa']
      const r = await runCli([...argv, '--json'], {env: sb.env()})
      if (!installed) {
        expect(r.exitCode).toBe(2)
        expect(r.stdout).toBe('')
        expect(r.stderr).toMatch(NOT_FOUND)
        return
      }
      expect(r.exitCode, r.stderr).toBe(0)
      const sliced = json<SlicedEstimate>(r)
      expect(sliced.slicer).toMatchObject({name: 'PrusaSlicer', layers: 66})
      expect(sliced.slicer?.filamentLength).toBeCloseTo(1491.16, 0)
      expect(sliced.slicer?.hours).toBeCloseTo(825 / 3600, 2)

      // The price is the engine's for the measured part with PrusaSlicer's figures in slicingData.
      const input: EstimateInput = {
        material: 'PETG',
        quantity: 10,
        part: {file: CUBE, measurement: measurePart({file: CUBE})},
        slicer: await sliceWithPrusa({file: CUBE}),
      }
      const model = buildModel(input)
      expect(model.slicingData).toMatchObject({number_of_layers: 66, filament_length: input.slicer?.filamentLength})
      const engine = estimate(catalog, QuoteModelPublicDto.parse(model), {currency: 'EUR'}).breakdown
      expect(sliced.price).toBe(engine.price)
      // The engine priced PrusaSlicer's print time, not the heuristic's.
      expect(engine.hours).toBeCloseTo(input.slicer?.hours ?? 0, 9)
      expect(input.part?.measurement.slicingData.hours).not.toBeCloseTo(engine.hours, 3)

      const shown = await runCli(argv, {env: sb.env()})
      expect(shown.stdout).toMatch(/^slicer\s+PrusaSlicer [\d.]+: 66 layers, 13m \d+s, 149\d\.\d mm, 4\.\d\d g$/m)
    },
  )

  it('exits 2 with how to install PrusaSlicer when it is not on PATH, before sending anything', async () => {
    const r = await runCli(['price', 'estimate', '--part', CUBE, '--material', 'PLA', '--slicer', 'prusa'], {
      env: {...sb.env(), PATH: '/nonexistent', MFG_PRUSA_SLICER: undefined},
    })
    expect(r.exitCode).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(NOT_FOUND)
  })

  it.runIf(installed)('needs a part file to slice', async () => {
    const r = await runCli(['price', 'estimate', '--material', 'PLA', '--size', '20x20x20', '--slicer', 'prusa'], {
      env: sb.env(),
    })
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toMatch(/--slicer prusa slices a part file: pass --part FILE/)
  })

  it('offers only the slicers it knows', async () => {
    const r = await runCli(['price', 'estimate', '--part', CUBE, '--material', 'PLA', '--slicer', 'cura'], {
      env: sb.env(),
    })
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toMatch(/prusa/)
  })
})
