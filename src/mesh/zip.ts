import {constants} from 'node:buffer'
import {createRequire} from 'node:module'

import {MeshError} from './errors.js'
import {overLimit} from './limits.js'

/** node:zlib, loaded when a 3MF is first inflated: measuring an STL does without it. */
let zlibModule: typeof import('node:zlib') | undefined
export const zlib = (): typeof import('node:zlib') =>
  (zlibModule ??= createRequire(import.meta.url)('node:zlib') as typeof import('node:zlib'))

// A small reader for the zip container of 3MF: the central directory (with zip64 fields)
// and stored or deflated entries. Every offset is bounds-checked, so a cut or damaged
// archive ends in a MeshError, not a RangeError.

export interface ZipEntry {
  name: string
  method: number
  crc: number
  compressedSize: number
  size: number
  localOffset: number
}

/**
 * The largest entry this reader unpacks: the longest string V8 can hold, as 3MF parts
 * are XML text. A bigger size is refused before any inflating, so a zip bomb cannot
 * fill memory.
 */
export const MAX_ENTRY_BYTES = constants.MAX_STRING_LENGTH

const EOCD = 0x06054b50
const EOCD64 = 0x06064b50
const EOCD64_LOCATOR = 0x07064b50
const CENTRAL = 0x02014b50
const LOCAL = 0x04034b50

function corrupt(what: string): MeshError {
  return new MeshError(`3MF zip archive truncated or corrupt: ${what}`)
}

function u64(view: DataView, at: number): number {
  const v = view.getBigUint64(at, true)
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw corrupt('a 64-bit size is out of range')
  return Number(v)
}

/** The entries of the archive, keyed by lower-cased name without a leading slash. */
export function readZipDirectory(bytes: Uint8Array): Map<string, ZipEntry> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const len = bytes.length
  let eocd = -1
  for (let i = len - 22; i >= 0 && i >= len - 22 - 0xffff; i--) {
    if (view.getUint32(i, true) === EOCD) {
      eocd = i
      break
    }
  }
  if (eocd < 0) throw corrupt('no end-of-central-directory record (the file is cut short or not a zip)')
  let count = view.getUint16(eocd + 10, true)
  let cdSize = view.getUint32(eocd + 12, true)
  let cdOffset = view.getUint32(eocd + 16, true)
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    const loc = eocd - 20
    if (loc < 0 || view.getUint32(loc, true) !== EOCD64_LOCATOR) throw corrupt('zip64 locator missing')
    const rec = u64(view, loc + 8)
    if (rec + 56 > len || view.getUint32(rec, true) !== EOCD64) throw corrupt('zip64 directory record missing')
    count = u64(view, rec + 32)
    cdSize = u64(view, rec + 40)
    cdOffset = u64(view, rec + 48)
  }
  if (cdOffset + cdSize > len)
    throw corrupt(`central directory at ${cdOffset}+${cdSize} lies past the end (${len} bytes)`)
  const entries = new Map<string, ZipEntry>()
  let p = cdOffset
  for (let i = 0; i < count; i++) {
    if (p + 46 > len || view.getUint32(p, true) !== CENTRAL)
      throw corrupt(`central directory entry ${i + 1} is damaged`)
    const method = view.getUint16(p + 10, true)
    const crc = view.getUint32(p + 16, true)
    let compressedSize = view.getUint32(p + 20, true)
    let size = view.getUint32(p + 24, true)
    const nameLen = view.getUint16(p + 28, true)
    const extraLen = view.getUint16(p + 30, true)
    const commentLen = view.getUint16(p + 32, true)
    let localOffset = view.getUint32(p + 42, true)
    if (p + 46 + nameLen + extraLen + commentLen > len) throw corrupt(`central directory entry ${i + 1} is cut`)
    const name = Buffer.from(bytes.buffer, bytes.byteOffset + p + 46, nameLen).toString('utf8')
    // zip64 extended information: present fields follow in this order, only when the 32-bit one is saturated.
    let e = p + 46 + nameLen
    const extraEnd = e + extraLen
    while (e + 4 <= extraEnd) {
      const id = view.getUint16(e, true)
      const sz = view.getUint16(e + 2, true)
      if (id === 1) {
        // A field's data ends where its size says, but never past the extra block.
        const end = Math.min(e + 4 + sz, extraEnd)
        let f = e + 4
        if (size === 0xffffffff && f + 8 <= end) {
          size = u64(view, f)
          f += 8
        }
        if (compressedSize === 0xffffffff && f + 8 <= end) {
          compressedSize = u64(view, f)
          f += 8
        }
        if (localOffset === 0xffffffff && f + 8 <= end) localOffset = u64(view, f)
      }
      e += 4 + sz
    }
    entries.set(name.replace(/^\/+/, '').toLowerCase(), {name, method, crc, compressedSize, size, localOffset})
    p += 46 + nameLen + extraLen + commentLen
  }
  return entries
}

/** Entries this small may inflate by any ratio (a short run of repeated text compresses a lot). */
const RATIO_FREE_BYTES = 16 * 1024 * 1024

/**
 * Refuses an entry whose declared size is implausible: over MAX_ENTRY_BYTES, or more
 * than `maxRatio` times its compressed size (a zip bomb), before anything is inflated.
 */
export function checkEntrySize(entry: ZipEntry, maxRatio: number): void {
  if (entry.size > MAX_ENTRY_BYTES) {
    throw new MeshError(
      `3MF entry ${entry.name} is ${entry.size} bytes uncompressed; this reader takes entries of at most ${MAX_ENTRY_BYTES} bytes`,
    )
  }
  if (entry.size > RATIO_FREE_BYTES && entry.size > Math.max(1, entry.compressedSize) * maxRatio) {
    const ratio = Math.round(entry.size / Math.max(1, entry.compressedSize))
    throw overLimit(
      `3MF entry ${entry.name} inflates ${ratio} times (${entry.compressedSize} to ${entry.size} bytes), more than the ${maxRatio} times allowed`,
      '--max-ratio',
    )
  }
}

/** The compressed bytes of an entry, after its local header. */
export function entryData(bytes: Uint8Array, entry: ZipEntry): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const at = entry.localOffset
  if (at + 30 > bytes.length || view.getUint32(at, true) !== LOCAL) {
    throw corrupt(`local header of ${entry.name} missing at offset ${at}`)
  }
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true)
  const end = start + entry.compressedSize
  if (end > bytes.length) {
    throw corrupt(
      `${entry.name} needs ${entry.compressedSize} bytes from offset ${start}, the file ends at ${bytes.length}`,
    )
  }
  return bytes.subarray(start, end)
}

/** The uncompressed bytes of an entry; checks sizes and, where node:zlib has it, the CRC. */
export function readZipEntry(bytes: Uint8Array, entry: ZipEntry, maxRatio = Infinity): Uint8Array {
  checkEntrySize(entry, maxRatio)
  const data = entryData(bytes, entry)
  let out: Uint8Array
  if (entry.method === 0) {
    out = data
  } else if (entry.method === 8) {
    if (entry.size === 0) return new Uint8Array(0)
    try {
      // The limit makes a lying size or a zip bomb fail instead of filling memory.
      out = zlib().inflateRawSync(data, {maxOutputLength: entry.size})
    } catch (err) {
      throw corrupt(`cannot inflate ${entry.name}: ${(err as Error).message}`)
    }
  } else {
    throw new MeshError(
      `3MF entry ${entry.name} uses zip compression method ${entry.method}; only stored and deflate are supported`,
    )
  }
  if (out.length !== entry.size) {
    throw corrupt(`${entry.name} inflates to ${out.length} bytes, the directory says ${entry.size}`)
  }
  const crc32 = (zlib() as {crc32?: (data: Uint8Array) => number}).crc32
  if (crc32 && crc32(out) >>> 0 !== entry.crc >>> 0) throw corrupt(`${entry.name} fails its CRC check`)
  return out
}

/**
 * Inflates an entry piece by piece, handing each piece of text to `onText` (the last call
 * has `final` true): memory stays at one piece, whatever the entry's size. Checks the
 * declared size (never exceeded) and the CRC, like readZipEntry.
 */
export async function streamZipEntry(
  bytes: Uint8Array,
  entry: ZipEntry,
  maxRatio: number,
  onText: (text: string, final: boolean) => void,
): Promise<void> {
  checkEntrySize(entry, maxRatio)
  const data = entryData(bytes, entry)
  const decoder = new TextDecoder('utf-8')
  const z = zlib()
  const crc32 = (z as {crc32?: (data: Uint8Array, value?: number) => number}).crc32
  let crc = 0
  let size = 0
  const take = (piece: Uint8Array): void => {
    size += piece.length
    if (size > entry.size)
      throw corrupt(`${entry.name} inflates to more than the ${entry.size} bytes the directory says`)
    if (crc32) crc = crc32(piece, crc)
    onText(decoder.decode(piece, {stream: true}), false)
  }
  if (entry.method === 0) {
    for (let i = 0; i < data.length; i += PIECE) take(data.subarray(i, i + PIECE))
  } else if (entry.method === 8) {
    const [{pipeline}, {Readable}] = await Promise.all([import('node:stream/promises'), import('node:stream')])
    const pieces = function* () {
      for (let i = 0; i < data.length; i += PIECE) yield data.subarray(i, i + PIECE)
    }
    try {
      await pipeline(
        Readable.from(pieces()),
        z.createInflateRaw({chunkSize: PIECE}),
        async (source: AsyncIterable<Buffer>) => {
          for await (const piece of source) take(piece)
        },
      )
    } catch (err) {
      if (err instanceof MeshError) throw err
      throw corrupt(`cannot inflate ${entry.name}: ${(err as Error).message}`)
    }
  } else {
    throw new MeshError(
      `3MF entry ${entry.name} uses zip compression method ${entry.method}; only stored and deflate are supported`,
    )
  }
  if (size !== entry.size) throw corrupt(`${entry.name} inflates to ${size} bytes, the directory says ${entry.size}`)
  if (crc32 && crc >>> 0 !== entry.crc >>> 0) throw corrupt(`${entry.name} fails its CRC check`)
  onText(decoder.decode(), true)
}

/** Bytes inflated or handed on at a time. */
const PIECE = 1 << 20
