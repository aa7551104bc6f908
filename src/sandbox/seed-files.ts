import {createHash} from 'node:crypto'

import {blobExists, putFile} from './files.js'
import type {Store} from './store/index.js'

/**
 * Small real part files behind the seeded demands' and products' links, generated
 * at seed time: binary STL boxes, STEP boxes (AP214 B-rep solids that OpenCascade reads
 * and measures), and DXF flat patterns of plates with holes (the third size figure of a
 * DXF is its sheet thickness, which DXF does not carry).
 * Keys match the seeded links (`<STORAGE_HOST>/seed/...`).
 */

/** A closed, outward-facing binary STL box of w × d × h mm at the origin. */
export function boxStl(w: number, d: number, h: number, name = 'box'): Buffer {
  const faces: [number, number, number][][] = [
    [
      [0, 0, 0],
      [0, d, 0],
      [w, d, 0],
      [w, 0, 0],
    ],
    [
      [0, 0, h],
      [w, 0, h],
      [w, d, h],
      [0, d, h],
    ],
    [
      [0, 0, 0],
      [w, 0, 0],
      [w, 0, h],
      [0, 0, h],
    ],
    [
      [0, d, 0],
      [0, d, h],
      [w, d, h],
      [w, d, 0],
    ],
    [
      [0, 0, 0],
      [0, 0, h],
      [0, d, h],
      [0, d, 0],
    ],
    [
      [w, 0, 0],
      [w, d, 0],
      [w, d, h],
      [w, 0, h],
    ],
  ]
  const normals: [number, number, number][] = [
    [0, 0, -1],
    [0, 0, 1],
    [0, -1, 0],
    [0, 1, 0],
    [-1, 0, 0],
    [1, 0, 0],
  ]
  const buffer = Buffer.alloc(84 + 12 * 50)
  buffer.write(`mfg sandbox ${name}`.slice(0, 80), 0, 'ascii')
  buffer.writeUInt32LE(12, 80)
  let offset = 84
  faces.forEach(([a, b, c, e], i) => {
    for (const triangle of [
      [a, b, c],
      [a, c, e],
    ]) {
      for (const value of normals[i] ?? []) offset = buffer.writeFloatLE(value, offset)
      for (const vertex of triangle) for (const value of vertex ?? []) offset = buffer.writeFloatLE(value, offset)
      offset = buffer.writeUInt16LE(0, offset)
    }
  })
  return buffer
}

/** A point in mm. */
export type V3 = [number, number, number]

const num = (n: number): string => {
  const s = String(Math.round(n * 1e9) / 1e9)
  return s.includes('.') || s.includes('e') ? s.replace('e', 'E') : `${s}.`
}
const vec = (v: V3): string => `(${v.map(num).join(',')})`

function sub(a: V3, b: V3): V3 {
  return [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
function cross(a: V3, b: V3): V3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}
function unit(a: V3): V3 {
  const l = Math.hypot(...a)
  return [a[0] / l, a[1] / l, a[2] / l]
}

/**
 * An ISO 10303-21 (AP214) file holding one solid with planar faces: its vertices and
 * its faces, each an outward counter-clockwise loop of vertex indices.
 */
export function polyhedronStep(name: string, vertices: V3[], faces: number[][]): Buffer {
  const lines: string[] = []
  let next = 1
  const add = (entity: string): number => {
    lines.push(`#${next}=${entity};`)
    return next++
  }
  const app = add("APPLICATION_CONTEXT('automotive design')")
  add(`APPLICATION_PROTOCOL_DEFINITION('international standard','automotive_design',2000,#${app})`)
  const pctx = add(`PRODUCT_CONTEXT('',#${app},'mechanical')`)
  const product = add(`PRODUCT('${name}','${name}','',(#${pctx}))`)
  const formation = add(`PRODUCT_DEFINITION_FORMATION('','',#${product})`)
  const pdctx = add(`PRODUCT_DEFINITION_CONTEXT('part definition',#${app},'design')`)
  const definition = add(`PRODUCT_DEFINITION('design','',#${formation},#${pdctx})`)
  const shape = add(`PRODUCT_DEFINITION_SHAPE('','',#${definition})`)
  const mm = add('(LENGTH_UNIT() NAMED_UNIT(*) SI_UNIT(.MILLI.,.METRE.))')
  const rad = add('(NAMED_UNIT(*) PLANE_ANGLE_UNIT() SI_UNIT($,.RADIAN.))')
  const sr = add('(NAMED_UNIT(*) SI_UNIT($,.STERADIAN.) SOLID_ANGLE_UNIT())')
  const unc = add(`UNCERTAINTY_MEASURE_WITH_UNIT(LENGTH_MEASURE(1.E-07),#${mm},'distance_accuracy_value','')`)
  const ctx = add(
    `(GEOMETRIC_REPRESENTATION_CONTEXT(3) GLOBAL_UNCERTAINTY_ASSIGNED_CONTEXT((#${unc})) GLOBAL_UNIT_ASSIGNED_CONTEXT((#${mm},#${rad},#${sr})) REPRESENTATION_CONTEXT('',''))`,
  )
  const points = vertices.map((v) => add(`CARTESIAN_POINT('',${vec(v)})`))
  const vps = points.map((p) => add(`VERTEX_POINT('',#${p})`))
  const edges = new Map<string, number>()
  const edge = (a: number, b: number): number => {
    const [lo, hi] = a < b ? [a, b] : [b, a]
    const key = `${lo},${hi}`
    let id = edges.get(key)
    if (id === undefined) {
      const d = sub(vertices[hi]!, vertices[lo]!)
      const dir = add(`DIRECTION('',${vec(unit(d))})`)
      const v = add(`VECTOR('',#${dir},${num(Math.hypot(...d))})`)
      const line = add(`LINE('',#${points[lo]},#${v})`)
      id = add(`EDGE_CURVE('',#${vps[lo]},#${vps[hi]},#${line},.T.)`)
      edges.set(key, id)
    }
    return add(`ORIENTED_EDGE('',*,*,#${id},${a < b ? '.T.' : '.F.'})`)
  }
  const faceIds = faces.map((loop) => {
    const oriented = loop.map((a, i) => `#${edge(a, loop[(i + 1) % loop.length]!)}`)
    const edgeLoop = add(`EDGE_LOOP('',(${oriented.join(',')}))`)
    const bound = add(`FACE_OUTER_BOUND('',#${edgeLoop},.T.)`)
    const p0 = vertices[loop[0]!]!
    const ref = unit(sub(vertices[loop[1]!]!, p0))
    const normal = unit(cross(ref, sub(vertices[loop[2]!]!, p0)))
    const at = add(`CARTESIAN_POINT('',${vec(p0)})`)
    const axis = add(`DIRECTION('',${vec(normal)})`)
    const refDir = add(`DIRECTION('',${vec(ref)})`)
    const placement = add(`AXIS2_PLACEMENT_3D('',#${at},#${axis},#${refDir})`)
    const plane = add(`PLANE('',#${placement})`)
    return add(`ADVANCED_FACE('',(#${bound}),#${plane},.T.)`)
  })
  const shell = add(`CLOSED_SHELL('',(${faceIds.map((f) => `#${f}`).join(',')}))`)
  const solid = add(`MANIFOLD_SOLID_BREP('${name}',#${shell})`)
  const rep = add(`ADVANCED_BREP_SHAPE_REPRESENTATION('${name}',(#${solid}),#${ctx})`)
  add(`SHAPE_DEFINITION_REPRESENTATION(#${shape},#${rep})`)
  return Buffer.from(
    [
      'ISO-10303-21;',
      'HEADER;',
      `FILE_DESCRIPTION(('mfg part ${name}'),'2;1');`,
      `FILE_NAME('${name}','2025-01-06T09:00:00',('mfg'),('mfg'),'mfg','mfg','');`,
      "FILE_SCHEMA(('AUTOMOTIVE_DESIGN { 1 0 10303 214 1 1 1 1 }'));",
      'ENDSEC;',
      'DATA;',
      ...lines,
      'ENDSEC;',
      'END-ISO-10303-21;',
      '',
    ].join('\n'),
  )
}

/** A box of w × d × h mm at the origin as an AP214 B-rep solid: six planar faces. */
export function boxStep(w: number, d: number, h: number, name: string): Buffer {
  const v: V3[] = []
  for (const z of [0, h]) for (const y of [0, d]) for (const x of [0, w]) v.push([x, y, z])
  // index = x + 2y + 4z
  const faces = [
    [0, 2, 3, 1], // bottom -z
    [4, 5, 7, 6], // top +z
    [0, 1, 5, 4], // y=0
    [2, 6, 7, 3], // y=d
    [0, 4, 6, 2], // x=0
    [1, 3, 7, 5], // x=w
  ]
  return polyhedronStep(name, v, faces)
}

/** DXF group-code pairs as ASCII DXF text. */
function dxfText(pairs: [number, string | number][]): Buffer {
  return Buffer.from(pairs.map(([code, value]) => `${code}\n${value}\n`).join(''))
}

/**
 * An ASCII DXF flat pattern in mm ($INSUNITS 4): a w × d plate (a closed LWPOLYLINE), a
 * round hole of diameter d/5 near each end, a (w/4) × (d/5) slot in the middle, and,
 * when bendsAt is given, a bend line across the plate at that x on layer BEND. Its area
 * is exactly plateDxfArea(w, d).
 */
export function plateDxf(w: number, d: number, bendsAt?: number): Buffer {
  const r = d / 10
  const sw = w / 4
  const sh = d / 5
  const sx = (w - sw) / 2
  const sy = (d - sh) / 2
  const rect = (layer: string, x: number, y: number, rw: number, rh: number): [number, string | number][] => [
    [0, 'LWPOLYLINE'],
    [8, layer],
    [90, 4],
    [70, 1],
    [10, x],
    [20, y],
    [10, x + rw],
    [20, y],
    [10, x + rw],
    [20, y + rh],
    [10, x],
    [20, y + rh],
  ]
  const circle = (x: number, y: number): [number, string | number][] => [
    [0, 'CIRCLE'],
    [8, 'CUT'],
    [10, x],
    [20, y],
    [40, r],
  ]
  const bend: [number, string | number][] =
    bendsAt === undefined
      ? []
      : [
          [0, 'LINE'],
          [8, 'BEND'],
          [10, bendsAt],
          [20, 0],
          [11, bendsAt],
          [21, d],
        ]
  return dxfText([
    [999, 'mfg flat pattern'],
    [0, 'SECTION'],
    [2, 'HEADER'],
    [9, '$INSUNITS'],
    [70, 4],
    [0, 'ENDSEC'],
    [0, 'SECTION'],
    [2, 'ENTITIES'],
    ...rect('CUT', 0, 0, w, d),
    ...circle(d / 4, d / 2),
    ...circle(w - d / 4, d / 2),
    ...rect('CUT', sx, sy, sw, sh),
    ...bend,
    [0, 'ENDSEC'],
    [0, 'EOF'],
  ])
}

/** plateDxf's area, mm². */
export function plateDxfArea(w: number, d: number): number {
  return w * d - 2 * Math.PI * (d / 10) ** 2 - (w / 4) * (d / 5)
}

type Size = [number, number, number]

/** name → size (mm); the extension chooses the format. */
const DEMAND_FILES: Record<string, Size> = {
  'sensor-bracket.stl': [20, 20, 20],
  'miniature-knight.stl': [12, 12, 32],
  'gearbox-housing.step': [80, 60, 45],
  'wall-bracket.dxf': [120, 40, 3],
  'drone-frame.stl': [150, 150, 6],
  'valve-knob.step': [30, 30, 18],
  'phone-stand.stl': [70, 80, 90],
}
const SECOND_DEMAND_FILES: Record<string, Size> = {'spacer.stl': [10, 10, 5]}
const PRODUCT_FILES: Record<string, Size> = {
  'cable-clip.stl': [15, 8, 6],
  'headphone-stand.stl': [100, 100, 250],
  'drone-arm.stl': [130, 18, 8],
  'model-base.stl': [200, 200, 5],
  'gopro-mount.stl': [40, 25, 15],
  'heatsink-40.step': [40, 40, 12],
  'knob-m6.step': [25, 25, 20],
  'flange-dn50.step': [140, 140, 16],
  'shelf-bracket.dxf': [150, 150, 2],
  'rack-panel-1u.dxf': [483, 44, 2],
  'mount-plate.dxf': [100, 100, 3],
}

function bytesOf(name: string, [w, d, h]: Size): Buffer {
  if (name.endsWith('.stl')) return boxStl(w, d, h, name)
  if (name.endsWith('.step')) return boxStep(w, d, h, name)
  // A bend line between the slot and the right-hand hole, where there is room for one.
  return plateDxf(w, d, d < 0.75 * w ? w - d / 2 : undefined)
}

export interface SeedFile {
  key: string
  businessId: string
  name: string
  size: Size
}

export function seedFiles(demoId: string, secondId: string): SeedFile[] {
  const list = (folder: string, businessId: string, files: Record<string, Size>) =>
    Object.entries(files).map(([name, size]) => ({key: `seed/${folder}/${name}`, businessId, name, size}))
  return [
    ...list('demands', demoId, DEMAND_FILES),
    ...list('demands', secondId, SECOND_DEMAND_FILES),
    ...list('products', demoId, PRODUCT_FILES),
  ]
}

/** True when every seeded file of an existing business has its row and its bytes. */
export function seedFilesPresent(store: Store, demoId: string, secondId: string): boolean {
  return seedFiles(demoId, secondId).every((file) => {
    const existing = store.files.byKey(file.key)
    return (existing !== undefined && blobExists(store, existing)) || !store.businesses.byId(file.businessId)
  })
}

/**
 * Makes sure the seeded files exist (rows and bytes); cheap when they do, so it
 * runs on every open and also fills a database seeded before files were stored.
 */
export function ensureSeedFiles(store: Store, demoId: string, secondId: string, now: number): void {
  for (const file of seedFiles(demoId, secondId)) {
    const existing = store.files.byKey(file.key)
    if (existing && blobExists(store, existing)) continue
    if (!store.businesses.byId(file.businessId)) continue
    const blob = existing?.blob ?? `seed-${createHash('sha256').update(file.key).digest('hex').slice(0, 24)}`
    putFile(
      store,
      {key: file.key, businessId: file.businessId, originalName: file.name, bytes: bytesOf(file.name, file.size), blob},
      now,
    )
  }
}
