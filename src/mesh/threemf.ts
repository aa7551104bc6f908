import {MeshError} from './errors.js'
import {DEFAULT_LIMITS, overLimit} from './limits.js'
import type {Mesh, MeshObject, ReadLimits} from './types.js'
import {Float64Welder, IndexBuffer} from './weld.js'
import {readZipDirectory, readZipEntry, streamZipEntry, type ZipEntry} from './zip.js'

// 3MF: a zip whose root relationship names the model part (usually 3D/3dmodel.model).
// The model is read with a small XML scanner that only understands what the core spec
// (and the production extension's p:path) needs: objects with a mesh or components,
// build items, transforms and the unit.

const UNITS: Record<string, number> = {
  micron: 0.001,
  millimeter: 1,
  centimeter: 10,
  inch: 25.4,
  foot: 304.8,
  meter: 1000,
}

// An object's type says what its mesh is for. Only a "model" mesh is the part itself.
// "support" and "solidsupport" are scaffolding printed with it and removed afterwards
// (the spec lets a consumer drop them or make its own; a solid support is filled, but it
// is still not what the customer receives), "surface" is an open sheet with no inside,
// and "other" may not be built at all. So the part's volume, size and area come from
// "model" meshes alone; a value outside the spec's list is read as the default, "model".
// On an object made of components the type means nothing: each component's own counts.
const NOT_PART_TYPES = new Set(['support', 'solidsupport', 'surface', 'other'])

const MODEL_REL = 'http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel'

// Components can repeat an object many times (each level of a chain doubling it, say), so
// a small file can stand for 2^40 triangles: the expansion is counted against the limit
// (ReadLimits.maxTriangles) before any of it is built.

/** Row-vector affine transform: p' = [x y z 1] · M, stored as the 12 numbers of the spec. */
type Transform = Float64Array

const IDENTITY: Transform = Float64Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0)

interface Component {
  objectId: string
  path?: string
  transform: Transform
}

interface ModelObject {
  id: string
  name?: string
  /** The object's mesh is part of the solid to measure (see PART_TYPES). */
  isPart: boolean
  vertices: Float64Array
  vertexCount: number
  triangles: Uint32Array
  triangleCount: number
  components: Component[]
}

interface BuildItem {
  objectId: string
  path?: string
  transform: Transform
}

interface Model {
  path: string
  unit: string
  objects: Map<string, ModelObject>
  items: BuildItem[]
}

type Attrs = Record<string, string>

function localName(qname: string): string {
  const colon = qname.indexOf(':')
  return colon === -1 ? qname : qname.slice(colon + 1)
}

function decodeEntities(s: string): string {
  if (s.indexOf('&') === -1) return s
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)
      // A reference past Unicode (&#x110000;) is no character: the replacement character stands in.
      return code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd'
    }
    return ({amp: '&', lt: '<', gt: '>', quot: '"', apos: "'"} as Record<string, string>)[e] ?? ''
  })
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13
}

/** The scanner ran out of text inside a tag: feed more (or, at the end, the XML is cut). */
const MORE = Symbol('more')

class XmlScanner {
  pos = 0
  text = ''
  /** Lines in the text already consumed and dropped. */
  private linesBefore = 0
  /** True once the last chunk has been fed: running out of text is then an error. */
  final = true
  constructor(
    text: string,
    readonly part: string,
  ) {
    this.text = text
  }

  /** Appends the next chunk of XML, dropping what has been scanned. */
  feed(chunk: string, final: boolean): void {
    const done = this.text.slice(0, this.pos)
    for (let i = done.indexOf('\n'); i !== -1; i = done.indexOf('\n', i + 1)) this.linesBefore++
    this.text = this.text.slice(this.pos) + chunk
    this.pos = 0
    this.final = final
  }

  fail(what: string): never {
    throw new MeshError(`3MF ${this.part}: ${what} (line ${this.lineAt(this.pos)})`)
  }

  lineAt(pos: number): number {
    let n = 1 + this.linesBefore
    for (let i = this.text.indexOf('\n'); i !== -1 && i < pos; i = this.text.indexOf('\n', i + 1)) n++
    return n
  }

  /** Out of text at `lt`: wait for more, or fail when there is none. */
  private cut(lt: number, what: string): typeof MORE {
    if (this.final) {
      this.pos = lt
      this.fail(what)
    }
    this.pos = lt
    return MORE
  }

  /**
   * Advances to the next element tag. Returns null at the end of the text, MORE when a
   * tag runs past the text fed so far. Comments, processing instructions, CDATA and
   * doctype are skipped; text content is ignored.
   */
  next(): {name: string; attrs: Attrs; kind: 'open' | 'close' | 'empty'} | null | typeof MORE {
    const t = this.text
    for (;;) {
      const lt = t.indexOf('<', this.pos)
      if (lt === -1) {
        this.pos = t.length
        return null
      }
      this.pos = lt
      if (lt + 9 > t.length && !this.final) return MORE
      const c1 = t.charCodeAt(lt + 1)
      if (c1 === 33 /* ! */) {
        const close = t.startsWith('<!--', lt) ? '-->' : t.startsWith('<![CDATA[', lt) ? ']]>' : '>'
        const end = t.indexOf(close, lt + 2)
        if (end === -1) return this.cut(lt, 'XML ends inside a comment or declaration')
        this.pos = end + close.length
        continue
      }
      if (c1 === 63 /* ? */) {
        const end = t.indexOf('?>', lt + 2)
        if (end === -1) return this.cut(lt, 'XML ends inside a processing instruction')
        this.pos = end + 2
        continue
      }
      if (c1 === 47 /* / */) {
        const end = t.indexOf('>', lt + 2)
        if (end === -1) return this.cut(lt, 'XML ends inside an end tag')
        this.pos = end + 1
        return {name: t.slice(lt + 2, end).trim(), attrs: {}, kind: 'close'}
      }
      return this.startTag(lt)
    }
  }

  private startTag(lt: number): {name: string; attrs: Attrs; kind: 'open' | 'empty'} | typeof MORE {
    const t = this.text
    let i = lt + 1
    while (i < t.length && !isSpace(t.charCodeAt(i)) && t[i] !== '>' && t[i] !== '/') i++
    if (i >= t.length && !this.final) return this.cut(lt, '')
    const name = t.slice(lt + 1, i)
    if (name === '') this.fail("'<' not followed by a tag name")
    const attrs: Attrs = {}
    for (;;) {
      while (i < t.length && isSpace(t.charCodeAt(i))) i++
      if (i >= t.length) return this.cut(lt, `XML ends inside <${name}>`)
      const ch = t[i]
      if (ch === '>') {
        this.pos = i + 1
        return {name, attrs, kind: 'open'}
      }
      if (ch === '/') {
        if (i + 1 >= t.length) return this.cut(lt, `XML ends inside <${name}>`)
        if (t[i + 1] !== '>') this.fail(`malformed <${name}> tag`)
        this.pos = i + 2
        return {name, attrs, kind: 'empty'}
      }
      const eq = t.indexOf('=', i)
      if (eq === -1) return this.cut(lt, `XML ends inside <${name}>`)
      const key = t.slice(i, eq).trim()
      let q = eq + 1
      while (q < t.length && isSpace(t.charCodeAt(q))) q++
      if (q >= t.length) return this.cut(lt, `XML ends inside <${name}>`)
      const quoteCh = t[q]
      if (quoteCh !== '"' && quoteCh !== "'") this.fail(`attribute ${key} of <${name}> is not quoted`)
      const close = t.indexOf(quoteCh, q + 1)
      if (close === -1) return this.cut(lt, `XML ends inside attribute ${key} of <${name}>`)
      attrs[key] = decodeEntities(t.slice(q + 1, close))
      i = close + 1
    }
  }
}

function parseTransform(value: string | undefined, where: () => string): Transform {
  if (value === undefined) return IDENTITY
  const parts = value.trim().split(/\s+/)
  const m = new Float64Array(12)
  if (parts.length !== 12) throw new MeshError(`${where()}: transform needs 12 numbers, has ${parts.length}`)
  for (let i = 0; i < 12; i++) {
    const v = Number(parts[i])
    if (!Number.isFinite(v)) throw new MeshError(`${where()}: transform number ${i + 1} is ${JSON.stringify(parts[i])}`)
    m[i] = v
  }
  return m
}

/** First a, then b: (p·A)·B. */
function compose(a: Transform, b: Transform): Transform {
  const r = new Float64Array(12)
  for (let row = 0; row < 4; row++) {
    for (let col = 0; col < 3; col++) {
      let s = row === 3 ? b[9 + col]! : 0
      for (let k = 0; k < 3; k++) s += a[row * 3 + k]! * b[k * 3 + col]!
      r[row * 3 + col] = s
    }
  }
  return r
}

/** Parses a model part fed in chunks; `feed(chunk, true)` with the last one returns the model. */
export function modelParser(
  path: string,
  limits: Required<ReadLimits>,
): (chunk: string, final: boolean) => Model | undefined {
  const sc: XmlScanner = new XmlScanner('', path)
  let allVertices = 0
  let allTriangles = 0
  const model: Model = {path, unit: 'millimeter', objects: new Map(), items: []}
  const stack: string[] = []
  let object: ModelObject | null = null
  let vertices = new Float64Array(3 * 1024)
  let nv = 0
  let tris: IndexBuffer | null = null
  let sawModel = false
  const handle = (tag: {name: string; attrs: Attrs; kind: 'open' | 'close' | 'empty'}): void => {
    const name = localName(tag.name)
    if (tag.kind === 'close') {
      const open = stack.pop()
      if (open === undefined || open !== tag.name) sc.fail(`</${tag.name}> does not close <${open ?? 'nothing'}>`)
      if (name === 'object' && object) {
        object.vertices = vertices.slice(0, nv * 3)
        object.vertexCount = nv
        if (tris) {
          object.triangles = tris.toArray()
          object.triangleCount = tris.length / 3
        }
        model.objects.set(object.id, object)
        object = null
      }
      return
    }
    const parent = stack.length > 0 ? localName(stack[stack.length - 1]!) : ''
    if (tag.kind === 'open') stack.push(tag.name)
    const a = tag.attrs
    switch (name) {
      case 'model':
        if (stack.length !== (tag.kind === 'open' ? 1 : 0)) sc.fail('<model> is not the root element')
        sawModel = true
        if (a.unit !== undefined) {
          if (!(a.unit in UNITS))
            sc.fail(`unknown unit ${JSON.stringify(a.unit)} (expected ${Object.keys(UNITS).join(', ')})`)
          model.unit = a.unit
        }
        break
      case 'object': {
        if (parent !== 'resources') break
        if (a.id === undefined) sc.fail('<object> without an id')
        if (model.objects.has(a.id)) sc.fail(`object id ${a.id} is used twice`)
        object = {
          id: a.id,
          isPart: !NOT_PART_TYPES.has(a.type ?? 'model'),
          vertices: new Float64Array(0),
          vertexCount: 0,
          triangles: new Uint32Array(0),
          triangleCount: 0,
          components: [],
        }
        if (a.name !== undefined) object.name = a.name
        nv = 0
        tris = null
        if (tag.kind === 'empty') {
          model.objects.set(object.id, object)
          object = null
        }
        break
      }
      case 'vertex': {
        if (parent !== 'vertices' || !object) break
        const x = Number(a.x)
        const y = Number(a.y)
        const z = Number(a.z)
        if (!a.x || !a.y || !a.z || !Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(z)) {
          sc.fail(`vertex ${nv} of object ${object.id} has a missing or bad coordinate`)
        }
        if ((nv + 1) * 3 > vertices.length) {
          const grown = new Float64Array(vertices.length * 2)
          grown.set(vertices)
          vertices = grown
        }
        vertices[nv * 3] = x
        vertices[nv * 3 + 1] = y
        vertices[nv * 3 + 2] = z
        nv++
        if (++allVertices > 3 * limits.maxTriangles)
          throw overLimit(
            `3MF ${path}: more than ${3 * limits.maxTriangles} vertices (three per allowed triangle)`,
            '--max-triangles',
          )
        break
      }
      case 'triangle': {
        if (parent !== 'triangles' || !object) break
        tris ??= new IndexBuffer()
        const v1 = Number(a.v1)
        const v2 = Number(a.v2)
        const v3 = Number(a.v3)
        for (const v of [v1, v2, v3]) {
          if (!Number.isInteger(v) || v < 0 || v >= nv) {
            const n = tris.length / 3
            sc.fail(
              Number.isInteger(v)
                ? `triangle ${n} of object ${object.id} refers to vertex ${v} of ${nv}`
                : `triangle ${n} of object ${object.id} has a missing or bad vertex index`,
            )
          }
        }
        tris.push3(v1, v2, v3)
        if (++allTriangles > limits.maxTriangles)
          throw overLimit(`3MF ${path}: more than ${limits.maxTriangles} triangles`, '--max-triangles')
        break
      }
      case 'component': {
        if (parent !== 'components' || !object) break
        const owner = object.id
        if (a.objectid === undefined) sc.fail(`a component of object ${owner} has no objectid`)
        const c: Component = {
          objectId: a.objectid,
          transform: parseTransform(a.transform, () => `3MF ${path}: component of object ${owner}`),
        }
        const p = pathAttr(a)
        if (p !== undefined) c.path = p
        object.components.push(c)
        break
      }
      case 'item': {
        if (parent !== 'build') break
        if (a.objectid === undefined) sc.fail('a build item has no objectid')
        const itemId = a.objectid
        const item: BuildItem = {
          objectId: itemId,
          transform: parseTransform(a.transform, () => `3MF ${path}: build item ${itemId}`),
        }
        const p = pathAttr(a)
        if (p !== undefined) item.path = p
        model.items.push(item)
        break
      }
    }
  }
  return (chunk: string, final: boolean): Model | undefined => {
    sc.feed(chunk, final)
    for (let tag = sc.next(); tag !== null && tag !== MORE; tag = sc.next()) handle(tag)
    if (!final) return undefined
    if (!sawModel) throw new MeshError(`3MF ${path}: no <model> element`)
    if (stack.length > 0)
      throw new MeshError(`3MF ${path}: XML ends inside <${stack[stack.length - 1]}> (the model is truncated)`)
    return model
  }
}

/** The production extension's p:path (any prefix), normalised to an archive key. */
function pathAttr(a: Attrs): string | undefined {
  for (const k of Object.keys(a)) if (localName(k) === 'path' && k.includes(':')) return a[k]!.replace(/^\/+/, '')
  return undefined
}

function findModelPart(entries: Map<string, ZipEntry>, bytes: Uint8Array, maxRatio: number): string {
  const rels = entries.get('_rels/.rels')
  if (rels) {
    const text = Buffer.from(readZipEntry(bytes, rels, maxRatio)).toString('utf8')
    const sc: XmlScanner = new XmlScanner(text, '_rels/.rels')
    for (let tag = sc.next(); tag !== null && tag !== MORE; tag = sc.next()) {
      if (localName(tag.name) === 'Relationship' && tag.attrs.Type === MODEL_REL && tag.attrs.Target) {
        const target = tag.attrs.Target.replace(/^\/+/, '')
        if (entries.has(target.toLowerCase())) return target
        throw new MeshError(`3MF: _rels/.rels names the model ${target}, which is not in the archive`)
      }
    }
  }
  if (entries.has('3d/3dmodel.model')) return '3D/3dmodel.model'
  for (const e of entries.values()) if (e.name.toLowerCase().endsWith('.model')) return e.name
  throw new MeshError('3MF has no 3D model part (no 3D/3dmodel.model and no model relationship)')
}

/** The model parts a model refers to through the production extension's p:path. */
function referencedParts(model: Model): string[] {
  const out = new Set<string>()
  for (const item of model.items) if (item.path !== undefined) out.add(item.path)
  for (const o of model.objects.values()) for (const c of o.components) if (c.path !== undefined) out.add(c.path)
  return [...out]
}

const partKey = (path: string): string => path.replace(/^\/+/, '').toLowerCase()

function modelEntry(entries: Map<string, ZipEntry>, path: string): ZipEntry {
  const entry = entries.get(partKey(path))
  if (!entry) throw new MeshError(`3MF: model part ${path} is not in the archive`)
  if (entry.size === 0) throw new MeshError(`3MF ${path}: the model part is empty`)
  return entry
}

/**
 * Reads a 3MF file whose model parts are inflated whole (within the limits). For a file
 * from outside, read3mfStreaming holds only a piece of the XML at a time.
 */
export function read3mf(bytes: Uint8Array, limits: Required<ReadLimits> = DEFAULT_LIMITS): Mesh {
  const entries = readZipDirectory(bytes)
  const rootPath = findModelPart(entries, bytes, limits.maxRatio)
  const models = new Map<string, Model>()
  const queue = [rootPath]
  for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
    if (models.has(partKey(path))) continue
    const entry = modelEntry(entries, path)
    const data = readZipEntry(bytes, entry, limits.maxRatio)
    const model = modelParser(entry.name, limits)(
      Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'),
      true,
    )!
    models.set(partKey(path), model)
    queue.push(...referencedParts(model))
  }
  return buildMesh(models, rootPath, limits)
}

/** read3mf, except that each model part is inflated and parsed a piece at a time: memory stays bounded. */
export async function read3mfStreaming(
  bytes: Uint8Array,
  limits: Required<ReadLimits> = DEFAULT_LIMITS,
): Promise<Mesh> {
  const entries = readZipDirectory(bytes)
  const rootPath = findModelPart(entries, bytes, limits.maxRatio)
  const models = new Map<string, Model>()
  const queue = [rootPath]
  for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
    if (models.has(partKey(path))) continue
    const entry = modelEntry(entries, path)
    const parse = modelParser(entry.name, limits)
    let model: Model | undefined
    await streamZipEntry(bytes, entry, limits.maxRatio, (text, final) => {
      model = parse(text, final)
    })
    models.set(partKey(path), model!)
    queue.push(...referencedParts(model!))
  }
  return buildMesh(models, rootPath, limits)
}

function buildMesh(models: Map<string, Model>, rootPath: string, limits: Required<ReadLimits>): Mesh {
  const maxTriangles = limits.maxTriangles
  const load = (path: string): Model => {
    const model = models.get(partKey(path))
    if (!model) throw new MeshError(`3MF: model part ${path} is not in the archive`)
    return model
  }
  const root = load(rootPath)
  const scale = UNITS[root.unit]!

  const welder = new Float64Welder(4096)
  const out = new IndexBuffer()
  const objects: MeshObject[] = []
  const active = new Set<string>()
  /** Triangles of support, surface and other objects, left out of the part. */
  let skipped = 0

  const emit = (model: Model, objectId: string, transform: Transform, depth: number): void => {
    const obj = model.objects.get(objectId)
    if (!obj) throw new MeshError(`3MF ${model.path}: object ${objectId} is referenced but not defined`)
    const key = `${model.path}#${objectId}`
    if (active.has(key) || depth > 64)
      throw new MeshError(`3MF ${model.path}: object ${objectId} contains itself through its components`)
    active.add(key)
    if (!obj.isPart) skipped += obj.triangleCount
    else if (obj.triangleCount > 0) {
      const m = transform
      const v = obj.vertices
      const map = new Uint32Array(obj.vertexCount)
      // Only vertices that triangles use become mesh vertices.
      const used = new Uint8Array(obj.vertexCount)
      for (let i = 0; i < obj.triangleCount * 3; i++) used[obj.triangles[i]!] = 1
      for (let i = 0; i < obj.vertexCount; i++) {
        if (!used[i]) continue
        const x = v[i * 3]!
        const y = v[i * 3 + 1]!
        const z = v[i * 3 + 2]!
        map[i] = welder.add(
          x * m[0]! + y * m[3]! + z * m[6]! + m[9]!,
          x * m[1]! + y * m[4]! + z * m[7]! + m[10]!,
          x * m[2]! + y * m[5]! + z * m[8]! + m[11]!,
          () => `3MF ${model.path}: vertex ${i} of object ${objectId}`,
        )
      }
      const t = obj.triangles
      for (let i = 0; i < obj.triangleCount * 3; i += 3) out.push3(map[t[i]!]!, map[t[i + 1]!]!, map[t[i + 2]!]!)
    }
    for (const c of obj.components) {
      const target = c.path !== undefined ? load(c.path) : model
      emit(target, c.objectId, compose(c.transform, transform), depth + 1)
    }
    active.delete(key)
  }

  if (root.items.length === 0) throw new MeshError(`3MF ${root.path}: the build has no items`)
  const expanded = new Map<string, number>()
  const counting = new Set<string>()
  /** Triangles an object stands for with its components, capped just above the limit. */
  const count = (model: Model, objectId: string, depth: number): number => {
    const key = `${model.path}#${objectId}`
    const known = expanded.get(key)
    if (known !== undefined) return known
    const obj = model.objects.get(objectId)
    if (!obj) throw new MeshError(`3MF ${model.path}: object ${objectId} is referenced but not defined`)
    if (counting.has(key) || depth > 64)
      throw new MeshError(`3MF ${model.path}: object ${objectId} contains itself through its components`)
    counting.add(key)
    let n = obj.triangleCount
    for (const c of obj.components) {
      if (n > maxTriangles) break
      n += count(c.path !== undefined ? load(c.path) : model, c.objectId, depth + 1)
    }
    counting.delete(key)
    n = Math.min(n, maxTriangles + 1)
    expanded.set(key, n)
    return n
  }
  let total = 0
  for (const item of root.items) {
    total += count(item.path !== undefined ? load(item.path) : root, item.objectId, 0)
    if (total > maxTriangles)
      throw overLimit(
        `3MF ${root.path}: the build expands to more than ${maxTriangles} triangles through repeated components`,
        '--max-triangles',
      )
  }
  for (const item of root.items) {
    const first = out.length / 3
    const model = item.path !== undefined ? load(item.path) : root
    emit(model, item.objectId, item.transform, 0)
    const o: MeshObject = {firstTriangle: first, triangleCount: out.length / 3 - first}
    const name = model.objects.get(item.objectId)?.name
    if (name !== undefined) o.name = name
    objects.push(o)
  }
  if (out.length === 0)
    throw new MeshError(
      skipped > 0
        ? `3MF ${root.path}: the build holds no object of type model, only support, surface or other objects, which are not the part`
        : `3MF ${root.path}: the build items hold no triangles`,
    )
  const positions = welder.positions()
  if (scale !== 1) for (let i = 0; i < positions.length; i++) positions[i] = positions[i]! * scale
  return {
    format: '3mf',
    positions,
    triangles: out.toArray(),
    vertexCount: welder.count,
    triangleCount: out.length / 3,
    objects,
  }
}
