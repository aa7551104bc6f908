import {deflateRawSync} from 'node:zlib'
import {readFileSync} from 'node:fs'

import {meshPath} from '../helpers/meshes.js'

export {MESHES, meshPath} from '../helpers/meshes.js'

export function meshBytes(name: string): Uint8Array {
  return new Uint8Array(readFileSync(meshPath(name)))
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    t[n] = c >>> 0
  }
  return t
})()

function crc32(data: Uint8Array): number {
  let c = 0xffffffff
  for (const b of data) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

/** A minimal zip writer (deflate or stored), enough to build 3MF packages in tests. */
export function makeZip(files: Record<string, string | Uint8Array>, opts: {store?: boolean} = {}): Uint8Array {
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const [name, content] of Object.entries(files)) {
    const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content)
    const body = opts.store ? data : deflateRawSync(data)
    const nameBytes = Buffer.from(name, 'utf8')
    const crc = crc32(data)
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt16LE(opts.store ? 0 : 8, 8)
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(body.length, 18)
    local.writeUInt32LE(data.length, 22)
    local.writeUInt16LE(nameBytes.length, 26)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(20, 4)
    central.writeUInt16LE(20, 6)
    central.writeUInt16LE(opts.store ? 0 : 8, 10)
    central.writeUInt32LE(crc, 16)
    central.writeUInt32LE(body.length, 20)
    central.writeUInt32LE(data.length, 24)
    central.writeUInt16LE(nameBytes.length, 28)
    central.writeUInt32LE(offset, 42)
    locals.push(local, nameBytes, body)
    centrals.push(central, nameBytes)
    offset += 30 + nameBytes.length + body.length
  }
  const cd = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(Object.keys(files).length, 8)
  end.writeUInt16LE(Object.keys(files).length, 10)
  end.writeUInt32LE(cd.length, 12)
  end.writeUInt32LE(offset, 16)
  return new Uint8Array(Buffer.concat([...locals, cd, end]))
}

export const RELS = `<?xml version="1.0" encoding="UTF-8"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
 <Relationship Target="/3D/3dmodel.model" Id="rel0" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/>
</Relationships>`

/** A 3MF model document around resources and build XML. */
export function modelXml(resources: string, build: string, unit = 'millimeter'): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<model unit="${unit}" xml:lang="en-US" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02">
 <resources>${resources}</resources>
 <build>${build}</build>
</model>`
}

/** A 3MF object holding an axis-aligned box mesh from the origin to (w, d, h). */
export function boxObject(id: number, w: number, d: number, h: number): string {
  const v: string[] = []
  for (let i = 0; i < 8; i++) v.push(`<vertex x="${i & 1 ? w : 0}" y="${i & 2 ? d : 0}" z="${i & 4 ? h : 0}"/>`)
  const quads = [
    [0, 2, 3, 1],
    [4, 5, 7, 6],
    [0, 1, 5, 4],
    [2, 6, 7, 3],
    [0, 4, 6, 2],
    [1, 3, 7, 5],
  ]
  const t = quads.flatMap(([a, b, c, e]) => [
    `<triangle v1="${a}" v2="${b}" v3="${c}"/>`,
    `<triangle v1="${a}" v2="${c}" v3="${e}"/>`,
  ])
  return `<object id="${id}" name="box${id}" type="model"><mesh><vertices>${v.join('')}</vertices><triangles>${t.join('')}</triangles></mesh></object>`
}

/** Binary STL bytes from triangles of three xyz corners. */
export function binaryStl(tris: number[][][]): Uint8Array {
  const buf = Buffer.alloc(84 + 50 * tris.length)
  buf.writeUInt32LE(tris.length, 80)
  let o = 84
  for (const t of tris) {
    o += 12
    for (const p of t) for (const x of p) o = buf.writeFloatLE(x, o)
    o += 2
  }
  return new Uint8Array(buf)
}
