// `mfg demand quote --legacy` against a real sandbox over HTTP, behind a proxy that counts the
// estimation requests: parts are priced through the legacy modelPriceEstimation (not v1),
// the same prices `price estimate --legacy` gives for the same file, and --apply writes them.
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import type http from 'node:http'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {QuoteOutcome} from '../../src/services/quote/types.js'
import {json, jsonLines, secretsOf, useCliSandbox} from '../helpers/cli.js'
import {meshPath} from '../helpers/meshes.js'
import {startProxy, type Proxy} from '../helpers/proxy.js'

const {sb, outputs, run} = useCliSandbox()

const LEGACY = '/api/v2/ms-machine-learning/machine-learing/modelPriceEstimation/'
const V1 = '/api/public/v1/price-estimation/'
/** Estimation requests the proxy saw, by interface, and the currency each legacy one asked for. */
let calls = {legacy: 0, v1: 0, currencies: [] as string[]}
function watch(req: http.IncomingMessage): void {
  const url = new URL(req.url ?? '/', 'http://proxy')
  if (url.pathname.startsWith(LEGACY)) {
    calls.legacy++
    calls.currencies.push(url.searchParams.get('currency') ?? '')
  } else if (url.pathname.startsWith(V1)) calls.v1++
}

let proxy: Proxy
const quote = async (args: string[]) => {
  calls = {legacy: 0, v1: 0, currencies: []}
  const r = await run(['demand', 'quote', ...args], {env: {MFG_BASE_URL: proxy.url}})
  return {...r, out: r.exitCode === 2 ? [] : jsonLines<QuoteOutcome>(r)}
}
interface Held {
  updatedAt: string
  currency?: string
  subtotal: number
  quoteModel: {pricePerPiece?: number; currency?: string}[]
}
const demand = async (id: string) => json<Held>(await run(['demand', 'get', id, '--json']))
/** What `price estimate --legacy` says for the same file, machine, material and quantity. */
async function legacyEstimate(quantity: number, currency: string): Promise<{price: number; unitPrice: number}> {
  const args = ['--part', meshPath('cube20.stl'), '--technology', 'FDM', '--material', 'PLA']
  const r = await run([
    'price',
    'estimate',
    ...args,
    '--quantity',
    String(quantity),
    '--legacy',
    '--currency',
    currency,
    '--json',
  ])
  expect(r.exitCode, r.stderr).toBe(0)
  return json(r)
}

let id = ''
beforeAll(async () => {
  const up = await run(['post', 'upload', meshPath('cube20.stl'), '--json'])
  expect(up.exitCode, up.stderr).toBe(0)
  const link = json<{url: string}[]>(up)[0]!.url
  const part = {fileName: 'cube20.stl', fileLink: link, service: '3D_PRINTING', technology: 'FDM', material: 'PLA'}
  const file = join(sb.home, 'legacy.json')
  writeFileSync(
    file,
    JSON.stringify([{draftId: 'legacy-1', technique: '3D_PRINTING', quoteModel: [{...part, quantity: 3}]}]),
  )
  const created = await run(['demand', 'create', '--file', file, '--json'])
  expect(created.exitCode, created.stderr).toBe(0)
  id = json<{results: {id: string}[]}>(created).results[0]!.id
  proxy = await startProxy(sb.url, watch)
})
afterAll(async () => {
  await proxy?.close()
  for (const r of outputs) for (const secret of secretsOf(sb)) expect(r.stdout + r.stderr).not.toContain(secret)
})

describe('demand quote --legacy', () => {
  it('a dry run prices each part on the legacy estimation, in the demand currency, and writes nothing', async () => {
    const before = await demand(id)
    const currency = before.currency ?? 'EUR'
    const r = await quote([id, '--legacy', '--dry-run', '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    const [o] = r.out
    expect(o!.status, o!.reason).toBe('would-quote')
    expect(o!.interface).toBe('legacy')
    // One legacy request for the one part, none on v1 (the part names its machine).
    expect(calls).toEqual({legacy: 1, v1: 0, currencies: [currency]})
    const expected = await legacyEstimate(3, currency)
    const part = o!.parts[0]!
    expect(part.total).toBe(expected.price)
    // 3 pieces: the unit price that, with the setup cost, makes the estimate's total to the cent.
    expect(part.unitPrice).toBe(Math.floor((expected.price / 3) * 100 + 1e-7) / 100)
    expect(part.unitPrice! * 3 + (part.startupCost ?? 0)).toBeCloseTo(expected.price, 6)
    expect(o!.parts[0]!.currency).toBe(currency)
    expect((await demand(id)).updatedAt).toBe(before.updatedAt)
  })

  it('--currency prices in another currency on the legacy estimation', async () => {
    const r = await quote([id, '--legacy', '--currency', 'usd', '--dry-run', '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(calls.currencies).toEqual(['USD'])
    expect(r.out[0]!.parts[0]!.total).toBe((await legacyEstimate(3, 'USD')).price)
    expect(r.out[0]!.currency).toBe('USD')
  })

  it('a currency the legacy estimation lacks is refused by name, and nothing is sent', async () => {
    const r = await quote([id, '--legacy', '--currency', 'XYZ', '--apply', '--json'])
    expect(r.exitCode).toBe(4)
    expect(r.out[0]!.status).toBe('skipped')
    expect(r.out[0]!.reason).toContain('--legacy needs --currency, one of')
    expect(calls.legacy + calls.v1).toBe(0)
  })

  it('--apply writes the legacy prices; a rerun is unchanged, and v1 prices are a change', async () => {
    const r = await quote([id, '--legacy', '--apply', '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    const [o] = r.out
    expect(o!.status).toBe('quoted')
    expect(o!.interface).toBe('legacy')
    expect(calls.legacy).toBe(1)
    const after = await demand(id)
    expect(after.quoteModel[0]!.pricePerPiece).toBe(o!.parts[0]!.unitPrice)
    expect(after.subtotal).toBe(o!.partsTotal)
    const again = await quote([id, '--legacy', '--apply', '--json'])
    expect(again.out[0]!.status).toBe('unchanged')
    expect((await demand(id)).updatedAt).toBe(after.updatedAt)
    // The digest keeps which interface priced it: v1 quotes it again (its own request, its own prices).
    const v1 = await quote([id, '--dry-run', '--json'])
    expect(calls).toEqual({legacy: 0, v1: 1, currencies: []})
    expect(v1.out[0]!.interface).toBe('v1')
    expect(v1.out[0]!.status).toBe('would-quote')
  })
})
