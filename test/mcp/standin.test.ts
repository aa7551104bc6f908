import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {runCli, type CliResult} from '../helpers/cli.js'
import {startStandin, type Standin, type StandinOptions} from '../helpers/mcp-standin.js'

/**
 * `mcp tools` and `mcp call` against a stand-in MCP server written by hand
 * (test/helpers/mcp-standin.ts) that deviates the ways the specification allows
 * or real servers do.
 */

const KEY = 'pk_business_standin000000000000000000'
let home: string
let standin: Standin | undefined
const outputs: CliResult[] = []

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mfg-mcp-standin-'))
})
afterAll(() => rmSync(home, {recursive: true, force: true}))
afterEach(async () => {
  await standin?.close()
  standin = undefined
})

async function run(opts: StandinOptions, argv: string[]): Promise<CliResult> {
  standin = await startStandin(opts)
  const r = await runCli(argv, {
    env: {MFG_HOME: home, MFG_BASE_URL: standin.url, MFG_API_KEY: KEY, MFG_BUSINESS_ID: 'b'},
  })
  outputs.push(r)
  return r
}

/** The requests the stand-in saw, as "METHOD rpc-method status". */
const seen = () => standin!.seen.map((s) => `${s.http} ${s.rpc ?? ''} ${s.status}`.replace('  ', ' '))

/** Forgets the session once, just before the first request of `method`. */
const expireOnceBefore = (method: string): StandinOptions['expireBefore'] => {
  let done = false
  return (rpc) => {
    if (rpc.method !== method || done) return false
    done = true
    return true
  }
}

describe('a session the server no longer knows (404)', () => {
  it('mcp tools opens a new session and lists the tools', async () => {
    const r = await run({expireBefore: expireOnceBefore('tools/list')}, ['mcp', 'tools'])
    expect(r.stderr).toBe('')
    expect(r.exitCode).toBe(0)
    expect(r.stdout).toContain('echo')
    expect(seen()).toEqual([
      'POST initialize 200',
      'POST notifications/initialized 202',
      'POST tools/list 404',
      'POST initialize 200',
      'POST notifications/initialized 202',
      'POST tools/list 200',
      'DELETE 200',
    ])
    // The second session is the one ended.
    expect(standin!.seen.at(-1)?.session).toBe(standin!.sessions[1])
  })

  it('mcp call sends the call again, once, in a new session (event-stream answers)', async () => {
    const r = await run({answer: 'sse', expireBefore: expireOnceBefore('tools/call')}, [
      'mcp',
      'call',
      'echo',
      '--arg',
      'text=again',
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({echo: 'again'})
    expect(seen().filter((s) => s.startsWith('POST tools/call'))).toEqual([
      'POST tools/call 404',
      'POST tools/call 200',
    ])
    expect(standin!.sessions).toHaveLength(2)
  })

  it('a server that forgets every session fails with one line, after one new session', async () => {
    const r = await run({expireBefore: (rpc) => rpc.method === 'tools/list'}, ['mcp', 'tools'])
    expect(r.exitCode).not.toBe(0)
    expect(r.stdout).toBe('')
    expect(r.stderr.trim().split('\n')[0]).toMatch(/^Error: MCP tools\/list: Session not found .*404/)
    expect(r.stderr).not.toMatch(/\n\s+at /)
    expect(standin!.sessions).toHaveLength(2)
  })
})

describe('mcp call prints results that are not one text part', () => {
  const structuredOnly: StandinOptions = {
    call: () => ({result: {content: [], structuredContent: {price: 12, currency: 'EUR'}}}),
  }

  it('prints the structured content when no part is text', async () => {
    const r = await run(structuredOnly, ['mcp', 'call', 'echo'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({price: 12, currency: 'EUR'})
  })

  const media: StandinOptions = {
    call: () => ({
      result: {
        content: [
          {type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png'},
          {type: 'resource', resource: {uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'cut at 3 mm'}},
          {type: 'resource_link', uri: 'https://files.example/q.stl?signature=0123456789abcdef', name: 'q.stl'},
        ],
      },
    }),
  }

  it("names each part, with an embedded resource's text and a link's address (signature masked)", async () => {
    const r = await run(media, ['mcp', 'call', 'echo'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stdout.trim().split('\n')).toEqual([
      '[image image/png, 8 bytes]',
      '[resource file:///notes.txt text/plain]',
      'cut at 3 mm',
      expect.stringMatching(/^\[resource_link q\.stl https:\/\/files\.example\/q\.stl\?signature=\*+cdef\]$/),
    ])
  })

  it('--json prints the parts of a result without text or structured content', async () => {
    const r = await run(media, ['mcp', 'call', 'echo', '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    const parts = JSON.parse(r.stdout) as {type: string}[]
    expect(parts.map((p) => p.type)).toEqual(['image', 'resource', 'resource_link'])
  })
})

describe('an event stream that ends without the answer', () => {
  it('mcp call says so at once, naming the call, rather than waiting for the SDK to give up', async () => {
    const r = await run(
      {
        raw: (rpc, _answer, res, headers) => {
          if (rpc.method !== 'tools/call') return false
          res.writeHead(200, {...headers, 'content-type': 'text/event-stream'})
          const note = {jsonrpc: '2.0', method: 'notifications/message', params: {level: 'info', data: 'working'}}
          res.end(`id: 1\ndata: ${JSON.stringify(note)}\n\n`)
          return true
        },
      },
      ['mcp', 'call', 'echo', '--arg', 'text=hi'],
    )
    expect(r.exitCode).not.toBe(0)
    expect(r.stdout).toBe('')
    expect(r.stderr.trim()).toMatch(
      /^Error: MCP tools\/call: the MCP endpoint ended its event stream without answering tools\/call \(POST /,
    )
    // Not the SDK's request time-out: the call was not cancelled after a wait.
    expect(seen()).not.toContain('POST notifications/cancelled 202')
  })
})

it('no output shows the API key', () => {
  for (const r of outputs) expect(r.stdout + r.stderr).not.toContain(KEY)
})
