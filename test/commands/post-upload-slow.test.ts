// An upload over a slow line: the time-out bounds the wait for the answer, not
// the whole transfer (a 50 MiB file at 1 MB/s
// takes longer than any answer should); and on a terminal its progress is drawn
// as bytes sent of the whole (test/helpers/pty.ts, a real pseudo-terminal).
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, expect, it} from 'vitest'

import type {RunningSandbox} from '../../src/sandbox/index.js'
import {cliEnv, json, runCli} from '../helpers/cli.js'
import {startProxy, type Proxy} from '../helpers/proxy.js'
import {inTerminal} from '../helpers/pty.js'
import {startTestSandbox} from '../helpers/sandbox.js'

const BYTES_PER_SECOND = 2 * 1024 * 1024

let sandbox: RunningSandbox
let slow: Proxy
let home: string

beforeAll(async () => {
  sandbox = await startTestSandbox()
  slow = await startProxy(sandbox.url, undefined, {bytesPerSecond: BYTES_PER_SECOND})
  home = mkdtempSync(join(tmpdir(), 'mfg-upload-'))
})
afterAll(async () => {
  await slow.close()
  await sandbox.close()
  rmSync(home, {recursive: true, force: true})
})

/** A binary STL of `triangles` (all at the origin): 84 bytes of header and count, 50 a triangle. */
function binaryStl(triangles: number): Buffer {
  const stl = Buffer.alloc(84 + triangles * 50)
  stl.writeUInt32LE(triangles, 80)
  return stl
}

it('a file that takes longer to send than --timeout is uploaded: the time-out is the wait for the answer', async () => {
  // 12 MiB at 2 MiB/s: about 6 s on the line, with --timeout 4 (the sockets' buffers take a second to drain).
  const file = join(home, 'plate.stl')
  writeFileSync(file, binaryStl(250_000))
  const env = {...cliEnv(sandbox, home), MFG_BASE_URL: slow.url}
  const r = await runCli(['post', 'upload', file, '--timeout', '4', '--json'], {env})
  expect(r.exitCode, r.stderr).toBe(0)
  expect(json<{originalName: string}[]>(r)).toEqual([expect.objectContaining({originalName: 'plate.stl'})])
})

it('on a terminal, the bar shows the bytes sent of the whole upload and the percentage', async () => {
  // 5 MB at 2 MiB/s: the bar is drawn a few times a second for about two seconds.
  const file = join(home, 'bracket.stl')
  writeFileSync(file, binaryStl(100_000))
  const t = inTerminal(['post', 'upload', file], {...cliEnv(sandbox, home), MFG_BASE_URL: slow.url})
  const {code, shown} = await t.exited
  expect(code, shown).toBe(0)
  const draws = shown.split('\r').filter((d) => d.startsWith('['))
  expect(draws.length, shown).toBeGreaterThan(0)
  // The whole is the file and its part's few header bytes: 5 MB, shown as 4.8 MiB.
  for (const d of draws) expect(d).toMatch(/^\[[#-]+\] [\d.]+ (B|KiB|MiB)\/4\.8 MiB \d{1,3}% {2}bracket\.stl$/)
  expect(shown).toMatch(/bracket\.stl {2}https:\/\/\S+\/bracket\.stl/)
})
