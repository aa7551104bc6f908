// The interface writes currency codes in upper case (EUR, USD, ...). mfg accepts them in
// any case from a user, and must send them as the interface writes them: a real service
// need not be as forgiving as the sandbox, which stores `usd` as USD either way. What reaches
// the service is read through a proxy in front of the sandbox.
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {json, useCliSandbox} from '../helpers/cli.js'
import {startProxy, type Proxy} from '../helpers/proxy.js'

const {sb, run} = useCliSandbox()
const sent: {method: string; path: string; body: unknown}[] = []
let proxy: Proxy

beforeAll(async () => {
  proxy = await startProxy(sb.url, (req) => {
    if (req.method !== 'POST' && req.method !== 'PUT') return
    const parts: Buffer[] = []
    req.on('data', (c: Buffer) => parts.push(c))
    req.on('end', () =>
      sent.push({
        method: req.method!,
        path: new URL(req.url ?? '/', 'http://proxy').pathname,
        body: JSON.parse(Buffer.concat(parts).toString('utf8')) as unknown,
      }),
    )
  })
})
afterAll(async () => {
  await proxy?.close()
})

const viaProxy = {env: {MFG_BASE_URL: '' as string}}
const last = () => sent.at(-1)!

describe('currency codes go out in upper case', () => {
  it('demand create: a file row, a quote from flags and a legacy row', async () => {
    viaProxy.env.MFG_BASE_URL = proxy.url
    const rows = join(sb.home, 'lower-currency.json')
    writeFileSync(rows, JSON.stringify([{technique: '3D_PRINTING', material: 'PLA', currency: 'usd', quantity: 1}]))
    const fromFile = await run(['demand', 'create', '--file', rows, '--json'], viaProxy)
    expect(fromFile.exitCode, fromFile.stderr).toBe(0)
    expect(last().body).toEqual([expect.objectContaining({currency: 'USD', material: 'PLA'})])

    const fromFlags = await run(
      ['demand', 'create', '--technique', 'CNC_MACHINING', '--material', 'Brass', '--currency', 'gbp', '--json'],
      viaProxy,
    )
    expect(fromFlags.exitCode, fromFlags.stderr).toBe(0)
    expect(last().body).toEqual([expect.objectContaining({currency: 'GBP', material: 'Brass'})])

    const legacy = await run(['demand', 'create', '--legacy', '--file', rows, '--fresh', '--json'], viaProxy)
    expect(legacy.exitCode, legacy.stderr).toBe(0)
    expect(last().path).toBe('/api/v2/ms-machine-owner/demand/create-demands')
    expect(last().body).toEqual([expect.objectContaining({currency: 'USD'})])
  })

  it('demand update: a body from a file', async () => {
    viaProxy.env.MFG_BASE_URL = proxy.url
    const created = await run(['demand', 'create', '--technique', '3D_PRINTING', '--material', 'PETG', '--json'])
    expect(created.exitCode, created.stderr).toBe(0)
    const id = (json<{results: {id: string}[]}>(created).results ?? [])[0]?.id
    expect(id).toBeTruthy()
    const body = join(sb.home, 'update-currency.json')
    writeFileSync(body, JSON.stringify({currency: 'cad', color: 'Blue'}))
    const r = await run(['demand', 'update', id!, '--file', body, '--json'], viaProxy)
    expect(r.exitCode, r.stderr).toBe(0)
    expect(last()).toEqual({
      method: 'PUT',
      path: `/api/public/v1/demand/${id}`,
      body: {currency: 'CAD', color: 'Blue'},
    })
  })
})
