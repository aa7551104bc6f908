// A part file that changes while `post upload` sends it (a CAD program exporting it
// again, say): the upload stops with one line naming the file and what happened,
// exit 2, and the service stores none of it. The file is changed by a proxy in front
// of the sandbox when the upload's headers reach it, before it has read any of the
// body: the CLI has read no more of the file than the sockets' buffers hold, far
// less than the file.
import {mkdtempSync, readdirSync, renameSync, rmSync, truncateSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {RunningSandbox} from '../../src/sandbox/index.js'
import {FILES_DIR_NAME} from '../../src/sandbox/store/index.js'
import {cliEnv, json, runBuiltCli} from '../helpers/cli.js'
import {startProxy, type Proxy} from '../helpers/proxy.js'
import {startTestSandbox} from '../helpers/sandbox.js'

const UPLOAD = '/api/v2/ms-post/post/upload'
/** 45 MB: many times what the sockets between the CLI and the proxy buffer. */
const TRIANGLES = 900_000

let sandbox: RunningSandbox
let proxy: Proxy
let home: string
let data: string
let file: string
/** What the proxy does to the file when the upload reaches it. */
let change: (() => void) | undefined

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'mfg-upload-changed-'))
  data = join(home, 'sandbox')
  sandbox = await startTestSandbox({dataDir: data})
  file = join(home, 'plate.stl')
  proxy = await startProxy(sandbox.url, (req) => {
    if (req.method === 'POST' && req.url === UPLOAD) change?.()
  })
})
afterAll(async () => {
  await proxy.close()
  await sandbox.close()
  rmSync(home, {recursive: true, force: true})
})

/** A binary STL of `triangles` (all at the origin), the header marked with `mark`. */
function binaryStl(triangles: number, mark = 'mfg'): Buffer {
  const stl = Buffer.alloc(84 + triangles * 50)
  stl.write(mark)
  stl.writeUInt32LE(triangles, 80)
  return stl
}

const upload = (...extra: string[]) =>
  runBuiltCli(['post', 'upload', file, ...extra], {env: {...cliEnv(sandbox, home), MFG_BASE_URL: proxy.url}})

/** The sandbox's stored files: blobs, and parts of blobs being written. */
const stored = () => readdirSync(join(data, FILES_DIR_NAME))
/** The sandbox's files before the uploads (those it is seeded with). */
let seeded: string[]

describe('post upload of a file that changes while it is sent', () => {
  beforeAll(() => {
    seeded = stored()
  })

  it.each([
    {
      what: 'cut short',
      change: () => truncateSync(file, 1000),
      said: `changed size (${84 + TRIANGLES * 50} bytes when checked, 1000 now)`,
    },
    {what: 'deleted', change: () => rmSync(file), said: 'was removed'},
    {
      what: 'replaced by a new export of the same size',
      change: () => {
        writeFileSync(`${file}.new`, binaryStl(TRIANGLES, 'new export'))
        renameSync(`${file}.new`, file)
      },
      said: 'was rewritten',
    },
  ])('$what: one line naming the file and what happened, exit 2, nothing stored', async (c) => {
    writeFileSync(file, binaryStl(TRIANGLES))
    change = c.change
    const r = await upload()
    change = undefined
    expect(r.exitCode, r.stderr).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe(
      `Error: ${file} ${c.said} while it was being uploaded. The upload was stopped before its end, so none of its files was stored; upload again once the file is complete.\n`,
    )
  })

  it('with --json: the error as JSON; the service kept nothing of the four cut uploads, and takes the file once whole', async () => {
    writeFileSync(file, binaryStl(TRIANGLES))
    change = () => truncateSync(file, 1000)
    const r = await upload('--json')
    change = undefined
    expect(r.exitCode, r.stderr).toBe(2)
    expect(r.stdout).toBe('')
    expect(JSON.parse(r.stderr)).toEqual({
      error: {code: 'invalid_input', message: expect.stringMatching(/^\S+plate\.stl changed size \(.*upload again/)},
    })

    // Sent again once whole, it is stored: the only file the sandbox holds.
    writeFileSync(file, binaryStl(1000))
    const again = await upload('--json')
    expect(again.exitCode, again.stderr).toBe(0)
    expect(json<{originalName: string}[]>(again)).toEqual([expect.objectContaining({originalName: 'plate.stl'})])
    const added = stored().filter((name) => !seeded.includes(name))
    expect(added).toHaveLength(1)
    expect(added[0]).not.toMatch(/\.part$/)
  })
})
