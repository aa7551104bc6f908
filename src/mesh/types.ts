/** The formats the readers understand. */
export type MeshFormat = 'stl-binary' | 'stl-ascii' | 'obj' | '3mf'

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
}
