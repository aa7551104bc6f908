// The reference part files the tests measure (test/fixtures/meshes, README there), and
// the one too big to commit: torus-100k.stl, made on first use by the benchmarks'
// torus writer (500 × 100 quads, R 40, r 15 mm: the same solid to float32 precision).
import {existsSync, mkdirSync, renameSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

import {writeTorus} from '../../bench/mesh-lib.js'

export const MESHES = resolve(import.meta.dirname, '../fixtures/meshes')

const GENERATED: Record<string, (file: string) => void> = {
  'torus-100k.stl': (file) => writeTorus(file, 500, 100, 40, 15),
}

/** The path of a reference mesh, generating it first when it is one of the generated ones. */
export function meshPath(name: string): string {
  const make = GENERATED[name]
  if (!make) return join(MESHES, name)
  const dir = join(tmpdir(), 'mfg-test-meshes')
  const file = join(dir, name)
  if (!existsSync(file)) {
    mkdirSync(dir, {recursive: true})
    // Written aside and renamed, so that parallel test files never read half a file.
    const part = `${file}.${process.pid}.part`
    make(part)
    renameSync(part, file)
  }
  return file
}
