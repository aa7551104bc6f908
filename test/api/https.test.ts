// The client over TLS: got (most requests) and node:https (bulk requests) share
// one keep-alive agent, which with got is loaded on the first https request.
// The client runs in a child process because the certificate is trusted through
// NODE_EXTRA_CA_CERTS, which Node reads when it starts.
import {execFile} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import http from 'node:http'
import {connect} from 'node:net'
import type {Duplex} from 'node:stream'
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

async function runClient(env: NodeJS.ProcessEnv, url = server.url): Promise<unknown[]> {
  const {stdout} = await promisify(execFile)(process.execPath, ['--import', 'tsx', fixture, url], {
    env: {...process.env, ...env},
    timeout: 60_000,
  })
  return JSON.parse(stdout) as unknown[]
}

/** A CONNECT proxy that tunnels mfg-service.test:PORT to the test's server; the targets it was asked for. */
async function connectProxy(): Promise<{url: string; targets: string[]; close(): Promise<void>}> {
  const targets: string[] = []
  const proxy = http.createServer((_req, res) => res.writeHead(405).end())
  proxy.on('connect', (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    targets.push(req.url ?? '')
    const port = Number((req.url ?? '').split(':').pop())
    const upstream = connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    upstream.on('error', () => client.destroy())
    client.on('error', () => upstream.destroy())
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(proxy.address() as {port: number}).port}`,
    targets,
    close: () =>
      new Promise<void>((resolve) => {
        proxy.closeAllConnections()
        proxy.close(() => resolve())
      }),
  }
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

  it('reaches a service through HTTPS_PROXY in a CONNECT tunnel, TLS ending at the service', async () => {
    const proxy = await connectProxy()
    try {
      const before = server.requests.length
      const port = new URL(server.url).port
      const out = await runClient(
        {NODE_EXTRA_CA_CERTS: tls.certFile, HTTPS_PROXY: proxy.url},
        `https://mfg-service.test:${port}`,
      )
      expect(out).toEqual([[{bulk: false}], [{bulk: true}], [{bulk: false}], [{bulk: true}]])
      expect(server.requests.length - before).toBe(4)
      // The proxy saw where to, never what: the key went inside the tunnel.
      expect(new Set(proxy.targets)).toEqual(new Set([`mfg-service.test:${port}`]))
    } finally {
      await proxy.close()
    }
  })
})
