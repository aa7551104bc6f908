// Print-time accuracy (issue 21): our print-hours estimate against PrusaSlicer's own
// "estimated printing time (normal mode)" on every reference part. The first block reads the
// figures recorded in test/fixtures/prusa/reference.json and needs no slicer; the second
// slices the parts again with the real prusa-slicer (CI installs it) and checks that the
// recorded figures are still what it says. Not timed: these are accuracy checks.
import {describe, expect, it} from 'vitest'

import {findPrusaSlicer} from '../../src/services/price/slicer.js'
import {
  compare,
  MEDIAN_TARGET,
  readReference,
  referenceFiles,
  slicePart,
  summary,
  WORST_TARGET,
  type ReferencePart,
} from './print-reference.js'

const reference = readReference()

describe('print hours against the recorded PrusaSlicer figures', () => {
  it('records every reference part, at least 15 distinct ones, at the settings --slicer prusa uses', () => {
    expect(reference.parts.map((p) => p.file).sort()).toEqual(referenceFiles())
    expect(reference.parts.length).toBeGreaterThanOrEqual(15)
    expect(reference.version).toMatch(/^2\.\d+\.\d+$/)
    expect(reference.settings).toEqual({
      layerHeight: 0.3,
      firstLayerHeight: 0.35,
      density: 1.24,
      filamentDiameter: 1.75,
    })
  })

  it(`is within a median of ${MEDIAN_TARGET * 100} % and a worst case of ${WORST_TARGET * 100} %`, () => {
    const rows = compare(reference.parts)
    const s = summary(rows)
    const table = rows.map((r) => `${r.file}: ${(100 * r.error).toFixed(1)} %`).join(', ')
    expect(s.median, table).toBeLessThanOrEqual(MEDIAN_TARGET)
    expect(s.worst, table).toBeLessThanOrEqual(WORST_TARGET)
  })
})

const slicer = findPrusaSlicer()
/** The generated torus (100,000 triangles) takes PrusaSlicer about 25 s alone; the bench re-slices it. */
const GENERATED = new Set(['torus-100k.stl'])

/** Runs f over the items, at most `width` at a time (the machine has two cores). */
async function pool<T, R>(items: T[], width: number, f: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await f(items[i]!)
    }
  }
  await Promise.all(Array.from({length: width}, worker))
  return out
}

// PrusaSlicer against its own recorded figures runs no code of mfg's under Node: CI runs it on
// its first Node.js line only (MFG_TEST_REPEAT_LINE=1 on the others, .ci/run).
const slicedElsewhere = process.env.MFG_TEST_REPEAT_LINE === '1'

describe.skipIf(!slicer || slicedElsewhere)('the recorded figures are what prusa-slicer says now', () => {
  it('slices every stored reference part to the recorded time, filament and layers', async () => {
    const parts = reference.parts.filter((p) => !GENERATED.has(p.file))
    const now = await pool(parts, 2, (p: ReferencePart) => slicePart(p.file))
    for (const [i, p] of parts.entries()) {
      const n = now[i]!
      expect(n.version, p.file).toBe(reference.version)
      // PrusaSlicer's time wanders from run to run (example001: 1h 21m 58s to 1h 22m 1s; on a
      // loaded machine enclosure: 1h 28m 58s against 1h 28m 23s): allow 5 s or 1 %, far below
      // the model's error.
      const slack = Math.max(5, 0.01 * p.hours * 3600)
      const said = `${p.file}: ${n.estimatedTime} now, ${p.estimatedTime} recorded`
      expect(Math.abs(n.hours - p.hours) * 3600, said).toBeLessThanOrEqual(slack)
      expect(Math.abs(n.filamentLength - p.filamentLength), p.file).toBeLessThanOrEqual(0.01 * p.filamentLength)
      expect(n.layers, p.file).toBe(p.layers)
    }
  }, 300_000)
})
