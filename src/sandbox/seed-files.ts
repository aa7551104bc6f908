import {createHash} from 'node:crypto'

import {blobExists, putFile} from './files.js'
import type {Store} from './store/index.js'

/**
 * Small real part files behind the seeded demands' and products' links, generated
 * at seed time: binary STL boxes, and minimal STEP and DXF files of boxes and plates.
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

/** A minimal ISO 10303-21 file naming a box (enough to be recognised as STEP). */
function boxStep(w: number, d: number, h: number, name: string): Buffer {
  return Buffer.from(
    [
      'ISO-10303-21;',
      'HEADER;',
      `FILE_DESCRIPTION(('mfg sandbox part ${name}'),'2;1');`,
      `FILE_NAME('${name}','2025-01-06T09:00:00',('mfg'),('mfg sandbox'),'','','');`,
      "FILE_SCHEMA(('AUTOMOTIVE_DESIGN'));",
      'ENDSEC;',
      'DATA;',
      "#1=CARTESIAN_POINT('origin',(0.,0.,0.));",
      `#2=CARTESIAN_POINT('corner',(${w.toFixed(1)},${d.toFixed(1)},${h.toFixed(1)}));`,
      `#3=PRODUCT('${name}','${name}','box ${w} x ${d} x ${h} mm',());`,
      'ENDSEC;',
      'END-ISO-10303-21;',
      '',
    ].join('\n'),
  )
}

/** A minimal ASCII DXF with one closed rectangle of w × d mm. */
function plateDxf(w: number, d: number): Buffer {
  const pairs: [number, string | number][] = [
    [0, 'SECTION'],
    [2, 'ENTITIES'],
    [0, 'LWPOLYLINE'],
    [8, '0'],
    [90, 4],
    [70, 1],
    [10, 0],
    [20, 0],
    [10, w],
    [20, 0],
    [10, w],
    [20, d],
    [10, 0],
    [20, d],
    [0, 'ENDSEC'],
    [0, 'EOF'],
  ]
  return Buffer.from(pairs.map(([code, value]) => `${code}\n${value}\n`).join(''))
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
  return plateDxf(w, d)
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
