import type {IDxf, IEntity, IPoint} from 'dxf-parser'

import {ReaderChild} from './child.js'
import {MeshError} from './errors.js'
import {overLimit} from './limits.js'
import type {Box2, LengthUnit, ReadLimits, SheetMeasurement} from './types.js'

// DXF flat patterns (sheet metal): dxf-parser reads the file; this module turns its
// entities into contours and measures them. A contour is a list of segments, each a
// straight line or a circular arc (a bulge, as in LWPOLYLINE), so lengths and areas of
// lines, arcs and circles are exact; splines and ellipses become short lines.
// The rules (what counts as a bend line, how pierces are counted) are in docs/mesh.md.

/** One straight (bulge 0) or circular-arc segment: bulge = tan(sweep / 4), positive counter-clockwise. */
interface Segment {
  x1: number
  y1: number
  x2: number
  y2: number
  bulge: number
}

/** $INSUNITS code → mm; 0 (unitless) uses the caller's unit. */
const INSUNITS: Record<number, [string, number]> = {
  1: ['in', 25.4],
  2: ['ft', 304.8],
  4: ['mm', 1],
  5: ['cm', 10],
  6: ['m', 1000],
  8: ['µin', 25.4e-6],
  9: ['mil', 0.0254],
  10: ['yd', 914.4],
  13: ['µm', 0.001],
  14: ['dm', 100],
}
const CALLER_UNITS: Record<LengthUnit, number> = {mm: 1, cm: 10, in: 25.4}

/** Entities that are drawing, not cutting: text, dimensions, hatches, points, images. */
const NOT_CUT = new Set([
  'TEXT',
  'MTEXT',
  'DIMENSION',
  'HATCH',
  'POINT',
  'ATTDEF',
  'ATTRIB',
  'SOLID',
  '3DFACE',
  'VIEWPORT',
])

/** Segments a spline or ellipse is cut into, per full turn or per span. */
const CURVE_STEPS = 64

/** Lines a long spline is cut into at 8 per control point, before it gets one per point. */
const SPLINE_STEPS = 65_536

/** A bend line is on a layer whose name contains BEND, or drawn in a dashed linetype (DASH..., HIDDEN...). */
export function isBendEntity(layer: string | undefined, lineType: string | undefined): boolean {
  return /bend/i.test(layer ?? '') || /dash|hidden/i.test(lineType ?? '')
}

/** Where the line starting at `from` ends, and where the next one starts (a break is CR LF, CR or LF). */
function lineAt(text: string, from: number): [end: number, next: number] {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 10) return [i, i + 1]
    if (c === 13) return [i, text.charCodeAt(i + 1) === 10 ? i + 2 : i + 1]
  }
  return [text.length, text.length + 1]
}

/** The number of lines, as splitting at every break would give. */
function countLines(text: string): number {
  let n = 1
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) n++
  }
  return n
}

/** The trimmed value of the pair that starts at `from` (the name after SECTION, the value after $INSUNITS). */
function valueOfPairAt(text: string, from: number): string | undefined {
  const [, value] = lineAt(text, from)
  if (value > text.length) return undefined
  const [end] = lineAt(text, value)
  return text.slice(value, end).trim()
}

/**
 * Walks the group-code pairs once before dxf-parser sees them, and hands it only the
 * BLOCKS and ENTITIES sections (the only ones measured): its table readers loop for ever
 * on some malformed tables, and it trusts counts and sequences that a hostile file can
 * break. Here the entities are counted (refused over the limit), each LWPOLYLINE's vertex
 * count (group code 90) is checked against the lines left, each POLYLINE must run through
 * VERTEX entities to a SEQEND, and $INSUNITS is read from the HEADER. The text is walked
 * in place, a line at a time (an array of its 2 million lines would take 100 MB), and the
 * sections kept are slices of it.
 */
function precheck(text: string, maxEntities: number): {insunits: number; kept: string} {
  const lineCount = countLines(text)
  const kept: string[] = []
  let keptFrom = -1
  let entities = 0
  let type = ''
  let section = ''
  let inPolyline = false
  let insunits = 0
  // The LWPOLYLINE being read: where it starts, the vertices it declares (code 90) and gives (code 10).
  let lwStart = 0
  let declared = 0
  let given = 0
  const fail = (i: number, what: string): never => {
    throw new MeshError(`DXF line ${i + 1}: ${what}`)
  }
  let at = 0
  for (let i = 0; i + 1 < lineCount; i += 2) {
    const pairStart = at
    const [codeEnd, valueStart] = lineAt(text, at)
    const [valueEnd, next] = lineAt(text, valueStart)
    at = next
    const code = text.slice(pairStart, codeEnd).trim()
    const value = text.slice(valueStart, valueEnd).trim()
    // Every other line is a group code, a whole number (DXF's codes run from 0 to 1071);
    // dxf-parser loops for ever on one that is not.
    if (!/^\d{1,4}$/.test(code))
      fail(i, `a group code is expected, a whole number; found ${JSON.stringify(code.slice(0, 20))}`)
    if (code === '0') {
      // An LWPOLYLINE must give the vertices it declares: dxf-parser loops for ever on one that gives fewer.
      if (type === 'LWPOLYLINE' && declared !== given)
        fail(lwStart, `an LWPOLYLINE declares ${declared} vertices and gives ${given}`)
      declared = 0
      given = 0
      lwStart = i
      if (value === 'SECTION') {
        section = valueOfPairAt(text, next) ?? ''
        if (section === 'BLOCKS' || section === 'ENTITIES') keptFrom = pairStart
      }
      if (inPolyline && value !== 'VERTEX' && value !== 'SEQEND')
        fail(i, `a POLYLINE is followed by ${value.slice(0, 20)}, not by its VERTEX entities and SEQEND`)
      if (value === 'SEQEND') inPolyline = false
      if (value === 'POLYLINE') inPolyline = true
      type = value
      if (++entities > maxEntities)
        throw overLimit(`DXF file holds more than ${maxEntities} entities`, '--max-entities')
    } else if (code === '10' && type === 'LWPOLYLINE') {
      given++
    } else if (code === '90' && type === 'LWPOLYLINE') {
      const n = Number(value)
      declared = n
      const room = (lineCount - i) / 4
      if (!Number.isInteger(n) || n < 0 || n > room)
        fail(
          i,
          `an LWPOLYLINE declares ${value.slice(0, 20)} vertices; the file has room for at most ${Math.floor(room)}`,
        )
    } else if (code === '9' && value === '$INSUNITS' && section === 'HEADER') {
      insunits = Number(valueOfPairAt(text, next))
      if (!Number.isInteger(insunits)) fail(i + 2, '$INSUNITS is not a whole number')
    }
    if (code === '0' && value === 'ENDSEC') {
      if (keptFrom >= 0) kept.push(text.slice(keptFrom, Math.min(next, text.length)))
      keptFrom = -1
      section = ''
    }
  }
  if (inPolyline) throw new MeshError('DXF file ends inside a POLYLINE (no SEQEND)')
  if (keptFrom >= 0) kept.push(text.slice(keptFrom, Math.min(at, text.length)))
  kept.push('0\nEOF\n')
  return {insunits, kept: kept.map((k) => (/[\r\n]$/.test(k) ? k : `${k}\n`)).join('')}
}

function segLength(s: Segment): number {
  const chord = Math.hypot(s.x2 - s.x1, s.y2 - s.y1)
  if (s.bulge === 0 || chord === 0) return chord
  const sweep = 4 * Math.atan(Math.abs(s.bulge))
  return (chord / (2 * Math.sin(sweep / 2))) * sweep
}

/** Twice the signed area the segment adds to a contour's shoelace sum, arc bulge included. */
function segArea2(s: Segment): number {
  let a = s.x1 * s.y2 - s.x2 * s.y1
  if (s.bulge !== 0) {
    const chord = Math.hypot(s.x2 - s.x1, s.y2 - s.y1)
    const sweep = 4 * Math.atan(Math.abs(s.bulge))
    const r = chord / (2 * Math.sin(sweep / 2))
    a += Math.sign(s.bulge) * r * r * (sweep - Math.sin(sweep))
  }
  return a
}

/** Points along the segment (the end excluded), for containment tests and bounds. */
function segPoints(s: Segment, out: number[]): void {
  out.push(s.x1, s.y1)
  if (s.bulge === 0) return
  const sweep = 4 * Math.atan(s.bulge)
  const chord = Math.hypot(s.x2 - s.x1, s.y2 - s.y1)
  if (chord === 0) return
  const r = chord / (2 * Math.sin(Math.abs(sweep) / 2))
  // Centre: from the chord's midpoint along its normal.
  const mx = (s.x1 + s.x2) / 2
  const my = (s.y1 + s.y2) / 2
  const h = r * Math.cos(sweep / 2) * Math.sign(s.bulge)
  const cx = mx - ((s.y2 - s.y1) / chord) * h
  const cy = my + ((s.x2 - s.x1) / chord) * h
  const a0 = Math.atan2(s.y1 - cy, s.x1 - cx)
  const steps = Math.max(2, Math.ceil((Math.abs(sweep) / (2 * Math.PI)) * CURVE_STEPS))
  for (let i = 1; i < steps; i++) {
    const a = a0 + (sweep * i) / steps
    out.push(cx + r * Math.cos(a), cy + r * Math.sin(a))
  }
}

/** The counter-clockwise sweep from a0 to a1 in (0, 2π]; equal angles are a full turn. */
function sweepOf(a0: number, a1: number): number {
  const turn = 2 * Math.PI
  const sweep = (((a1 - a0) % turn) + turn) % turn
  return sweep < 1e-12 ? turn : sweep
}

function arcSegment(cx: number, cy: number, r: number, a0: number, a1: number): Segment {
  const sweep = sweepOf(a0, a1)
  return {
    x1: cx + r * Math.cos(a0),
    y1: cy + r * Math.sin(a0),
    x2: cx + r * Math.cos(a0 + sweep),
    y2: cy + r * Math.sin(a0 + sweep),
    bulge: Math.tan(sweep / 4),
  }
}

/** A full circle as two half arcs. */
function circleSegments(cx: number, cy: number, r: number): Segment[] {
  return [
    {x1: cx + r, y1: cy, x2: cx - r, y2: cy, bulge: 1},
    {x1: cx - r, y1: cy, x2: cx + r, y2: cy, bulge: 1},
  ]
}

function polyline(points: {x: number; y: number}[]): Segment[] {
  const out: Segment[] = []
  for (let i = 0; i + 1 < points.length; i++)
    out.push({x1: points[i]!.x, y1: points[i]!.y, x2: points[i + 1]!.x, y2: points[i + 1]!.y, bulge: 0})
  return out
}

/** De Boor evaluation of a (non-rational) B-spline at t, in the knot span k (knots[k] <= t < knots[k + 1]). */
function deBoor(degree: number, knots: number[], ctrl: IPoint[], t: number, k: number): {x: number; y: number} {
  const n = ctrl.length
  const d = []
  for (let j = 0; j <= degree; j++) {
    const p = ctrl[Math.min(n - 1, Math.max(0, j + k - degree))]!
    d.push({x: p.x, y: p.y})
  }
  for (let r = 1; r <= degree; r++) {
    for (let j = degree; j >= r; j--) {
      const i = j + k - degree
      const den = knots[i + degree - r + 1]! - knots[i]!
      const alpha = den === 0 ? 0 : (t - knots[i]!) / den
      d[j] = {x: (1 - alpha) * d[j - 1]!.x + alpha * d[j]!.x, y: (1 - alpha) * d[j - 1]!.y + alpha * d[j]!.y}
    }
  }
  return d[degree]!
}

interface SplineLike {
  controlPoints?: IPoint[]
  fitPoints?: IPoint[]
  knotValues?: number[]
  degreeOfSplineCurve?: number
  closed?: boolean
}

function splineSegments(e: SplineLike): Segment[] {
  const ctrl = e.controlPoints ?? []
  const degree = e.degreeOfSplineCurve ?? 3
  const knots = e.knotValues ?? []
  if (ctrl.length > degree && knots.length === ctrl.length + degree + 1) {
    const t0 = knots[degree]!
    const t1 = knots[ctrl.length]!
    // 8 lines per control point, up to SPLINE_STEPS; one more per point beyond (a spline of
    // 400 000 points would otherwise be 3.2 million lines).
    const steps = Math.max(8, Math.min(ctrl.length * 8, SPLINE_STEPS + ctrl.length))
    const pts = []
    // The parameter only grows, so the knot span is found by walking on from the last one.
    let k = degree
    for (let i = 0; i <= steps; i++) {
      const t = t0 + ((t1 - t0) * i) / steps
      while (k < ctrl.length - 1 && t >= knots[k + 1]!) k++
      pts.push(deBoor(degree, knots, ctrl, t, k))
    }
    return polyline(pts)
  }
  const fit = e.fitPoints ?? ctrl
  return polyline(fit)
}

interface EllipseLike {
  center: IPoint
  majorAxisEndPoint: IPoint
  axisRatio: number
  startAngle?: number
  endAngle?: number
}

function ellipseSegments(e: EllipseLike): Segment[] {
  const {center: c, majorAxisEndPoint: m, axisRatio} = e
  const s = e.startAngle ?? 0
  const t = s + sweepOf(s, e.endAngle ?? s)
  const steps = Math.max(8, Math.ceil(((t - s) / (2 * Math.PI)) * CURVE_STEPS * 4))
  const pts = []
  for (let i = 0; i <= steps; i++) {
    const a = s + ((t - s) * i) / steps
    const u = Math.cos(a)
    const v = Math.sin(a) * axisRatio
    pts.push({x: c.x + m.x * u - m.y * v, y: c.y + m.y * u + m.x * v})
  }
  return polyline(pts)
}

/** x' = a·x + c·y + e, y' = b·x + d·y + f. */
type Affine = [number, number, number, number, number, number]
const IDENTITY: Affine = [1, 0, 0, 1, 0, 0]

function then(inner: Affine, outer: Affine): Affine {
  const [a, b, c, d, e, f] = inner
  const [A, B, C, D, E, F] = outer
  return [A * a + C * b, B * a + D * b, A * c + C * d, B * c + D * d, A * e + C * f + E, B * e + D * f + F]
}

function transform(segs: Segment[], m: Affine): Segment[] {
  if (m === IDENTITY) return segs
  const [a, b, c, d, e, f] = m
  const det = a * d - b * c
  // Arcs stay arcs under rotation, mirroring and uniform scale; anything else turns them into lines.
  const similar = Math.abs(a - d) < 1e-12 * (1 + Math.abs(a)) && Math.abs(b + c) < 1e-12 * (1 + Math.abs(b))
  const mirrored = Math.abs(a + d) < 1e-12 * (1 + Math.abs(a)) && Math.abs(b - c) < 1e-12 * (1 + Math.abs(b))
  const keepArcs = similar || mirrored
  const map = (x: number, y: number) => ({x: a * x + c * y + e, y: b * x + d * y + f})
  const out: Segment[] = []
  for (const s of segs) {
    if (s.bulge === 0 || keepArcs) {
      const p = map(s.x1, s.y1)
      const q = map(s.x2, s.y2)
      out.push({x1: p.x, y1: p.y, x2: q.x, y2: q.y, bulge: det < 0 ? -s.bulge : s.bulge})
    } else {
      const pts: number[] = []
      segPoints(s, pts)
      pts.push(s.x2, s.y2)
      const mapped = []
      for (let i = 0; i < pts.length; i += 2) mapped.push(map(pts[i]!, pts[i + 1]!))
      out.push(...polyline(mapped))
    }
  }
  return out
}

interface Piece {
  segs: Segment[]
  closed: boolean
  bend: boolean
}

type Vertex = IPoint & {bulge?: number}

/** A MeshError for an entity field that is missing or not a number. */
function badField(e: IEntity, field: string): MeshError {
  return new MeshError(`DXF ${e.type} entity on layer ${JSON.stringify(e.layer ?? '0')} has a missing or bad ${field}`)
}

function numberOf(e: IEntity, field: string, fallback?: number): number {
  const v = (e as unknown as Record<string, unknown>)[field] ?? fallback
  if (typeof v !== 'number' || !Number.isFinite(v)) throw badField(e, field)
  return v
}

function pointOf(e: IEntity, p: unknown, field: string): IPoint {
  const q = p as Partial<IPoint> | undefined
  if (!q || typeof q.x !== 'number' || typeof q.y !== 'number' || !Number.isFinite(q.x) || !Number.isFinite(q.y))
    throw badField(e, field)
  return {x: q.x, y: q.y, z: 0}
}

function pointsOf(e: IEntity, list: unknown, field: string): IPoint[] {
  return Array.isArray(list) ? list.map((p) => pointOf(e, p, field)) : []
}

/** The segments of one entity (not INSERT), or undefined when it cuts nothing. */
function entityPiece(e: IEntity): {segs: Segment[]; closed: boolean} | undefined {
  const any = e as unknown as Record<string, unknown>
  switch (e.type) {
    case 'LINE': {
      const v = pointsOf(e, any.vertices, 'end point')
      if (v.length < 2) throw badField(e, 'end point')
      return {segs: polyline([v[0]!, v[1]!]), closed: false}
    }
    case 'LWPOLYLINE':
    case 'POLYLINE': {
      if (any.is3dPolygonMesh || any.isPolyfaceMesh) return undefined
      const raw = Array.isArray(any.vertices) ? (any.vertices as Vertex[]) : []
      const v = raw.map((p) => ({...pointOf(e, p, 'vertex'), bulge: Number(p.bulge ?? 0) || 0}))
      const closed = Boolean(any.shape)
      const segs: Segment[] = []
      const n = v.length
      for (let i = 0; i < (closed ? n : n - 1); i++) {
        const p = v[i]!
        const q = v[(i + 1) % n]!
        segs.push({x1: p.x, y1: p.y, x2: q.x, y2: q.y, bulge: p.bulge})
      }
      return segs.length > 0 ? {segs, closed: closed && n > 2} : undefined
    }
    case 'ARC': {
      const c = pointOf(e, any.center, 'centre')
      const r = numberOf(e, 'radius')
      const a0 = numberOf(e, 'startAngle', 0)
      const a1 = numberOf(e, 'endAngle', 2 * Math.PI)
      if (sweepOf(a0, a1) === 2 * Math.PI) return {segs: circleSegments(c.x, c.y, r), closed: true}
      return {
        segs: [arcSegment(c.x, c.y, r, numberOf(e, 'startAngle', 0), numberOf(e, 'endAngle', 2 * Math.PI))],
        closed: false,
      }
    }
    case 'CIRCLE': {
      const c = pointOf(e, any.center, 'centre')
      return {segs: circleSegments(c.x, c.y, numberOf(e, 'radius')), closed: true}
    }
    case 'SPLINE': {
      const spline: SplineLike = {
        controlPoints: pointsOf(e, any.controlPoints, 'control point'),
        fitPoints: pointsOf(e, any.fitPoints, 'fit point'),
        knotValues: Array.isArray(any.knotValues) ? (any.knotValues as unknown[]).map(Number) : [],
        degreeOfSplineCurve: Math.min(10, Math.max(1, Math.trunc(numberOf(e, 'degreeOfSplineCurve', 3)))),
      }
      if (!spline.knotValues!.every(Number.isFinite)) throw badField(e, 'knot')
      const segs = splineSegments(spline)
      return segs.length > 0 ? {segs, closed: Boolean(any.closed)} : undefined
    }
    case 'ELLIPSE': {
      const s = numberOf(e, 'startAngle', 0)
      const t = numberOf(e, 'endAngle', 2 * Math.PI)
      const ellipse: EllipseLike = {
        center: pointOf(e, any.center, 'centre'),
        majorAxisEndPoint: pointOf(e, any.majorAxisEndPoint, 'major axis'),
        axisRatio: numberOf(e, 'axisRatio'),
        startAngle: s,
        endAngle: t,
      }
      return {segs: ellipseSegments(ellipse), closed: sweepOf(s, t) === 2 * Math.PI}
    }
    default:
      return undefined
  }
}

interface Collect {
  pieces: Piece[]
  entities: number
  maxEntities: number
}

function collect(dxf: Pick<IDxf, 'blocks'>, entities: IEntity[], m: Affine, depth: number, acc: Collect): void {
  for (const e of entities) {
    if (++acc.entities > acc.maxEntities)
      throw overLimit(`DXF file holds more than ${acc.maxEntities} entities (blocks expanded)`, '--max-entities')
    if (NOT_CUT.has(e.type) || e.inPaperSpace) continue
    if (e.type === 'INSERT') {
      const any = e as unknown as Record<string, unknown>
      const block = dxf.blocks?.[any.name as string]
      if (!block?.entities) continue
      if (depth >= 32) throw new MeshError(`DXF blocks nest more than 32 deep (block ${JSON.stringify(any.name)})`)
      const p = (any.position as IPoint | undefined) ?? {x: 0, y: 0, z: 0}
      const base = block.position ?? {x: 0, y: 0, z: 0}
      const sx = (any.xScale as number | undefined) ?? 1
      const sy = (any.yScale as number | undefined) ?? 1
      const r = (((any.rotation as number | undefined) ?? 0) * Math.PI) / 180
      const local: Affine = [sx * Math.cos(r), sx * Math.sin(r), -sy * Math.sin(r), sy * Math.cos(r), 0, 0]
      local[4] = p.x - (local[0] * base.x + local[2] * base.y)
      local[5] = p.y - (local[1] * base.x + local[3] * base.y)
      collect(dxf, block.entities, then(local, m), depth + 1, acc)
      continue
    }
    const piece = entityPiece(e)
    if (!piece) continue
    const segs = transform(piece.segs, m)
    for (const s of segs)
      if (![s.x1, s.y1, s.x2, s.y2, s.bulge].every(Number.isFinite))
        throw new MeshError(
          `DXF ${e.type} entity on layer ${JSON.stringify(e.layer ?? '0')} has a coordinate that is not a finite number`,
        )
    acc.pieces.push({segs, closed: piece.closed, bend: isBendEntity(e.layer, e.lineType)})
  }
}

const reverse = (segs: Segment[]): Segment[] =>
  segs.map((s) => ({x1: s.x2, y1: s.y2, x2: s.x1, y2: s.y1, bulge: -s.bulge})).reverse()

/**
 * Joins open pieces whose ends meet (within `tol`) into chains. A chain whose every
 * joint joins exactly two pieces and that comes back to its start is a closed contour;
 * any other connected group is one open chain.
 */
function chain(open: Segment[][], tol: number): {closed: Segment[][]; openChains: number} {
  const cells = new Map<string, number[]>()
  const ends: {x: number; y: number}[] = []
  const parent: number[] = []
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!
    return i
  }
  /** The node of a point: an existing one within tol, else a new one. */
  const node = (x: number, y: number): number => {
    const cx = Math.floor(x / tol)
    const cy = Math.floor(y / tol)
    for (let dx = -1; dx <= 1; dx++)
      for (let dy = -1; dy <= 1; dy++)
        for (const n of cells.get(`${cx + dx},${cy + dy}`) ?? [])
          if (Math.abs(ends[n]!.x - x) <= tol && Math.abs(ends[n]!.y - y) <= tol) return n
    const n = ends.length
    ends.push({x, y})
    parent.push(n)
    const key = `${cx},${cy}`
    const list = cells.get(key)
    if (list) list.push(n)
    else cells.set(key, [n])
    return n
  }
  const pieceEnds = open.map((segs) => {
    const a = node(segs[0]!.x1, segs[0]!.y1)
    const b = node(segs[segs.length - 1]!.x2, segs[segs.length - 1]!.y2)
    parent[find(a)] = find(b)
    return [a, b] as const
  })
  const degree = new Map<number, number>()
  for (const [a, b] of pieceEnds) {
    degree.set(a, (degree.get(a) ?? 0) + 1)
    degree.set(b, (degree.get(b) ?? 0) + 1)
  }
  const groups = new Map<number, number[]>()
  pieceEnds.forEach(([a], i) => {
    const g = find(a)
    const list = groups.get(g)
    if (list) list.push(i)
    else groups.set(g, [i])
  })
  const closed: Segment[][] = []
  let openChains = 0
  for (const members of groups.values()) {
    const cycle = members.every((i) => degree.get(pieceEnds[i]![0]) === 2 && degree.get(pieceEnds[i]![1]) === 2)
    if (!cycle) {
      openChains++
      continue
    }
    // Walk the cycle from its first piece, turning pieces around where they run backwards.
    const byNode = new Map<number, number[]>()
    for (const i of members)
      for (const n of pieceEnds[i]!) {
        const list = byNode.get(n)
        if (list) list.push(i)
        else byNode.set(n, [i])
      }
    const used = new Set<number>()
    const segs: Segment[] = []
    let i = members[0]!
    let at = pieceEnds[i]![0]
    while (!used.has(i)) {
      used.add(i)
      const [a, b] = pieceEnds[i]!
      segs.push(...(a === at ? open[i]! : reverse(open[i]!)))
      at = a === at ? b : a
      const nextPiece = byNode.get(at)!.find((j) => !used.has(j))
      if (nextPiece === undefined) break
      i = nextPiece
    }
    closed.push(segs)
  }
  return {closed, openChains}
}

/** Even-odd test of a point against a flattened contour. */
function inside(x: number, y: number, poly: number[]): boolean {
  let c = false
  for (let i = 0, j = poly.length - 2; i < poly.length; j = i, i += 2) {
    const yi = poly[i + 1]!
    const yj = poly[j + 1]!
    if (yi > y !== yj > y && x < ((poly[j]! - poly[i]!) * (y - yi)) / (yj - yi) + poly[i]!) c = !c
  }
  return c
}

/** Arc extremes included: the exact bounding box of the segments. */
function growBox(box: number[], s: Segment): void {
  const add = (x: number, y: number) => {
    if (x < box[0]!) box[0] = x
    if (y < box[1]!) box[1] = y
    if (x > box[2]!) box[2] = x
    if (y > box[3]!) box[3] = y
  }
  add(s.x1, s.y1)
  add(s.x2, s.y2)
  if (s.bulge === 0) return
  // The arc's centre and radius from two of its points and the sweep.
  const sweep = 4 * Math.atan(s.bulge)
  const chord = Math.hypot(s.x2 - s.x1, s.y2 - s.y1)
  if (chord === 0) return
  const r = chord / (2 * Math.sin(Math.abs(sweep) / 2))
  const h = r * Math.cos(sweep / 2) * Math.sign(s.bulge)
  const cx = (s.x1 + s.x2) / 2 - ((s.y2 - s.y1) / chord) * h
  const cy = (s.y1 + s.y2) / 2 + ((s.x2 - s.x1) / chord) * h
  const a0 = Math.atan2(s.y1 - cy, s.x1 - cx)
  for (let k = -8; k <= 8; k++) {
    const a = (k * Math.PI) / 2
    const t = (a - a0) / sweep
    if (t > 0 && t < 1) add(cx + r * Math.cos(a), cy + r * Math.sin(a))
  }
}

/** Work allowed for nesting tests (contour pairs × points) before the file is refused as implausible. */
const NESTING_BUDGET = 200_000_000

interface Contour {
  area: number
  poly: number[]
  box: number[]
}

function contourOf(segs: Segment[]): Contour {
  let a2 = 0
  const poly: number[] = []
  const box = [Infinity, Infinity, -Infinity, -Infinity]
  for (const s of segs) {
    a2 += segArea2(s)
    segPoints(s, poly)
    growBox(box, s)
  }
  return {area: Math.abs(a2) / 2, poly, box}
}

/** Area of material: each contour counts plus when an even number of others enclose it (an outline), minus when odd (a hole). */
function nestedArea(contours: Contour[]): {area: number; outlines: number; holes: number} {
  const sorted = [...contours].sort((p, q) => q.area - p.area)
  let work = 0
  let area = 0
  let outlines = 0
  let holes = 0
  sorted.forEach((c, i) => {
    let depth = 0
    const x = c.poly[0]!
    const y = c.poly[1]!
    for (let j = 0; j < i; j++) {
      const o = sorted[j]!
      if (
        o.area <= c.area ||
        c.box[0]! < o.box[0]! ||
        c.box[1]! < o.box[1]! ||
        c.box[2]! > o.box[2]! ||
        c.box[3]! > o.box[3]!
      )
        continue
      work += o.poly.length
      if (work > NESTING_BUDGET)
        throw new MeshError('DXF contours nest too densely to measure in bounded time (implausible for a flat pattern)')
      if (inside(x, y, o.poly)) depth++
    }
    if (depth % 2 === 0) {
      area += c.area
      outlines++
    } else {
      area -= c.area
      holes++
    }
  })
  return {area, outlines, holes}
}

// dxf-parser runs in a child process of its own (src/mesh/child.ts), bounded in time and
// memory: it loops for ever on some broken files that the precheck above does not catch,
// and its process grows to some 40 times the text it reads. A process rather than a worker
// thread (which starts about 30 ms sooner, measured: 74 against 104 ms to the first answer
// on plate.dxf): a worker's memory is the command's own, so its resident size cannot be
// watched apart, resourceLimits cap only its V8 heap, and what a big file took stays in the
// command's process while the file is measured; a process ended after such a file gives it
// all back. The child's V8 heap is capped under the memory limit too, so that the cap holds
// where resident memory is not watched. What it answers is the parsed BLOCKS and ENTITIES,
// measured here. Its console output (it reports odd group codes with console.log) goes
// nowhere: the child's stdio is closed.
const parser = new ReaderChild({
  reader: 'dxf-parser',
  module: 'dxf-parser',
  // About 45 MiB idle, 50 ms to start: kept for the next file unless this one grew it past 100 MiB.
  keepUnderMb: 100,
  // V8's old space is capped under the memory limit, so that it collects before the watch
  // on resident memory (which counts the young space and code too) ends the process.
  nodeFlags: (maxMb) => [`--max-old-space-size=${Math.max(16, Math.floor(maxMb * 0.75))}`],
  handler: `(mod) => {
  const Parser = mod.DxfParser || (typeof mod.default === 'function' ? mod.default : mod.default && mod.default.DxfParser) || mod
  return ({text}) => {
    const dxf = new Parser().parseSync(text)
    return dxf ? {entities: dxf.entities, blocks: dxf.blocks} : null
  }
}`,
})

/** Ends the dxf-parser process (a test or a long-running caller may; the next file starts a new one). */
export function stopDxfWorker(): Promise<void> {
  return parser.stop()
}

export interface DxfOptions {
  /** Unit when the file declares none ($INSUNITS 0 or absent). */
  unit?: LengthUnit
  thicknessMm?: number
}

/** Reads and measures a DXF flat pattern; throws MeshError naming what is wrong. */
export async function readDxf(
  bytes: Uint8Array,
  limits: Required<ReadLimits>,
  opts: DxfOptions = {},
): Promise<SheetMeasurement> {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 22)).toString('latin1')
  if (head.startsWith('AutoCAD Binary DXF'))
    throw new MeshError('binary DXF is not supported; save the flat pattern as ASCII DXF')
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  const {insunits, kept} = precheck(text, limits.maxEntities)
  const reply = await parser.run({text: kept}, limits, 'DXF file')
  if (reply.error !== undefined) throw new MeshError(`DXF file cannot be parsed: ${reply.error}`)
  const dxf = reply.answer as Pick<IDxf, 'entities' | 'blocks'> | null
  if (!dxf || !Array.isArray(dxf.entities)) throw new MeshError('DXF file has no ENTITIES section')
  const code = insunits
  let sourceUnit: string
  let scale: number
  if (code === 0) {
    sourceUnit = opts.unit ?? 'mm'
    scale = CALLER_UNITS[opts.unit ?? 'mm']
  } else {
    const known = INSUNITS[code]
    if (!known)
      throw new MeshError(
        `DXF $INSUNITS is ${code}, not a length unit this reader knows (${Object.keys(INSUNITS).join(', ')} or 0)`,
      )
    ;[sourceUnit, scale] = known
  }
  const acc: Collect = {pieces: [], entities: 0, maxEntities: limits.maxEntities}
  collect(dxf, dxf.entities, scale === 1 ? IDENTITY : [scale, 0, 0, scale, 0, 0], 0, acc)
  return measureSheet(acc, sourceUnit, opts.thicknessMm ?? null)
}

function measureSheet(acc: Collect, sourceUnit: string, thicknessMm: number | null): SheetMeasurement {
  const cut = acc.pieces.filter((p) => !p.bend)
  if (cut.length === 0)
    throw new MeshError(
      'DXF file holds no contour to cut (no LINE, ARC, CIRCLE, LWPOLYLINE, POLYLINE, SPLINE or ELLIPSE outside bend lines)',
    )
  let cutLength = 0
  const box = [Infinity, Infinity, -Infinity, -Infinity]
  for (const p of cut)
    for (const s of p.segs) {
      cutLength += segLength(s)
      growBox(box, s)
    }
  const extent = Math.max(box[2]! - box[0]!, box[3]! - box[1]!, 1e-9)
  const {closed, openChains} = chain(
    cut.filter((p) => !p.closed).map((p) => p.segs),
    Math.max(0.001, extent * 1e-6),
  )
  const contours = [...cut.filter((p) => p.closed).map((p) => p.segs), ...closed].map(contourOf)
  const {area, outlines, holes} = nestedArea(contours)
  let bendLength = 0
  const bends = acc.pieces.filter((p) => p.bend)
  for (const p of bends) for (const s of p.segs) bendLength += segLength(s)
  const bbox: Box2 = {
    minX: box[0]!,
    minY: box[1]!,
    maxX: box[2]!,
    maxY: box[3]!,
    width: box[2]! - box[0]!,
    height: box[3]! - box[1]!,
  }
  return {
    format: 'dxf',
    sourceUnit,
    areaMm2: area,
    cutLengthMm: cutLength,
    pierces: contours.length + openChains,
    bendLines: bends.length,
    bendLengthMm: bendLength,
    outlines,
    holes,
    openChains,
    entities: acc.entities,
    bbox,
    thicknessMm,
  }
}
