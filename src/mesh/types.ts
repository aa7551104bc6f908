/** The formats read into a triangle mesh: STEP and IGES are B-rep files tessellated by OpenCascade. */
export type MeshFormat = 'stl-binary' | 'stl-ascii' | 'obj' | '3mf' | 'step' | 'iges'

/** Every format a part file may be in: the mesh formats and DXF flat patterns (measured flat, as a sheet). */
export type PartFormat = MeshFormat | 'dxf'

/** One named object of a file (a 3MF build item); its triangles are a contiguous range. */
export interface MeshObject {
  name?: string
  firstTriangle: number
  triangleCount: number
}

/**
 * A triangle mesh in millimetres. Vertices are welded by exact coordinates, so two
 * triangles share an edge exactly when they share both vertex indices, and every
 * vertex is used by at least one triangle.
 *
 * The binary STL reader makes `positions` when first read and files what it learnt while
 * welding (the sums and edge counts of measureMesh) under the mesh: measureMesh uses them
 * while `positions` are unchanged (it checks) and `triangles` is the same array, whose
 * contents it trusts. To measure an edited mesh, give it a new `triangles` array.
 */
export interface Mesh {
  format: MeshFormat
  /** x, y, z per vertex, mm. */
  positions: Float64Array
  /** Three vertex indices per triangle. */
  triangles: Uint32Array
  vertexCount: number
  triangleCount: number
  /** The build items of a 3MF file; absent for STL and OBJ. */
  objects?: MeshObject[]
}

export type LengthUnit = 'mm' | 'cm' | 'in'

export interface ReadOptions {
  /** Used as a format hint only; the content decides. */
  fileName?: string
  /** The unit of an STL or OBJ file (they carry none); 3MF files declare their own. Default mm. */
  unit?: LengthUnit
  /** Raised limits for trusted files (3MF inflation ratio, triangles); the defaults stop hostile ones. */
  limits?: ReadLimits
}

/**
 * Where the readers stop on hostile or implausible files. Each limit has a default
 * (DEFAULT_LIMITS in limits.ts); a caller raises one for a file it trusts.
 */
export interface ReadLimits {
  /** Most triangles a mesh (after 3MF components are expanded, or after STEP/IGES tessellation) may have. */
  maxTriangles?: number
  /** Most uncompressed bytes per compressed byte a 3MF archive's model part may inflate by. */
  maxRatio?: number
  /** Most bytes a STEP or IGES file may have (it is handed whole to OpenCascade). */
  maxBrepBytes?: number
  /** Most entities (LINE, ARC, ...) a DXF file may hold, counted before parsing. */
  maxEntities?: number
  /** Most seconds the reader's own process (OpenCascade for STEP and IGES, dxf-parser for DXF) may spend on one file. */
  maxSeconds?: number
  /** Most resident memory, MiB, of that process while it reads one file (watched on Linux). */
  maxReaderMb?: number
}

/** A rectangle in the plane of a flat pattern, mm. */
export interface Box2 {
  minX: number
  minY: number
  maxX: number
  maxY: number
  /** maxX - minX. */
  width: number
  /** maxY - minY. */
  height: number
}

/**
 * What a DXF flat pattern measures, in mm. Every figure is of the part's outline as
 * drawn: a laser, plasma or water-jet cuts each contour once.
 */
export interface SheetMeasurement {
  format: 'dxf'
  /** The unit the file declares ($INSUNITS) or the caller's when it declares none; figures are converted to mm. */
  sourceUnit: string
  /** Outer closed contours minus the holes inside them, mm². */
  areaMm2: number
  /** Length of every cut contour (closed and open, bend lines excluded), mm. */
  cutLengthMm: number
  /** One per closed contour and one per separate open chain. */
  pierces: number
  /** Lines marked as bends (see docs/mesh.md for the rule). */
  bendLines: number
  /** Total length of the bend lines, mm. */
  bendLengthMm: number
  /** Closed contours: outer outlines and holes. */
  outlines: number
  holes: number
  /** Open chains that were cut but enclose nothing. */
  openChains: number
  /** Entities read from the file (cut and bend), after blocks are expanded. */
  entities: number
  /** Bounding box of the cut contours. */
  bbox: Box2
  /** The sheet thickness the caller gave (DXF carries none), mm; null when it gave none. */
  thicknessMm: number | null
}

export interface MeasureOptions {
  /** mm, default 0.3. */
  layerHeight?: number
  /** mm, default 0.35. */
  firstLayerHeight?: number
  /** g/cm³, default 1.24 (PLA). */
  density?: number
  /** Infill fraction 0..1, default 0.2. */
  infill?: number
  /** Compute the convex hull (default true). */
  hull?: boolean
}

/** The slicing figures in the service interface's names and types. */
export interface SlicingData {
  width: number
  height: number
  depth: number
  /** g/cm³. */
  density: number
  /** mm of 1.75 mm filament. */
  filament_length: number
  hours: number
  /** Axis-aligned bounding-box volume, mm³. */
  minimum_bounding_box: number
  /** Convex hull volume, mm³ (the bounding-box volume, an upper bound, when the hull was skipped). */
  convex_hull: number
  /** The bed footprint of the bounding box, width × depth, mm². */
  total_print_area: number
  number_of_layers: number
  /** Part volume, mm³, 3 decimals. */
  volume: string
  /** Printed (filament) weight, g, 2 decimals. */
  weight: string
}

export interface Measurement {
  format: MeshFormat
  triangles: number
  parts: number
  closed: boolean
  openEdges: number
  nonManifoldEdges: number
  /** X, Y and Z extents, mm. */
  width: number
  depth: number
  height: number
  /** |Σ signed tetrahedra|, mm³. */
  volume: number
  /** mm². */
  area: number
  /** mm³; null when `hull: false`. */
  convexHullVolume: number | null
  boundingBoxVolume: number
  slicingData: SlicingData
}

/**
 * A part file measured: a solid (mesh formats, STEP, IGES) or a flat pattern (DXF).
 * What src/mesh/index.ts's
 * `measurePart(file: Uint8Array | string, name?: string, opts?: MeasurePartOptions): Promise<PartMeasure>`
 * returns; `file` is the bytes or a path, `name` the file name whose extension is the
 * format hint (default: the path). It rejects with MeshError, whose message names the
 * file and says what is wrong or allowed.
 */
export type PartMeasure =
  | {kind: 'solid'; format: MeshFormat; measurement: Measurement}
  | {kind: 'sheet'; format: 'dxf'; sheet: SheetMeasurement}

/** What measurePart takes besides the file. */
export interface MeasurePartOptions extends MeasureOptions {
  /** The unit of a file that declares none (STL, OBJ; a DXF without $INSUNITS). Default mm. */
  unit?: LengthUnit
  /** Sheet thickness of a DXF flat pattern, mm (DXF carries none); copied to SheetMeasurement.thicknessMm. */
  thicknessMm?: number
  /** Raised limits for trusted files; the defaults stop hostile ones. */
  limits?: ReadLimits
  /**
   * Told, between the steps of a big file, how many of its bytes are done: while it is
   * loaded whole from disk ('reading'), then while it is read into a mesh and measured
   * ('measuring'; done is the total once the mesh is read). A binary STL given by path
   * is read and measured in one pass ('measuring' only).
   */
  onProgress?: (stage: 'reading' | 'measuring', done: number, total: number) => void
}
