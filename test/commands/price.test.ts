import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {CURRENCIES} from '../../src/schemas/common.js'
import {json, runCli, secretsOf, startCliSandbox, type CliResult, type CliSandbox} from '../helpers/cli.js'
import {meshPath} from '../helpers/meshes.js'

const mesh = meshPath

const MEASURE_KEYS = [
  'file',
  'format',
  'triangles',
  'parts',
  'closed',
  'openEdges',
  'nonManifoldEdges',
  'width',
  'depth',
  'height',
  'volume',
  'area',
  'convexHullVolume',
  'boundingBoxVolume',
  'slicingData',
]

interface Estimate {
  price: number
  currency: string | null
  quantity: number
  unitPrice: number
  service: string | null
  technology: string | null
  material: string
  interface: 'v1' | 'legacy'
  bulk?: {quantity: number; unitPrice: number; total: number}[]
  allowanceRemaining?: number
}

let sb: CliSandbox
const outputs: CliResult[] = []
const run = async (argv: string[]) => {
  const r = await runCli(argv, {env: sb.env()})
  outputs.push(r)
  return r
}

beforeAll(async () => {
  sb = await startCliSandbox()
})
afterAll(async () => {
  // No command may print a key or token, whatever happened.
  for (const r of outputs) for (const secret of secretsOf(sb)) expect(r.stdout + r.stderr).not.toContain(secret)
  await sb.close()
})

describe('mfg price measure', () => {
  it('answers exactly the documented --json keys, with the reference measures of cube20.stl', async () => {
    const r = await run(['price', 'measure', mesh('cube20.stl'), '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    const m = json<Record<string, unknown>>(r)
    expect(Object.keys(m)).toEqual(MEASURE_KEYS)
    expect(m).toMatchObject({
      file: mesh('cube20.stl'),
      format: 'stl-binary',
      triangles: 12,
      parts: 1,
      closed: true,
      openEdges: 0,
      nonManifoldEdges: 0,
      width: 20,
      depth: 20,
      height: 20,
      volume: 8000,
      area: 2400,
      convexHullVolume: 8000,
      boundingBoxVolume: 8000,
    })
    const s = m.slicingData as Record<string, unknown>
    expect(s.volume).toBe('8000.000')
    expect(typeof s.weight).toBe('string')
    expect(s.number_of_layers).toBe(66)
    expect(s.total_print_area).toBe(400)
  })

  it('reports open and non-manifold meshes, and null hull with --no-hull', async () => {
    const open = json<Record<string, unknown>>(await run(['price', 'measure', mesh('open-box.stl'), '--json']))
    expect(open).toMatchObject({closed: false, openEdges: 4, nonManifoldEdges: 0})
    const touch = json<Record<string, unknown>>(
      await run(['price', 'measure', mesh('edge-touch.stl'), '--json', '--no-hull']),
    )
    expect(touch).toMatchObject({closed: false, nonManifoldEdges: 1, parts: 2, convexHullVolume: null})
    expect((touch.slicingData as {convex_hull: number}).convex_hull).toBe(touch.boundingBoxVolume)
  })

  it('measures a 3MF like its STL and scales a file in cm', async () => {
    const stl = json<{volume: number; width: number}>(await run(['price', 'measure', mesh('logo.stl'), '--json']))
    const threemf = json<{volume: number; format: string}>(
      await run(['price', 'measure', mesh('logo-prusa.3mf'), '--json']),
    )
    expect(threemf.format).toBe('3mf')
    expect(Math.abs(threemf.volume - stl.volume) / stl.volume).toBeLessThan(1e-5)
    const cm = json<{width: number; volume: number}>(
      await run(['price', 'measure', mesh('cube20.stl'), '--unit', 'cm', '--json']),
    )
    expect(cm.width).toBe(200)
    expect(cm.volume).toBeCloseTo(8_000_000, 3)
  })

  it('prints a table without --json', async () => {
    const r = await run(['price', 'measure', mesh('CSG.stl')])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/triangles\s+3004/)
    expect(r.stdout).toMatch(/parts\s+3/)
    expect(r.stdout).toMatch(/closed\s+yes/)
  })

  it("exits 2 with one line naming the flag for a value a flag refuses (not oclif's three-line wrapper)", async () => {
    const r = await run(['price', 'measure', mesh('cube20.stl'), '--layer-height', '0'])
    expect(r.exitCode).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr.trim()).toBe('Error: --layer-height must be a number above 0, got 0')
    const j = await run(['price', 'measure', mesh('cube20.stl'), '--density=abc', '--json'])
    expect(j.exitCode).toBe(2)
    expect(JSON.parse(j.stderr)).toEqual({
      error: {code: 'usage', message: '--density must be a number above 0, got abc'},
    })
    // oclif's own integer flag: its message gets the flag's name in front.
    const q = await run(['price', 'estimate', '--material', 'PLA', '--quantity', '0'])
    expect(q.exitCode).toBe(2)
    expect(q.stderr.trim()).toBe('Error: --quantity: Expected an integer greater than or equal to 1 but received: 0')
  })

  it('exits 2 with one clear line, no stack, for a file that is not a mesh', async () => {
    const bad = join(sb.home, 'truncated.stl')
    writeFileSync(bad, Buffer.alloc(200, 1))
    const r = await run(['price', 'measure', bad])
    expect(r.exitCode).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toContain(bad)
    expect(r.stderr).not.toMatch(/\bat .+:\d+:\d+/)
    const missing = await run(['price', 'measure', join(sb.home, 'nope.stl'), '--json'])
    expect(missing.exitCode).toBe(2)
    expect(JSON.parse(missing.stderr).error.message).toMatch(/no such file/)
  })
})

describe('mfg price estimate', () => {
  it('prices from flags, with options, discount and a currency', async () => {
    const r = await run([
      'price',
      'estimate',
      '--technology',
      'CNC',
      '--material',
      'Aluminium 6061',
      '--size',
      '40x40x20',
      '--volume',
      '20000',
      '--quantity',
      '5',
      '--option',
      'lead_time=Express (3 working days)',
      '--option',
      'finishing=Anodising',
      '--discount',
      '10',
      '--currency',
      'USD',
      '--json',
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    const e = json<Estimate>(r)
    expect(e).toMatchObject({currency: 'USD', quantity: 5, service: 'CNC_MACHINING', technology: 'CNC'})
    // Stock 32 cm³ → 0.0864 kg × 8 = 0.69; 12 cm³ removed at 8 cm³/min + 0.25 h = 0.275 h × 65 = 17.88;
    // × 1.3 = 24.14; × 1.5 × 1.20 = 43.45 per part; 5 × 43.45 + 110 startup = 327.25; − 32.73 (10 %) = 294.52 EUR;
    // × 1.08 = 318.08 USD.
    expect(e.price).toBe(318.08)
    expect(e.unitPrice).toBe(63.62)
  })

  it('needs only --part and --material: service and technology follow from the material', async () => {
    const r = await run(['price', 'estimate', '--part', mesh('logo.stl'), '--material', 'PLA', '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    const e = json<Estimate>(r)
    expect(e).toMatchObject({service: '3D_PRINTING', technology: 'FDM', material: 'PLA', currency: 'EUR', quantity: 1})
    expect(e.price).toBeGreaterThan(8) // above the FDM minimum of 8 EUR plus startup
    const text = await run(['price', 'estimate', '--part', mesh('logo.stl'), '--material', 'PLA'])
    expect(text.stdout).toMatch(new RegExp(`price\\s+${e.price.toFixed(2)} EUR`))
    expect(text.stdout).toMatch(/machine\s+FDM, 3D_PRINTING/)
  })

  it('prices a STEP solid by its measures, as price measure reads them; a DXF is refused with what to give', async () => {
    const step = join(import.meta.dirname, '../../examples/housing.step')
    const cnc = ['--service', 'CNC_MACHINING', '--material', 'Aluminium 6061', '--quantity', '10', '--json']
    const measured = json<{volume: number; width: number; depth: number; height: number}>(
      // The reader's time limit has tests of its own; on a loaded machine OpenCascade's first load can pass 4 s.
      await run(['price', 'measure', step, '--json', '--max-seconds', '60']),
    )
    const fromStep = await run(['price', 'estimate', '--part', step, ...cnc, '--max-seconds', '60'])
    expect(fromStep.exitCode, fromStep.stderr).toBe(0)
    const size = `${measured.width}x${measured.depth}x${measured.height}`
    const fromMeasures = await run(['price', 'estimate', '--size', size, '--volume', String(measured.volume), ...cnc])
    expect(json<Estimate>(fromStep).price).toBe(json<Estimate>(fromMeasures).price)
    const dxf = await run([
      'price',
      'estimate',
      '--part',
      join(import.meta.dirname, '../../examples/plate.dxf'),
      ...cnc,
    ])
    expect(dxf.exitCode).toBe(2)
    expect(dxf.stderr).toContain(
      "a DXF is a flat pattern, with no volume to price from; give the sheet's --size and --thickness",
    )
  })

  it("has the part readers' limits of price measure: a file over one is refused naming its flag, which raises it", async () => {
    const step = join(import.meta.dirname, '../../examples/housing.step')
    for (const [file, flag, value] of [
      [mesh('cube20.stl'), '--max-triangles', '4'],
      [mesh('logo-prusa.3mf'), '--max-triangles', '4'],
      [step, '--max-brep-bytes', '4'],
      // Too short for OpenCascade to start (the refusal the reader's own tests make the same way).
      [step, '--max-seconds', '0.001'],
    ] as const) {
      const refused = await run(['price', 'estimate', '--part', file, '--material', 'PLA', flag, value])
      expect(refused.exitCode).toBe(2)
      expect(refused.stdout).toBe('')
      expect(refused.stderr.trim().split('\n')).toHaveLength(1)
      expect(refused.stderr).toContain(`if the file is trusted, raise the limit with ${flag}`)
    }
    const raised = ['--max-triangles', '20000000', '--max-brep-bytes', '1000000', '--max-seconds', '60', '--json']
    for (const [file, material] of [
      [mesh('logo-prusa.3mf'), 'PLA'],
      [step, 'Aluminium 6061'],
    ] as const) {
      const read = await run(['price', 'estimate', '--part', file, '--material', material, ...raised])
      expect(read.exitCode, read.stderr).toBe(0)
      expect(json<Estimate>(read).price).toBeGreaterThan(0)
    }
  })

  it('refuses an open or non-manifold mesh (exit 2), naming the file and its edges and what to give instead', async () => {
    for (const [file, says] of [
      ['open-box.stl', 'open-box.stl: the mesh is open (4 open edges)'],
      ['edge-touch.stl', 'edge-touch.stl: the mesh is not manifold (1 edge shared by more than two triangles)'],
    ] as const) {
      const r = await run(['price', 'estimate', '--part', mesh(file), '--material', 'PLA'])
      expect(r.exitCode).toBe(2)
      expect(r.stdout).toBe('')
      const message = r.stderr.trim()
      expect(message.split('\n')).toHaveLength(1)
      expect(message).toContain(says)
      expect(message).toContain('its volume is not defined')
      expect(message).toContain('--size')
      expect(message).toContain('--volume')
    }
    // The measures given instead of the file price it.
    const measures = await run(['price', 'estimate', '--size', '20x20x20', '--volume', '8000', '--material', 'PLA'])
    expect(measures.exitCode, measures.stderr).toBe(0)
  })

  it('exits 2 naming --technology and the choices when the material is on several machines', async () => {
    const r = await run(['price', 'estimate', '--part', mesh('cube20.stl'), '--material', 'Steel S235'])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('--technology')
    expect(r.stderr).toMatch(/CNC, LASER/)
    const fixed = await run([
      'price',
      'estimate',
      '--part',
      mesh('cube20.stl'),
      '--material',
      'Steel S235',
      '--technology',
      'cnc',
      '--json',
    ])
    expect(fixed.exitCode, fixed.stderr).toBe(0)
    expect(json<Estimate>(fixed).service).toBe('CNC_MACHINING')
  })

  it('names --material and the choices for an unknown material, and the one probably meant, without a terminal', async () => {
    const r = await run(['price', 'estimate', '--volume', '1000', '--material', 'Unobtainium'])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('--material')
    expect(r.stderr).toContain('PLA')
    expect(r.stderr).not.toContain('did you mean')
    const typo = await run(['price', 'estimate', '--volume', '1000', '--material', 'PLAA'])
    expect(typo.exitCode).toBe(2)
    expect(typo.stderr).toMatch(
      /^Error: Unknown material "PLAA": pass --material, one of PLA, .*; did you mean PLA\?\n$/,
    )
    const none = await run(['price', 'estimate', '--volume', '1000'])
    expect(none.exitCode).toBe(2)
    expect(none.stderr).toContain('--material')
  })

  it('--bulk adds a table, and bulk rows to --json, with unit prices falling as startup spreads', async () => {
    const r = await run([
      'price',
      'estimate',
      '--part',
      mesh('logo.stl'),
      '--material',
      'PETG',
      '--bulk',
      '1,10,100',
      '--json',
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    const e = json<Estimate>(r)
    expect(e.bulk?.map((b) => b.quantity)).toEqual([1, 10, 100])
    for (const b of e.bulk ?? []) expect(b.unitPrice).toBeCloseTo(b.total / b.quantity, 2)
    const [one, ten, hundred] = e.bulk ?? []
    expect(one!.total).toBe(e.price)
    expect(ten!.unitPrice).toBeLessThan(one!.unitPrice)
    expect(hundred!.unitPrice).toBeLessThan(ten!.unitPrice)
    const text = await run([
      'price',
      'estimate',
      '--part',
      mesh('logo.stl'),
      '--material',
      'PETG',
      '--bulk',
      '1,10,100',
    ])
    expect(text.stdout).toMatch(/quantity\s+unit price\s+total/)
    expect(text.stdout).toContain(hundred!.total.toFixed(2))
  })

  it('--legacy without --currency exits 2 naming --currency and the 22 codes, sending nothing', async () => {
    const r = await run([
      'price',
      'estimate',
      '--part',
      mesh('cube20.stl'),
      '--material',
      'PLA',
      '--legacy',
      '--verbose',
    ])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('--currency')
    for (const code of CURRENCIES) expect(r.stderr).toContain(code)
    expect(r.stderr).not.toMatch(/→ POST/)
  })

  it('--legacy --currency prices on the legacy interface and shows the allowance left', async () => {
    const v1 = json<Estimate>(
      await run([
        'price',
        'estimate',
        '--part',
        mesh('cube20.stl'),
        '--material',
        'PLA',
        '--currency',
        'GBP',
        '--json',
      ]),
    )
    const r = await run([
      'price',
      'estimate',
      '--part',
      mesh('cube20.stl'),
      '--material',
      'PLA',
      '--legacy',
      '--currency',
      'GBP',
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stdout).toMatch(new RegExp(`price\\s+${v1.price.toFixed(2)} GBP`))
    expect(r.stderr).toMatch(/estimations left today: 99\b/)
    const again = json<Estimate>(
      await run([
        'price',
        'estimate',
        '--part',
        mesh('cube20.stl'),
        '--material',
        'PLA',
        '--legacy',
        '--currency',
        'GBP',
        '--bulk',
        '1,10',
        '--json',
      ]),
    )
    expect(again).toMatchObject({interface: 'legacy', price: v1.price, currency: 'GBP', allowanceRemaining: 96})
    expect(again.bulk?.map((b) => b.quantity)).toEqual([1, 10])
  })
})
