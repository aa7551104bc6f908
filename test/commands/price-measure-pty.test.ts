// `price measure` of a big mesh on a real pseudo-terminal (test/helpers/pty.ts): the file
// takes a while, so a progress line is drawn on stderr while it is read and measured, and
// Ctrl-C typed meanwhile stops it (exit 130, "Interrupted.", no result) rather than being
// heard only once the result is printed. Piped, or with CI set, nothing but the result.
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {json, runBuiltCli} from '../helpers/cli.js'
import {inTerminal} from '../helpers/pty.js'

const CTRL_C = '\u0003'

/** A wavy open surface of `side` × `side` quads, two triangles each: corner (i, j) of the grid. */
function corner(i: number, j: number): [number, number, number] {
  return [i * 0.5, j * 0.5, Math.sin(i * 0.01) * Math.cos(j * 0.013) * 10]
}

/** The surface's triangles, each as its three corners. */
function* surface(side: number): Generator<[number, number, number][]> {
  for (let i = 0; i < side; i++)
    for (let j = 0; j < side; j++) {
      yield [corner(i, j), corner(i + 1, j), corner(i + 1, j + 1)]
      yield [corner(i, j), corner(i + 1, j + 1), corner(i, j + 1)]
    }
}

/** A binary STL of 2 × side² triangles, written from one Buffer. */
function writeBinary(file: string, side: number): void {
  const n = 2 * side * side
  const buf = Buffer.alloc(84 + 50 * n)
  buf.writeUInt32LE(n, 80)
  let o = 84
  for (const tri of surface(side)) {
    o += 12 // the normal, left 0: readers recompute it
    for (const p of tri) for (const c of p) o = buf.writeFloatLE(c, o)
    o += 2
  }
  writeFileSync(file, buf)
}

/** The same surface as an ASCII STL. */
function writeAscii(file: string, side: number): void {
  const facets = ['solid wavy\n']
  for (const tri of surface(side)) {
    const v = tri.map((p) => `   vertex ${p.map((c) => Math.fround(c)).join(' ')}\n`).join('')
    facets.push(` facet normal 0 0 0\n  outer loop\n${v}  endloop\n endfacet\n`)
  }
  facets.push('endsolid wavy\n')
  writeFileSync(file, facets.join(''))
}

let dir: string
const files: Record<string, string> = {}
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mfg-measure-pty-'))
  // Sizes that take the CLI about a second here: 1,000,000 triangles (50 MB) binary,
  // 125,000 (about 23 MB) as text, which reads many times slower a triangle.
  files.binary = join(dir, 'big-binary.stl')
  writeBinary(files.binary, 707)
  files.ascii = join(dir, 'big-ascii.stl')
  writeAscii(files.ascii, 250)
})
afterAll(() => rmSync(dir, {recursive: true, force: true}))

describe('price measure of a big mesh', () => {
  it.each(['binary', 'ascii'])(
    'on a terminal (%s STL): draws its progress, and Ctrl-C stops it with exit 130 and no result',
    async (kind) => {
      const file = files[kind]!
      const t = inTerminal(['price', 'measure', file, '--json'], {MFG_HOME: dir})
      // The bar, with the bytes measured so far of the file's size.
      await t.waitFor(`measuring big-${kind}.stl`)
      expect(t.shown()).toMatch(/\[[#-]+\] [\d.]+ (KiB|MiB)\/[\d.]+ MiB \d+%/)
      t.type(CTRL_C)
      const {code, shown} = await t.exited
      expect(code, shown).toBe(130)
      expect(shown).toContain('Interrupted.')
      expect(shown).not.toContain('"triangles"')
    },
  )

  it('piped: the result on stdout and nothing on stderr', async () => {
    const r = await runBuiltCli(['price', 'measure', files.ascii!, '--json', '--no-hull'], {
      env: {MFG_HOME: dir, CI: ''},
    })
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stderr).toBe('')
    expect(json<{triangles: number}>(r).triangles).toBe(125000)
  })

  it('on a terminal with CI set: the result and no progress', async () => {
    const t = inTerminal(['price', 'measure', files.binary!, '--json', '--no-hull'], {MFG_HOME: dir, CI: 'true'})
    const {code, shown} = await t.exited
    expect(code, shown).toBe(0)
    expect(shown).toMatch(/"triangles": ?999698/)
    expect(shown).not.toContain('measuring')
    expect(shown).not.toContain('MiB')
  })
})
