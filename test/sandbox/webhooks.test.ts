import {createHmac} from 'node:crypto'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {STOPPED_ERROR} from '../../src/sandbox/events.js'
import type {RunningSandbox} from '../../src/sandbox/index.js'
import {WebhookAnswer} from '../../src/schemas/webhooks.js'
import {sandboxClient, startTestSandbox, type SandboxClient} from '../helpers/sandbox.js'
import {startReceiver, waitFor, type Receiver, type Received} from './receiver.js'

const HOOKS = '/api/v2/integrations_ms/webhooks'
const FAST = {retryBaseMs: 20, drainMs: 200}

let sandbox: RunningSandbox
let demo: SandboxClient
let second: SandboxClient
const receivers: Receiver[] = []

beforeAll(async () => {
  sandbox = await startTestSandbox({webhooks: FAST})
  demo = sandboxClient(sandbox, sandbox.businesses[0])
  second = sandboxClient(sandbox, sandbox.businesses[1])
})
afterAll(async () => {
  await sandbox.close()
})
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()))
})

async function receiver(
  status?: Receiver['status'],
  hold?: NonNullable<Parameters<typeof startReceiver>[1]>['hold'],
): Promise<Receiver> {
  const r = await startReceiver(status, hold ? {hold} : {})
  receivers.push(r)
  return r
}

async function subscribe(
  client: SandboxClient,
  url: string,
  events: string[],
  extra: Record<string, unknown> = {},
): Promise<{_id: string; secret: string}> {
  const answer = await client.post(HOOKS, {businessId: client.business.id, url, secret: 'whsec_test', events, ...extra})
  expect(answer.status, answer.text).toBe(201)
  return answer.body.data[0]
}

/** Checks the contract's signature headers as a receiver would. */
function verify(entry: Received, secret: string, useSecret: boolean): void {
  expect(entry.headers['content-type']).toBe('application/json')
  if (useSecret) expect(entry.headers['service-signature']).toBe(secret)
  else expect(entry.headers['service-signature']).toBeUndefined()
  const header = String(entry.headers['service-signature-sha256'])
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header)
  expect(match, header).not.toBeNull()
  const [, t, v1] = match as RegExpExecArray
  expect(Math.abs(Number(t) - Date.now() / 1000)).toBeLessThan(300)
  expect(v1).toBe(createHmac('sha256', secret).update(`${t}.${entry.body}`).digest('hex'))
}

const createQuote = (client = demo, extra: Record<string, unknown> = {}) =>
  client.post(`/api/public/v1/demand/create-quotes/${client.business.id}`, [
    {technique: '3D_PRINTING', material: 'PLA', jobDetails: {takenAs: 'QUOTE'}, ...extra},
  ])

describe('subscriptions', () => {
  it('creates, lists and updates; the secret is answered; the misspelling is accepted and corrected', async () => {
    const created = await demo.post(HOOKS, {
      businessId: demo.business.id,
      url: 'http://127.0.0.1:9/hook',
      secret: 's3cret',
      events: ['quote_request_recieved', 'order_placed', 'order_placed'],
      useSecret: true,
    })
    expect(created.status, created.text).toBe(201)
    const answer = WebhookAnswer.parse(created.body)
    expect(answer.data[0]).toMatchObject({
      url: 'http://127.0.0.1:9/hook',
      secret: 's3cret',
      events: ['quote_request_received', 'order_placed'],
      useSecret: true,
    })
    const id = answer.data[0]?._id
    const listed = await demo.get(`${HOOKS}/${demo.business.id}`)
    expect(listed.body.data.map((w: {_id: string}) => w._id)).toContain(id)
    const updated = await demo.post(`${HOOKS}/${demo.business.id}/${id}`, {events: ['order_updated'], useSecret: false})
    expect(updated.status, updated.text).toBe(200)
    expect(updated.body.data[0]).toMatchObject({_id: id, events: ['order_updated'], useSecret: false, secret: 's3cret'})
    expect(updated.body.message).toBeTypeOf('string')
  })

  it('checks event names, url and the body; 403 for another business or without webhook access', async () => {
    const bad = await demo.post(HOOKS, {
      businessId: demo.business.id,
      url: 'ftp://x',
      secret: 's',
      events: ['order_shipped'],
    })
    expect(bad.status).toBe(400)
    expect(bad.body.details.map((d: {path: string}) => d.path).sort()).toEqual(['events.0', 'url'])
    expect(bad.body.message).toContain('quote_request_received')
    const other = await demo.post(HOOKS, {
      businessId: second.business.id,
      url: 'http://x.test',
      secret: 's',
      events: ['order_placed'],
    })
    expect(other.status).toBe(403)
    const noAccess = await second.post(HOOKS, {
      businessId: second.business.id,
      url: 'http://x.test',
      secret: 's',
      events: ['order_placed'],
    })
    expect(noAccess.status).toBe(403)
    expect(noAccess.body.message).toMatch(/webhook access/)
    expect((await demo.get(`${HOOKS}/${second.business.id}`)).status).toBe(403)
    expect((await demo.post(`${HOOKS}/${demo.business.id}/000000000000000000000000`, {useSecret: true})).status).toBe(
      404,
    )
    expect((await demo.post(`${HOOKS}/${demo.business.id}/000000000000000000000000/x`, {})).status).toBe(404)
  })
})

describe('events and deliveries', () => {
  it('v1 create and update, legacy create, update and delete, and by-product orders emit the contract events', async () => {
    const r = await receiver()
    const hook = await subscribe(
      demo,
      r.url,
      ['quote_request_received', 'order_placed', 'product_purchased', 'quote_request_updated', 'order_updated'],
      {useSecret: true},
    )

    const quote = (await createQuote()).body[0]
    await demo.put(`/api/public/v1/demand/${quote._id}`, {demandStatusInfo: {status: 'special_verified'}})
    await demo.put(`/api/public/v1/demand/${quote._id}`, {paymentStatus: 'PAID'})
    await demo.put(`/api/public/v1/demand/${quote._id}`, {color: 'Red'})
    const order = (await createQuote(demo, {jobDetails: {takenAs: 'ORDER'}})).body[0]
    const legacy = await demo.post('/api/v2/ms-machine-owner/demand/create-demands', [
      {technique: '3D_PRINTING', material: 'PLA', email: 'a@example.com'},
    ])
    expect(legacy.status, legacy.text).toBe(201)
    const legacyId = legacy.body[0]._id
    await demo.put(`/api/v2/ms-machine-owner/demand/${legacyId}`, {quantity: 3})
    await demo.delete(`/api/v2/ms-machine-owner/demand/${legacyId}`)
    const products = await demo.get(`/api/v2/ms-post/post/user-posts/${demo.business.id}?pageSize=1`)
    const productId = products.body.posts[0]._id
    const bought = await demo.post('/api/v2/ms-machine-owner/demand/products?lang=en', [
      {productId, referral: 'api', quantity: 2},
    ])
    expect(bought.status, bought.text).toBe(201)
    // A replayed draftId and an update that changes nothing emit nothing.
    await demo.put(`/api/public/v1/demand/${quote._id}`, {color: 'Red'})

    const expected: [string, string][] = [
      ['quote_request_received', quote._id],
      ['quote_request_updated', quote._id],
      ['order_placed', quote._id],
      ['order_updated', quote._id],
      ['order_placed', order._id],
      ['quote_request_received', legacyId],
      ['quote_request_updated', legacyId],
      ['quote_request_updated', legacyId],
      ['order_placed', bought.body[0]._id],
      ['product_purchased', bought.body[0]._id],
    ]
    await waitFor(() => r.received.length >= expected.length, 'ten deliveries')
    expect(r.received.map((e) => [e.json.type, e.json.data._id])).toEqual(expected)
    for (const entry of r.received) {
      verify(entry, hook.secret, true)
      expect(entry.json.id).toMatch(/^evt_[0-9a-f]{24}$/)
      expect(Date.parse(entry.json.createdAt)).not.toBeNaN()
    }
    expect(new Set(r.received.map((e) => e.json.id)).size).toBe(expected.length)
    expect(r.received[9]?.json.data.productId).toBe(productId)
    expect(r.received[7]?.json.data).toMatchObject({archive: true, demandStatusInfo: {status: 'cancelled'}})
    expect(r.received[0]?.json.data.orderNumber).toBe(quote.orderNumber)
    expect(r.received[0]?.json.data.paymentAuthToken).toBeUndefined()
    // Only subscribed events are sent, to this business's subscriptions only.
    const other = await receiver()
    await subscribe(demo, other.url, ['order_placed'])
    await createQuote(second)
    await createQuote()
    const order2 = (await createQuote(demo, {jobDetails: {takenAs: 'ORDER'}})).body[0]
    await waitFor(() => other.received.length >= 1 && r.received.length >= expected.length + 2, 'the next events')
    expect(other.received.map((e) => e.json.data._id)).toEqual([order2._id])
    verify(other.received[0] as Received, 'whsec_test', false)
    await demo.post(`${HOOKS}/${demo.business.id}/${hook._id}`, {events: ['order_updated']})
  })

  it('gives the deliveries queued behind a failing one its next attempt time, not their own past creation time', async () => {
    const slow = await startTestSandbox({webhooks: {retryBaseMs: 600_000, drainMs: 0}})
    try {
      const client = sandboxClient(slow, slow.businesses[0])
      const r = await receiver(() => 500)
      const hook = await subscribe(client, r.url, ['quote_request_received'])
      for (let i = 0; i < 3; i++) await createQuote(client, {quantity: i + 1})
      const log = async () => (await client.get(`${HOOKS}/${client.business.id}/${hook._id}/deliveries`)).body.data
      await waitFor(async () => (await log()).at(-1).attempts.length === 1, 'the first failed attempt')
      const [third, second, first] = await log()
      expect(first.status).toBe('pending')
      expect(Date.parse(first.nextAttemptAt)).toBeGreaterThan(Date.now())
      for (const waiting of [second, third]) {
        expect(waiting).toMatchObject({status: 'pending', attempts: []})
        expect(waiting.nextAttemptAt).toBe(first.nextAttemptAt)
      }
    } finally {
      await slow.close()
    }
  })

  it('retries after 500s with back-off until a 2xx, in order per subscription, and logs every attempt', async () => {
    let failing = true
    const r = await receiver(() => (failing ? 500 : 200))
    const hook = await subscribe(demo, r.url, ['quote_request_received'])
    const ids: string[] = []
    for (let i = 0; i < 3; i++) ids.push((await createQuote()).body[0]._id)
    await waitFor(() => r.received.length >= 3, 'three failed attempts')
    // While the first event fails, the later ones wait behind it.
    expect(new Set(r.received.map((e) => e.json.data._id))).toEqual(new Set([ids[0]]))
    failing = false
    await waitFor(() => r.received.filter((e) => e.json.data._id === ids[2]).length >= 1, 'the third event')
    const delivered = r.received.slice(r.received.findIndex((e, i) => i > 0 && e.json.data._id !== ids[0]) - 1)
    expect(delivered.map((e) => e.json.data._id)).toEqual(ids)
    const firstAttempts = r.received.filter((e) => e.json.data._id === ids[0])
    expect(new Set(firstAttempts.map((e) => e.json.id)).size).toBe(1)
    const gaps = firstAttempts.slice(1).map((e, i) => e.at - (firstAttempts[i]?.at ?? 0))
    expect(gaps.every((gap) => gap >= FAST.retryBaseMs)).toBe(true)

    const log = await demo.get(`${HOOKS}/${demo.business.id}/${hook._id}/deliveries`)
    expect(log.status, log.text).toBe(200)
    const [third, , first] = log.body.data
    expect(third).toMatchObject({
      status: 'delivered',
      type: 'quote_request_received',
      attempts: [{attempt: 1, statusCode: 200}],
    })
    expect(first.status).toBe('delivered')
    expect(first.attempts.length).toBe(firstAttempts.length)
    expect(first.attempts.slice(0, -1).every((a: {statusCode: number}) => a.statusCode === 500)).toBe(true)
    expect(first.attempts.at(-1)).toMatchObject({statusCode: 200, error: null})
    expect(Date.parse(first.attempts[0].at)).not.toBeNaN()
    expect((await second.get(`${HOOKS}/${second.business.id}/${hook._id}/deliveries`)).status).toBe(404)
    // `before` pages on from a delivery, older ones only; one not of this webhook is a 400 naming it.
    const older = await demo.get(`${HOOKS}/${demo.business.id}/${hook._id}/deliveries?limit=1&before=${third._id}`)
    expect(older.body.data.map((d: {_id: string}) => d._id)).toEqual([log.body.data[1]._id])
    const stray = await demo.get(`${HOOKS}/${demo.business.id}/${hook._id}/deliveries?before=dlv_nope`)
    expect(stray.status).toBe(400)
    expect(stray.body.details).toEqual([{path: 'before', message: 'not a delivery of this webhook'}])
    await demo.post(`${HOOKS}/${demo.business.id}/${hook._id}`, {events: ['order_updated']})
  })

  it('gives up after 8 attempts and moves on; an unreachable receiver logs the error', async () => {
    const r = await receiver(() => 503)
    const hook = await subscribe(demo, r.url, ['quote_request_received'])
    await createQuote()
    await waitFor(async () => {
      const log = await demo.get(`${HOOKS}/${demo.business.id}/${hook._id}/deliveries`)
      return log.body.data[0]?.status === 'failed'
    }, 'the delivery to be given up')
    expect(r.received).toHaveLength(8)
    await demo.post(`${HOOKS}/${demo.business.id}/${hook._id}`, {url: 'http://127.0.0.1:9/closed'})
    await createQuote()
    await waitFor(async () => {
      const log = await demo.get(`${HOOKS}/${demo.business.id}/${hook._id}/deliveries`)
      return (log.body.data[0]?.attempts.length ?? 0) >= 1
    }, 'an attempt to a closed port')
    const log = await demo.get(`${HOOKS}/${demo.business.id}/${hook._id}/deliveries`)
    expect(log.body.data[0].attempts[0]).toMatchObject({statusCode: null, error: expect.stringMatching(/ECONNREFUSED/)})
    await demo.post(`${HOOKS}/${demo.business.id}/${hook._id}`, {events: ['order_updated']})
  })

  it('a receiver slower than the drain time that answers while the sandbox runs is delivered', async () => {
    const r = await receiver(
      () => 200,
      () => new Promise((resolve) => setTimeout(resolve, FAST.drainMs * 3)),
    )
    const hook = await subscribe(demo, r.url, ['product_purchased'])
    await demo.post(`${HOOKS}/${demo.business.id}/trigger`, {type: 'product_purchased', webhookId: hook._id})
    const log = async () => (await demo.get(`${HOOKS}/${demo.business.id}/${hook._id}/deliveries`)).body.data
    await waitFor(async () => (await log())[0]?.status !== 'pending', 'the slow answer')
    expect((await log())[0]).toMatchObject({
      status: 'delivered',
      attempts: [{attempt: 1, statusCode: 200, error: null}],
    })
    expect(r.received).toHaveLength(1)
    await demo.post(`${HOOKS}/${demo.business.id}/${hook._id}`, {events: ['order_updated']})
  })

  it('[ext] trigger sends a sample event of a type', async () => {
    const r = await receiver()
    const hook = await subscribe(demo, r.url, ['product_purchased'])
    const answer = await demo.post(`${HOOKS}/${demo.business.id}/trigger`, {
      type: 'product_purchased',
      webhookId: hook._id,
    })
    expect(answer.status, answer.text).toBe(202)
    expect(answer.body.data[0]).toMatchObject({type: 'product_purchased', deliveries: 1})
    await waitFor(() => r.received.length === 1, 'the sample event')
    expect(r.received[0]?.json).toMatchObject({id: answer.body.data[0].id, type: 'product_purchased'})
    expect(r.received[0]?.json.data.productId).toBeTypeOf('string')
    const none = await demo.post(`${HOOKS}/${demo.business.id}/trigger`, {
      type: 'quote_request_recieved',
      webhookId: hook._id,
    })
    expect(none.status).toBe(202)
    expect(none.body).toMatchObject({data: []})
    expect((await demo.post(`${HOOKS}/${demo.business.id}/trigger`, {type: 'nope'})).status).toBe(400)
    expect((await second.post(`${HOOKS}/${second.business.id}/trigger`, {type: 'order_placed'})).status).toBe(403)
    await demo.post(`${HOOKS}/${demo.business.id}/${hook._id}`, {events: ['order_updated']})
  })
})

describe('persistence', () => {
  it('an attempt cut by close() is a failed attempt with its back-off: a restart does not resend it at once, and it is given up after the last attempt', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mfg-webhooks-'))
    // Answers nothing until the sandbox gives up on it (as a receiver that hangs would).
    const hanging = await receiver(
      () => 200,
      () => new Promise(() => undefined),
    )
    const tuning = {retryBaseMs: 60_000, drainMs: 50, maxAttempts: 2}
    // Each sandbox runs briefly on the same data, as the embedded one does for every command.
    const during = async <T>(webhooks: typeof tuning, work: (client: SandboxClient) => Promise<T>): Promise<T> => {
      const sb = await startTestSandbox({dataDir, webhooks})
      try {
        return await work(sandboxClient(sb))
      } finally {
        await sb.close()
      }
    }
    const log = async (client: SandboxClient, hookId: string) =>
      (await client.get(`${HOOKS}/${client.business.id}/${hookId}/deliveries`)).body.data
    try {
      const hook = await during(tuning, async (client) => {
        const made = await subscribe(client, hanging.url, ['order_placed'])
        await client.post(`${HOOKS}/${client.business.id}/trigger`, {type: 'order_placed', webhookId: made._id})
        await waitFor(() => hanging.received.length === 1, 'the first attempt')
        return made
      })
      const [cut] = await during(tuning, (client) => log(client, hook._id))
      expect(cut).toMatchObject({status: 'pending', attempts: [{attempt: 1, statusCode: null, error: STOPPED_ERROR}]})
      expect(Date.parse(cut.nextAttemptAt) - Date.parse(cut.attempts[0].at)).toBeGreaterThanOrEqual(60_000)
      // The restart above did not send it again: its retry is a minute away.
      expect(hanging.received).toHaveLength(1)

      // A sandbox with a shorter back-off retries it; cut again, that was the last attempt.
      const short = {...tuning, retryBaseMs: 1}
      await during(short, () => waitFor(() => hanging.received.length === 2, 'the second attempt'))
      const [given] = await during(short, (client) => log(client, hook._id))
      expect(given).toMatchObject({
        status: 'failed',
        nextAttemptAt: null,
        attempts: [
          {attempt: 1, statusCode: null, error: STOPPED_ERROR},
          {attempt: 2, statusCode: null, error: STOPPED_ERROR},
        ],
      })
      expect(hanging.received).toHaveLength(2)
      expect(new Set(hanging.received.map((e) => e.json.id)).size).toBe(1)
    } finally {
      rmSync(dataDir, {recursive: true, force: true})
    }
  })

  it('two sandboxes on one file that both cut the same attempt log it once and both close', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mfg-webhooks-'))
    const hanging = await receiver(
      () => 200,
      () => new Promise(() => undefined),
    )
    const tuning = {retryBaseMs: 60_000, drainMs: 50}
    try {
      const first = await startTestSandbox({dataDir, webhooks: tuning})
      const client = sandboxClient(first)
      const hook = await subscribe(client, hanging.url, ['order_placed'])
      await client.post(`${HOOKS}/${client.business.id}/trigger`, {type: 'order_placed', webhookId: hook._id})
      await waitFor(() => hanging.received.length === 1, "the first sandbox's attempt")
      // As two CLIs sharing one embedded home: the second finds the same delivery due.
      const second = await startTestSandbox({dataDir, webhooks: tuning})
      await waitFor(() => hanging.received.length === 2, "the second sandbox's attempt")
      await first.close()
      await second.close()
      const third = await startTestSandbox({dataDir, webhooks: tuning})
      const log = await sandboxClient(third).get(`${HOOKS}/${client.business.id}/${hook._id}/deliveries`)
      await third.close()
      expect(log.body.data[0]).toMatchObject({status: 'pending', attempts: [{attempt: 1, error: STOPPED_ERROR}]})
    } finally {
      rmSync(dataDir, {recursive: true, force: true})
    }
  })

  it('keeps undelivered events across a restart and delivers them after', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mfg-webhooks-'))
    try {
      let up = false
      const r = await receiver(() => (up ? 200 : 500))
      let first = await startTestSandbox({dataDir, webhooks: {retryBaseMs: 60_000, drainMs: 200}})
      const client = sandboxClient(first)
      const hook = await subscribe(client, r.url, ['quote_request_received'])
      const id = (await createQuote(client)).body[0]._id
      await waitFor(() => r.received.length >= 1, 'the first, failed attempt')
      const before = await client.get(`${HOOKS}/${client.business.id}/${hook._id}/deliveries`)
      expect(before.body.data[0]).toMatchObject({status: 'pending', attempts: [{attempt: 1, statusCode: 500}]})
      // Stopped with the delivery pending (its retry a minute away); restarted, it is due at once.
      await first.close()
      up = true
      first = await startTestSandbox({dataDir, webhooks: FAST})
      await waitFor(() => r.received.length >= 2, 'the delivery after the restart')
      expect(r.received[1]?.json.data._id).toBe(id)
      expect(r.received[1]?.json.id).toBe(r.received[0]?.json.id)
      const after = await sandboxClient(first).get(`${HOOKS}/${first.businesses[0]?.id}/${hook._id}/deliveries`)
      await first.close()
      expect(after.body.data[0].status).toBe('delivered')
    } finally {
      rmSync(dataDir, {recursive: true, force: true})
    }
  })
})
