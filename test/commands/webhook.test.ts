import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {RunningSandbox} from '../../src/sandbox/index.js'
import {cliEnv, json, runCli, type CliResult, type RunOptions} from '../helpers/cli.js'
import {startTestSandbox} from '../helpers/sandbox.js'
import {startReceiver, waitFor, type Receiver} from '../sandbox/receiver.js'

interface Hook {
  _id: string
  url: string
  secret: string
  events: string[]
  useSecret: boolean
}
interface Delivery {
  eventId: string
  type: string
  status: string
  attempts: {statusCode: number | null; error: string | null}[]
}

const SECRET = 'whsec_cli_test_secret_A1B2C3'
const NEW_SECRET = 'whsec_cli_rotated_Z9Y8X7W6'

let sandbox: RunningSandbox
let home: string
const outputs: CliResult[] = []
const env = (business = 0, sb = sandbox): Record<string, string> => cliEnv(sb, home, business)
const run = async (argv: string[], opts: RunOptions & {business?: number; sb?: RunningSandbox} = {}) => {
  const r = await runCli(argv, {...opts, env: {...env(opts.business, opts.sb), ...opts.env}})
  outputs.push(r)
  return r
}
const deliveries = async (id: string, sb?: RunningSandbox) => {
  const r = await run(['webhook', 'deliveries', id, '--json'], sb ? {sb} : {})
  expect(r.exitCode, r.stderr).toBe(0)
  return json<Delivery[]>(r)
}

beforeAll(async () => {
  sandbox = await startTestSandbox({webhooks: {retryBaseMs: 50}})
  home = mkdtempSync(join(tmpdir(), 'mfg-webhook-'))
})
afterAll(async () => {
  await sandbox.close()
  rmSync(home, {recursive: true, force: true})
  // The secrets never appeared in any output, --json included.
  for (const r of outputs) {
    expect(r.stdout + r.stderr).not.toContain(SECRET)
    expect(r.stdout + r.stderr).not.toContain(NEW_SECRET)
  }
})

describe('mfg webhook create, list, update', () => {
  let receiver: Receiver
  beforeAll(async () => {
    receiver = await startReceiver()
  })
  afterAll(async () => {
    await receiver.close()
  })

  it('creates with the secret from --secret or MFG_WEBHOOK_SECRET, masked in every output', async () => {
    const flag = await run([
      'webhook',
      'create',
      '--url',
      receiver.url,
      '--events',
      'quote_request_recieved,order_placed',
      '--secret',
      SECRET,
      '--use-secret',
      '--json',
    ])
    expect(flag.exitCode, flag.stderr).toBe(0)
    const hook = json<Hook>(flag)
    expect(hook).toMatchObject({url: receiver.url, events: ['quote_request_received', 'order_placed'], useSecret: true})
    expect(hook.secret).toMatch(/^\*{4}/)

    const fromEnv = await run(['webhook', 'create', '--url', receiver.url, '--events', 'order_updated'], {
      env: {MFG_WEBHOOK_SECRET: SECRET},
    })
    expect(fromEnv.exitCode, fromEnv.stderr).toBe(0)
    expect(fromEnv.stdout.trim()).toMatch(/^[0-9a-f]{24}$/)
    // Without --use-secret the secret is stored and not sent (the interface's default): the note says so and how to turn it on.
    expect(fromEnv.stderr).toContain(
      `, kept but not sent: deliveries carry it only with useSecret on (mfg webhook update ${fromEnv.stdout.trim()} --use-secret)`,
    )
    const sent = await run(['webhook', 'create', '--url', receiver.url, '--events', 'order_updated', '--use-secret'], {
      env: {MFG_WEBHOOK_SECRET: SECRET},
    })
    expect(sent.stderr).toMatch(/, sent in service-signature\)/)
    expect(sent.stderr).not.toContain('not sent')

    const none = await run(['webhook', 'create', '--url', receiver.url, '--events', 'order_updated'])
    expect(none.exitCode).toBe(2)
    expect(none.stderr).toMatch(/--secret.*MFG_WEBHOOK_SECRET/)

    const typo = await run([
      'webhook',
      'create',
      '--url',
      receiver.url,
      '--events',
      'order_shipped',
      '--secret',
      SECRET,
    ])
    expect(typo.exitCode).toBe(2)
    expect(typo.stderr).toMatch(/--events: "order_shipped" is not allowed \(allowed: order_placed, /)
    const misspelt = await run([
      'webhook',
      'create',
      '--url',
      receiver.url,
      '--events',
      'order_placd',
      '--secret',
      SECRET,
    ])
    expect(misspelt.exitCode).toBe(2)
    expect(misspelt.stderr).toContain('did you mean order_placed?')
    const trigger = await run(['webhook', 'trigger', 'order_plcaed'])
    expect(trigger.exitCode).toBe(2)
    expect(trigger.stderr).toContain('did you mean order_placed?')

    const list = await run(['webhook', 'list'])
    expect(list.exitCode, list.stderr).toBe(0)
    expect(list.stdout).toContain(hook._id)
    expect(list.stdout).toContain('quote_request_received,order_placed')
    const listed = json<Hook[]>(await run(['webhook', 'list', '--json']))
    expect(listed.map((h) => h._id)).toContain(hook._id)
    expect(listed.every((h) => h.secret.startsWith('****'))).toBe(true)
  })

  it('refuses a secret the service-signature header cannot carry, naming the field, before sending', async () => {
    const count = async () => json<Hook[]>(await run(['webhook', 'list', '--json'])).length
    const before = await count()
    const create = (secret: string) =>
      run(['webhook', 'create', '--url', receiver.url, '--events', 'order_placed', '--secret', secret, '--use-secret'])
    for (const bad of ['my secret ünï', 'two\nlines', ' padded ']) {
      const r = await create(bad)
      expect(r.exitCode, bad).toBe(2)
      expect(r.stderr).toMatch(/nothing was sent/)
      expect(r.stderr).toMatch(/secret: must be printable ASCII .*service-signature header/)
      expect(r.stderr).not.toMatch(/^\s+at /m)
    }
    const long = await create('x'.repeat(513))
    expect(long.exitCode).toBe(2)
    expect(long.stderr).toContain('secret: must be at most 512 characters')
    expect(await count()).toBe(before)

    const made = await create('a fine secret!')
    expect(made.exitCode, made.stderr).toBe(0)
    const update = await run(['webhook', 'update', made.stdout.trim(), '--secret', 'ünï'])
    expect(update.exitCode).toBe(2)
    expect(update.stderr).toMatch(/secret: must be printable ASCII/)
  })

  it('masks a password in the URL wherever a subscription is shown', async () => {
    const url = receiver.url.replace('://', '://bob:hunter2-pass@')
    const created = await run(['webhook', 'create', '--url', url, '--events', 'order_updated', '--secret', SECRET])
    expect(created.exitCode, created.stderr).toBe(0)
    const table = await run(['webhook', 'list'])
    const listed = await run(['webhook', 'list', '--json'])
    for (const r of [created, table, listed]) {
      expect(r.stdout + r.stderr).not.toContain('hunter2-pass')
    }
    expect(created.stderr).toContain('bob:****pass@')
    expect(table.stdout).toContain('bob:****pass@')
  })

  it('updates url, events, useSecret and the secret; deliveries then carry the new secret', async () => {
    const created = json<Hook>(
      await run([
        'webhook',
        'create',
        '--url',
        'https://example.com/old',
        '--events',
        'order_placed',
        '--secret',
        SECRET,
        '--json',
      ]),
    )
    const updated = await run([
      'webhook',
      'update',
      created._id,
      '--url',
      receiver.url,
      '--events',
      'quote_request_updated',
      '--use-secret',
      '--secret',
      NEW_SECRET,
      '--json',
    ])
    expect(updated.exitCode, updated.stderr).toBe(0)
    expect(json<Hook>(updated)).toMatchObject({url: receiver.url, events: ['quote_request_updated'], useSecret: true})

    const fromEnv = await run(['webhook', 'update', created._id, '--prompt-secret', '--no-use-secret'], {
      env: {MFG_WEBHOOK_SECRET: NEW_SECRET},
    })
    expect(fromEnv.exitCode, fromEnv.stderr).toBe(0)
    expect(fromEnv.stdout).toMatch(/useSecret=false/)
    await run(['webhook', 'update', created._id, '--use-secret'])

    const triggered = await run(['webhook', 'trigger', 'quote_request_updated', '--webhook', created._id, '--json'])
    expect(triggered.exitCode, triggered.stderr).toBe(0)
    const [sent] = json<{data: {id: string; deliveries: number}[]}>(triggered).data
    expect(sent!.deliveries).toBe(1)
    await waitFor(() => receiver.received.some((r) => r.json.id === sent!.id), 'the triggered event')
    const got = receiver.received.find((r) => r.json.id === sent!.id)!
    expect(got.headers['service-signature']).toBe(NEW_SECRET)

    const nothing = await run(['webhook', 'update', created._id])
    expect(nothing.exitCode).toBe(2)
    const unknown = await run(['webhook', 'update', '65f0ffff0000000000000001', '--url', receiver.url])
    expect(unknown.exitCode).toBe(1)
    expect(unknown.stderr).toMatch(/not found/)
  })

  it('keeps the access rule: a business without webhook access gets the 403 message', async () => {
    const r = await run(['webhook', 'create', '--url', receiver.url, '--events', 'order_placed', '--secret', SECRET], {
      business: 1,
    })
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toMatch(/no webhook access/)
    expect(r.stderr).toMatch(/403/)
    const trigger = await run(['webhook', 'trigger', 'order_placed'], {business: 1})
    expect(trigger.exitCode).toBe(1)
    expect(trigger.stderr).toMatch(/webhook access/)
  })
})

/** A subscription to quote_request_received at `url`, signed with SECRET. */
async function createHook(url: string): Promise<Hook> {
  return json<Hook>(
    await run(['webhook', 'create', '--url', url, '--events', 'quote_request_received', '--secret', SECRET, '--json']),
  )
}

describe('mfg webhook deliveries and trigger', () => {
  it('pages through more deliveries than one request answers: --all and --limit past 500', async () => {
    const receiver = await startReceiver(() => 200)
    const dir = mkdtempSync(join(tmpdir(), 'mfg-webhook-rows-'))
    try {
      const hook = await createHook(receiver.url)
      const rows = Array.from({length: 520}, (_, i) =>
        JSON.stringify({
          technique: '3D_PRINTING',
          material: 'PLA',
          quantity: 1,
          lastName: `Paging ${i}`,
          email: `p${i}@example.com`,
        }),
      )
      writeFileSync(join(dir, 'rows.ndjson'), `${rows.join('\n')}\n`)
      const created = await run([
        'demand',
        'create',
        '--file',
        join(dir, 'rows.ndjson'),
        '--out',
        join(dir, 'out.ndjson'),
      ])
      expect(created.exitCode, created.stderr).toBe(0)
      const ids = (r: CliResult) =>
        r.stdout
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as {eventId: string}).eventId)
      const all = await run(['webhook', 'deliveries', hook._id, '--all', '--ndjson', '--columns', 'eventId'])
      expect(all.exitCode, all.stderr).toBe(0)
      expect(new Set(ids(all)).size).toBe(520)
      const some = await run(['webhook', 'deliveries', hook._id, '--limit', '510', '--ndjson', '--columns', 'eventId'])
      expect(some.exitCode, some.stderr).toBe(0)
      // The newest 510, in the same order as the whole log.
      expect(ids(some)).toEqual(ids(all).slice(0, 510))
    } finally {
      await receiver.close()
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('a receiver that fails for a while gets every event once it recovers, in order, ids deduplicable', async () => {
    let failing = true
    const receiver = await startReceiver(() => (failing ? 503 : 200))
    try {
      const hook = await createHook(receiver.url)
      const ids: string[] = []
      for (let i = 0; i < 3; i++) {
        // Three quotes, not one: the same quote from flags on the same day is the same demand.
        const r = await run([
          'demand',
          'create',
          '--technique',
          '3D_PRINTING',
          '--material',
          'PLA',
          '--quantity',
          String(i + 1),
          '--json',
        ])
        expect(r.exitCode, r.stderr).toBe(0)
        ids.push(json<{results: {id: string}[]}>(r).results[0]!.id)
      }
      await waitFor(() => receiver.received.length >= 3, 'failed attempts')
      const pending = await deliveries(hook._id)
      expect(pending).toHaveLength(3)
      expect(pending.some((d) => d.status === 'pending')).toBe(true)
      failing = false
      await waitFor(async () => (await deliveries(hook._id)).every((d) => d.status === 'delivered'), 'recovery')

      const log = await deliveries(hook._id)
      expect(log.every((d) => d.attempts.at(-1)!.statusCode === 200)).toBe(true)
      expect(log.some((d) => d.attempts.some((a) => a.statusCode === 503))).toBe(true)
      // At least once: the failed attempts came again; by id, each event once, in creation order.
      expect(receiver.received.length).toBeGreaterThan(3)
      const unique = [...new Map(receiver.received.map((r) => [r.json.id, r.json])).values()]
      expect(unique.map((e) => (e.data as {_id: string})._id)).toEqual(ids)
      expect(new Set(log.map((d) => d.eventId))).toEqual(new Set(unique.map((e) => e.id)))

      const table = await run(['webhook', 'deliveries', hook._id])
      expect(table.stdout).toMatch(/eventId\s+type\s+status\s+attempts/)
      expect(table.stdout).toMatch(/quote_request_received\s+delivered/)

      // The table's own columns can be chosen and sorted by; attempts stay a count.
      const chosen = await run(['webhook', 'deliveries', hook._id, '--columns', 'eventId,attempts,lastStatusCode'])
      const byAttempts = await run(['webhook', 'deliveries', hook._id, '--sort', '-attempts', '--columns', 'attempts'])
      for (const r of [chosen, byAttempts]) expect(r.exitCode, r.stderr).toBe(0)
      const rows = chosen.stdout.trim().split('\n')
      expect(rows[0]).toMatch(/^eventId\s+attempts\s+lastStatusCode$/)
      expect(rows.slice(1).map((l) => l.split(/\s+/))).toEqual(
        log.map((d) => [d.eventId, String(d.attempts.length), '200']),
      )
      const counts = log.map((d) => String(d.attempts.length)).sort((a, b) => Number(b) - Number(a))
      expect(byAttempts.stdout.trim().split('\n')).toEqual(['attempts', ...counts])
      const picked = await run(['webhook', 'deliveries', hook._id, '--json', 'eventId,lastStatusCode'])
      expect(json(picked)).toEqual(log.map((d) => ({eventId: d.eventId, lastStatusCode: 200})))
    } finally {
      await receiver.close()
    }
  })

  it('trigger sends a sample event; a type nobody listens to says so', async () => {
    const receiver = await startReceiver()
    try {
      const hook = json<Hook>(
        await run([
          'webhook',
          'create',
          '--url',
          receiver.url,
          '--events',
          'product_purchased',
          '--secret',
          SECRET,
          '--json',
        ]),
      )
      const r = await run(['webhook', 'trigger', 'product_purchased', '--webhook', hook._id])
      expect(r.exitCode, r.stderr).toBe(0)
      expect(r.stdout).toMatch(/^evt_[0-9a-f]+\s+product_purchased\s+1 delivery/)
      await waitFor(() => receiver.received.length === 1, 'the sample event')
      expect(receiver.received[0]!.json.type).toBe('product_purchased')
      expect(receiver.received[0]!.json.data).toHaveProperty('productId')

      const nobody = await run(['webhook', 'trigger', 'order_updated', '--webhook', hook._id])
      expect(nobody.exitCode, nobody.stderr).toBe(0)
      expect(nobody.stderr).toMatch(/nothing will be delivered/)
      const bad = await run(['webhook', 'trigger', 'order_shipped'])
      expect(bad.exitCode).toBe(2)
    } finally {
      await receiver.close()
    }
  })

  it('a sandbox restarted with undelivered events delivers them (to the URL set after the restart)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mfg-webhook-data-'))
    let first: RunningSandbox | undefined = await startTestSandbox({dataDir, webhooks: {retryBaseMs: 60_000}})
    let second: RunningSandbox | undefined
    const receiver = await startReceiver()
    try {
      // Nothing listens on the first URL: the delivery fails and waits a minute for its retry.
      const hook = json<Hook>(
        await run(
          [
            'webhook',
            'create',
            '--url',
            'http://127.0.0.1:9/nothing',
            '--events',
            'quote_request_received',
            '--secret',
            SECRET,
            '--json',
          ],
          {sb: first},
        ),
      )
      const created = await run(['demand', 'create', '--technique', '3D_PRINTING', '--material', 'PLA', '--json'], {
        sb: first,
      })
      const id = json<{results: {id: string}[]}>(created).results[0]!.id
      await waitFor(
        async () => (await deliveries(hook._id, first)).some((d) => d.attempts.length > 0),
        'a failed attempt',
      )
      await first.close()
      first = undefined

      second = await startTestSandbox({dataDir, webhooks: {retryBaseMs: 50}})
      const moved = await run(['webhook', 'update', hook._id, '--url', receiver.url], {sb: second})
      expect(moved.exitCode, moved.stderr).toBe(0)
      await waitFor(() => receiver.received.length > 0, 'the delivery after the restart')
      expect((receiver.received[0]!.json.data as {_id: string})._id).toBe(id)
    } finally {
      await first?.close()
      await second?.close()
      await receiver.close()
      rmSync(dataDir, {recursive: true, force: true})
    }
  })

  it('on the embedded sandbox, an attempt the receiver has not answered when the command ends is logged as failed, saying why', async () => {
    const embedded = mkdtempSync(join(tmpdir(), 'mfg-webhook-embedded-'))
    const local = (argv: string[]) => runCli(argv, {env: {MFG_HOME: embedded}}).then((r) => (outputs.push(r), r))
    const hanging = await startReceiver(() => 200, {hold: () => new Promise(() => undefined)})
    try {
      const made = await local([
        'webhook',
        'create',
        '--url',
        hanging.url,
        '--events',
        'order_placed',
        '--secret',
        SECRET,
        '--json',
      ])
      expect(made.exitCode, made.stderr).toBe(0)
      const hook = json<Hook>(made)
      const triggered = await local(['webhook', 'trigger', 'order_placed'])
      expect(triggered.exitCode, triggered.stderr).toBe(0)
      expect(hanging.received).toHaveLength(1)
      const shown = await local(['webhook', 'deliveries', hook._id, '--json'])
      expect(shown.exitCode, shown.stderr).toBe(0)
      expect(json<Delivery[]>(shown)).toMatchObject([
        {
          eventId: hanging.received[0]!.json.id,
          status: 'pending',
          attempts: [{statusCode: null, error: 'the sandbox stopped before the receiver answered'}],
        },
      ])
    } finally {
      await hanging.close()
      rmSync(embedded, {recursive: true, force: true})
    }
  })

  it('says clearly when the service has no delivery log or trigger', async () => {
    const b = sandbox.businesses[0]!
    // A service with the interface's webhook routes only.
    const server: Server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json')
      if (req.method === 'GET' && req.url === `/api/v2/integrations_ms/webhooks/${b.id}`) {
        res.end(
          JSON.stringify({
            message: 'ok',
            data: [{_id: 'w1', url: 'https://x.test', secret: 's', events: ['order_placed'], useSecret: false}],
          }),
        )
        return
      }
      res.statusCode = 404
      res.end(JSON.stringify({statusCode: 404, error: 'Not Found', message: 'Cannot find that'}))
    })
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
    const port = (server.address() as {port: number}).port
    try {
      const over = {env: {MFG_BASE_URL: `http://127.0.0.1:${port}`}}
      const log = await run(['webhook', 'deliveries', 'w1'], over)
      expect(log.exitCode).toBe(1)
      expect(log.stderr).toMatch(/keeps no delivery log/)
      const trigger = await run(['webhook', 'trigger', 'order_placed'], over)
      expect(trigger.exitCode).toBe(1)
      expect(trigger.stderr).toMatch(/cannot send sample events/)
      const unknown = await run(['webhook', 'deliveries', 'w2'], over)
      expect(unknown.exitCode).toBe(1)
      expect(unknown.stderr).toMatch(/404/)
    } finally {
      server.closeAllConnections()
      await new Promise((done) => server.close(done))
    }
  })
})
