import {chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync} from 'node:fs'
import {mkdtempSync, rmSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {createClient, type ApiClient} from '../../src/api/http.js'
import type {RunningSandbox} from '../../src/sandbox/index.js'
import {downloadFile} from '../../src/services/files/download.js'
import {demandFileLink} from '../../src/services/files/link.js'
import {cliEnv, json, jsonLines, runBuiltCli, runCli, type CliResult, type RunOptions} from '../helpers/cli.js'
import {startTestSandbox} from '../helpers/sandbox.js'
import {meshPath} from '../helpers/meshes.js'

/** The seeded quote with sensor-bracket.stl (found by its draftId). */
let SEEDED = ''

let sandbox: RunningSandbox
let home: string
let client: ApiClient
/** The sandbox's clock runs `skewMs` ahead of the real one; tests move it to expire links. */
let skewMs = 0
const outputs: CliResult[] = []

const env = (): Record<string, string> => cliEnv(sandbox, home)
const run = async (argv: string[], opts: RunOptions = {}) => {
  const r = await runCli(argv, {...opts, env: {...env(), ...opts.env}})
  outputs.push(r)
  return r
}
/** The bytes the file host serves for a demand's file, through a fresh link. */
const served = async (demandId: string, pick: string[] = []) => {
  const r = await run(['file', 'link', demandId, '--json', ...pick])
  expect(r.exitCode, r.stderr).toBe(0)
  return Buffer.from(await (await fetch(json<{url: string}>(r).url)).arrayBuffer())
}

/** A file uploaded under `name` (a copy of cube20.stl): its path and stored URL. */
const upload = async (name: string) => {
  const path = join(home, name)
  writeFileSync(path, readFileSync(meshPath('cube20.stl')))
  const r = await run(['post', 'upload', path, '--json'])
  expect(r.exitCode, r.stderr).toBe(0)
  return {path, url: json<{url: string}[]>(r)[0]!.url}
}
/** A new demand with these quote-model files; its id. */
const demandWith = async (quoteModel: {fileName: string; fileLink: string}[]) => {
  const file = join(home, `demand-${outputs.length}.json`)
  const row = {technique: '3D_PRINTING', material: 'PLA', email: 'files@example.com'}
  writeFileSync(file, JSON.stringify([{...row, quoteModel: quoteModel.map((q) => ({...q, quantity: 1}))}]))
  const created = await run(['demand', 'create', '--file', file, '--json'])
  expect(created.exitCode, created.stderr).toBe(0)
  return json<{results: {id: string}[]}>(created).results[0]!.id
}

beforeAll(async () => {
  sandbox = await startTestSandbox({clock: () => Date.now() + skewMs})
  home = mkdtempSync(join(tmpdir(), 'mfg-file-'))
  const b = sandbox.businesses[0]!
  client = createClient({baseUrl: sandbox.url, apiKey: b.apiKey, authToken: b.authToken})
  const list = await run(['demand', 'list', '--all', '--json'])
  SEEDED = jsonLines<{_id: string; draftId?: string}>(list).find((d) => d.draftId === 'seed-quote-sent')!._id
})
afterAll(async () => {
  client.close?.()
  await sandbox.close()
  rmSync(home, {recursive: true, force: true})
  // No output of any run showed a link's signature.
  for (const r of outputs.filter((o) => !o.stdout.startsWith('{') && !o.stdout.startsWith('http'))) {
    expect(r.stdout + r.stderr).not.toMatch(/signature=[0-9a-f]{8}/)
  }
})

describe('mfg file link', () => {
  it('on the embedded sandbox, says before the link is used that it dies with the command, and what to run', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'mfg-file-embedded-'))
    try {
      const local = {MFG_HOME: fresh, MFG_BASE_URL: undefined, MFG_API_KEY: undefined, MFG_AUTH_TOKEN: undefined}
      const list = await runCli(['demand', 'list', '--json'], {env: local})
      const id = json<{_id: string}[]>(list)[0]!._id
      const shown = await runCli(['file', 'link', id, '--show-url'], {env: local})
      expect(shown.exitCode, shown.stderr).toBe(0)
      const url = shown.stdout.trim()
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\//)
      expect(shown.stderr).toContain('stops when this command exits')
      expect(shown.stderr).toContain(`mfg file download ${id}`)
      expect(shown.stderr).toContain('mfg sandbox serve')
      // And it is true: once the command has exited, the link does not open.
      await expect(fetch(url)).rejects.toThrow()
      // Under --json the same advice is one {"warning"} line on stderr; stdout stays the result.
      const asJson = await runCli(['file', 'link', id, '--json'], {env: local})
      expect(json<{url: string}>(asJson).url).toContain('/files/')
      expect(JSON.parse(asJson.stderr.trim()).warning).toContain('mfg sandbox serve')
    } finally {
      rmSync(fresh, {recursive: true, force: true})
    }
  })

  it('hides the signed URL unless --show-url or --json asks for it', async () => {
    const plain = await run(['file', 'link', SEEDED])
    expect(plain.exitCode, plain.stderr).toBe(0)
    expect(plain.stdout + plain.stderr).not.toContain('signature=')
    expect(plain.stdout).toMatch(
      /Link issued for sensor-bracket\.stl at http:\/\/127\.0\.0\.1:\d+\/files\/seed\/demands\/sensor-bracket\.stl, expires \d{4}-/,
    )

    const shown = await run(['file', 'link', SEEDED, '--show-url'])
    expect(shown.stdout.trim()).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/files\/seed\/demands\/sensor-bracket\.stl\?expires=\d+&signature=[0-9a-f]+$/,
    )

    const asJson = json<{url: string; token: string; fileName: string; expiresAt: string}>(
      await run(['file', 'link', SEEDED, '--json']),
    )
    expect(asJson.url).toContain(asJson.token)
    expect(asJson.fileName).toBe('sensor-bracket.stl')
    expect(Date.parse(asJson.expiresAt) - Date.now()).toBeGreaterThan(29 * 60_000)

    const legacy = await run([
      'file',
      'link',
      '--file-link',
      'https://files.mfg-sandbox.test/seed/demands/sensor-bracket.stl',
    ])
    expect(legacy.exitCode, legacy.stderr).toBe(0)
    expect(legacy.stdout).not.toContain('signature=')
    expect(legacy.stdout).toMatch(/Link issued for sensor-bracket\.stl/)
    // A signed link passed back is re-signed, and its old signature is not sent or shown.
    const resigned = await run(['file', 'link', '--file-link', asJson.url, '--verbose'])
    expect(resigned.exitCode, resigned.stderr).toBe(0)
    expect(resigned.stdout + resigned.stderr).not.toContain('signature=')

    const unknown = await run(['file', 'link', SEEDED, '--file-name', 'nope.stl'])
    expect(unknown.exitCode).toBe(1)
    expect(unknown.stderr).toMatch(/no file named "nope\.stl"/)
    const neither = await run(['file', 'link'])
    expect(neither.exitCode).toBe(2)
  })

  it('names the file as the demand does, not as the file host stores it', async () => {
    const stored = await upload('ü-only.stl')
    const seeded = 'https://files.mfg-sandbox.test/seed/demands/sensor-bracket.stl'
    const id = await demandWith([
      {fileName: 'bracket v2.stl', fileLink: seeded},
      {fileName: 'ü-only.stl', fileLink: stored.url},
    ])
    expect(stored.url).toMatch(/\/_-only\.stl$/)
    const named = await run(['file', 'link', id, '--file-name', 'ü-only.stl', '--json'])
    expect(json<{fileName: string}>(named).fileName).toBe('ü-only.stl')
    const second = await run(['file', 'link', id, '--index', '1'])
    expect(second.stdout).toMatch(/^Link issued for ü-only\.stl at .*\/_-only\.stl, expires/)
    const first = await run(['file', 'link', id, '--json'])
    expect(json<{fileName: string}>(first).fileName).toBe('bracket v2.stl')
  })

  it('tells a tampered link (403) from a good one', async () => {
    const {url} = json<{url: string}>(await run(['file', 'link', SEEDED, '--json']))
    const tampered = url.replace(/signature=([0-9a-f])/, (_m, c: string) => `signature=${c === '0' ? '1' : '0'}`)
    const res = await fetch(tampered)
    expect(res.status).toBe(403)
    expect(((await res.json()) as {message: string}).message).toMatch(/signature/)
  })
})

describe('mfg file download', () => {
  it('writes each file under its name with the served bytes and sizes, and refuses to overwrite', async () => {
    const out = join(home, 'one')
    const r = await run(['file', 'download', SEEDED, '--out', out, '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    const [file] = json<{fileName: string; path: string; bytes: number; expectedBytes: number; links: number}[]>(r)
    expect(file).toMatchObject({fileName: 'sensor-bracket.stl', path: join(out, 'sensor-bracket.stl'), links: 1})
    const bytes = readFileSync(join(out, 'sensor-bracket.stl'))
    expect(bytes.equals(await served(SEEDED))).toBe(true)
    expect(file!.bytes).toBe(bytes.length)
    expect(file!.expectedBytes).toBe(bytes.length)
    expect(readdirSync(out)).toEqual(['sensor-bracket.stl'])
    expect(r.stdout + r.stderr).not.toContain('signature=')

    const again = await run(['file', 'download', SEEDED, '--out', out])
    expect(again.exitCode).toBe(2)
    expect(again.stderr).toMatch(/--force/)
    const forced = await run(['file', 'download', SEEDED, '--out', out, '--force'])
    expect(forced.exitCode, forced.stderr).toBe(0)
    expect(forced.stdout).toMatch(/sensor-bracket\.stl\s+\d+ bytes/)
  })

  it('downloads every file of a demand, names made safe (no path traversal)', async () => {
    const stl = meshPath('cube20.stl')
    const uploaded = json<{url: string}[]>(await run(['post', 'upload', stl, '--json']))
    const demandFile = join(home, 'demand.json')
    writeFileSync(
      demandFile,
      JSON.stringify([
        {
          technique: '3D_PRINTING',
          material: 'PLA',
          email: 'files@example.com',
          quoteModel: [
            {fileName: '../../escape.stl', fileLink: uploaded[0]!.url, quantity: 1},
            {fileName: 'bracket.stl', fileLink: 'https://files.mfg-sandbox.test/seed/demands/sensor-bracket.stl'},
          ],
        },
      ]),
    )
    const created = await run(['demand', 'create', '--file', demandFile, '--json'])
    expect(created.exitCode, created.stderr).toBe(0)
    const id = json<{results: {id: string}[]}>(created).results[0]!.id
    const out = join(home, 'many')
    const r = await run(['file', 'download', id, '--out', out, '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(readdirSync(out).sort()).toEqual(['bracket.stl', 'escape.stl'])
    expect(existsSync(join(home, 'escape.stl'))).toBe(false)
    expect(readFileSync(join(out, 'escape.stl')).equals(readFileSync(stl))).toBe(true)
    expect(readFileSync(join(out, 'bracket.stl')).equals(await served(SEEDED))).toBe(true)
    expect(statSync(join(out, 'escape.stl')).size).toBe(statSync(stl).size)
  })

  it('downloads a file whose name is in another script than Latin', async () => {
    const stl = await upload('日本 (1).stl')
    const id = await demandWith([{fileName: '日本 (1).stl', fileLink: stl.url}])
    const out = join(home, 'japanese')
    const r = await run(['file', 'download', id, '--out', out, '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(readFileSync(join(out, '日本 (1).stl')).equals(readFileSync(stl.path))).toBe(true)
    // The file host names it for a browser too: an ASCII stand-in, and the name itself in UTF-8.
    const link = json<{url: string}>(await run(['file', 'link', id, '--json'])).url
    expect((await fetch(link)).headers.get('content-disposition')).toBe(
      `attachment; filename="__ (1).stl"; filename*=UTF-8''%E6%97%A5%E6%9C%AC%20%281%29.stl`,
    )
  })

  it('refuses an --out that is no folder it may write in, or has a folder where a file goes, before downloading', async () => {
    const file = join(home, 'afile')
    writeFileSync(file, 'mine')
    const onFile = await run(['file', 'download', SEEDED, '--out', file])
    expect(onFile.exitCode).toBe(2)
    expect(onFile.stderr.trim()).toBe(`Error: --out ${file} is a file, not a folder.`)
    const under = await run(['file', 'download', SEEDED, '--out', join(file, 'sub'), '--json'])
    expect(under.exitCode).toBe(2)
    expect((JSON.parse(under.stderr) as {error: {message: string}}).error.message).toBe(
      `Cannot write in --out ${join(file, 'sub')}: a part of the path is not a directory. Nothing was downloaded.`,
    )
    expect(readFileSync(file, 'utf8')).toBe('mine')

    const taken = join(home, 'taken')
    mkdirSync(join(taken, 'sensor-bracket.stl'), {recursive: true})
    const forced = await run(['file', 'download', SEEDED, '--out', taken, '--force'])
    expect(forced.exitCode).toBe(2)
    expect(forced.stderr).toContain(
      `--out ${taken} has a folder where a file goes: ${join(taken, 'sensor-bracket.stl')}; --force replaces files only.`,
    )
    expect(readdirSync(taken)).toEqual(['sensor-bracket.stl'])

    const readOnly = join(home, 'read-only')
    mkdirSync(readOnly)
    chmodSync(readOnly, 0o555)
    const refused = await runBuiltCli(['file', 'download', SEEDED, '--out', readOnly], {env: env(), unprivileged: true})
    expect(refused.exitCode, refused.stderr).toBe(2)
    expect(refused.stderr.trim()).toBe(
      `Error: Cannot write in --out ${readOnly}: permission denied. Nothing was downloaded.`,
    )
    expect(readdirSync(readOnly)).toEqual([])
    // Without --out, in a folder it may not write in: named as the current folder, with the flag that chooses another.
    const here = await runBuiltCli(['file', 'download', SEEDED], {
      env: env(),
      unprivileged: true,
      prelude: `cd '${readOnly}'`,
    })
    expect(here.exitCode, here.stderr).toBe(2)
    expect(here.stderr.trim()).toBe(
      'Error: Cannot write in the current folder (choose another with --out): permission denied. Nothing was downloaded.',
    )
    expect(readdirSync(readOnly)).toEqual([])
  })

  it('stops at a write that fails mid-file with one message, and removes the partial file', async () => {
    const out = join(home, 'too-large')
    // A process may write no file over 512 bytes (the signal that would kill it ignored): the 684-byte file fails.
    const r = await runBuiltCli(['file', 'download', SEEDED, '--out', out, '--json'], {
      env: env(),
      prelude: "trap '' XFSZ; ulimit -f 1",
    })
    expect(r.exitCode, r.stderr).toBe(1)
    expect(r.stdout).toBe('')
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        code: 'download_failed',
        message: `Cannot write ${join(out, 'sensor-bracket.stl.part')}: file too large; the partial file was removed.`,
      },
    })
    expect(readdirSync(out)).toEqual([])
  })

  it('resumes the partial file an interrupted run left when the host names the same version; else starts over', async () => {
    const expected = await served(SEEDED)
    const stored = json<{quoteModel: {fileLink: string}[]}>(
      await run(['demand', 'get', SEEDED, '--json']),
    ).quoteModel[0]!.fileLink.split('?')[0]!
    const answer = await fetch(json<{url: string}>(await run(['file', 'link', SEEDED, '--json'])).url)
    await answer.arrayBuffer()
    const version = answer.headers.get('etag')!
    expect(version).toMatch(/^"/)
    const dir = join(home, 'resume')
    mkdirSync(dir)
    const path = join(dir, 'sensor-bracket.stl')
    const leave = (bytes: Buffer, record?: object) => {
      writeFileSync(`${path}.part`, bytes)
      rmSync(`${path}.part.json`, {force: true})
      if (record) writeFileSync(`${path}.part.json`, JSON.stringify(record))
    }
    const download = async () => {
      rmSync(path, {force: true})
      const r = await run(['file', 'download', SEEDED, '--out', dir, '--json'])
      expect(r.exitCode, r.stderr).toBe(0)
      expect(readFileSync(path).equals(expected)).toBe(true)
      expect(readdirSync(dir)).toEqual(['sensor-bracket.stl'])
      return json<{resumed: boolean}[]>(r)[0]!.resumed
    }
    // What an interrupted run leaves: the first bytes, and beside them the file's source and version.
    leave(expected.subarray(0, 100), {source: stored, version})
    expect(await download()).toBe(true)
    // Bytes of another version (the file was replaced since): the host sends the file whole.
    leave(Buffer.alloc(100, 0x41), {source: stored, version: '"an-older-version"'})
    expect(await download()).toBe(false)
    // Of another file, or with nothing to say what they are: started over.
    leave(Buffer.alloc(100, 0x41), {source: 'https://elsewhere.example/x.stl', version})
    expect(await download()).toBe(false)
    leave(Buffer.alloc(100, 0x41))
    expect(await download()).toBe(false)
  })

  it('asks for a new link when one has expired, and resumes with a Range request', async () => {
    const link = await demandFileLink({client}, SEEDED)
    const expected = await served(SEEDED)
    // The link is now 31 minutes old by the sandbox's clock.
    skewMs += 31 * 60_000
    const stale = await fetch(link.url)
    expect(stale.status).toBe(403)
    expect(((await stale.json()) as {message: string}).message).toMatch(/expired/)

    const dir = join(home, 'expiry')
    mkdirSync(dir)
    const path = join(dir, 'sensor-bracket.stl')
    // Half the file is already on disk from an earlier attempt.
    writeFileSync(`${path}.part`, expected.subarray(0, 100))
    let issued = 0
    const file = await downloadFile(
      {client},
      {fileName: 'sensor-bracket.stl', path},
      async () => {
        issued++
        return (await demandFileLink({client}, SEEDED)).url
      },
      {url: link.url, resume: true},
    )
    expect(issued).toBe(1)
    expect(file).toMatchObject({links: 2, resumed: true, bytes: expected.length, expectedBytes: expected.length})
    expect(readFileSync(path).equals(expected)).toBe(true)
    expect(existsSync(`${path}.part`)).toBe(false)

    // A changed (not expired) link is not re-issued: the 403 is reported, signature masked.
    const fresh = await demandFileLink({client}, SEEDED)
    const tampered = fresh.url.replace(/signature=([0-9a-f])/, (_m, c: string) => `signature=${c === '0' ? '1' : '0'}`)
    const refused = downloadFile(
      {client},
      {fileName: 'x', path: join(dir, 'x.stl')},
      () => Promise.resolve(fresh.url),
      {
        url: tampered,
      },
    )
    await expect(refused).rejects.toThrow(/403.*signature/)
    await refused.catch((error: Error) => expect(error.message).not.toMatch(/signature=[0-9a-f]{8}/))
  })

  it('a transfer cut off mid-way, whose link expired meanwhile, resumes through a new link with Range', async () => {
    const expected = await served(SEEDED)
    // A file host in front of the sandbox's that cuts the first transfer after 300 bytes.
    const seen: {range?: string; status: number}[] = []
    const proxy: Server = createServer((req, res) => {
      void (async () => {
        const upstream = await fetch(sandbox.url + req.url!, {
          headers: req.headers.range ? {range: req.headers.range} : {},
        })
        seen.push({...(req.headers.range ? {range: req.headers.range} : {}), status: upstream.status})
        const body = Buffer.from(await upstream.arrayBuffer())
        const headers: Record<string, string> = {}
        upstream.headers.forEach((v, k) => (headers[k] = v))
        res.writeHead(upstream.status, headers)
        if (seen.length === 1) {
          // The link expires while the transfer is under way; then the connection drops.
          skewMs += 31 * 60_000
          res.write(body.subarray(0, 300), () => res.destroy())
        } else res.end(body)
      })()
    })
    await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done))
    const port = (proxy.address() as {port: number}).port
    const viaProxy = async () =>
      (await demandFileLink({client}, SEEDED)).url.replace(sandbox.url, `http://127.0.0.1:${port}`)
    try {
      const dir = mkdtempSync(join(home, 'cut-'))
      const file = await downloadFile(
        {client},
        {fileName: 'sensor-bracket.stl', path: join(dir, 'sensor-bracket.stl')},
        viaProxy,
      )
      expect(readFileSync(join(dir, 'sensor-bracket.stl')).equals(expected)).toBe(true)
      expect(file).toMatchObject({links: 2, resumed: true, bytes: expected.length})
      expect(seen).toEqual([{status: 200}, {range: 'bytes=300-', status: 403}, {range: 'bytes=300-', status: 206}])
    } finally {
      proxy.closeAllConnections()
      await new Promise((done) => proxy.close(done))
    }
  })

  it('survives an expiry through the CLI: links issued by a clock that moved on are re-issued', async () => {
    const out = join(home, 'cli-expiry')
    const r = await run(['file', 'download', SEEDED, '--out', out, '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(readFileSync(join(out, 'sensor-bracket.stl')).equals(await served(SEEDED))).toBe(true)
  })
})
