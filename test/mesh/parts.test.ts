// measurePart on every format: STEP and IGES solids through OpenCascade (checked
// against the volumes of the boxes and prisms they describe), DXF flat patterns
// (areas and cut lengths worked out by hand), 3MF read in pieces, and the limits that
// stop implausible files.
import {existsSync, readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join, resolve} from 'node:path'

import {describe, expect, it} from 'vitest'

import {DEFAULT_LIMITS, MeshError, measurePart, readMesh, type PartMeasure} from '../../src/mesh/index.js'
import {boxStep, plateDxf, plateDxfArea} from '../../src/sandbox/seed-files.js'
import {RELS, boxObject, makeZip, meshBytes, meshPath, modelXml} from './helpers.js'

const FIXTURES = resolve(import.meta.dirname, '../fixtures/parts')

function solid(m: PartMeasure) {
  if (m.kind !== 'solid') throw new Error(`expected a solid, got ${m.kind}`)
  return m.measurement
}
function sheet(m: PartMeasure) {
  if (m.kind !== 'sheet') throw new Error(`expected a sheet, got ${m.kind}`)
  return m.sheet
}

/** ASCII DXF text from group-code pairs, with a header declaring the unit. */
function dxf(entities: (string | number)[][], insunits = 4, blocks: (string | number)[][] = []): Uint8Array {
  const pairs = [
    [0, 'SECTION'],
    [2, 'HEADER'],
    [9, '$INSUNITS'],
    [70, insunits],
    [0, 'ENDSEC'],
    ...(blocks.length ? [[0, 'SECTION'], [2, 'BLOCKS'], ...blocks, [0, 'ENDSEC']] : []),
    [0, 'SECTION'],
    [2, 'ENTITIES'],
    ...entities,
    [0, 'ENDSEC'],
    [0, 'EOF'],
  ]
  return Buffer.from(pairs.map(([c, v]) => `${c}\n${v}\n`).join(''))
}
const line = (x1: number, y1: number, x2: number, y2: number, layer = '0', ltype?: string): (string | number)[][] => [
  [0, 'LINE'],
  [8, layer],
  ...(ltype ? [[6, ltype]] : []),
  [10, x1],
  [20, y1],
  [11, x2],
  [21, y2],
]
const arc = (cx: number, cy: number, r: number, a0: number, a1: number) => [
  [0, 'ARC'],
  [8, '0'],
  [10, cx],
  [20, cy],
  [40, r],
  [50, a0],
  [51, a1],
]

describe('STEP and IGES', () => {
  it('a generated AP214 box measures its volume within 0.1%, for the seeded sizes', async () => {
    for (const [w, d, h] of [
      [80, 60, 45],
      [30, 30, 18],
      [40, 40, 12],
      [140, 140, 16],
      [0.5, 2, 1000],
    ] as const) {
      const m = solid(await measurePart(boxStep(w, d, h, 'box'), 'box.step'))
      expect(m.format).toBe('step')
      expect(m.closed).toBe(true)
      expect(Math.abs(m.volume - w * d * h) / (w * d * h)).toBeLessThan(0.001)
      expect([m.width, m.depth, m.height].map((x) => +x.toFixed(6))).toEqual([w, d, h])
      expect(m.area).toBeCloseTo(2 * (w * d + w * h + d * h), 6)
    }
  })

  it('a non-convex prism (the L-bracket fixture) measures 22 500 mm³, its hull more', async () => {
    const m = solid(await measurePart(join(FIXTURES, 'l-bracket.step')))
    expect(m.volume).toBeCloseTo(22_500, 6)
    expect(m.convexHullVolume!).toBeGreaterThan(m.volume)
    expect(m.closed).toBe(true)
  })

  it('IGES: the 10 mm cube that occt-import-js ships as its own test file is 1000 mm³', async () => {
    // The package's own sample; the package is a dependency, so the file is there.
    const pkg = dirname(createRequire(import.meta.url).resolve('occt-import-js/package.json'))
    const igs = join(pkg, 'test/testfiles/cube-10x10mm/Cube 10x10.igs')
    expect(existsSync(igs)).toBe(true)
    const m = solid(await measurePart(igs))
    expect(m.format).toBe('iges')
    expect(m.volume).toBeCloseTo(1000, 6)
  })

  it('refuses STEP files over the size and triangle limits, naming the flag', async () => {
    const bytes = boxStep(10, 10, 10, 'b')
    await expect(measurePart(bytes, 'b.step', {limits: {maxBrepBytes: 100}})).rejects.toThrow(
      /^b\.step: STEP file is \d+ bytes; this reader takes at most 100; .*--max-brep-bytes/,
    )
    await expect(measurePart(bytes, 'b.step', {limits: {maxTriangles: 11}})).rejects.toThrow(
      /tessellates to 12 triangles.*--max-triangles/,
    )
  })

  it('a STEP file that takes OpenCascade longer than the limit is refused, and the next one is read', async () => {
    const bytes = boxStep(10, 10, 10, 'b')
    await expect(measurePart(bytes, 'slow.step', {limits: {maxSeconds: 0.001}})).rejects.toThrow(
      /^slow\.step: STEP file takes OpenCascade more than 0\.001 s .*--max-seconds/,
    )
    expect(solid(await measurePart(bytes, 'b.step')).volume).toBeCloseTo(1000, 6)
  })

  it('a file named .step that is not STEP, and a STEP with no solid, are MeshErrors naming the file', async () => {
    await expect(measurePart(Buffer.from('solid x\nendsolid x\n'), 'part.step')).rejects.toThrow(
      /^part\.step: named as STEP but does not start with the ISO-10303-21 header/,
    )
    const empty = Buffer.from('ISO-10303-21;\nHEADER;\nENDSEC;\nDATA;\nENDSEC;\nEND-ISO-10303-21;\n')
    const err = await measurePart(empty, 'empty.step').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(MeshError)
    expect((err as Error).message).toMatch(/^empty\.step: STEP file (could not be read|holds no solid)/)
  })

  it('readMesh (the synchronous reader) says a STEP or DXF file is for measurePart', () => {
    expect(() => readMesh(boxStep(1, 1, 1, 'x'))).toThrow(
      /this is a STEP file; this reader takes STL, OBJ and 3MF meshes/,
    )
    expect(() => readMesh(plateDxf(10, 10))).toThrow(/this is a DXF file; this reader takes STL, OBJ and 3MF meshes/)
  })
})

describe('DXF flat patterns', () => {
  it('the seeded plate: area exact, cut length, four pierces, one bend line', async () => {
    const s = sheet(await measurePart(plateDxf(120, 40, 100), 'plate.dxf', {thicknessMm: 3}))
    expect(s.areaMm2).toBeCloseTo(plateDxfArea(120, 40), 9)
    expect(s.cutLengthMm).toBeCloseTo(2 * (120 + 40) + 2 * 2 * Math.PI * 4 + 2 * (30 + 8), 9)
    expect(s).toMatchObject({pierces: 4, bendLines: 1, bendLengthMm: 40, outlines: 1, holes: 3, openChains: 0})
    expect(s.bbox).toEqual({minX: 0, minY: 0, maxX: 120, maxY: 40, width: 120, height: 40})
    expect(s.thicknessMm).toBe(3)
    expect(s.sourceUnit).toBe('mm')
  })

  it('a slot of lines and arcs drawn in any order and direction chains into one contour', async () => {
    // A 40 × 10 stadium: two lines and two half circles of radius 5, the second line reversed.
    const bytes = dxf([
      ...line(0, 0, 40, 0),
      ...arc(0, 5, 5, 90, 270),
      ...line(40, 10, 0, 10),
      ...arc(40, 5, 5, 270, 90),
    ])
    const s = sheet(await measurePart(bytes, 'slot.dxf'))
    expect(s.areaMm2).toBeCloseTo(400 + Math.PI * 25, 9)
    expect(s.cutLengthMm).toBeCloseTo(80 + 10 * Math.PI, 9)
    expect(s).toMatchObject({pierces: 1, outlines: 1, holes: 0, openChains: 0})
    expect(s.bbox.minX).toBeCloseTo(-5, 9)
    expect(s.bbox.maxX).toBeCloseTo(45, 9)
  })

  it('LWPOLYLINE bulges are arcs: a closed polyline of two half circles is a disc', async () => {
    const bytes = dxf([
      [0, 'LWPOLYLINE'],
      [8, '0'],
      [90, 2],
      [70, 1],
      [10, 0],
      [20, 0],
      [42, 1],
      [10, 20],
      [20, 0],
      [42, 1],
    ])
    const s = sheet(await measurePart(bytes, 'disc.dxf'))
    expect(s.areaMm2).toBeCloseTo(Math.PI * 100, 9)
    expect(s.cutLengthMm).toBeCloseTo(20 * Math.PI, 9)
  })

  it('open chains are one pierce each; bend lines (BEND layer or dashed) are not cut', async () => {
    const bytes = dxf([
      ...line(0, 0, 10, 0),
      ...line(10, 0, 10, 10),
      ...line(50, 50, 60, 50),
      ...line(0, 20, 100, 20, 'Bend_Lines'),
      ...line(0, 30, 100, 30, 'SHEET', 'DASHED'),
      ...line(0, 40, 100, 40, 'SHEET', 'HIDDEN2'),
    ])
    const s = sheet(await measurePart(bytes, 'open.dxf'))
    expect(s).toMatchObject({pierces: 2, openChains: 2, outlines: 0, bendLines: 3, bendLengthMm: 300, areaMm2: 0})
    expect(s.cutLengthMm).toBeCloseTo(30, 9)
  })

  it('$INSUNITS converts to mm; a file without one takes the caller unit', async () => {
    const square = [
      [0, 'LWPOLYLINE'],
      [8, '0'],
      [90, 4],
      [70, 1],
      ...[
        [0, 0],
        [2, 0],
        [2, 1],
        [0, 1],
      ].flatMap(([x, y]) => [
        [10, x!],
        [20, y!],
      ]),
    ]
    const inches = sheet(await measurePart(dxf(square, 1), 'in.dxf'))
    expect(inches.sourceUnit).toBe('in')
    expect(inches.areaMm2).toBeCloseTo(2 * 25.4 * 25.4, 9)
    const unitless = sheet(await measurePart(dxf(square, 0), 'u.dxf', {unit: 'cm'}))
    expect(unitless.areaMm2).toBeCloseTo(200, 9)
    await expect(measurePart(dxf(square, 3), 'miles.dxf')).rejects.toThrow(/\$INSUNITS is 3/)
  })

  it('INSERT places blocks moved, rotated and scaled; circles stay exact', async () => {
    const blocks = [
      [0, 'BLOCK'],
      [8, '0'],
      [2, 'HOLE'],
      [70, 0],
      [10, 0],
      [20, 0],
      [30, 0],
      [3, 'HOLE'],
      [0, 'CIRCLE'],
      [8, '0'],
      [10, 5],
      [20, 0],
      [40, 1],
      [0, 'ENDBLK'],
    ]
    const insert = (x: number, y: number, scale: number, rot: number) => [
      [0, 'INSERT'],
      [8, '0'],
      [2, 'HOLE'],
      [10, x],
      [20, y],
      [41, scale],
      [42, scale],
      [50, rot],
    ]
    const bytes = dxf([...insert(0, 0, 1, 0), ...insert(100, 0, 2, 90)], 4, blocks)
    const s = sheet(await measurePart(bytes, 'blocks.dxf'))
    expect(s.areaMm2).toBeCloseTo(Math.PI * 1 + Math.PI * 4, 9)
    expect(s.pierces).toBe(2)
    // The second circle: centre (100, 10) after rotating (10, 0) by 90°, radius 2.
    expect(s.bbox.maxY).toBeCloseTo(12, 9)
    expect(s.bbox.maxX).toBeCloseTo(102, 9)
  })

  it('ELLIPSE and SPLINE are measured as fine polylines (within 0.1%)', async () => {
    const ellipse = [
      [0, 'ELLIPSE'],
      [8, '0'],
      [10, 0],
      [20, 0],
      [11, 20],
      [21, 0],
      [40, 0.5],
      [41, 0],
      [42, 2 * Math.PI],
    ]
    const e = sheet(await measurePart(dxf(ellipse), 'e.dxf'))
    expect(Math.abs(e.areaMm2 - Math.PI * 20 * 10) / (Math.PI * 200)).toBeLessThan(0.001)
    // Ramanujan's perimeter of a 20 × 10 ellipse.
    const perimeter = Math.PI * (3 * 30 - Math.sqrt((3 * 20 + 10) * (20 + 3 * 10)))
    expect(Math.abs(e.cutLengthMm - perimeter) / perimeter).toBeLessThan(0.001)
    // A degree-1 spline through (0,0), (30,0), (30,40) is two straight spans: 70 mm.
    const spline = [
      [0, 'SPLINE'],
      [8, '0'],
      [70, 8],
      [71, 1],
      [72, 5],
      [73, 3],
      ...[0, 0, 1, 2, 2].map((k) => [40, k]),
      ...[
        [0, 0],
        [30, 0],
        [30, 40],
      ].flatMap(([x, y]) => [
        [10, x!],
        [20, y!],
        [30, 0],
      ]),
    ]
    const sp = sheet(await measurePart(dxf(spline), 's.dxf'))
    expect(sp.cutLengthMm).toBeCloseTo(70, 6)
    expect(sp.pierces).toBe(1)
  })

  it('refuses a DXF with more entities than the limit, and one that cuts nothing', async () => {
    const many = dxf(Array.from({length: 50}, (_, i) => line(i, 0, i, 1)).flat())
    await expect(measurePart(many, 'many.dxf', {limits: {maxEntities: 20}})).rejects.toThrow(
      /^many\.dxf: DXF file holds more than 20 entities; .*--max-entities/,
    )
    await expect(measurePart(dxf(line(0, 0, 1, 1, 'BEND')), 'bends.dxf')).rejects.toThrow(/no contour to cut/)
    await expect(measurePart(Buffer.from('AutoCAD Binary DXF\r\n\x1a\0'), 'bin.dxf')).rejects.toThrow(
      /binary DXF is not supported/,
    )
  })

  it('a DXF on which dxf-parser loops for ever is stopped at the time limit, and the next file is read', async () => {
    // An LWPOLYLINE vertex whose x and y are parted by a handle (group code 5): the precheck
    // lets it through (2 vertices declared, 2 given); dxf-parser, in its own process, never returns.
    const loop = dxf([
      [0, 'LWPOLYLINE'],
      [8, '0'],
      [90, 2],
      [70, 1],
      [10, 0],
      [20, 0],
      [10, 5],
      [5, 'A'],
      [20, 5],
    ])
    await expect(measurePart(loop, 'loop.dxf', {limits: {maxSeconds: 0.5}})).rejects.toThrow(
      /^loop\.dxf: DXF file takes dxf-parser more than 0\.5 s to read; if the file is trusted, raise the limit with --max-seconds$/,
    )
    expect(sheet(await measurePart(plateDxf(120, 40, 100), 'plate.dxf')).areaMm2).toBeCloseTo(plateDxfArea(120, 40), 6)
  })

  it('a line where a group code belongs is a MeshError naming the line (dxf-parser looped on it for ever)', async () => {
    // Found by test/fuzz/parts.test.ts: an LWPOLYLINE cut short, its next line "YLINE" read as a group code.
    const text = [
      '0\nSECTION\n2\nENTITIES\n0\nLWPOLYLINE\n8\nCUT\n90\n4\n70\n1\n10\n0\nYLINE\n8\nCUT\n90\n4\n70\n1',
      '10\n45\n20\n16\n10\n75\n20\n16\n10\n75\n20\n24\n10\n45\n20\n24',
      '0\nLINE\n8\nBEND\n10\n100\n20\n0\n11\n100\n21\n40\n0\nENDSEC\n0\nEOF\n',
    ].join('\n')
    await expect(measurePart(Buffer.from(text), 'cut.dxf')).rejects.toThrow(
      /^cut\.dxf: DXF line 15: a group code is expected, a whole number; found "YLINE"/,
    )
  })

  it('an LWPOLYLINE that gives fewer vertices than it declares is a MeshError (dxf-parser looped for ever)', async () => {
    for (const code of ['8', '62', '999']) {
      const text = [
        '0\nSECTION\n2\nENTITIES\n0\nLWPOLYLINE\n8\nCUT\n90\n4\n70\n1\n10\n0\n20\n0',
        `${code}\nX\n10\n45\n20\n16\n10\n75\n20\n16\n0\nENDSEC\n0\nEOF\n`,
      ].join('\n')
      await expect(measurePart(Buffer.from(text), 'short.dxf')).rejects.toThrow(
        /^short\.dxf: DXF line 5: an LWPOLYLINE declares 4 vertices and gives 3$/,
      )
    }
  })

  it('a block that inserts itself many times over is refused by the entity limit, not expanded', async () => {
    // Block Bn holds two inserts of B(n-1): 2^20 circles from a file of 20 blocks.
    const blocks: (string | number)[][] = [
      [0, 'BLOCK'],
      [2, 'B0'],
      [10, 0],
      [20, 0],
      [0, 'CIRCLE'],
      [8, '0'],
      [10, 0],
      [20, 0],
      [40, 1],
      [0, 'ENDBLK'],
    ]
    for (let n = 1; n <= 20; n++)
      blocks.push(
        [0, 'BLOCK'],
        [2, `B${n}`],
        [10, 0],
        [20, 0],
        ...[0, 1].flatMap((k) => [
          [0, 'INSERT'],
          [2, `B${n - 1}`],
          [10, k * 3],
          [20, 0],
        ]),
        [0, 'ENDBLK'],
      )
    const bytes = dxf(
      [
        [0, 'INSERT'],
        [2, 'B20'],
        [10, 0],
        [20, 0],
      ],
      4,
      blocks,
    )
    await expect(measurePart(bytes, 'bomb.dxf')).rejects.toThrow(/more than 100000 entities \(blocks expanded\)/)
  })
})

describe('3MF in pieces, and the limits', () => {
  it('measurePart (streamed) and readMesh (whole) agree on the 3MF fixtures', async () => {
    for (const name of ['logo-prusa.3mf', 'logo-openscad.3mf']) {
      const whole = readMesh(meshBytes(name))
      const m = solid(await measurePart(meshPath(name)))
      expect(m.triangles).toBe(whole.triangleCount)
      expect(m.format).toBe('3mf')
      expect(m.volume).toBeGreaterThan(0)
    }
  })

  it('refuses a 3MF whose model part inflates more than --max-ratio times, before inflating', async () => {
    // 40 MB of spaces inside the model compress to a few tens of kB.
    const xml = modelXml(boxObject(1, 1, 1, 1) + ' '.repeat(40 * 1024 * 1024), '<item objectid="1"/>')
    const bytes = makeZip({'[Content_Types].xml': '<Types/>', '_rels/.rels': RELS, '3D/3dmodel.model': xml})
    await expect(measurePart(bytes, 'bomb.3mf')).rejects.toThrow(
      /^bomb\.3mf: 3MF entry 3D\/3dmodel\.model inflates \d+ times .*more than the 25 times allowed; .*--max-ratio/,
    )
    const raised = solid(await measurePart(bytes, 'bomb.3mf', {limits: {maxRatio: 1e6}}))
    expect(raised.volume).toBeCloseTo(1, 9)
    expect(DEFAULT_LIMITS.maxRatio).toBe(25)
  })

  it('refuses a 3MF with more triangles than --max-triangles while reading it', async () => {
    const bytes = makeZip({
      '_rels/.rels': RELS,
      '3D/3dmodel.model': modelXml(boxObject(1, 1, 1, 1), '<item objectid="1"/>'),
    })
    await expect(measurePart(bytes, 'b.3mf', {limits: {maxTriangles: 6}})).rejects.toThrow(
      /more than 6 triangles.*--max-triangles|more than 18 vertices/,
    )
    expect(solid(await measurePart(bytes, 'b.3mf', {limits: {maxTriangles: 12}})).triangles).toBe(12)
  })

  it('an unknown or empty file names the file and the formats allowed', async () => {
    await expect(measurePart(Buffer.from('hello there'), 'notes.txt')).rejects.toThrow(
      /^notes\.txt: unrecognised file format.*expected STL, OBJ, 3MF, STEP, IGES or DXF/,
    )
    await expect(measurePart(new Uint8Array(0), 'e.stl')).rejects.toThrow(/^e\.stl: the file is empty/)
    await expect(measurePart('/nonexistent/part.step')).rejects.toThrow(/^\/nonexistent\/part\.step: no such file/)
    expect(readFileSync(join(FIXTURES, 'plate-120x40.dxf')).length).toBeGreaterThan(0)
  })
})
