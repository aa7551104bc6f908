// An upload over a slow line: the time-out bounds the wait for the answer and
// the silences of the line, not the whole transfer (a 50 MiB file at 1 MB/s
// takes longer than any answer should).
import http from 'node:http'
import type {AddressInfo} from 'node:net'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, expect, it} from 'vitest'

import type {RunningSandbox} from '../../src/sandbox/index.js'
import {cliEnv, json, runCli} from '../helpers/cli.js'
import {startTestSandbox} from '../helpers/sandbox.js'

const BYTES_PER_SECOND = 2 * 1024 * 1024

let sandbox: RunningSandbox
let slow: http.Server
let url: string
let home: string

beforeAll(async () => {
  sandbox = await startTestSandbox()
  const to = new URL(sandbox.url)
  // Forwards to the sandbox, reading each request's body at BYTES_PER_SECOND.
  slow = http.createServer((req, res) => {
    const up = http.request(
      {host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers},
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    up.on('error', () => res.destroy())
    req.on('data', (chunk: Buffer) => {
      up.write(chunk)
      req.pause()
      setTimeout(() => req.resume(), (chunk.length / BYTES_PER_SECOND) * 1000)
    })
    req.on('end', () => up.end())
  })
  await new Promise<void>((ok) => slow.listen(0, '127.0.0.1', ok))
  url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`
  home = mkdtempSync(join(tmpdir(), 'mfg-upload-'))
})
afterAll(async () => {
  await new Promise((ok) => slow.close(ok))
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
  const env = {...cliEnv(sandbox, home), MFG_BASE_URL: url}
  const r = await runCli(['post', 'upload', file, '--timeout', '4', '--json'], {env})
  expect(r.exitCode, r.stderr).toBe(0)
  expect(json<{originalName: string}[]>(r)).toEqual([expect.objectContaining({originalName: 'plate.stl'})])
})
