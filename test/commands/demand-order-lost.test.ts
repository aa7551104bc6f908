import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, expect, it} from 'vitest'

import type {RunningSandbox} from '../../src/sandbox/index.js'
import {cliEnv, runCli} from '../helpers/cli.js'
import {startProxy, type Proxy} from '../helpers/proxy.js'
import {sandboxClient, startTestSandbox} from '../helpers/sandbox.js'

// A gateway in front of the service that answers 502 once the service has placed the
// order (or drops the connection then): the order exists, and the error must not read
// as "nothing happened", or the user orders again.
let sandbox: RunningSandbox
let gateway: Proxy
let home: string
let mode: 'bad-gateway' | 'dropped' = 'bad-gateway'
beforeAll(async () => {
  sandbox = await startTestSandbox()
  gateway = await startProxy(sandbox.url, undefined, {
    after: (req) => (req.method !== 'POST' ? undefined : mode === 'bad-gateway' ? {status: 502} : 'drop'),
  })
  home = mkdtempSync(join(tmpdir(), 'mfg-order-lost-'))
})
afterAll(async () => {
  await gateway.close()
  await sandbox.close()
  rmSync(home, {recursive: true, force: true})
})

const product = '65f000050000000000000001'
const order = ['demand', 'order', '--product', product, '--referral', 'api', '--quantity', '2', '--material', 'PLA']

async function ordersOfProduct(): Promise<number> {
  const r = await sandboxClient(sandbox).get(`/api/public/v1/demand/${sandbox.businesses[0]!.id}/all?pageSize=100`)
  return (r.body.data as {productId?: string}[]).filter((d) => d.productId === product).length
}

it.each(['bad-gateway', 'dropped'] as const)(
  'an order whose answer is lost (%s) is not sent again, and the error says it may exist and how to look',
  async (how) => {
    mode = how
    const before = await ordersOfProduct()
    const env = {...cliEnv(sandbox, home), MFG_BASE_URL: gateway.url}
    const r = await runCli([...order, '--json'], {env})
    expect(r.exitCode).toBe(1)
    const {error} = JSON.parse(r.stderr) as {error: {code: string; message: string}}
    expect(error.code).toBe(how === 'bad-gateway' ? 'server_error' : 'network_error')
    expect(error.message).toContain(
      how === 'bad-gateway' ? 'it may have been carried out before the error' : 'the request may have been sent',
    )
    const filter = `.[] | select(.productId == "${product}")`
    const hint = `mfg demand list --json --jq '${filter}'`
    expect(error.message).toContain(
      `The order may have been placed: look for it before ordering again, newest first: ${hint}`,
    )
    // Placed once, not resent.
    expect(await ordersOfProduct()).toBe(before + 1)
    // The hint, run as written against the service, finds it.
    const look = await runCli(['demand', 'list', '--json', '--jq', filter], {
      env: cliEnv(sandbox, home),
    })
    expect(look.exitCode, look.stderr).toBe(0)
    const found = look.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as {productId: string}).productId)
    expect(found).toEqual(Array.from({length: before + 1}, () => product))
  },
)

it('a 5xx to a read says nothing of that kind', async () => {
  mode = 'bad-gateway'
  const proxy = await startProxy(sandbox.url, (req) => (req.method === 'GET' ? {status: 500} : undefined))
  try {
    const r = await runCli(['demand', 'list', '--json', '--timeout', '2', '--total-timeout', '3'], {
      env: {...cliEnv(sandbox, home), MFG_BASE_URL: proxy.url},
    })
    expect(r.exitCode).toBe(1)
    expect(r.stdout + r.stderr).not.toContain('carried out')
  } finally {
    await proxy.close()
  }
})
