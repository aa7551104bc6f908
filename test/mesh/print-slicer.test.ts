// sliceForQuote (src/services/price/slicer.ts), the call the quote makes for PrusaSlicer's
// figures: a part file or its bytes in, print hours, filament, weight and layers out; null
// without PrusaSlicer. The slicing cases need prusa-slicer (CI installs it).
import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'

import {findPrusaSlicer, SlicerError, sliceForQuote} from '../../src/services/price/slicer.js'
import {meshPath} from '../helpers/meshes.js'
import {readReference} from './print-reference.js'

const cube = readReference().parts.find((p) => p.file === 'cube20.stl')!

describe('sliceForQuote', () => {
  it('is null when PrusaSlicer is not installed, so the quote can fall back to the built-in estimate', async () => {
    const none = await sliceForQuote({file: meshPath('cube20.stl')}, {density: 1.24, env: {PATH: ''}})
    expect(none).toBeNull()
  })

  it('says the slicer could not be started when the binary given is not there', async () => {
    const run = sliceForQuote({file: meshPath('cube20.stl')}, {density: 1.24, binary: '/nonexistent/prusa-slicer'})
    await expect(run).rejects.toThrow(SlicerError)
    await expect(run).rejects.toThrow(/could not be started/)
  })

  it.skipIf(!findPrusaSlicer())(
    "gives PrusaSlicer's figures for a file and for its bytes, the weight at the density given",
    async () => {
      const fromFile = await sliceForQuote({file: meshPath('cube20.stl')}, {density: 1.24})
      const fromBytes = await sliceForQuote(
        {bytes: readFileSync(meshPath('cube20.stl')), format: 'stl'},
        {density: 2.48},
      )
      for (const f of [fromFile!, fromBytes!]) {
        expect(Math.abs(f.hours - cube.hours) * 3600).toBeLessThanOrEqual(5)
        expect(f.filamentLength).toBeCloseTo(cube.filamentLength, 0)
        expect(f.layers).toBe(cube.layers)
        expect(f.version).toBe(readReference().version)
        expect(Object.keys(f).sort()).toEqual([
          'estimatedTime',
          'filamentLength',
          'hours',
          'layers',
          'version',
          'weight',
        ])
      }
      // Twice the density, twice the grams of the same filament.
      expect(fromBytes!.weight! / fromFile!.weight!).toBeCloseTo(2, 2)
    },
    60_000,
  )
})
