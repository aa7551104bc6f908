// HTTPS_PROXY, HTTP_PROXY and NO_PROXY, as a shop's network may require them: a
// forward proxy in the test relays a service named by a host name that only it
// knows (the CLI never resolves it), so a request reaches the sandbox only through it.
import http from 'node:http'
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Duplex} from 'node:stream'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {RunningSandbox} from '../../src/sandbox/index.js'
import {json, runCli} from '../helpers/cli.js'
import {startTestSandbox} from '../helpers/sandbox.js'

const SERVICE_HOST = 'mfg-service.test'

interface ForwardProxy {
  port: number
  /** Each request as the proxy received it: its target and the proxy credentials it carried. */
  seen: {url: string; auth: string | undefined}[]
  close(): Promise<void>
}

/** An HTTP forward proxy that relays requests for SERVICE_HOST to `targetPort` on loopback. */
async function forwardProxy(targetPort: number): Promise<ForwardProxy> {
  const seen: ForwardProxy['seen'] = []
  const server = http.createServer((req, res) => {
    const auth = req.headers['proxy-authorization']
    seen.push({url: req.url ?? '', auth: Array.isArray(auth) ? auth[0] : auth})
    const target = new URL(req.url ?? '/')
    if (target.hostname !== SERVICE_HOST) {
      res.writeHead(502).end()
      return
    }
    const headers = {...req.headers}
    delete headers['proxy-authorization']
    delete headers['proxy-connection']
    const upstream = http.request(
      {host: '127.0.0.1', port: targetPort, method: req.method, path: target.pathname + target.search, headers},
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    upstream.on('error', () => res.destroy())
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as {port: number}).port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

describe('a service reached through a proxy (HTTP_PROXY, NO_PROXY)', () => {
  let sandbox: RunningSandbox
  let proxy: ForwardProxy
  let env: Record<string, string>

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    proxy = await forwardProxy(Number(new URL(sandbox.url).port))
    const b = sandbox.businesses[0]!
    env = {
      MFG_HOME: mkdtempSync(join(tmpdir(), 'mfg-proxy-')),
      MFG_BASE_URL: `http://${SERVICE_HOST}:${new URL(sandbox.url).port}`,
      MFG_API_KEY: b.apiKey,
      MFG_AUTH_TOKEN: b.authToken,
      MFG_BUSINESS_ID: b.id,
      // Plain http to a host that is not this machine: the test's service has no TLS.
      MFG_INSECURE: '1',
    }
  })
  afterAll(async () => {
    await proxy.close()
    await sandbox.close()
  })

  it('sends v1 and v2 requests through the proxy, with its credentials, and never shows them', async () => {
    const via = {...env, HTTP_PROXY: `http://mfg:proxy-secret@127.0.0.1:${proxy.port}`}
    const list = await runCli(['demand', 'list', '--json', '--limit', '2'], {env: via})
    expect(list.exitCode, list.stderr).toBe(0)
    expect(json<unknown[]>(list)).toHaveLength(2)
    const hooks = await runCli(['webhook', 'list', '--json'], {env: via})
    expect(hooks.exitCode, hooks.stderr).toBe(0)
    expect(proxy.seen.map((s) => new URL(s.url).pathname)).toEqual([
      `/api/public/v1/demand/${sandbox.businesses[0]!.id}/all`,
      `/api/v2/integrations_ms/webhooks/${sandbox.businesses[0]!.id}`,
    ])
    // The proxy's own user and password go to it as Proxy-Authorization.
    expect(proxy.seen[0]!.auth).toBe(`Basic ${Buffer.from('mfg:proxy-secret').toString('base64')}`)
    expect(list.stderr + hooks.stderr).not.toContain('proxy-secret')
  })

  it('goes direct for a host NO_PROXY names, and always for this machine', async () => {
    proxy.seen.length = 0
    const exempt = await runCli(['demand', 'list', '--json'], {
      env: {...env, HTTP_PROXY: `http://127.0.0.1:${proxy.port}`, NO_PROXY: `.service.test,${SERVICE_HOST}`},
    })
    // Direct, the name resolves nowhere.
    expect(exempt.exitCode).toBe(1)
    expect(exempt.stderr).toMatch(/host not found|ENOTFOUND|EAI_AGAIN/)
    expect(exempt.stderr).not.toContain('through the proxy')
    // The sandbox on loopback is reached directly even with a proxy that answers nothing.
    const local = await runCli(['demand', 'list', '--json', '--limit', '1'], {
      env: {...env, MFG_BASE_URL: sandbox.url, HTTP_PROXY: 'http://127.0.0.1:1'},
    })
    expect(local.exitCode, local.stderr).toBe(0)
    expect(proxy.seen).toEqual([])
  })

  it('names the proxy, its password masked, when it cannot be reached; refuses a proxy variable that is not a URL', async () => {
    const down = await runCli(['demand', 'list', '--json'], {
      env: {...env, HTTP_PROXY: 'http://mfg:proxy-secret@127.0.0.1:1', MFG_TIMEOUT: '2'},
    })
    expect(down.exitCode).toBe(1)
    expect(down.stderr).toContain('through the proxy HTTP_PROXY names, http://***@127.0.0.1:1')
    expect(down.stderr).not.toContain('proxy-secret')
    const bad = await runCli(['demand', 'list', '--json'], {env: {...env, https_proxy: 'proxy.internal:3128'}})
    expect(bad.exitCode).toBe(2)
    expect(bad.stderr).toContain('https_proxy is not a proxy URL (http://host:port or https://host:port)')
  })

  it("says what a proxy's 407 asks for, and that a create behind a refused tunnel was not sent", async () => {
    const gate = http.createServer((_req, res) =>
      res.writeHead(407, {'proxy-authenticate': 'Basic realm="shop"'}).end(),
    )
    gate.on('connect', (_req: http.IncomingMessage, socket: Duplex) =>
      socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="shop"\r\n\r\n'),
    )
    await new Promise<void>((resolve) => gate.listen(0, '127.0.0.1', resolve))
    const at = `127.0.0.1:${(gate.address() as {port: number}).port}`
    try {
      const plain = await runCli(['demand', 'list', '--json'], {env: {...env, HTTP_PROXY: `http://${at}`}})
      expect(plain.exitCode).toBe(1)
      expect(plain.stderr).toContain('407')
      expect(plain.stderr).toContain('the proxy asks for credentials: give them in the proxy variable')
      // https: the tunnel is refused before TLS, so a create is known not sent (no look-up, no unknown outcome).
      const file = join(env.MFG_HOME!, 'one.ndjson')
      writeFileSync(file, '{"technique":"3D_PRINTING","material":"PLA","email":"a@example.com"}\n')
      const create = await runCli(['demand', 'create', '--file', file, '--json'], {
        env: {...env, MFG_BASE_URL: `https://${SERVICE_HOST}`, HTTPS_PROXY: `http://mfg:tunnel-secret@${at}`},
      })
      expect(create.exitCode).toBe(1)
      const out = json<{lookups: number; unknown: number; results: {error?: string}[]}>(create)
      expect(out).toMatchObject({lookups: 0, unknown: 0})
      expect(out.results[0]!.error).toContain('the proxy did not open a tunnel to the service')
      expect(out.results[0]!.error).toContain('the proxy asks for credentials')
      expect(out.results[0]!.error).toContain('not created')
      expect(create.stdout + create.stderr).not.toContain('tunnel-secret')
    } finally {
      gate.closeAllConnections()
      await new Promise<void>((resolve) => gate.close(() => resolve()))
    }
  })

  it('doctor checks the service through the proxy and says so', async () => {
    proxy.seen.length = 0
    const r = await runCli(['doctor', '--json'], {env: {...env, HTTP_PROXY: `http://127.0.0.1:${proxy.port}`}})
    const checks = json<{checks: {check: string; status: string; message: string}[]}>(r).checks
    const reach = checks.find((c) => c.check === 'reachability')
    expect(reach).toMatchObject({status: 'ok'})
    expect(reach!.message).toContain(`through the proxy HTTP_PROXY names, http://127.0.0.1:${proxy.port}`)
    expect(proxy.seen.length).toBeGreaterThan(1)
  })
})
