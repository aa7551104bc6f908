// The part of occt-import-js (OpenCascade in WebAssembly) that src/mesh/brep.ts uses.
declare module 'occt-import-js' {
  interface OcctMesh {
    name?: string
    attributes: {position: {array: ArrayLike<number>}}
    index?: {array: ArrayLike<number>}
  }
  interface OcctResult {
    success: boolean
    meshes: OcctMesh[]
  }
  interface OcctParams {
    linearUnit?: 'millimeter' | 'centimeter' | 'meter' | 'inch' | 'foot'
    linearDeflectionType?: 'bounding_box_ratio' | 'absolute_value'
    linearDeflection?: number
    angularDeflection?: number
  }
  export interface Occt {
    ReadStepFile(content: Uint8Array, params: OcctParams | null): OcctResult
    ReadIgesFile(content: Uint8Array, params: OcctParams | null): OcctResult
  }
  const factory: (module?: {print?: (s: string) => void; printErr?: (s: string) => void}) => Promise<Occt>
  export default factory
}
