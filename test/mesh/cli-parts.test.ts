// `price measure` as the user runs it: the built CLI (bin/run.js over dist/), where
// occt-import-js stays in node_modules and its WebAssembly is found beside its script.
import {execFile} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {promisify} from 'node:util'

import {afterAll, describe, expect, it} from 'vitest'

const root = resolve(import.meta.dirname, '../..')
const dir = mkdtempSync(join(tmpdir(), 'mfg-cli-parts-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

async function mfg(...args: string[]): Promise<{code: number; stdout: string; stderr: string}> {
  try {
    const {stdout, stderr} = await promisify(execFile)(process.execPath, [join(root, 'bin/run.js'), ...args], {
      cwd: root,
      env: {...process.env, CI: 'true', MFG_HOME: dir},
    })
    return {code: 0, stdout, stderr}
  } catch (e) {
    const err = e as {code: number; stdout: string; stderr: string}
    return {code: err.code, stdout: err.stdout, stderr: err.stderr}
  }
}

describe('mfg price measure on STEP and DXF (built CLI)', () => {
  it('measures examples/housing.step: an 80 × 60 × 45 box', async () => {
    const r = await mfg('price', 'measure', 'examples/housing.step', '--json')
    expect(r.code, r.stderr).toBe(0)
    const m = JSON.parse(r.stdout)
    expect(m).toMatchObject({format: 'step', closed: true, width: 80, depth: 60, height: 45})
    expect(m.volume).toBeCloseTo(216_000, 3)
  })

  it('prints a DXF flat pattern as a sheet: area, cut length, pierces, bend lines, bbox', async () => {
    const r = await mfg('price', 'measure', 'examples/plate.dxf', '--thickness', '2')
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^format\s+dxf$/m)
    expect(r.stdout).toMatch(/^area mm²\s+4459\.469$/m)
    expect(r.stdout).toMatch(/^cut length mm\s+446\.265$/m)
    expect(r.stdout).toMatch(/^pierces\s+4$/m)
    expect(r.stdout).toMatch(/^bend lines\s+1 \(40\.000 mm\)$/m)
    expect(r.stdout).toMatch(/^bbox W×H mm\s+120\.0000 × 40\.0000/m)
    expect(r.stdout).toMatch(/^thickness mm\s+2\.000$/m)
    expect(r.stderr).toBe('')
  })

  it('an unknown format exits 2 with one line naming the file and the formats allowed', async () => {
    const file = join(dir, 'notes.step')
    writeFileSync(file, 'not a part')
    const r = await mfg('price', 'measure', file)
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr.trim()).toBe(
      `Error: ${file}: named as STEP but does not start with the ISO-10303-21 header; allowed: STL, OBJ, 3MF, STEP/STP, IGES/IGS or DXF`,
    )
  })
})
