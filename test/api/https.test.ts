// The client over TLS: got (most requests) and node:https (bulk requests) share
// one keep-alive agent, which with got is loaded on the first https request.
// The client runs in a child process because the certificate is trusted through
// NODE_EXTRA_CA_CERTS, which Node reads when it starts.
import {execFile} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {json, selfSignedCertificate, startServer, type TestServer} from './server.js'

const dir = mkdtempSync(join(tmpdir(), 'mfg-tls-'))
const tls = selfSignedCertificate(dir)
const fixture = join(import.meta.dirname, 'fixtures/https-client.ts')
let server: TestServer

beforeAll(async () => {
  server = await startServer((req, res) => json(res, 201, JSON.parse(req.body) as unknown), tls)
})
afterAll(async () => {
  await server.close()
  rmSync(dir, {recursive: true, force: true})
})

async function runClient(env: NodeJS.ProcessEnv): Promise<unknown[]> {
  const {stdout} = await promisify(execFile)(process.execPath, ['--import', 'tsx', fixture, server.url], {
    env: {...process.env, ...env},
    timeout: 60_000,
  })
  return JSON.parse(stdout) as unknown[]
}

describe('https', () => {
  it('reaches a service it trusts through got and as bulk requests, over one keep-alive connection', async () => {
    const before = server.requests.length
    const out = await runClient({NODE_EXTRA_CA_CERTS: tls.certFile})
    expect(out).toEqual([[{bulk: false}], [{bulk: true}], [{bulk: false}], [{bulk: true}]])
    const seen = server.requests.slice(before)
    expect(seen.map((r) => r.headers.authorization)).toEqual(Array(4).fill('Bearer pk_business_tls_test_key'))
    expect(server.connections()).toBe(1)
  })

  it('refuses a certificate it does not trust, through either transport: nothing is sent', async () => {
    const before = server.requests.length
    const out = (await runClient({NODE_EXTRA_CA_CERTS: ''})) as {bulk: boolean; error: string}[]
    expect(out.map((r) => r.bulk)).toEqual([false, true, false, true])
    for (const r of out) {
      expect(r.error).toMatch(/self-signed certificate/)
      expect(r.error).toMatch(/not sent/)
    }
    expect(server.requests.length).toBe(before)
  })
})
