// The MCP SDK's client is loaded by the commands that speak MCP, and by no
// other: the built chunks that hold its Client and its Streamable HTTP transport
// are found by text only they contain, then looked for in what commands load.
// Nothing here is timed.
import {readFileSync, readdirSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {root, traced} from './traced.js'

const chunks = join(root, 'dist/chunks')

/** The built chunk holding `marker`, a message only that SDK module has. */
function chunkWith(marker: string): string {
  const found = readdirSync(chunks).filter(
    (f) => f.endsWith('.js') && readFileSync(join(chunks, f), 'utf8').includes(marker),
  )
  expect(found, marker).toHaveLength(1)
  return `dist/chunks/${found[0]!}`
}

describe('start-up: the MCP SDK client is loaded lazily', () => {
  const sdk = [chunkWith("Server's protocol version is not supported"), chunkWith('Failed to open SSE stream')]

  it('mcp tools loads it', () => {
    const r = traced(['mcp', 'tools', '--json'])
    expect(r.code, r.stderr).toBe(0)
    for (const chunk of sdk) expect(r.loaded).toContain(chunk)
  })

  it.each([[['demand', 'list', '--json']], [['profile', 'list', '--json']], [['doctor', '--json']]])(
    '%j does not',
    (args) => {
      const r = traced(args)
      expect(r.code, r.stderr).toBe(0)
      for (const chunk of sdk) expect(r.loaded).not.toContain(chunk)
    },
  )
})
