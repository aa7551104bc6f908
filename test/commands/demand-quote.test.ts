// mfg demand quote against a real sandbox over HTTP (port 0, in-memory database):
// part files uploaded to the sandbox's file host, demands created with them, then
// quoted through signed links, measured, priced and written back as a user would.
import {readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {openSeededStore} from '../../src/sandbox/index.js'
import {estimate} from '../../src/sandbox/pricing.js'
import {QuoteModelPublicDto} from '../../src/schemas/pricing.js'
import {buildModel, type EstimateInput} from '../../src/services/price/estimate.js'
import {measurePart} from '../../src/mesh/index.js'
import {estimateFields} from '../../src/services/quote/measure-part.js'
import type {QuoteOutcome} from '../../src/services/quote/types.js'
import {json, jsonLines, secretsOf, useCliSandbox, type CliResult} from '../helpers/cli.js'
import {meshPath} from '../helpers/meshes.js'

const {sb, outputs, run} = useCliSandbox()
const PARTS = join(import.meta.dirname, '../fixtures/parts')

/** Each line of an NDJSON stdout. */
const lines = (r: CliResult): QuoteOutcome[] =>
  r.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as QuoteOutcome)
interface Held {
  updatedAt: string
  subtotal: number
  priceTotal: number
  priceDelivery?: number
  feesTotalAmount?: number
  quoteModel: {pricePerPiece?: number}[]
  tracking: {status: string}[]
}
const demand = async (id: string) => json<Held>(await run(['demand', 'get', id, '--json']))

let urls: Record<string, string> = {}
/** Demands made for the tests: an STL part alone, STL + STEP + DXF, and one with an open mesh. */
const ids = {stl: '', mixed: '', open: ''}
let seeded = ''

const item = (file: string, service: string, technology: string, material: string, quantity: number) => ({
  fileName: file,
  fileLink: urls[file],
  service,
  technology,
  material,
  quantity,
})

beforeAll(async () => {
  const files = [
    meshPath('cube20.stl'),
    meshPath('open-box.stl'),
    join(PARTS, 'box-80x60x45.step'),
    join(PARTS, 'plate-120x40.dxf'),
  ]
  const up = await run(['post', 'upload', ...files, '--json'])
  expect(up.exitCode, up.stderr).toBe(0)
  urls = Object.fromEntries(json<{url: string; originalName: string}[]>(up).map((u) => [u.originalName, u.url]))
  const rows = [
    {draftId: 'quote-stl', technique: '3D_PRINTING', quoteModel: [item('cube20.stl', '3D_PRINTING', 'FDM', 'PLA', 4)]},
    {
      draftId: 'quote-mixed',
      technique: 'CNC_MACHINING',
      thickness: 3,
      quoteModel: [
        item('cube20.stl', '3D_PRINTING', 'FDM', 'PLA', 2),
        item('box-80x60x45.step', 'CNC_MACHINING', 'CNC', 'Aluminium 6061', 1),
        item('plate-120x40.dxf', 'SHEET_METAL', 'LASER', 'Steel S235', 10),
      ],
    },
    {
      draftId: 'quote-open',
      technique: '3D_PRINTING',
      quoteModel: [
        item('cube20.stl', '3D_PRINTING', 'FDM', 'PLA', 1),
        item('open-box.stl', '3D_PRINTING', 'FDM', 'PLA', 1),
      ],
    },
  ]
  const file = join(sb.home, 'quotes.json')
  writeFileSync(file, JSON.stringify(rows))
  const created = await run(['demand', 'create', '--file', file, '--json'])
  expect(created.exitCode, created.stderr).toBe(0)
  const results = json<{results: {draftId: string; id: string}[]}>(created).results
  const idOf = (d: string) => results.find((r) => r.draftId === d)!.id
  Object.assign(ids, {stl: idOf('quote-stl'), mixed: idOf('quote-mixed'), open: idOf('quote-open')})
  const list = await run(['demand', 'list', '--all', '--json'])
  seeded = jsonLines<{_id: string; draftId?: string}>(list).find((d) => d.draftId === 'seed-quote-sent')!._id
})

afterAll(() => {
  // No output showed a key, a token or a link's signature.
  for (const r of outputs) {
    for (const secret of secretsOf(sb)) expect(r.stdout + r.stderr).not.toContain(secret)
    expect(r.stdout + r.stderr).not.toMatch(/signature=[0-9a-f]{8}/)
  }
})

describe('mfg demand quote', () => {
  it('off a terminal, writes nothing unless --apply or --dry-run says which, and names both', async () => {
    const before = await demand(ids.stl)
    const r = await run(['demand', 'quote', ids.stl])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('--apply')
    expect(r.stderr).toContain('--dry-run')
    expect((await demand(ids.stl)).updatedAt).toBe(before.updatedAt)
  })

  it('a dry run prints the quote, prices as price estimate does for the same file, and changes nothing', async () => {
    const before = await demand(ids.stl)
    const r = await run(['demand', 'quote', ids.stl, '--dry-run'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stdout).toContain('cube20.stl')
    expect(r.stdout).toContain('20 × 20 × 20 mm, 8000 mm³, 2400 mm²')
    expect(r.stdout).toMatch(/FDM PLA {2}× 4 {2}unit \d+\.\d\d {2}total \d+\.\d\d EUR/)
    expect(r.stderr).toContain('Dry run: nothing was written')
    const asJson = lines(await run(['demand', 'quote', ids.stl, '--dry-run', '--json']))
    expect(asJson).toHaveLength(1)
    const part = asJson[0]!.parts[0]!
    expect(asJson[0]!.status).toBe('would-quote')
    // The same figures through the price estimation, from the same file measured by price estimate.
    const est = await run([
      'price',
      'estimate',
      '--part',
      meshPath('cube20.stl'),
      '--technology',
      'FDM',
      '--material',
      'PLA',
      '--quantity',
      '4',
      '--json',
    ])
    const estimate = json<{price: number; unitPrice: number}>(est)
    expect(part.total).toBe(estimate.price)
    expect(part.unitPrice).toBe(estimate.unitPrice)
    expect((await demand(ids.stl)).updatedAt).toBe(before.updatedAt)
  })

  it('--jq runs on each demand line, strings raw', async () => {
    const r = await run(['demand', 'quote', ids.stl, '--dry-run', '--jq', '.status, .parts[0].format'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stdout).toBe('would-quote\nstl-binary\n')
  })

  it('--apply writes each part unit price and the total; a rerun is unchanged and reads the file from the cache', async () => {
    const r = await run(['demand', 'quote', ids.stl, '--apply', '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    const [quoted] = lines(r)
    expect(quoted!.status).toBe('quoted')
    const after = await demand(ids.stl)
    expect(after.quoteModel[0]!.pricePerPiece).toBe(quoted!.parts[0]!.unitPrice)
    expect(after.subtotal).toBe(quoted!.partsTotal)
    expect(after.priceTotal).toBeCloseTo(
      quoted!.partsTotal! + (after.priceDelivery ?? 0) + (after.feesTotalAmount ?? 0),
      2,
    )
    const again = await run(['demand', 'quote', ids.stl, '--apply', '--json'])
    const [second] = lines(again)
    expect(second!.status).toBe('unchanged')
    expect(second!.parts[0]!.cached).toBe(true)
    expect((await demand(ids.stl)).updatedAt).toBe(after.updatedAt)
    // The cache holds the file once, by its content hash.
    const cached = readdirSync(join(sb.home, 'oclif'), {recursive: true}).map(String)
    expect(cached.filter((f) => f.endsWith(`${second!.parts[0]!.sha256}.stl`))).toHaveLength(1)
  })

  it('measures and prices STL, STEP and DXF parts of one demand', async () => {
    const [o] = lines(await run(['demand', 'quote', ids.mixed, '--dry-run', '--json']))
    expect(o!.status, o!.reason).toBe('would-quote')
    const [stl, step, dxf] = o!.parts
    expect(step!.format).toBe('step')
    expect(step!.measured).toMatchObject({kind: 'solid', size: [80, 60, 45]})
    expect((step!.measured as {volume: number}).volume).toBeCloseTo(216000, -2)
    expect(dxf!.format).toBe('dxf')
    expect(dxf!.measured).toMatchObject({kind: 'sheet', thickness: 3})
    for (const p of [stl, step, dxf]) expect(p!.total).toBeGreaterThan(0)
    expect(o!.partsTotal).toBeCloseTo(stl!.total! + step!.total! + dxf!.total!, 2)
  })

  it("takes the part readers' limits as price measure does: a part over one skips the demand, naming the flag", async () => {
    const r = await run(['demand', 'quote', ids.mixed, '--dry-run', '--json', '--max-brep-bytes', '100'])
    expect(r.exitCode).toBe(4)
    const [o] = lines(r)
    expect(o!.status).toBe('skipped')
    expect(o!.reason).toContain('box-80x60x45.step')
    expect(o!.reason).toContain('--max-brep-bytes')
    const bad = await run(['demand', 'quote', ids.mixed, '--dry-run', '--max-seconds', '0'])
    expect(bad.exitCode).toBe(2)
    expect(bad.stderr).toContain('--max-seconds must be a number above 0')
  })

  it("prices a DXF flat pattern on its cut length, as the estimation's engine does with dfmData.allLength", async () => {
    const [o] = lines(await run(['demand', 'quote', ids.mixed, '--dry-run', '--json']))
    const dxf = o!.parts[2]!
    const sheet = dxf.measured as {size: [number, number]; area: number; cutLength: number; bends: number}
    expect(sheet.cutLength).toBeGreaterThan(4 * Math.sqrt(sheet.area))
    const store = openSeededStore({memory: true})
    const business = store.businesses.all()[0]!
    const catalog = {
      currency: business.currency,
      machines: store.catalog.machines(business.id),
      materials: store.catalog.materials(business.id),
      options: store.catalog.options(business.id),
    }
    store.close()
    const input: EstimateInput = {
      service: 'SHEET_METAL',
      technology: 'LASER',
      material: 'Steel S235',
      quantity: 10,
      currency: 'EUR',
      size: {width: sheet.size[0], depth: sheet.size[1], height: 3},
      thickness: 3,
      volume: sheet.area * 3,
      ...(sheet.bends > 0 ? {bends: sheet.bends} : {}),
    }
    const price = (i: EstimateInput) =>
      estimate(catalog, QuoteModelPublicDto.parse(buildModel(i)), {currency: 'EUR'}).breakdown.price
    expect(dxf.total).toBe(price({...input, cutLength: sheet.cutLength}))
    // The engine does price the path (past its minimum unit price): a hundred times the cutting costs more.
    expect(price({...input, cutLength: sheet.cutLength * 100})).toBeGreaterThan(dxf.total!)
    // And the quote sends it: the estimation input of the measured file carries it.
    const part = await measurePart(join(PARTS, 'plate-120x40.dxf'), 'plate-120x40.dxf', {thicknessMm: 3})
    const sent = buildModel(estimateFields(part, 'plate-120x40.dxf')) as {dfmData?: {allLength?: number}}
    expect(sent.dfmData?.allLength).toBeCloseTo(sheet.cutLength, 1)
  })

  it('skips a demand with an open mesh (exit 4) and writes nothing unless --allow-partial', async () => {
    const before = await demand(ids.open)
    const r = await run(['demand', 'quote', ids.open, '--apply', '--json'])
    expect(r.exitCode).toBe(4)
    const [o] = lines(r)
    expect(o!.status).toBe('skipped')
    expect(o!.reason).toContain('open-box.stl')
    expect(o!.reason).toContain('open')
    expect((await demand(ids.open)).updatedAt).toBe(before.updatedAt)
    const partial = await run(['demand', 'quote', ids.open, '--apply', '--allow-partial', '--json'])
    expect(partial.exitCode, partial.stderr).toBe(0)
    expect(lines(partial)[0]!.status).toBe('quoted')
    const after = await demand(ids.open)
    expect(after.quoteModel[0]!.pricePerPiece).toBe(lines(partial)[0]!.parts[0]!.unitPrice)
    expect(after.quoteModel[1]!.pricePerPiece).toBeUndefined()
  })

  it('guards skip a demand with the reason and exit 4; nothing is written', async () => {
    const before = await demand(ids.mixed)
    for (const [flag, value, says] of [
      ['--max-unit-price', '0.5', '--max-unit-price 0.5'],
      ['--max-total', '1', '--max-total 1'],
      ['--min-total', '1000000', '--min-total 1000000'],
      ['--only-format', 'stl', 'not in --only-format stl'],
    ] as const) {
      const r = await run(['demand', 'quote', ids.mixed, '--apply', flag, value, '--json'])
      expect(r.exitCode, flag).toBe(4)
      expect(lines(r)[0]!.reason, flag).toContain(says)
    }
    expect((await demand(ids.mixed)).updatedAt).toBe(before.updatedAt)
    const bad = await run(['demand', 'quote', ids.mixed, '--dry-run', '--only-format', 'stl,pdf'])
    expect(bad.exitCode).toBe(2)
    expect(bad.stderr).toContain('--only-format takes stl, obj, 3mf, step, iges, dxf')
  })

  it('--all --status quote_request_received quotes the new requests, one JSON line each, seeded file included', async () => {
    const r = await run(['demand', 'quote', '--all', '--status', 'quote_request_received', '--dry-run', '--json'])
    const out = lines(r)
    const byId = new Map(out.map((o) => [o.demandId, o]))
    expect(byId.get(seeded)?.status).toBe('would-quote')
    expect(byId.get(seeded)?.parts[0]?.fileName).toBe('sensor-bracket.stl')
    // The already quoted STL demand is unchanged; orders and later stages are not listed.
    expect(byId.get(ids.stl)?.status).toBe('unchanged')
    expect(out.every((o) => o.stage === 'quote_sent')).toBe(true)
  })

  it('--send needs --yes off a terminal, and then moves the demand to quote_sent', async () => {
    const no = await run(['demand', 'quote', ids.stl, '--apply', '--send'])
    expect(no.exitCode).toBe(2)
    expect(no.stderr).toContain('--yes')
    const needsApply = await run(['demand', 'quote', ids.stl, '--dry-run', '--send', '--yes'])
    expect(needsApply.exitCode).toBe(2)
    expect(needsApply.stderr).toContain('--send')
    const r = await run(['demand', 'quote', ids.stl, '--apply', '--send', '--yes', '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    const [o] = lines(r)
    expect(o!.sent).toBe(true)
    const tracking = (await demand(ids.stl)).tracking
    expect(tracking.filter((t) => t.status === 'quote sent').length).toBeGreaterThanOrEqual(1)

    // A daily `--apply --send` run: the same quote, already sent, is not emailed again.
    const again = await run(['demand', 'quote', ids.stl, '--apply', '--send', '--yes', '--json'])
    expect(again.exitCode, again.stderr).toBe(0)
    const [a] = lines(again)
    expect(a!.status).toBe('unchanged')
    expect(a!.sent).toBe(false)
    expect(a!.reason).toContain('already sent')
    expect((await demand(ids.stl)).tracking.length).toBe(tracking.length)
    // --force writes and sends it again.
    const forced = lines(await run(['demand', 'quote', ids.stl, '--apply', '--send', '--yes', '--force', '--json']))
    expect(forced[0]!.sent).toBe(true)
  })

  it('--material prices every part in another material (the part colour is left to the catalogue)', async () => {
    const [o] = lines(await run(['demand', 'quote', ids.stl, '--dry-run', '--material', 'Standard Resin', '--json']))
    expect(o!.status, o!.reason).toBe('would-quote')
    expect(o!.parts[0]!.material).toBe('Standard Resin')
    expect(o!.parts[0]!.technology).not.toBe('FDM')
  })

  it("--slicer prusa prices FDM parts on the slicer's print time, as price estimate --slicer prusa does", async () => {
    // A stand-in for PrusaSlicer's command line: G-code saying 30 hours, whatever the part.
    const fake = join(sb.home, 'fake-prusa-slicer')
    writeFileSync(
      fake,
      [
        '#!/bin/sh',
        'while [ $# -gt 0 ]; do [ "$1" = --output ] && out="$2"; shift; done',
        'printf \'; generated by PrusaSlicer 9.9.9+linux\\n;LAYER_CHANGE\\n; filament used [mm] = 90000\\n; filament used [g] = 270\\n; total layers count = 66\\n; estimated printing time (normal mode) = 1d 6h 0m 0s\\n\' > "$out"',
      ].join('\n'),
      {mode: 0o755},
    )
    const env = {MFG_PRUSA_SLICER: fake}
    const plain = lines(await run(['demand', 'quote', ids.stl, '--dry-run', '--json']))[0]!.parts[0]!
    const sliced = await run(['demand', 'quote', ids.stl, '--dry-run', '--json', '--slicer', 'prusa'], {env})
    expect(sliced.exitCode, sliced.stderr).toBe(0)
    const part = lines(sliced)[0]!.parts[0]!
    expect(part.slicedBy).toBe('PrusaSlicer 9.9.9')
    expect(part.total).toBeGreaterThan(plain.total!)
    const est = await run(
      ['price', 'estimate', '--part', meshPath('cube20.stl'), '--technology', 'FDM', '--material', 'PLA'].concat([
        '--quantity',
        '4',
        '--slicer',
        'prusa',
        '--json',
      ]),
      {env},
    )
    expect(est.exitCode, est.stderr).toBe(0)
    expect(part.total).toBe(json<{price: number}>(est).price)
    const shown = await run(['demand', 'quote', ids.stl, '--dry-run', '--slicer', 'prusa'], {env})
    expect(shown.stdout).toContain('(print time from PrusaSlicer 9.9.9)')
  })

  it('a demand the service does not know is reported failed (exit 1) and the others are still quoted', async () => {
    const r = await run(['demand', 'quote', '65f0000600000000000000ff', ids.stl, '--dry-run', '--json'])
    expect(r.exitCode).toBe(1)
    const out = lines(r)
    expect(out[0]!.status).toBe('failed')
    expect(out[1]!.demandId).toBe(ids.stl)
  })

  it('measures a part in the unit its demand gives (an STL declares none), and skips one in a unit it cannot read', async () => {
    const rows = ['inch', 'furlong'].map((unit) => ({
      draftId: `quote-unit-${unit}`,
      technique: '3D_PRINTING',
      quoteModel: [{...item('cube20.stl', '3D_PRINTING', 'FDM', 'PLA', 1), unit}],
    }))
    const file = join(sb.home, 'units.json')
    writeFileSync(file, JSON.stringify(rows))
    const created = await run(['demand', 'create', '--file', file, '--json'])
    expect(created.exitCode, created.stderr).toBe(0)
    const [inch, furlong] = json<{results: {id: string}[]}>(created).results.map((r) => r.id)
    // cube20.stl's 20 units, read as inches: 508 mm a side, as price estimate --unit in measures it.
    const r = await run(['demand', 'quote', inch!, '--dry-run', '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    const part = lines(r)[0]!.parts[0]!
    const est = await run(
      ['price', 'estimate', '--part', meshPath('cube20.stl'), '--unit', 'in', '--technology', 'FDM'].concat([
        '--material',
        'PLA',
        '--json',
      ]),
    )
    expect(est.exitCode, est.stderr).toBe(0)
    expect(part.total).toBe(json<{price: number}>(est).price)
    expect(await run(['demand', 'quote', inch!, '--dry-run'])).toMatchObject({
      stdout: expect.stringContaining('508 × 508 × 508 mm'),
    })
    const unknown = await run(['demand', 'quote', furlong!, '--dry-run', '--json'])
    expect(unknown.exitCode).toBe(4)
    expect(lines(unknown)[0]!.reason).toContain(
      'cube20.stl: the demand gives its unit as "furlong", which is none of mm, cm or inch',
    )
  })

  it('skips a demand with a closed but non-manifold mesh, saying so (not "open")', async () => {
    const up = await run(['post', 'upload', meshPath('edge-touch.stl'), '--json'])
    expect(up.exitCode, up.stderr).toBe(0)
    urls['edge-touch.stl'] = json<{url: string}[]>(up)[0]!.url
    const file = join(sb.home, 'non-manifold.json')
    const row = {draftId: 'quote-non-manifold', technique: '3D_PRINTING'}
    writeFileSync(
      file,
      JSON.stringify([{...row, quoteModel: [item('edge-touch.stl', '3D_PRINTING', 'FDM', 'PLA', 1)]}]),
    )
    const created = await run(['demand', 'create', '--file', file, '--json'])
    expect(created.exitCode, created.stderr).toBe(0)
    const id = json<{results: {id: string}[]}>(created).results[0]!.id
    const r = await run(['demand', 'quote', id, '--dry-run', '--json'])
    expect(r.exitCode).toBe(4)
    const reason = lines(r)[0]!.reason
    expect(reason).toContain('edge-touch.stl: the mesh is not manifold (1 edge shared by more than two triangles)')
    expect(reason).not.toContain('open')
  })
})
