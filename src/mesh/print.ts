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

/** Seconds per mm³ of walls, of solid skin and infill, of sparse infill; seconds per layer. */
export const SECONDS_PER_MM3_WALL = 0.235
export const SECONDS_PER_MM3_SOLID = 0.435
export const SECONDS_PER_MM3_SPARSE = 0.024
export const SECONDS_PER_LAYER = 3.5

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
}

export interface PrintEstimate {
  /** mm³ of plastic laid down: walls, skins, infill and skirt. */
  extrudedVolume: number
  /** mm of 1.75 mm filament. */
  filamentLength: number
  hours: number
}

export function estimatePrint(i: PrintInput): PrintEstimate {
  if (!(i.volume > 0) || !(i.height > 0)) return {extrudedVolume: 0, filamentLength: 0, hours: 0}
  let walls = WALL_THICKNESS * i.areaVertical
  let skins = SKIN_THICKNESS * (i.layerHeight / 0.3) * i.areaHorizontal
  // Thin parts are all shell.
  const shell = walls + skins
  if (shell > i.volume) {
    walls *= i.volume / shell
    skins *= i.volume / shell
  }
  const core = i.volume - walls - skins
  // Mean interior cross-section of one body: the mean section less a wall band along the
  // mean outline, shared among the bodies (two small cubes are filled like one small cube).
  const interior = (i.volume / i.height - (i.areaVertical / i.height) * WALL_THICKNESS) / Math.max(1, i.parts ?? 1)
  const solidCore = interior < SOLID_BELOW_AREA ? core : 0
  const sparse = solidCore > 0 ? 0 : core * i.infill
  const skirt = (2 * (i.width + i.depth) + 2 * Math.PI * SKIRT_DISTANCE) * SKIRT_MM3_PER_MM
  const extrudedVolume = FLOW * (walls + skins + solidCore + sparse) + skirt
  const seconds =
    FLOW *
      (SECONDS_PER_MM3_WALL * walls + SECONDS_PER_MM3_SOLID * (skins + solidCore) + SECONDS_PER_MM3_SPARSE * sparse) +
    SECONDS_PER_LAYER * i.layers
  return {extrudedVolume, filamentLength: extrudedVolume / FILAMENT_MM3_PER_MM, hours: seconds / 3600}
}
