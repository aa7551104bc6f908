/* eslint-disable @typescript-eslint/no-explicit-any -- Inspector output is arbitrary JSON that tests inspect freely */
import {execFile} from 'node:child_process'
import {existsSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {MCP_PATH} from '../../src/api/mcp.js'
import type {RunningSandbox} from '../../src/sandbox/index.js'
import {TOOL_NAMES} from '../../src/sandbox/mcp/server.js'
import {startTestSandbox} from '../helpers/sandbox.js'

/**
 * The official MCP Inspector's CLI mode (a dev dependency, run with node from
 * node_modules, so nothing is downloaded) against the sandbox's endpoint over
 * Streamable HTTP, and against `mfg mcp proxy` (the built CLI) over stdio.
 */

const root = resolve(import.meta.dirname, '../..')
const INSPECTOR = join(root, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js')
const MFG = join(root, 'bin/run.js')

let sandbox: RunningSandbox
let home: string

interface Run {
  code: number
  stdout: string
  stderr: string
}

/** Runs the Inspector CLI with a temporary HOME (it keeps a catalog and secrets there). */
function inspector(args: string[]): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [INSPECTOR, '--cli', ...args],
      {
        cwd: root,
        env: {...process.env, HOME: home, USERPROFILE: home, CI: 'true', NO_COLOR: '1'},
        timeout: 120_000,
        maxBuffer: 32 * 1024 * 1024,
      },
      (error, stdout, stderr) =>
        done({code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr}),
    )
  })
}

const parse = (r: Run): any => {
  try {
    return JSON.parse(r.stdout)
  } catch {
    throw new Error(`Inspector printed no JSON (exit ${r.code}).\nstdout: ${r.stdout}\nstderr: ${r.stderr}`)
  }
}

/** Tool results as the Inspector prints them: the text content is the tool's JSON. */
const toolValue = (r: Run): any => {
  const out = parse(r)
  expect(out.isError ?? false, r.stdout).toBe(false)
  return JSON.parse(out.content[0].text)
}

function checkTools(r: Run): void {
  expect(r.code, r.stderr).toBe(0)
  const {tools} = parse(r)
  expect(tools.map((t: any) => t.name)).toEqual([...TOOL_NAMES])
  for (const t of tools) {
    expect(t.inputSchema?.type, t.name).toBe('object')
    expect(typeof t.description, t.name).toBe('string')
    expect(t.annotations, t.name).toBeDefined()
  }
}

const ESTIMATE = ['--tool-arg', 'material=PLA', '--tool-arg', 'quantity=2', '--tool-arg', 'slicingData={"weight":"20"}']

beforeAll(async () => {
  sandbox = await startTestSandbox()
  home = mkdtempSync(join(tmpdir(), 'mfg-inspector-'))
})
afterAll(async () => {
  await sandbox.close()
  rmSync(home, {recursive: true, force: true})
})

describe('the MCP Inspector against the sandbox endpoint (Streamable HTTP)', () => {
  const http = (key: string) => [
    sandbox.url + MCP_PATH,
    '--transport',
    'http',
    '--header',
    `Authorization: Bearer ${key}`,
  ]

  it('lists the ten tools with their schemas', async () => {
    checkTools(await inspector([...http(sandbox.businesses[0]!.apiKey), '--method', 'tools/list']))
  })

  it('calls list_machines and estimate_price', async () => {
    const key = sandbox.businesses[0]!.apiKey
    const machines = toolValue(
      await inspector([...http(key), '--method', 'tools/call', '--tool-name', 'list_machines']),
    )
    expect(machines.machines.length).toBeGreaterThan(0)
    const estimate = toolValue(
      await inspector([...http(key), '--method', 'tools/call', '--tool-name', 'estimate_price', ...ESTIMATE]),
    )
    expect(estimate).toMatchObject({currency: 'EUR', quantity: 2, material: 'PLA'})
    expect(estimate.price).toBeGreaterThan(0)
  })

  it('is refused with a wrong key', async () => {
    const r = await inspector([...http('pk_business_wrong'), '--method', 'tools/list'])
    expect(r.code).not.toBe(0)
    expect(r.stdout).not.toContain('list_quotes')
  })
})

describe('the MCP Inspector against `mfg mcp proxy` (stdio)', () => {
  const proxy = (key: string) => [
    process.execPath,
    MFG,
    'mcp',
    'proxy',
    '-e',
    `MFG_HOME=${join(home, 'mfg')}`,
    '-e',
    `MFG_BASE_URL=${sandbox.url}`,
    '-e',
    `MFG_API_KEY=${key}`,
    '-e',
    `MFG_BUSINESS_ID=${sandbox.businesses[0]!.id}`,
  ]

  beforeAll(() => {
    if (!existsSync(join(root, 'dist/commands/mcp/proxy.js')))
      throw new Error('dist/ has no mcp proxy: run `npm run build` first (npm test does).')
  })

  it('lists the ten tools with their schemas', async () => {
    checkTools(await inspector([...proxy(sandbox.businesses[0]!.apiKey), '--method', 'tools/list']))
  })

  it('calls list_machines and estimate_price', async () => {
    const key = sandbox.businesses[0]!.apiKey
    const machines = toolValue(
      await inspector([...proxy(key), '--method', 'tools/call', '--tool-name', 'list_machines']),
    )
    expect(machines.currency).toBe('EUR')
    const estimate = toolValue(
      await inspector([...proxy(key), '--method', 'tools/call', '--tool-name', 'estimate_price', ...ESTIMATE]),
    )
    expect(estimate).toMatchObject({currency: 'EUR', quantity: 2})
  })

  it('answers a wrong key with a JSON-RPC error naming the refusal', async () => {
    const r = await inspector([...proxy('pk_business_wrong'), '--method', 'tools/list'])
    expect(r.code).not.toBe(0)
    expect(r.stdout + r.stderr).toMatch(/API key/)
    expect(r.stdout + r.stderr).not.toContain('pk_business_wrong')
  })
})
