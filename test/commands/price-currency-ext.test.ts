// `mfg price estimate --currency` on v1 uses the sandbox's [ext] currency query. A service
// without that extension answers only {message, data: {price}} in the business's currency:
// the CLI must not label that price with the currency it asked for.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {json, runCli, startCliSandbox, type CliSandbox} from '../helpers/cli.js'
import {startProxy, type Proxy} from '../helpers/proxy.js'

let sb: CliSandbox
let plain: Proxy

beforeAll(async () => {
  sb = await startCliSandbox()
  // The interface's own v1 answer: message and data.price, nothing of the extension.
  plain = await startProxy(sb.url, undefined, {
    rewrite: (req, body) => {
      if (!req.url?.startsWith('/api/public/v1/price-estimation/')) return undefined
      const {message, data} = body as {message: string; data: {price: number}}
      return {message, data: {price: data.price}}
    },
  })
})
afterAll(async () => {
  await plain?.close()
  await sb?.close()
})

const args = ['price', 'estimate', '--material', 'PLA', '--volume', '8000', '--size', '20x20x20', '--currency', 'USD']

describe('price estimate --currency against a service without the currency extension', () => {
  it('reports the currency as unknown (null) and warns, instead of the one asked for', async () => {
    const r = await runCli([...args, '--json'], {env: {...sb.env(), MFG_BASE_URL: plain.url}})
    expect(r.exitCode, r.stderr).toBe(0)
    const e = json<{price: number; currency: string | null}>(r)
    expect(e.currency).toBeNull()
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!)).toEqual({
      warning: expect.stringContaining('did not say which currency'),
    })
  })

  it('prints the price without a currency on a table, and the warning on stderr', async () => {
    const r = await runCli(args, {env: {...sb.env(), MFG_BASE_URL: plain.url}})
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stdout).not.toContain('USD')
    expect(r.stderr).toContain('--currency USD is an mfg sandbox extension')
  })

  it('still labels the price with the currency the sandbox names', async () => {
    const r = await runCli([...args, '--json'], {env: sb.env()})
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json<{currency: string}>(r).currency).toBe('USD')
    expect(r.stderr).not.toContain('did not say')
  })
})
