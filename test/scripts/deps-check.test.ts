// `npm run deps:check` (scripts/deps-check.mjs) tells an advisory from a registry that
// cannot answer: npm audit runs for real, against the project's lockfile, with
// `--registry` pointed at a stand-in registry on port 0 that answers the audit endpoint
// as each case needs (npm's bulk advisory format).
import {spawn} from 'node:child_process'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

const root = resolve(import.meta.dirname, '../..')
const script = join(root, 'scripts/deps-check.mjs')

let server: Server | undefined
const caches: string[] = []
afterEach(async () => {
  await new Promise((done) => (server ? server.close(done) : done(undefined)))
  server = undefined
  for (const dir of caches.splice(0)) rmSync(dir, {recursive: true, force: true})
})

/** A registry whose audit endpoint answers with `status` and `body`; every other path is 404. */
async function registry(status: number, body: unknown): Promise<string> {
  server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      if (req.method === 'POST' && req.url?.endsWith('/-/npm/v1/security/advisories/bulk')) {
        res.writeHead(status, {'content-type': 'application/json'})
        res.end(JSON.stringify(body))
      } else {
        res.writeHead(404, {'content-type': 'application/json'})
        res.end('{}')
      }
    })
  })
  await new Promise<void>((ready) => server!.listen(0, '127.0.0.1', ready))
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}/`
}

function advisory(severity: string, name = 'fastify') {
  return {
    [name]: [
      {
        id: 1,
        url: 'https://example.com/advisories/1',
        title: 'A stand-in advisory',
        severity,
        vulnerable_versions: '<99.0.0',
        cwe: [],
        cvss: {score: 7.5, vectorString: null},
      },
    ],
  }
}

function check(registryUrl: string): Promise<{code: number | null; err: string}> {
  return new Promise((done) => {
    // A cache of its own: npm keeps audit answers, and one case's must not answer the next.
    const cache = mkdtempSync(join(tmpdir(), 'mfg-deps-check-'))
    caches.push(cache)
    const child = spawn(process.execPath, [script, '--registry', registryUrl, '--cache', cache], {cwd: root})
    let err = ''
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    child.stdout.resume()
    child.on('close', (code) => done({code, err}))
  })
}

describe('npm run deps:check', () => {
  it('fails on a high advisory against a dependency users install, naming it', async () => {
    const {code, err} = await check(await registry(200, advisory('high', 'dxf-parser')))
    expect(code).toBe(1)
    expect(err).toContain('deps:check: high: dxf-parser')
    expect(err).toContain('A stand-in advisory https://example.com/advisories/1')
  })

  it('audits the packages bundled into dist/ too, and not the development tools', async () => {
    // fastify is bundled (a devDependency, so not installed with mfg): its advisory counts.
    const bundled = await check(await registry(200, advisory('high')))
    expect(bundled.code).toBe(1)
    expect(bundled.err).toMatch(/deps:check: high: fastify .*\(bundled in dist\/\): A stand-in advisory/)
    // eslint is neither installed nor bundled.
    const tool = await check(await registry(200, advisory('high', 'eslint')))
    expect(tool.code, tool.err).toBe(0)
    expect(tool.err).toContain('no high or critical advisory (no advisories)')
  })

  it('passes a moderate advisory, counting it', async () => {
    const {code, err} = await check(await registry(200, advisory('moderate')))
    expect(code).toBe(0)
    expect(err).toContain('no high or critical advisory (advisories: 1 moderate)')
  })

  it('warns and passes when the registry cannot answer the audit', async () => {
    const refused = await check('http://127.0.0.1:9/')
    expect(refused.code).toBe(0)
    expect(refused.err).toMatch(/warning: the registry did not answer the audit \(.*ECONNREFUSED.*\)/)
    const error = await check(await registry(405, {}))
    expect(error.code).toBe(0)
    expect(error.err).toMatch(/warning: the registry did not answer the audit \(405 .*\); advisories were not checked/)
  })
})
