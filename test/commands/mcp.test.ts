/* eslint-disable @typescript-eslint/no-explicit-any -- command output is arbitrary JSON that tests inspect freely */
import {spawn} from 'node:child_process'
import {existsSync, mkdtempSync, rmSync} from 'node:fs'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {TOOL_NAMES} from '../../src/sandbox/mcp/server.js'
import {json, runCli, secretsOf, startCliSandbox, type CliResult, type CliSandbox} from '../helpers/cli.js'

const root = resolve(import.meta.dirname, '../..')

let sb: CliSandbox
const outputs: CliResult[] = []
const run = async (argv: string[], opts: {stdin?: string; env?: Record<string, string | undefined>} = {}) => {
  const r = await runCli(argv, {
    env: {...sb.env(), ...opts.env},
    ...(opts.stdin !== undefined ? {stdin: opts.stdin} : {}),
  })
  outputs.push(r)
  return r
}

/** How many demands the business has with this draftId (v1 list, through the CLI's sandbox). */
async function countDraft(draftId: string): Promise<number> {
  const b = sb.businesses[0]!
  const r = await fetch(`${sb.url}/api/public/v1/demand/${b.id}/all?draftId=${draftId}`, {
    headers: {authorization: `Bearer ${b.apiKey}`},
  })
  return ((await r.json()) as {total: number}).total
}

beforeAll(async () => {
  sb = await startCliSandbox()
})
afterAll(async () => {
  for (const r of outputs) for (const secret of secretsOf(sb)) expect(r.stdout + r.stderr).not.toContain(secret)
  await sb.close()
})

describe('mfg mcp tools', () => {
  it('prints one row per tool: name, what it does, reads or changes data', async () => {
    const r = await run(['mcp', 'tools'])
    expect(r.exitCode, r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^name\s+what it does\s+data$/)
    expect(lines).toHaveLength(1 + TOOL_NAMES.length)
    expect(r.stdout).toMatch(/^create_quotes\s+Creates 1 to 100 quotes.*\s+changes$/m)
    expect(r.stdout).toMatch(/^update_quote\s+.*\s+changes$/m)
    expect(r.stdout).toMatch(/^estimate_price\s+Prices a part.*\s+reads$/m)
  })

  it('--json gives the full list with schemas and annotations', async () => {
    const r = await run(['mcp', 'tools', '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    const tools = json<any[]>(r)
    expect(tools.map((t) => t.name)).toEqual([...TOOL_NAMES])
    expect(tools.find((t) => t.name === 'measure_part').inputSchema.properties).toHaveProperty('content')
    expect(tools.find((t) => t.name === 'update_quote').annotations).toMatchObject({destructiveHint: true})
  })
})

describe('mfg mcp call', () => {
  it('prints the result text; --json the structured content', async () => {
    const r = await run([
      'mcp',
      'call',
      'estimate_price',
      '--arg',
      'material=PLA',
      '--arg',
      'quantity=2',
      '--arg',
      'slicingData={"weight":"20"}',
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/"message": "Estimated price for 2 × PLA on FDM/)
    const j = await run(['mcp', 'call', 'list_machines', '--arg', 'service=SHEET_METAL', '--json'])
    expect(j.exitCode, j.stderr).toBe(0)
    expect(json<any>(j).machines.map((m: any) => m.technology)).toEqual(['LASER'])
  })

  it('keeps a value a string where the schema wants one, and reports a tool error with exit 1', async () => {
    const r = await run(['mcp', 'call', 'get_quote', '--arg', 'quoteId=12345'])
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toMatch(/404 Demand 12345 not found/)
  })

  it("a tool's refusal names the field and what is allowed: in the message, under --json as details, the whole answer with --debug", async () => {
    const quotes = '[{"technique":"3D_PRINTING","material":"PLA","quantity":-5,"draftId":"cmd-mcp-details"}]'
    const r = await run(['mcp', 'call', 'create_quotes', '--arg', `quotes=${quotes}`, '--yes'])
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toMatch(/400 1 of 1 demand is invalid/)
    expect(r.stderr).toContain('  - 0.quantity: must be at least 1')
    const j = await run(['mcp', 'call', 'create_quotes', '--arg', `quotes=${quotes}`, '--yes', '--json'])
    expect(j.exitCode).toBe(1)
    expect(JSON.parse(j.stderr).error.details).toEqual([{path: '0.quantity', message: 'must be at least 1'}])
    const d = await run(['mcp', 'call', 'create_quotes', '--arg', `quotes=${quotes}`, '--yes', '--debug'])
    expect(d.stderr).toMatch(/The service's answer:\n\{\n {2}"statusCode": 400,/)
    expect(await countDraft('cmd-mcp-details')).toBe(0)
  })

  it('an unknown tool or a bad --arg is a usage error (exit 2)', async () => {
    const r = await run(['mcp', 'call', 'nope'])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toMatch(/No tool named "nope".*list_quotes/)
    expect(r.stderr).not.toContain('did you mean')
    const near = await run(['mcp', 'call', 'estimate_prices'])
    expect(near.exitCode).toBe(2)
    expect(near.stderr).toContain('No tool named "estimate_prices" (did you mean estimate_price?)')
    // Checked against the tool's input schema before the call: a misspelt name, a missing required one.
    const misspelt = await run(['mcp', 'call', 'get_quote', '--arg', 'quoteid=65f000060000000000000002'])
    expect(misspelt.exitCode).toBe(2)
    expect(misspelt.stderr).toContain('get_quote: invalid arguments; nothing was sent:')
    expect(misspelt.stderr).toContain('  quoteid: not an argument of the tool (did you mean quoteId?)')
    expect(misspelt.stderr).toMatch(/ {2}quoteId: is required \(The quote or order id/)
    // A tool that takes names it does not list gets such a name as given, with a warning when it looks misspelt.
    const misspeltPrice = [
      'mcp',
      'call',
      'estimate_price',
      '--arg',
      'material=PLA',
      '--arg',
      'volume=33000',
      '--arg',
      'quantty=3',
    ]
    const open = await run(misspeltPrice)
    expect(open.exitCode, open.stderr).toBe(0)
    expect(open.stderr).toContain(
      'Warning: Tool estimate_price: quantty is not an argument the tool lists (did you mean quantity?); sent as given.',
    )
    // Under --json and --jq too, as a JSON line on stderr, with stdout the data alone.
    for (const mode of [['--json'], ['--jq', '.quantity']]) {
      const quiet = await run([...misspeltPrice, ...mode])
      expect(quiet.exitCode, quiet.stderr).toBe(0)
      expect(
        quiet.stderr
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
      ).toEqual([
        {
          warning:
            'Tool estimate_price: quantty is not an argument the tool lists (did you mean quantity?); sent as given',
        },
      ])
      expect(quiet.stdout).not.toContain('Warning')
    }
    const bad = await run(['mcp', 'call', 'list_machines', '--arg', 'service'])
    expect(bad.exitCode).toBe(2)
    expect(bad.stderr).toMatch(/key=value/)
  })

  it('a tool that changes data needs --yes without a terminal: exit 2 naming --yes, nothing created', async () => {
    const input = JSON.stringify({quotes: [{technique: '3D_PRINTING', material: 'PLA', draftId: 'cmd-mcp-yes'}]})
    const refused = await run(['mcp', 'call', 'create_quotes', '--input', '-'], {stdin: input})
    expect(refused.exitCode).toBe(2)
    expect(refused.stderr).toMatch(/--yes/)
    expect(await countDraft('cmd-mcp-yes')).toBe(0)
    const done = await run(['mcp', 'call', 'create_quotes', '--input', '-', '--yes', '--json'], {stdin: input})
    expect(done.exitCode, done.stderr).toBe(0)
    const created = json<any>(done).quotes[0]
    expect(created).toMatchObject({draftId: 'cmd-mcp-yes', created: true})
    expect(await countDraft('cmd-mcp-yes')).toBe(1)
    // update_quote too; a refused stage move exits 1 naming both stages.
    const noYes = await run(['mcp', 'call', 'update_quote', '--arg', `quoteId=${created._id}`, '--arg', 'status=done'])
    expect(noYes.exitCode).toBe(2)
    const move = await run([
      'mcp',
      'call',
      'update_quote',
      '--arg',
      `quoteId=${created._id}`,
      '--arg',
      'status=done',
      '--yes',
    ])
    expect(move.exitCode).toBe(1)
    expect(move.stderr).toMatch(/409 .*quote_sent to done/)
    const nested = await run([
      'mcp',
      'call',
      'update_quote',
      '--arg',
      `quoteId=${created._id}`,
      '--arg',
      'changes.priceDelivery=7.5',
      '--yes',
      '--json',
    ])
    expect(nested.exitCode, nested.stderr).toBe(0)
    expect(json<any>(nested).quote.priceDelivery).toBe(7.5)
    // A tracking number in the open `changes` object: --raw-arg keeps it as written; --arg
    // keeps a number with more digits than a number holds as its text, not a rounded number.
    for (const [flag, trackId] of [
      ['--raw-arg', '00123456789'],
      ['--arg', '123456789012345678901'],
    ] as const) {
      const tracked = await run([
        'mcp',
        'call',
        'update_quote',
        '--arg',
        `quoteId=${created._id}`,
        flag,
        `changes.trackId=${trackId}`,
        '--yes',
        '--json',
      ])
      expect(tracked.exitCode, tracked.stderr).toBe(0)
      expect(json<any>(tracked).quote.trackId).toBe(trackId)
    }
  })

  it('masks the secrets a result holds (payment tokens, signed links) unless --show-secrets', async () => {
    const quotes = (draftId: string) => JSON.stringify({quotes: [{technique: '3D_PRINTING', material: 'PLA', draftId}]})
    const shown = await run(['mcp', 'call', 'create_quotes', '--input', '-', '--yes', '--json', '--show-secrets'], {
      stdin: quotes('cmd-mcp-secret-0'),
    })
    expect(shown.exitCode, shown.stderr).toBe(0)
    expect(json<any>(shown).quotes[0].paymentAuthToken).toMatch(/^eyJ.{20,}/)
    for (const [i, mode] of [[], ['--json']].entries()) {
      const created = await run(['mcp', 'call', 'create_quotes', '--input', '-', '--yes', ...mode], {
        stdin: quotes(`cmd-mcp-secret-${i + 1}`),
      })
      expect(created.exitCode, created.stderr).toBe(0)
      expect(created.stdout).toMatch(/"paymentAuthToken": ?"\*\*\*\*[^"]{4}"/)
      expect(created.stdout).not.toContain('eyJ')
      const link = await run(['mcp', 'call', 'get_quote_file', '--arg', 'quoteId=65f000060000000000000002', ...mode])
      expect(link.exitCode, link.stderr).toBe(0)
      expect(link.stdout).toMatch(/signature=\*\*\*\*[0-9a-f]{4}/)
      expect(link.stdout).not.toMatch(/signature=[0-9a-f]{8,}/)
    }
  })
})

describe('mfg mcp config', () => {
  it('prints mcpServers running `mfg mcp proxy --profile NAME`, never the key', async () => {
    const b = sb.businesses[0]!
    const home = sb.env().MFG_HOME
    const add = await run([
      'profile',
      'add',
      'shop',
      '--base-url',
      sb.url,
      '--api-key',
      b.apiKey,
      '--business-id',
      b.id,
    ])
    expect(add.exitCode, add.stderr).toBe(0)
    for (const client of ['claude', 'cursor', 'generic']) {
      const r = await run(['mcp', 'config', '--client', client, '--profile', 'shop'], {
        env: {MFG_API_KEY: undefined, MFG_BASE_URL: undefined, MFG_AUTH_TOKEN: undefined, MFG_BUSINESS_ID: undefined},
      })
      expect(r.exitCode, r.stderr).toBe(0)
      expect(JSON.parse(r.stdout)).toEqual({
        mcpServers: {mfg: {command: 'mfg', args: ['mcp', 'proxy', '--profile', 'shop'], env: {MFG_HOME: home}}},
      })
      expect(r.stdout).not.toContain(b.apiKey)
    }
    const vscode = await run(['mcp', 'config', '--client', 'vscode', '--profile', 'shop', '--json'])
    expect(json<any>(vscode)).toEqual({
      servers: {
        mfg: {type: 'stdio', command: 'mfg', args: ['mcp', 'proxy', '--profile', 'shop'], env: {MFG_HOME: home}},
      },
    })
    const unknown = await run(['mcp', 'config', '--client', 'claude', '--profile', 'nope'])
    expect(unknown.exitCode).not.toBe(0)
  })
})

describe('mfg mcp config, started as an assistant starts it', () => {
  /** Starts the snippet's server as an SDK client does: its args and env over a few inherited variables only. */
  async function connect(snippet: any): Promise<Client> {
    const server = snippet.mcpServers.mfg
    const transport = new StdioClientTransport({
      // The built CLI stands for the snippet's `mfg` (its command), with the snippet's args and env.
      command: process.execPath,
      args: [join(root, 'bin/run.js'), ...server.args],
      env: server.env,
      stderr: 'pipe',
    })
    const client = new Client({name: 'config-test', version: '1'})
    await client.connect(transport)
    return client
  }
  const addProfile = (env: Record<string, string | undefined>) => {
    const b = sb.businesses[0]!
    return run(['profile', 'add', 'assistant', '--base-url', sb.url, '--api-key', b.apiKey, '--business-id', b.id], {
      env,
    })
  }

  it.each([
    ['MFG_HOME', (dir: string) => ({MFG_HOME: dir})],
    ['XDG_CONFIG_HOME', (dir: string) => ({MFG_HOME: undefined, XDG_CONFIG_HOME: dir})],
  ])('finds the profile when %s places the files of mfg elsewhere', async (name, place) => {
    const dir = mkdtempSync(join(tmpdir(), 'mfg-config-'))
    try {
      const env = {...place(dir), MFG_API_KEY: undefined, MFG_BASE_URL: undefined, MFG_BUSINESS_ID: undefined}
      expect((await addProfile(env)).exitCode).toBe(0)
      const r = await run(['mcp', 'config', '--client', 'claude', '--profile', 'assistant'], {env})
      expect(r.exitCode, r.stderr).toBe(0)
      const snippet = JSON.parse(r.stdout)
      expect(snippet.mcpServers.mfg.env).toEqual({[name]: dir})
      const client = await connect(snippet)
      try {
        const result: any = await client.callTool({name: 'get_pattern_status', arguments: {}})
        expect(result.isError).toBeFalsy()
      } finally {
        await client.close()
      }
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })
})

describe('mfg mcp proxy (the built CLI over stdio)', () => {
  let home: string
  beforeAll(() => {
    if (!existsSync(join(root, 'dist/commands/mcp/proxy.js')))
      throw new Error('dist/ has no mcp proxy: run `npm run build` first (npm test does).')
    home = mkdtempSync(join(tmpdir(), 'mfg-proxy-'))
  })
  afterAll(() => rmSync(home, {recursive: true, force: true}))

  const env = (extra: Record<string, string>): Record<string, string> => {
    const base: Record<string, string> = {}
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !k.startsWith('MFG_') && k !== 'NODE_OPTIONS') base[k] = v
    return {...base, MFG_HOME: home, ...extra}
  }

  it('relays to the embedded sandbox of the local profile', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(root, 'bin/run.js'), 'mcp', 'proxy'],
      env: env({}),
      stderr: 'pipe',
    })
    const client = new Client({name: 'proxy-test', version: '1'})
    await client.connect(transport)
    const {tools} = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual([...TOOL_NAMES])
    const result: any = await client.callTool({name: 'get_pattern_status', arguments: {}})
    expect(result.structuredContent.materials.length).toBeGreaterThan(0)
    await client.close()
  })

  it("gives each relayed message a command's time budget of its own: --total-timeout bounds a message, not the proxy's life", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(root, 'bin/run.js'), 'mcp', 'proxy', '--total-timeout', '1'],
      env: env({}),
      stderr: 'pipe',
    })
    const client = new Client({name: 'proxy-test', version: '1'})
    await client.connect(transport)
    expect((await client.listTools()).tools.length).toBeGreaterThan(0)
    // Past the 1 s since the proxy's client was made: a budget for the whole proxy would refuse this.
    await new Promise((r) => setTimeout(r, 1_300))
    const result: any = await client.callTool({name: 'get_pattern_status', arguments: {}})
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent.materials.length).toBeGreaterThan(0)
    await client.close()
  })

  it('answers a line that is not JSON (-32700) or not a JSON-RPC message (-32600) with an error of id null, one log line each', async () => {
    const proxy = spawnProxy(env({}))
    const {child, exited} = proxy
    const init = initializeRequest(1)
    const lines = [
      'garbage{',
      '[{"jsonrpc":"2.0","id":2,"method":"ping"}]',
      '{"id":3,"method":"ping"}',
      JSON.stringify(init),
    ]
    child.stdin.end(`${lines.join('\n')}\n`)
    expect(await exited).toBe(0)
    const answers = proxy
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(answers.slice(0, 3).map((a) => [a.id, a.error.code])).toEqual([
      [null, -32700],
      [null, -32600],
      [null, -32600],
    ])
    expect(answers[3]).toMatchObject({id: 1, result: {serverInfo: {name: 'mfg-sandbox'}}})
    expect(proxy.stderr().trim().split('\n')).toEqual([
      expect.stringMatching(/^mcp proxy: a line on stdin is not JSON \(/),
      expect.stringMatching(/^mcp proxy: a line on stdin is not a JSON-RPC 2.0 message/),
      expect.stringMatching(/^mcp proxy: a line on stdin is not a JSON-RPC 2.0 message/),
    ])
  })

  it('answers a request whose upstream call fails with a JSON-RPC error, logging to stderr only', async () => {
    const port = await new Promise<number>((done) => {
      const s = createServer()
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as {port: number}).port
        s.close(() => done(p))
      })
    })
    const {child, exited, stdout, stderr} = spawnProxy(
      env({MFG_BASE_URL: `http://127.0.0.1:${port}`, MFG_API_KEY: 'pk_business_x', MFG_BUSINESS_ID: 'b'}),
    )
    child.stdin.write(`${JSON.stringify(initializeRequest(7))}\n`)
    while (!stdout().includes('\n')) await new Promise((r) => setTimeout(r, 20))
    const answer = JSON.parse(stdout().split('\n')[0]!)
    expect(answer).toMatchObject({jsonrpc: '2.0', id: 7, error: {code: -32000}})
    expect(answer.error.message).toMatch(/ECONNREFUSED|connect|refused/i)
    child.stdin.end()
    expect(await exited).toBe(0)
    expect(stdout().trim().split('\n')).toHaveLength(1)
    expect(stderr()).toMatch(/initialize failed/)
  })
})

/** `mfg mcp proxy` as a process of its own, its output gathered as it comes. */
function spawnProxy(childEnv: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [join(root, 'bin/run.js'), 'mcp', 'proxy'], {
    env: childEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stdout.on('data', (c: Buffer) => (out += c.toString()))
  child.stderr.on('data', (c: Buffer) => (err += c.toString()))
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)))
  return {child, exited, stdout: () => out, stderr: () => err}
}

/** A client's initialize request, as an assistant sends it first. */
function initializeRequest(id: number) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 't', version: '1'}},
  }
}
