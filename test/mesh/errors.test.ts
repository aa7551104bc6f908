import {describe, expect, it} from 'vitest'
import {MeshError, readMesh} from '../../src/mesh/index.js'
import {boxObject, makeZip, meshBytes, modelXml, RELS} from './helpers.js'

const text = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'))

/** The MeshError message readMesh gives; fails the test on success or any other error. */
function meshError(bytes: Uint8Array, fileName?: string): string {
  try {
    readMesh(bytes, fileName ? {fileName} : {})
  } catch (err) {
    expect(err).toBeInstanceOf(MeshError)
    return (err as Error).message
  }
  throw new Error('expected a MeshError')
}

describe('empty and unknown input', () => {
  it('empty file', () => {
    expect(meshError(new Uint8Array(0), 'a.stl')).toBe('the file is empty')
  })
  it('blank text', () => {
    expect(meshError(text('\n  \n# only a comment\n'))).toMatch(/only blanks and comments/)
  })
  it('something else', () => {
    expect(meshError(text('hello world\n'))).toMatch(/unrecognised file format: starts with "hello"/)
  })
})

describe('binary STL', () => {
  const logo = meshBytes('logo.stl')
  it('truncated: names the triangles announced and held', () => {
    expect(meshError(logo.slice(0, 84 + 50 * 1200 + 17))).toBe(
      'binary STL truncated: header says 8280 triangles, file holds 1200',
    )
  })
  it('cut inside the header', () => {
    expect(meshError(logo.slice(0, 60), 'x.stl')).toMatch(/binary STL too short: 60 bytes/)
  })
  it('count far below the data', () => {
    const bytes = logo.slice()
    Buffer.from(bytes.buffer).writeUInt32LE(10, 80)
    expect(meshError(bytes)).toMatch(/binary STL corrupt: header says 10 triangles/)
  })
  it('zero triangles', () => {
    expect(meshError(meshBytes('cube20.stl').slice(0, 84).fill(0))).toBe('binary STL has no triangles')
  })
  it('a NaN coordinate', () => {
    const bytes = meshBytes('cube20.stl')
    Buffer.from(bytes.buffer).writeFloatLE(Number.NaN, 84 + 50 * 3 + 12 + 4)
    expect(meshError(bytes)).toMatch(/triangle 4 has a coordinate that is not a finite number/)
  })
})

describe('ASCII STL', () => {
  const src = Buffer.from(meshBytes('logo-ascii.stl')).toString('latin1')
  it('truncated in the middle of a facet', () => {
    const at = src.indexOf('endloop', 5000)
    expect(meshError(text(src.slice(0, at)))).toMatch(/^ASCII STL truncated: the facet of line \d+ has no endfacet$/)
  })
  it('truncated between facets', () => {
    const at = src.indexOf('endfacet', 5000) + 'endfacet'.length
    expect(meshError(text(src.slice(0, at)))).toMatch(/^ASCII STL truncated: no endsolid after line \d+$/)
  })
  it('a bad number names the line', () => {
    const lines = src.split('\n')
    lines[4] = '      vertex 1.0 abc 2.0'
    expect(meshError(text(lines.join('\n')))).toBe(
      `ASCII STL line 5: bad vertex "vertex 1.0 abc 2.0", expected 'vertex x y z'`,
    )
  })
  it('a facet with two vertices', () => {
    expect(
      meshError(
        text('solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nendloop\nendfacet\nendsolid x\n'),
      ),
    ).toBe('ASCII STL line 7: the facet of line 2 has 2 vertices, needs 3')
  })
  it('no facets', () => {
    expect(meshError(text('solid empty\nendsolid empty\n'))).toBe('ASCII STL has no facets')
  })
})

describe('OBJ', () => {
  it('face referring past the vertices', () => {
    expect(meshError(text('v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99\n'))).toBe('OBJ line 4: face refers to vertex 99 of 3')
  })
  it('negative index before the first vertex', () => {
    expect(meshError(text('v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -4\n'))).toBe('OBJ line 4: face refers to vertex -4 of 3')
  })
  it('truncated inside a face line', () => {
    const src = Buffer.from(meshBytes('logo.obj')).toString('latin1')
    const at = src.indexOf('\nf ', src.length / 2)
    const line = src.slice(0, at).split('\n').length + 1
    // Keep "f a b" of the face: two vertices.
    const face = src.slice(at + 1, src.indexOf('\n', at + 1)).split(' ')
    expect(meshError(text(src.slice(0, at + 1) + face.slice(0, 3).join(' ')))).toBe(
      `OBJ line ${line}: face has 2 vertices, needs at least 3`,
    )
  })
  it('cut before any face', () => {
    const src = Buffer.from(meshBytes('logo.obj')).toString('latin1')
    expect(meshError(text(src.slice(0, src.indexOf('\nf ') + 1)), 'logo.obj')).toBe(
      'OBJ has 4132 vertices but no faces',
    )
  })
  it('bad coordinate', () => {
    expect(meshError(text('v 0 0 0\nv 1 zero 0\n'))).toBe(`OBJ line 2: bad vertex "v 1 zero 0", expected 'v x y z'`)
  })
  it('bad index', () => {
    expect(meshError(text('v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x3\n'))).toBe('OBJ line 4: bad face vertex "x3"')
  })
})

describe('3MF', () => {
  const logo = meshBytes('logo-openscad.3mf')
  it('cut short: no central directory', () => {
    expect(meshError(logo.slice(0, 50000), 'logo.3mf')).toMatch(
      /^3MF zip archive truncated or corrupt: no end-of-central-directory record/,
    )
  })
  it('damaged deflate data', () => {
    const bytes = logo.slice()
    for (let i = 200; i < 400; i++) bytes[i] = 0xff
    expect(meshError(bytes)).toMatch(
      /^3MF zip archive truncated or corrupt: (cannot inflate 3D\/3dmodel\.model|3D\/3dmodel\.model fails its CRC check|3D\/3dmodel\.model inflates to)/,
    )
  })
  it('not a zip at all', () => {
    expect(meshError(text('<model/>'), 'part.3mf')).toBe(
      '3MF file is not a zip archive (it does not start with a zip header)',
    )
  })
  it('XML cut in the middle', () => {
    const model = modelXml(boxObject(1, 1, 1, 1), '<item objectid="1"/>')
    const bytes = makeZip({'_rels/.rels': RELS, '3D/3dmodel.model': model.slice(0, model.indexOf('</triangles>'))})
    expect(meshError(bytes)).toBe('3MF 3D/3dmodel.model: XML ends inside <triangles> (the model is truncated)')
  })
  it('triangle referring past the vertices', () => {
    const model = modelXml(boxObject(1, 1, 1, 1).replace('v3="3"', 'v3="30"'), '<item objectid="1"/>')
    expect(meshError(makeZip({'3D/3dmodel.model': model}))).toMatch(
      /^3MF 3D\/3dmodel\.model: triangle 0 of object 1 refers to vertex 30 of 8 \(line \d+\)$/,
    )
  })
  it('unknown unit', () => {
    expect(
      meshError(makeZip({'3D/3dmodel.model': modelXml(boxObject(1, 1, 1, 1), '<item objectid="1"/>', 'furlong')})),
    ).toMatch(/unknown unit "furlong"/)
  })
  it('item referring to a missing object', () => {
    expect(meshError(makeZip({'3D/3dmodel.model': modelXml(boxObject(1, 1, 1, 1), '<item objectid="9"/>')}))).toBe(
      '3MF 3D/3dmodel.model: object 9 is referenced but not defined',
    )
  })
  it('a component cycle', () => {
    const res =
      '<object id="1"><components><component objectid="2"/></components></object><object id="2"><components><component objectid="1"/></components></object>'
    expect(meshError(makeZip({'3D/3dmodel.model': modelXml(res, '<item objectid="1"/>')}))).toMatch(
      /contains itself through its components/,
    )
  })
  it('bad transform', () => {
    expect(
      meshError(
        makeZip({'3D/3dmodel.model': modelXml(boxObject(1, 1, 1, 1), '<item objectid="1" transform="1 0 0"/>')}),
      ),
    ).toBe('3MF 3D/3dmodel.model: build item 1: transform needs 12 numbers, has 3')
  })
  it('no model part', () => {
    expect(meshError(makeZip({'readme.txt': 'hi'}))).toBe(
      '3MF has no 3D model part (no 3D/3dmodel.model and no model relationship)',
    )
  })
  it('empty build', () => {
    expect(meshError(makeZip({'3D/3dmodel.model': modelXml(boxObject(1, 1, 1, 1), '')}))).toBe(
      '3MF 3D/3dmodel.model: the build has no items',
    )
  })
})
