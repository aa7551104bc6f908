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

/** A DXF of `n` LINEs side by side, a comb of open cuts. */
function combDxf(n: number): string {
  const out: string[] = ['0\nSECTION\n2\nENTITIES\n']
  for (let i = 0; i < n; i++) out.push(`0\nLINE\n8\n0\n10\n${i}\n20\n0\n11\n${i}\n21\n10\n`)
  out.push('0\nENDSEC\n0\nEOF\n')
  return out.join('')
}

/** One Error: line naming the file and the flag, nothing on stdout, no stack trace. */
function refused(r: {code: number; stdout: string; stderr: string}, file: string, what: RegExp): void {
  expect(r.code, r.stderr).toBe(2)
  expect(r.stdout).toBe('')
  const lines = r.stderr.trim().split('\n')
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(/^Error: /)
  expect(lines[0]).toContain(file)
  expect(lines[0]).toMatch(what)
  expect(r.stderr).not.toMatch(/\n\s+at /)
}

describe('the readers in their own processes, bounded in time and memory (built CLI)', () => {
  // 3.8 MB, 95 000 lines (under the default --max-entities): dxf-parser takes about 0.4 s
  // and 250 MiB over it on the machine these tests were written on.
  const big = join(dir, 'comb.dxf')
  writeFileSync(big, combDxf(95_000))

  it('a DXF on which dxf-parser loops for ever is stopped at --max-seconds: exit 2, one line, no stack', async () => {
    // An LWPOLYLINE vertex whose x (10) and y (20) are parted by a handle (5): it declares
    // and gives 2 vertices, so the precheck lets it through, and dxf-parser never returns.
    // (Found by mutating the seeded plate, the way test/fuzz/parts.test.ts does.)
    const file = join(dir, 'loop.dxf')
    const pairs = [
      ...['0', 'SECTION', '2', 'ENTITIES', '0', 'LWPOLYLINE', '8', '0', '90', '2', '70', '1'],
      ...['10', '0', '20', '0', '10', '5', '5', 'A', '20', '5', '0', 'ENDSEC', '0', 'EOF'],
    ]
    writeFileSync(file, `${pairs.join('\n')}\n`)
    const r = await mfg('price', 'measure', file, '--max-seconds', '1')
    refused(
      r,
      file,
      /DXF file takes dxf-parser more than 1 s to read; if the file is trusted, raise the limit with --max-seconds$/,
    )
  })

  it('a DXF that takes dxf-parser longer than --max-seconds exits 2 naming the limit and the flag', async () => {
    const r = await mfg('price', 'measure', big, '--max-seconds', '0.1')
    refused(
      r,
      big,
      /DXF file takes dxf-parser more than 0\.1 s to read; if the file is trusted, raise the limit with --max-seconds$/,
    )
  })

  it('a DXF that takes dxf-parser more memory than --max-reader-mb exits 2 naming the limit and the flag', async () => {
    const r = await mfg('price', 'measure', big, '--max-reader-mb', '120')
    refused(
      r,
      big,
      /DXF file takes dxf-parser more than 120 MiB of memory to read; if the file is trusted, raise the limit with --max-reader-mb$/,
    )
  })

  it('a STEP file that takes OpenCascade more memory than --max-reader-mb exits 2 naming the limit and the flag', async () => {
    // OpenCascade's WebAssembly alone takes about 100 MiB: any STEP file goes over 60.
    const r = await mfg('price', 'measure', 'examples/housing.step', '--max-reader-mb', '60')
    refused(
      r,
      'examples/housing.step',
      /STEP file takes OpenCascade more than 60 MiB of memory to read; if the file is trusted, raise the limit with --max-reader-mb$/,
    )
  })

  it('with the default memory limit the same DXF is read', async () => {
    // The time limit is raised: on a loaded machine reading it can take over the default 4 s.
    const r = await mfg('price', 'measure', big, '--json', '--max-seconds', '120')
    expect(r.code, r.stderr).toBe(0)
    const m = JSON.parse(r.stdout)
    expect(m.format).toBe('dxf')
    expect(m.openChains).toBe(95_000)
    expect(m.cutLengthMm).toBeCloseTo(950_000, 6)
  })
})
