// Credentials never cross the network in clear: a request that carries the API
// key (and for v2 the auth token) to a plain http URL whose host is not this
// machine is refused before anything is sent, unless --insecure / MFG_INSECURE.
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {networkInterfaces} from 'node:os'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {InsecureTransportError, NetworkError} from '../../src/api/errors.js'
import {createClient, isLoopbackHost} from '../../src/api/http.js'
import {MCP_PATH} from '../../src/api/mcp.js'
import type {RunningSandbox} from '../../src/sandbox/index.js'
import {json, runCli, type CliResult} from '../helpers/cli.js'
import {startTestSandbox} from '../helpers/sandbox.js'
import {spawnMfg} from './spawn.js'

/** An address of this machine that is not loopback (eth0 and the like), if it has one. */
function externalAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (!a.internal && a.family === 'IPv4') return a.address
  }
  return undefined
}

/** A listener that only counts the connections it gets: proof that nothing was sent. */
interface Sentinel {
  url: string
  connections(): number
  close(): Promise<void>
}

async function startSentinel(host: string): Promise<Sentinel> {
  let connections = 0
  const server: Server = createServer((_req, res) => {
    res.statusCode = 500
    res.end()
  })
  server.on('connection', () => connections++)
  await new Promise<void>((done) => server.listen(0, host, done))
  const {port} = server.address() as AddressInfo
  return {
    url: `http://${host}:${port}`,
    connections: () => connections,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections()
        server.close(() => done())
      }),
  }
}

const KEY = 'pk_business_insecureTestKey0123456789'
const TOKEN = 'at_insecureTestToken0123456789abcdef'
const BUSINESS = '65f0000100000000000000aa'

// Without a non-loopback address, a reserved name stands in: the refusal comes
// before any lookup, so the error is the refusal and not a DNS failure.
const external = externalAddress()
const remoteHost = external ?? 'mfg-remote.invalid'

describe('isLoopbackHost', () => {
  it.each([
    ['localhost', true],
    ['LOCALHOST', true],
    ['localhost.', true],
    ['127.0.0.1', true],
    ['127.45.6.7', true],
    ['[::1]', true],
    ['[::ffff:7f00:1]', true],
    ['192.0.2.2', false],
    ['10.0.0.1', false],
    ['0.0.0.0', false],
    ['[fd00::2]', false],
    ['[::ffff:c000:202]', false],
    ['api.example.com', false],
    ['localhost.example.com', false],
    ['127.0.0.1.nip.io', false],
  ])('%s → %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback)
  })
})

describe('the client refuses credentials over plain http to another machine', () => {
  let sentinel: Sentinel | undefined
  let base: string
  beforeAll(async () => {
    if (external) {
      sentinel = await startSentinel(external)
      base = sentinel.url
    } else {
      base = `http://${remoteHost}:8787`
    }
  })
  afterAll(async () => {
    await sentinel?.close()
  })

  const refused = async (path: string, opts: {authToken?: string} = {}) => {
    const client = createClient({baseUrl: base, apiKey: KEY, retries: 0, ...opts})
    const error = await client.request({method: 'GET', path}).then(
      () => undefined,
      (e: unknown) => e,
    )
    client.close?.()
    return error
  }

  it.each([
    ['v2 (key and auth token)', '/api/v2/integrations_ms/webhooks/b', /the API key and the auth token/],
    ['MCP (key)', MCP_PATH, /the API key over plain http/],
    ['v1 (key)', '/api/public/v1/demand/b/all', /the API key over plain http/],
  ])('%s: refused before connecting, naming the host, https and --insecure', async (_name, path, what) => {
    const error = await refused(path, {authToken: TOKEN})
    expect(error).toBeInstanceOf(InsecureTransportError)
    const e = error as InsecureTransportError
    expect(e.code).toBe('insecure_transport')
    expect(e.status).toBeUndefined()
    expect(e.message).toMatch(what)
    expect(e.message).toContain(`plain http to ${new URL(base).host}`)
    expect(e.message).toMatch(/travel in clear/)
    expect(e.message).toMatch(/https:\/\//)
    expect(e.message).toMatch(/--insecure/)
    expect(e.message).toMatch(/nothing was sent/)
    expect(e.message).not.toContain(KEY)
    expect(e.message).not.toContain(TOKEN)
    if (sentinel) expect(sentinel.connections()).toBe(0)
  })

  it('sends when insecure is set (the server is reached)', async () => {
    const client = createClient({baseUrl: base, apiKey: KEY, authToken: TOKEN, retries: 0, insecure: true})
    const error = await client.request({method: 'GET', path: '/api/v2/integrations_ms/webhooks/b'}).then(
      () => undefined,
      (e: unknown) => e,
    )
    client.close?.()
    expect(error).not.toBeInstanceOf(InsecureTransportError)
    // The sentinel answers 500; without one, the reserved name cannot be found.
    if (sentinel) expect(sentinel.connections()).toBeGreaterThan(0)
    else expect(error).toBeInstanceOf(NetworkError)
  })

  it('leaves https alone (the TLS handshake is attempted, and fails against a plain server)', async () => {
    if (!sentinel) {
      // No local server to aim at: a refusal would come before the lookup, a network error after it.
      const error = await createClient({baseUrl: `https://${remoteHost}`, apiKey: KEY, retries: 0})
        .request({method: 'GET', path: '/api/public/v1/demand/b/all'})
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(NetworkError)
      return
    }
    const before = sentinel.connections()
    const client = createClient({baseUrl: sentinel.url.replace('http:', 'https:'), apiKey: KEY, retries: 0})
    const error = await client.request({method: 'GET', path: '/api/public/v1/demand/b/all'}).catch((e: unknown) => e)
    client.close?.()
    expect(error).toBeInstanceOf(NetworkError)
    expect(sentinel.connections()).toBeGreaterThan(before)
  })
})

describe('mfg --insecure and MFG_INSECURE', () => {
  let sentinel: Sentinel | undefined
  let remote: RunningSandbox | undefined
  let local: RunningSandbox
  const outputs: CliResult[] = []

  beforeAll(async () => {
    local = await startTestSandbox()
    if (external) {
      sentinel = await startSentinel(external)
      // The real sandbox, reachable through this machine's network address.
      remote = await startTestSandbox({host: external})
    }
  })
  afterAll(async () => {
    await sentinel?.close()
    await remote?.close()
    await local.close()
    for (const r of outputs) {
      expect(r.stdout + r.stderr).not.toContain(KEY)
      expect(r.stdout + r.stderr).not.toContain(TOKEN)
      for (const s of [local, remote])
        for (const b of s?.businesses ?? []) {
          expect(r.stdout + r.stderr).not.toContain(b.apiKey)
          expect(r.stdout + r.stderr).not.toContain(b.authToken)
        }
    }
  })

  const run = async (argv: string[], env: Record<string, string | undefined>) => {
    const r = await runCli(argv, {env})
    outputs.push(r)
    return r
  }
  const refusedEnv = () => ({
    // Whatever the developer's shell says, the refusal is on unless a test turns it off.
    MFG_INSECURE: undefined,
    MFG_BASE_URL: sentinel?.url ?? `http://${remoteHost}:8787`,
    MFG_API_KEY: KEY,
    MFG_AUTH_TOKEN: TOKEN,
    MFG_BUSINESS_ID: BUSINESS,
  })

  it.each([
    ['webhook list (v2)', ['webhook', 'list'], /API key and the auth token/],
    ['mcp tools (MCP)', ['mcp', 'tools'], /API key over plain http/],
    ['price machines (MCP)', ['price', 'machines'], /API key over plain http/],
    ['demand list (v1)', ['demand', 'list'], /API key over plain http/],
    ['api (v2 raw)', ['api', 'GET', '/api/v2/integrations_ms/webhooks/{businessId}'], /auth token/],
  ])('%s exits 2 with one clear message, nothing sent', async (_name, argv, what) => {
    const r = await run([...argv, '--verbose', '--debug'], refusedEnv())
    expect(r.exitCode, r.stderr).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(what)
    expect(r.stderr).toContain(`plain http to ${new URL(refusedEnv().MFG_BASE_URL).host}`)
    expect(r.stderr).toMatch(/--insecure/)
    expect(r.stderr).toMatch(/https:\/\//)
    if (sentinel) expect(sentinel.connections()).toBe(0)
  })

  it('webhook listen refuses to forward events (with their service-signature secret) over plain http to another machine', async () => {
    const target = sentinel?.url ?? `http://${remoteHost}:8787`
    const r = await run(['webhook', 'listen', '--port', '0', '--forward-to', `${target}/hooks`], {
      MFG_INSECURE: undefined,
    })
    expect(r.exitCode, r.stderr).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain(`--forward-to ${new URL(target).host} is plain http to another machine`)
    expect(r.stderr).toMatch(/service-signature/)
    expect(r.stderr).toMatch(/--insecure/)
    if (sentinel) expect(sentinel.connections()).toBe(0)
  })

  it('reports the refusal as JSON under --json', async () => {
    const r = await run(['webhook', 'list', '--json'], refusedEnv())
    expect(r.exitCode).toBe(2)
    expect(r.stdout).toBe('')
    const {error} = JSON.parse(r.stderr) as {error: {code: string; message: string; status?: number}}
    expect(error.code).toBe('insecure_transport')
    expect(error.status).toBeUndefined()
    expect(error.message).toMatch(/--insecure/)
    if (sentinel) expect(sentinel.connections()).toBe(0)
  })

  it('answers every MCP message of `mcp proxy` with a JSON-RPC error, nothing sent', async () => {
    // The proxy reads stdin until it closes, so it runs as a process of its own.
    const proxy = spawnMfg(['mcp', 'proxy'], {MFG_HOME: process.env.MFG_HOME ?? '', ...refusedEnv()})
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 't', version: '1'}},
    }
    proxy.child.stdin!.end(`${JSON.stringify(init)}\n`)
    expect(await proxy.exited).toBe(0)
    outputs.push({stdout: proxy.stdout(), stderr: proxy.stderr(), exitCode: 0})
    const answer = JSON.parse(proxy.stdout().trim().split('\n')[0]!) as {id: number; error: {message: string}}
    expect(answer.id).toBe(1)
    expect(answer.error.message).toMatch(/plain http/)
    expect(answer.error.message).toMatch(/--insecure/)
    expect(proxy.stderr()).toMatch(/initialize failed: refusing/)
    if (sentinel) expect(sentinel.connections()).toBe(0)
  })

  it('MFG_INSECURE takes 1/true/yes or 0/false/no; anything else is a usage error', async () => {
    const r = await run(['webhook', 'list'], {...refusedEnv(), MFG_INSECURE: 'perhaps'})
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toMatch(/MFG_INSECURE must be 1, true or yes/)
    const off = await run(['webhook', 'list'], {...refusedEnv(), MFG_INSECURE: '0'})
    expect(off.exitCode).toBe(2)
    expect(off.stderr).toMatch(/plain http/)
    if (sentinel) expect(sentinel.connections()).toBe(0)
  })

  it('loopback over plain http needs no --insecure (the local sandbox)', async () => {
    const b = local.businesses[0]!
    const env = {MFG_BASE_URL: local.url, MFG_API_KEY: b.apiKey, MFG_AUTH_TOKEN: b.authToken, MFG_BUSINESS_ID: b.id}
    const hooks = await run(['webhook', 'list', '--json'], env)
    expect(hooks.exitCode, hooks.stderr).toBe(0)
    const tools = await run(['mcp', 'tools', '--json'], env)
    expect(tools.exitCode, tools.stderr).toBe(0)
    expect(json<unknown[]>(tools).length).toBeGreaterThan(0)
  })

  it('with --insecure or MFG_INSECURE=1, v2, MCP and v1 reach a sandbox on a non-loopback address', async () => {
    if (!remote) {
      // No such address here: the opt-in must at least get past the refusal, to a lookup failure.
      const r = await run(['webhook', 'list', '--insecure', '--json'], refusedEnv())
      expect(r.exitCode).toBe(1)
      expect((JSON.parse(r.stderr) as {error: {code: string}}).error.code).toBe('network_error')
      return
    }
    const b = remote.businesses[0]!
    expect(new URL(remote.url).hostname).toBe(external)
    const env = {MFG_BASE_URL: remote.url, MFG_API_KEY: b.apiKey, MFG_AUTH_TOKEN: b.authToken, MFG_BUSINESS_ID: b.id}
    const plain = await run(['webhook', 'list'], env)
    expect(plain.exitCode).toBe(2)
    const flag = await run(['webhook', 'list', '--insecure', '--json'], env)
    expect(flag.exitCode, flag.stderr).toBe(0)
    expect(json(flag)).toEqual(expect.any(Array))
    const variable = await run(['mcp', 'tools', '--json'], {...env, MFG_INSECURE: '1'})
    expect(variable.exitCode, variable.stderr).toBe(0)
    expect(json<{name: string}[]>(variable).map((t) => t.name)).toContain('list_quotes')
    const v1 = await run(['demand', 'list', '--limit', '1', '--json'], {...env, MFG_INSECURE: 'true'})
    expect(v1.exitCode, v1.stderr).toBe(0)
    expect(json<unknown[]>(v1)).toHaveLength(1)
  })
})
