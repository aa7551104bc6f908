// Issue 19's output rules, run as a user runs the built CLI: field selection
// (--json FIELDS, --columns checked), --jq, honest --sort over more than one page,
// --json --all as NDJSON, and a listing that stops when its reader goes away.
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {RunningSandbox} from '../../src/sandbox/index.js'
import {startTestSandbox} from '../helpers/sandbox.js'
import {startProxy, type Proxy} from '../helpers/proxy.js'

const root = resolve(import.meta.dirname, '../..')
const bin = join(root, 'bin/run.js')
/** More than two full pages of 100, so that --all and a sort cross pages. */
const DEMANDS = 1234

let sandbox: RunningSandbox
let proxy: Proxy
let proxyUrl: string
/** v1 list requests that reached the sandbox through the counting proxy. */
let listRequests = 0
let home: string

function env(): NodeJS.ProcessEnv {
  const demo = sandbox.businesses[0]!
  // Without vitest's NODE_ENV=test, under which oclif would register tsx to read TypeScript sources.
  const {NODE_ENV: _test, ...rest} = process.env
  return {
    ...rest,
    MFG_HOME: home,
    MFG_PROFILE: undefined,
    MFG_AUTH_TOKEN: undefined,
    MFG_BASE_URL: proxyUrl,
    MFG_API_KEY: demo.apiKey,
    MFG_BUSINESS_ID: demo.id,
    NO_COLOR: '1',
    CI: 'true',
  }
}

/** Runs the built CLI without blocking: the sandbox and the proxy answer from this process. */
function mfg(args: string[]): Promise<{stdout: string; stderr: string; code: number | null}> {
  const child = spawn(process.execPath, [bin, ...args], {cwd: root, env: env(), stdio: ['ignore', 'pipe', 'pipe']})
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')))
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')))
  return new Promise((done) => child.on('close', (code) => done({stdout, stderr, code})))
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'mfg-select-'))
  sandbox = await startTestSandbox()
  const demo = sandbox.businesses[0]!
  for (let i = 0; i < DEMANDS; i += 100) {
    const items = Array.from({length: Math.min(100, DEMANDS - i)}, (_, k) => ({
      technique: '3D_PRINTING',
      material: 'PETG',
      // Prices that do not follow the order of creation.
      quantity: 1 + (((i + k) * 7919) % 97),
      email: `b${i + k}@example.com`,
      quoteModel: [{fileName: `p${i + k}.stl`, service: '3D_PRINTING', quantity: 1 + (((i + k) * 31) % 13)}],
    }))
    const res = await fetch(`${sandbox.url}/api/public/v1/demand/create-quotes/${demo.id}`, {
      method: 'POST',
      headers: {'content-type': 'application/json', authorization: `Bearer ${demo.apiKey}`},
      body: JSON.stringify(items),
    })
    expect(res.status).toBe(201)
  }
  // A proxy in front of the sandbox that counts the list pages asked for.
  proxy = await startProxy(sandbox.url, (req) => {
    if (req.method === 'GET' && /^\/api\/public\/v1\/demand\/[^/]+\/all/.test(req.url ?? '')) listRequests++
  })
  proxyUrl = proxy.url
}, 120_000)

afterAll(async () => {
  await proxy?.close()
  await sandbox?.close()
  rmSync(home, {recursive: true, force: true})
})

describe('field selection', () => {
  it('--json FIELDS keeps only those fields, nested by dotted path, in either order of the flags', async () => {
    const a = await mfg([
      'demand',
      'list',
      '--json',
      'orderNumber,shippingAddress.city,quoteModel.0.fileName',
      '--limit',
      '2',
    ])
    expect(a.code).toBe(0)
    const rows = JSON.parse(a.stdout) as Record<string, unknown>[]
    expect(rows).toHaveLength(2)
    expect(Object.keys(rows[0]!)).toEqual(['orderNumber', 'shippingAddress.city', 'quoteModel.0.fileName'])
    expect(rows[0]!['quoteModel.0.fileName']).toMatch(/^p\d+\.stl$/)
    const b = await mfg(['demand', 'list', '--limit', '2', '--json=orderNumber'])
    expect(JSON.parse(b.stdout)).toEqual(rows.map((r) => ({orderNumber: r.orderNumber})))
    // --columns with --json selects the same way.
    const c = await mfg(['demand', 'list', '--limit', '2', '--json', '--columns', 'orderNumber'])
    expect(c.stdout).toBe(b.stdout)
  })

  it('a bare --json keeps the whole records, also before another flag', async () => {
    const r = await mfg(['demand', 'list', '--json', '--limit', '1'])
    expect(r.code).toBe(0)
    const [row] = JSON.parse(r.stdout) as Record<string, unknown>[]
    expect(row).toHaveProperty('_id')
    expect(row).toHaveProperty('quoteModel')
  })

  it('an unknown field is a usage error naming the valid ones, before anything is fetched', async () => {
    const before = listRequests
    // The flags, and what stderr must say: the field, why, the valid names, and a near miss's meaning.
    const refused: [string[], string[]][] = [
      [
        ['--columns', 'orderNumber,bogus'],
        ['--columns: unknown field "bogus"', 'orderNumber'],
      ],
      [['--json', 'shippingAddress.town'], ['shippingAddress.city']],
      [['--json', 'quoteModel.fileName'], ['quoteModel is a list']],
      [['--sort', '-nope'], ['--sort: unknown field "nope"']],
      [['--columns', 'id'], ['unknown field "id" ("id" is not a field). Did you mean "_id"?']],
      [['--columns', 'shippingAddress.cty'], ['Did you mean "shippingAddress.city"?']],
      // An empty value (an unset shell variable) is refused, not taken as "not given".
      [['--columns', ''], ['--columns is empty: name at least one field']],
      [['--sort', ' '], ['--sort is empty: name a field']],
    ]
    for (const [flags, says] of refused) {
      const r = await mfg(['demand', 'list', ...flags])
      expect(r.code, flags.join(' ')).toBe(2)
      expect(r.stdout).toBe('')
      for (const text of says) expect(r.stderr).toContain(text)
      // Only a near miss has a meaning to name.
      if (flags[1] === '-nope') expect(r.stderr).not.toContain('Did you mean')
    }
    expect(listRequests).toBe(before)
  })
})

describe('--jq', () => {
  it('filters the output; strings print raw', async () => {
    const r = await mfg(['demand', 'list', '--limit', '3', '--jq', '.[].quoteModel[0].fileName'])
    expect(r.code).toBe(0)
    expect(r.stdout.trim().split('\n')).toHaveLength(3)
    expect(r.stdout).toMatch(/^p\d+\.stl\n/)
  })

  it('runs on each record of a streamed --all', async () => {
    const r = await mfg(['demand', 'list', '--all', '--jq', 'select(.orderNumber <= 3) | .orderNumber'])
    expect(r.code).toBe(0)
    expect(r.stdout.trim().split('\n').map(Number).sort()).toEqual([1, 2, 3])
  })

  it('an expression jq cannot compile is a usage error with jq’s message, nothing fetched', async () => {
    const before = listRequests
    const r = await mfg(['demand', 'list', '--jq', '.[] |||'])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(JSON.parse(r.stderr).error.message).toMatch(
      /^--jq: syntax error.*line 1, column \d+:\n\s*\.\[\] \|\|\|\n\s*\^$/s,
    )
    // One that ends too soon is pointed at its own end, not at what mfg wraps it in.
    const open = await mfg(['demand', 'list', '--jq', '.[0] | {a:'])
    expect(open.code).toBe(2)
    expect(JSON.parse(open.stderr).error.message).toBe(
      '--jq: syntax error: the expression ends before it is complete (a bracket, brace, parenthesis or string left open?):\n    .[0] | {a:\n              ^',
    )
    expect(listRequests).toBe(before)
  })

  it('an expression that fails on the data prints what it made before, then the error: exit 5, as jq', async () => {
    const all = (await mfg(['demand', 'list', '--jq', '.[].orderNumber'])).stdout.trim().split('\n')
    const failAt = all[2]!
    const expr = `.[] | if .orderNumber == ${failAt} then error("order ${failAt}") else .orderNumber end`
    const r = await mfg(['demand', 'list', '--jq', expr])
    expect(r.code).toBe(5)
    expect(r.stdout.trim().split('\n')).toEqual(all.slice(0, 2))
    expect(JSON.parse(r.stderr)).toEqual({error: {code: 'jq_failed', message: `--jq: order ${failAt}`}})
    // Over a stream (--all, jq on each record) it stops at the same record.
    const each = `if .orderNumber == ${failAt} then error("order ${failAt}") else .orderNumber end`
    const streamed = await mfg(['demand', 'list', '--all', '--jq', each])
    expect(streamed.code).toBe(5)
    expect(streamed.stdout.trim().split('\n')).toEqual(all.slice(0, 2))
    expect(JSON.parse(streamed.stderr)).toEqual(JSON.parse(r.stderr))
  })
})

describe('--jq with another format', () => {
  it('is refused, naming the flag to leave out', async () => {
    const r = await mfg(['demand', 'list', '--all', '--ndjson', '--jq', '.orderNumber'])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain('leave --ndjson out')
  })
})

describe('--all', () => {
  it('--json --all prints one record a line, every page', async () => {
    const r = await mfg(['demand', 'list', '--all', '--json', 'orderNumber'])
    expect(r.code).toBe(0)
    const lines = r.stdout.trim().split('\n')
    expect(lines.length).toBeGreaterThanOrEqual(DEMANDS)
    expect(JSON.parse(lines[0]!)).toEqual({orderNumber: expect.any(Number)})
  })

  it('--csv --all prints the header once, then every record of every page, as one page of CSV does', async () => {
    const columns = ['--columns', 'orderNumber,shippingAddress.city']
    const all = await mfg(['demand', 'list', '--all', '--csv', '--page-size', '100', ...columns])
    expect(all.code, all.stderr).toBe(0)
    const lines = all.stdout.split('\r\n')
    expect(lines[0]).toBe('orderNumber,shippingAddress.city')
    expect(lines.at(-1)).toBe('')
    const nd = await mfg(['demand', 'list', '--all', '--ndjson', ...columns])
    expect(lines.slice(1, -1)).toEqual(
      nd.stdout
        .trim()
        .split('\n')
        .map((l) =>
          Object.values(JSON.parse(l) as object)
            .map((v) => String(v ?? ''))
            .join(','),
        ),
    )
    expect(lines.length).toBeGreaterThan(DEMANDS)
    const page = await mfg(['demand', 'list', '--csv', '--limit', '100', ...columns])
    expect(all.stdout.startsWith(page.stdout.trimEnd())).toBe(true)
    const bare = await mfg(['demand', 'list', '--all', '--csv', '--no-header', '--limit', '2', ...columns])
    expect(bare.stdout).toMatch(/^\d+,[^\r\n]*\r\n\d+,[^\r\n]*\r\n$/)
  })
})

describe('honest --sort', () => {
  const numbers = (stdout: string) => (JSON.parse(stdout) as {priceTotal: number}[]).map((r) => r.priceTotal)

  it('a field the service cannot sort by fetches every page, says so, and sorts the whole list', async () => {
    const all = (await mfg(['demand', 'list', '--all', '--json', 'priceTotal'])).stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as {priceTotal: number}).priceTotal)
    const top = Math.max(...all)
    const before = listRequests
    const r = await mfg(['demand', 'list', '--sort', '-priceTotal', '--limit', '5', '--json', 'priceTotal'])
    expect(r.code).toBe(0)
    expect(listRequests - before).toBeGreaterThan(2)
    expect(JSON.parse(r.stderr)).toEqual({notice: expect.stringContaining('every page is fetched')})
    const got = numbers(r.stdout)
    expect(got).toHaveLength(5)
    expect(got[0]).toBe(top)
    expect([...got].sort((a, b) => b - a)).toEqual(got)
  })

  it('--all --json with a client-side sort is NDJSON too, sorted over every page', async () => {
    const r = await mfg(['demand', 'list', '--all', '--json', 'priceTotal', '--sort', 'priceTotal'])
    expect(r.code, r.stderr).toBe(0)
    const got = r.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as {priceTotal: number}).priceTotal)
    expect(got.length).toBeGreaterThanOrEqual(DEMANDS)
    expect([...got].sort((a, b) => a - b)).toEqual(got)
  })

  it('createdAt is sorted by the service: one page, no notice', async () => {
    const before = listRequests
    const r = await mfg(['demand', 'list', '--sort', 'createdAt', '--limit', '3', '--json', 'orderNumber'])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe('')
    expect(listRequests - before).toBe(1)
    expect((JSON.parse(r.stdout) as {orderNumber: number}[]).map((x) => x.orderNumber)).toEqual([1, 2, 3])
  })

  it('--page with a client-side sort is refused, naming --all', async () => {
    const r = await mfg(['demand', 'list', '--sort', 'priceTotal', '--page', '2'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--all')
  })
})

describe('a reader that goes away', () => {
  // A table of --all writes its first rows once 1,000 have set the widths (pages of 100 here: 13 in all).
  const list = ['demand', 'list', '--all']
  it.each([
    ['--json', [...list, '--json', '--page-size', '10'], 10],
    ['a table', [...list, '--page-size', '100'], 13],
    ['CSV', [...list, '--csv', '--page-size', '10'], 10],
    ['mfg api --paginate', ['api', '/api/public/v1/demand/{businessId}/all', '--paginate', '-F', 'pageSize=10'], 10],
  ])('stops the listing (%s): at most one more page, exit 0, nothing on stderr', async (_mode, args, fewer) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: root,
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')))
    const start = listRequests
    // Like `| head -1`: read the first line, then close the pipe.
    const atClose = await new Promise<number>((ok) => {
      let text = ''
      child.stdout.on('data', (c: Buffer) => {
        text += c.toString('utf8')
        if (text.includes('\n') && !child.stdout.destroyed) {
          // Counted once the pipe's end is really closed: from then on a write fails with EPIPE.
          child.stdout.once('close', () => ok(listRequests - start))
          child.stdout.destroy()
        }
      })
    })
    const code = await new Promise<number | null>((ok) => child.on('close', ok))
    expect(code).toBe(0)
    expect(stderr).toBe('')
    // The listing stopped right after the reader left, before its last page.
    expect(listRequests - start).toBeLessThanOrEqual(atClose + 1)
    expect(listRequests - start).toBeLessThan(fewer)
  })
})
