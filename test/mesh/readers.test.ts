import {describe, expect, it} from 'vitest'
import {measureMesh, readMesh} from '../../src/mesh/index.js'
import {binaryStl, boxObject, makeZip, meshBytes, modelXml, RELS} from './helpers.js'

const text = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'))

describe('format detection', () => {
  it('detects binary STL by size even when the header starts with "solid"', () => {
    const cube = meshBytes('cube20.stl')
    const bytes = cube.slice()
    bytes.set(Buffer.from('solid cube'), 0)
    const m = readMesh(bytes)
    expect(m.format).toBe('stl-binary')
    expect(measureMesh(m).volume).toBe(8000)
  })

  it('reads an ASCII STL that starts with a UTF-8 byte-order mark', () => {
    const ascii = meshBytes('logo-ascii.stl')
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...ascii])
    const m = readMesh(bom, {fileName: 'part.stl'})
    expect(m.format).toBe('stl-ascii')
    expect(measureMesh(m).volume).toBe(measureMesh(readMesh(ascii)).volume)
    // Without a name to hint at STL too.
    expect(readMesh(bom).format).toBe('stl-ascii')
  })

  it('reads a binary STL whose header starts with the bytes of a byte-order mark and "solid" as binary', () => {
    const bytes = meshBytes('cube20.stl').slice()
    bytes.set([0xef, 0xbb, 0xbf, ...Buffer.from('solid cube')], 0)
    const m = readMesh(bytes)
    expect(m.format).toBe('stl-binary')
    expect(measureMesh(m).volume).toBe(8000)
  })

  it('reads content, not the extension', () => {
    expect(readMesh(meshBytes('logo.obj'), {fileName: 'part.stl'}).format).toBe('obj')
    expect(readMesh(meshBytes('logo-prusa.3mf'), {fileName: 'part.stl'}).format).toBe('3mf')
    expect(readMesh(meshBytes('logo-ascii.stl'), {fileName: 'part.obj'}).format).toBe('stl-ascii')
  })

  it('welds STL corners by exact coordinates (-0 equals 0)', () => {
    const m = readMesh(
      binaryStl([
        [
          [0, 0, 0],
          [1, 0, 0],
          [0, 1, 0],
        ],
        [
          [-0, 0, 0],
          [0, 1, 0],
          [0, 0, 1],
        ],
      ]),
    )
    expect(m.vertexCount).toBe(4)
    expect(Array.from(m.triangles)).toEqual([0, 1, 2, 0, 2, 3])
  })
})

describe('ASCII STL', () => {
  it('fan-triangulates a polygon facet and reads several solids', () => {
    const src = `solid a
 facet normal 0 0 1
  outer loop
   vertex 0 0 0
   vertex 1 0 0
   vertex 1 1 0
   vertex 0 1 0
  endloop
 endfacet
endsolid a
solid b
 facet normal 0 0 1
  outer loop
   vertex 0 0 5
   vertex 1 0 5
   vertex 0 1 5
  endloop
 endfacet
endsolid b
`
    const m = measureMesh(readMesh(text(src)), {hull: false})
    expect(m.triangles).toBe(3)
    expect(m.area).toBeCloseTo(1.5, 12)
    expect(m.height).toBe(5)
  })
})

describe('OBJ', () => {
  it('reads v//vn and v/vt/vn forms, negative indices and quads', () => {
    const src = `# unit cube with mixed index forms
o cube
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1
vn 0 0 1
vt 0 0
f 1//1 4//1 3//1 2//1
f 5/1/1 6/1/1 7/1/1 8/1/1
f -8 -7 -3 -4
f 2 3 7 6
f 3 4 8 7
f 4 1 5 8
`
    const m = measureMesh(readMesh(text(src)))
    expect(m.format).toBe('obj')
    expect(m.triangles).toBe(12)
    expect(m.closed).toBe(true)
    expect(m.volume).toBeCloseTo(1, 12)
    expect(m.convexHullVolume).toBeCloseTo(1, 9)
  })
})

describe('3MF', () => {
  const zip3mf = (model: string, extra: Record<string, string> = {}): Uint8Array =>
    makeZip({'[Content_Types].xml': '<Types/>', '_rels/.rels': RELS, '3D/3dmodel.model': model, ...extra})

  it('converts every unit to mm', () => {
    const factors: Record<string, number> = {
      micron: 0.001,
      millimeter: 1,
      centimeter: 10,
      inch: 25.4,
      foot: 304.8,
      meter: 1000,
    }
    for (const [unit, f] of Object.entries(factors)) {
      const m = measureMesh(readMesh(zip3mf(modelXml(boxObject(1, 2, 3, 4), '<item objectid="1"/>', unit))))
      expect(m.width).toBeCloseTo(2 * f, 9)
      expect(m.depth).toBeCloseTo(3 * f, 9)
      expect(m.height).toBeCloseTo(4 * f, 9)
      expect(m.volume / (24 * f ** 3)).toBeCloseTo(1, 12)
    }
  })

  it('scales logo-openscad.3mf by 25.4 when its XML says inch', async () => {
    const {readZipDirectory, readZipEntry} = await import('../../src/mesh/zip.js')
    const original = meshBytes('logo-openscad.3mf')
    const entries = readZipDirectory(original)
    const files: Record<string, string> = {}
    for (const e of entries.values()) files[e.name] = Buffer.from(readZipEntry(original, e)).toString('utf8')
    const model = files['3D/3dmodel.model']!
    expect(model).toContain('unit="millimeter"')
    files['3D/3dmodel.model'] = model.replace('unit="millimeter"', 'unit="inch"')
    const mm = measureMesh(readMesh(original))
    const inch = measureMesh(readMesh(makeZip(files)))
    expect(inch.width / mm.width).toBeCloseTo(25.4, 9)
    expect(inch.volume / mm.volume).toBeCloseTo(25.4 ** 3, 6)
    expect(inch.convexHullVolume! / mm.convexHullVolume!).toBeCloseTo(25.4 ** 3, 6)
  })

  it('applies build-item transforms (3x4 row-vector matrices) to each item', () => {
    // Item 1 as is; item 2 rotated 90° about Z (x' = -y, y' = x) and moved by (100, 0, 5).
    const rot = '0 1 0 -1 0 0 0 0 1 100 0 5'
    const m = readMesh(
      zip3mf(modelXml(boxObject(1, 10, 20, 30), `<item objectid="1"/><item objectid="1" transform="${rot}"/>`)),
    )
    const r = measureMesh(m)
    expect(m.objects).toEqual([
      {name: 'box1', firstTriangle: 0, triangleCount: 12},
      {name: 'box1', firstTriangle: 12, triangleCount: 12},
    ])
    expect(r.parts).toBe(2)
    expect(r.closed).toBe(true)
    expect(r.volume).toBeCloseTo(2 * 6000, 9)
    // The rotated copy spans x 80..100, y 0..10, z 5..35.
    expect(r.width).toBeCloseTo(100, 9)
    expect(r.depth).toBeCloseTo(20, 9)
    expect(r.height).toBeCloseTo(35, 9)
  })

  it('resolves nested components with composed transforms', () => {
    const resources =
      boxObject(1, 1, 1, 1) +
      // Object 2: two unit boxes, one moved by x+2.
      '<object id="2" type="model"><components><component objectid="1"/><component objectid="1" transform="1 0 0 0 1 0 0 0 1 2 0 0"/></components></object>' +
      // Object 3: object 2 scaled by 2 in z, and again moved by y+5.
      '<object id="3" type="model"><components><component objectid="2" transform="1 0 0 0 1 0 0 0 2 0 0 0"/><component objectid="2" transform="1 0 0 0 1 0 0 0 1 0 5 0"/></components></object>'
    const r = measureMesh(
      readMesh(zip3mf(modelXml(resources, '<item objectid="3" transform="1 0 0 0 1 0 0 0 1 0 0 10"/>'))),
    )
    expect(r.triangles).toBe(48)
    expect(r.parts).toBe(4)
    expect(r.volume).toBeCloseTo(2 * 2 + 2 * 1, 9)
    expect([r.width, r.depth, r.height]).toEqual([3, 6, 2])
  })

  it('finds the model through _rels even when it is not 3D/3dmodel.model', () => {
    const rels = RELS.replace('/3D/3dmodel.model', '/3D/part.model')
    const bytes = makeZip(
      {'_rels/.rels': rels, '3D/part.model': modelXml(boxObject(7, 1, 2, 3), '<item objectid="7"/>')},
      {store: true},
    )
    expect(measureMesh(readMesh(bytes)).volume).toBeCloseTo(6, 12)
  })

  it('measures only objects of type model: support, solidsupport and surface objects are not the part', () => {
    const typed = (id: number, size: number, type: string) =>
      boxObject(id, size, size, size).replace('type="model"', `type="${type}"`)
    for (const type of ['support', 'solidsupport', 'surface']) {
      // A 10 mm cube to price, and a 5 mm box of another type: beside it as a build item,
      // and under it as a component of one assembly.
      const beside = measureMesh(
        readMesh(
          zip3mf(
            modelXml(
              boxObject(1, 10, 10, 10) + typed(2, 5, type),
              '<item objectid="1"/><item objectid="2" transform="1 0 0 0 1 0 0 0 1 0 0 100"/>',
            ),
          ),
        ),
      )
      expect([beside.volume, beside.height, beside.parts]).toEqual([1000, 10, 1])
      const assembly =
        boxObject(1, 10, 10, 10) +
        typed(2, 5, type) +
        '<object id="3" type="model"><components><component objectid="1"/><component objectid="2" transform="1 0 0 0 1 0 0 0 1 0 0 -5"/></components></object>'
      const under = measureMesh(readMesh(zip3mf(modelXml(assembly, '<item objectid="3"/>'))))
      expect([under.volume, under.height, under.parts]).toEqual([1000, 10, 1])
    }
    // A build of supports alone has no part to measure.
    expect(() => readMesh(zip3mf(modelXml(typed(2, 5, 'support'), '<item objectid="2"/>')))).toThrow(
      /no object of type model/,
    )
  })

  it('follows production-extension p:path components into other model parts', () => {
    const root = `<?xml version="1.0"?>
<model unit="millimeter" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02" xmlns:p="http://schemas.microsoft.com/3dmanufacturing/production/2015/06">
 <resources><object id="1" type="model"><components><component p:path="/3D/Objects/o.model" objectid="5" transform="1 0 0 0 1 0 0 0 1 0 0 1"/></components></object></resources>
 <build><item objectid="1"/></build>
</model>`
    const bytes = zip3mf(root, {'3D/Objects/o.model': modelXml(boxObject(5, 2, 2, 2), '')})
    const r = measureMesh(readMesh(bytes))
    expect(r.volume).toBeCloseTo(8, 12)
    expect(r.height).toBe(2)
  })
})
