// The sandbox's seeded part files are real enough to measure: its STEP boxes through
// OpenCascade to their volume within 0.1%, its DXF plates to their exact area, through
// the MCP measure_part tool reading the files behind the seeded quotes' links.
/* eslint-disable @typescript-eslint/no-explicit-any -- tool results are arbitrary JSON that tests inspect freely */
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {MCP_PATH} from '../../src/api/mcp.js'
import type {RunningSandbox} from '../../src/sandbox/index.js'
import {plateDxfArea} from '../../src/sandbox/seed-files.js'
import {startTestSandbox} from '../helpers/sandbox.js'

let sandbox: RunningSandbox
let client: Client

beforeAll(async () => {
  sandbox = await startTestSandbox()
  client = new Client({name: 'mfg-test', version: '1.0.0'})
  await client.connect(
    new StreamableHTTPClientTransport(new URL(sandbox.url + MCP_PATH), {
      requestInit: {headers: {authorization: `Bearer ${sandbox.businesses[0]!.apiKey}`}},
    }),
  )
})
afterAll(async () => {
  await client.close()
  await sandbox.close()
})

async function call(name: string, args: Record<string, unknown>): Promise<any> {
  const raw: any = await client.callTool({name, arguments: args})
  if (raw.isError) throw new Error(raw.content?.[0]?.text)
  return raw.structuredContent
}

/** The seeded quote parts whose file has the extension, with their links. */
async function seededParts(ext: string): Promise<{fileLink: string; name: string}[]> {
  const list = await call('list_quotes', {type: 'all', pageSize: 100})
  const out: {fileLink: string; name: string}[] = []
  for (const q of list.quotes) {
    const quote = await call('get_quote', {quoteId: q._id})
    for (const part of quote.quoteModel ?? [])
      if (typeof part.fileLink === 'string' && part.fileLink.endsWith(ext))
        out.push({fileLink: part.fileLink, name: part.fileLink.split('/').pop()})
  }
  return out
}

describe('seeded part files', () => {
  it('the gearbox housing STEP is an 80 × 60 × 45 mm box: 216 000 mm³ within 0.1%', async () => {
    const parts = await seededParts('.step')
    const housing = parts.find((p) => p.name === 'gearbox-housing.step')
    expect(housing, JSON.stringify(parts)).toBeDefined()
    const m = await call('measure_part', {fileLink: housing!.fileLink})
    expect(m.format).toBe('step')
    expect(m.closed).toBe(true)
    expect(Math.abs(m.volume - 216_000) / 216_000).toBeLessThan(0.001)
    expect(m.size).toEqual({width: 80, depth: 60, height: 45, unit: 'mm'})
  })

  it('the wall bracket DXF is a 120 × 40 plate with two holes, a slot and a bend line: its area exactly', async () => {
    const bracket = (await seededParts('.dxf')).find((p) => p.name === 'wall-bracket.dxf')
    expect(bracket).toBeDefined()
    const m = await call('measure_part', {fileLink: bracket!.fileLink, thickness: 3})
    expect(m.format).toBe('dxf')
    expect(m.area).toBeCloseTo(plateDxfArea(120, 40), 3)
    expect(m).toMatchObject({pierces: 4, bendLines: 1, holes: 3, size: {width: 120, depth: 40, height: 3, unit: 'mm'}})
  })
})
