import type {Mesh} from './types.js'

// Print estimate for FDM: how much plastic a slicer extrudes and how long it takes.
// The model and its calibration against PrusaSlicer 2.5 are in docs/mesh.md; the
// constants below were fitted there (0.3 mm layers, 20 % infill, 3 perimeters, 3 top and
// 3 bottom layers, 0.4 mm nozzle) and scale with the layer height and infill given.

/** mm³ of 1.75 mm filament per mm of length (π · 0.875²). */
export const FILAMENT_MM3_PER_MM = 2.405

/** Effective wall (perimeter) thickness, mm. */
export const WALL_THICKNESS = 1.09
/** Effective top + bottom skin thickness per unit of horizontal area at 0.3 mm layers, mm. */
export const SKIN_THICKNESS = 0.77
/** Extruded / nominal volume (extrusion overlap). */
export const FLOW = 0.99
/** Interior cross-sections smaller than this (mm²) are filled solid (PrusaSlicer solid_infill_below_area). */
export const SOLID_BELOW_AREA = 70
/** One skirt loop, 6 mm out, on the first layer: mm³ per mm of loop. */
export const SKIRT_MM3_PER_MM = 0.45 * 0.35
export const SKIRT_DISTANCE = 6

// The time model splits the part its own way (docs/mesh.md, "Print hours"): only faces
// within 60° of horizontal (|nz| ≥ 0.5) make top and bottom skin; steeper ones are printed
// as perimeters that step out layer by layer. Fitted against PrusaSlicer 2.5.0 on the 17
// reference parts (test/fixtures/prusa/reference.json).

/** Faces with |nz| at least this make solid skin in the time model. */
export const SKIN_MIN_NZ = 0.5
/** Time model: effective wall thickness, mm, and skin thickness per unit of skin area at 0.3 mm layers, mm. */
export const TIME_WALL_THICKNESS = 1.4
export const TIME_SKIN_THICKNESS = 0.4
/** Seconds per mm³ of walls, of solid skin and infill, of sparse infill; seconds per layer. */
export const SECONDS_PER_MM3_WALL = 0.249
export const SECONDS_PER_MM3_SOLID = 0.874
export const SECONDS_PER_MM3_SPARSE = 0.031
export const SECONDS_PER_LAYER = 0.528

export interface PrintInput {
  volume: number
  area: number
  /** Σ area·|nz|. */
  areaHorizontal: number
  /** Σ area·√(nx²+ny²). */
  areaVertical: number
  width: number
  depth: number
  height: number
  layers: number
  layerHeight: number
  infill: number
  /** Bodies (default 1): the solid-infill rule looks at one body's mean section. */
  parts?: number
  /** Σ area·|nz| over the faces with |nz| ≥ SKIN_MIN_NZ (skinArea); default areaHorizontal. */
  areaSkin?: number
}

export interface PrintEstimate {
  /** mm³ of plastic laid down: walls, skins, infill and skirt. */
  extrudedVolume: number
  /** mm of 1.75 mm filament. */
  filamentLength: number
  hours: number
}

/** Σ area·|nz| over the faces with |nz| ≥ minNz (SKIN_MIN_NZ): the area the time model prints as solid skin. */
export function skinArea(mesh: Mesh, minNz = SKIN_MIN_NZ): number {
  const p = mesh.positions
  const t = mesh.triangles
  let sum = 0
  for (let i = 0; i < mesh.triangleCount; i++) {
    const a = 3 * t[3 * i]!
    const b = 3 * t[3 * i + 1]!
    const c = 3 * t[3 * i + 2]!
    const ux = p[b]! - p[a]!
    const uy = p[b + 1]! - p[a + 1]!
    const uz = p[b + 2]! - p[a + 2]!
    const vx = p[c]! - p[a]!
    const vy = p[c + 1]! - p[a + 1]!
    const vz = p[c + 2]! - p[a + 2]!
    const nx = uy * vz - uz * vy
    const ny = uz * vx - ux * vz
    const nz = Math.abs(ux * vy - uy * vx)
    // |n| = 2 · area; the face counts when nz / |n| ≥ minNz.
    if (nz > 0 && nz * nz >= minNz * minNz * (nx * nx + ny * ny + nz * nz)) sum += nz
  }
  return sum / 2
}

/** Split of the volume into walls, skins, solid and sparse core, mm³ (thin parts are all shell); the fit (test/mesh/calibrate-print.ts) uses it too. */
export function splitVolume(i: PrintInput, wallThickness: number, skinThickness: number, skinArea: number) {
  let walls = wallThickness * i.areaVertical
  let skins = skinThickness * (i.layerHeight / 0.3) * skinArea
  const shell = walls + skins
  if (shell > i.volume) {
    walls *= i.volume / shell
    skins *= i.volume / shell
  }
  const core = i.volume - walls - skins
  // Mean interior cross-section of one body: the mean section less a wall band along the
  // mean outline, shared among the bodies (two small cubes are filled like one small cube).
  const interior = (i.volume / i.height - (i.areaVertical / i.height) * wallThickness) / Math.max(1, i.parts ?? 1)
  const solidCore = interior < SOLID_BELOW_AREA ? core : 0
  const sparse = solidCore > 0 ? 0 : core * i.infill
  return {walls, skins, solidCore, sparse}
}

export function estimatePrint(i: PrintInput): PrintEstimate {
  if (!(i.volume > 0) || !(i.height > 0)) return {extrudedVolume: 0, filamentLength: 0, hours: 0}
  const m = splitVolume(i, WALL_THICKNESS, SKIN_THICKNESS, i.areaHorizontal)
  const skirt = (2 * (i.width + i.depth) + 2 * Math.PI * SKIRT_DISTANCE) * SKIRT_MM3_PER_MM
  const extrudedVolume = FLOW * (m.walls + m.skins + m.solidCore + m.sparse) + skirt
  const t = splitVolume(i, TIME_WALL_THICKNESS, TIME_SKIN_THICKNESS, i.areaSkin ?? i.areaHorizontal)
  const seconds =
    SECONDS_PER_MM3_WALL * t.walls +
    SECONDS_PER_MM3_SOLID * (t.skins + t.solidCore) +
    SECONDS_PER_MM3_SPARSE * t.sparse +
    SECONDS_PER_LAYER * i.layers
  return {extrudedVolume, filamentLength: extrudedVolume / FILAMENT_MM3_PER_MM, hours: seconds / 3600}
}
