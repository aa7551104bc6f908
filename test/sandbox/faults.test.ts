import {afterEach, describe, expect, it} from 'vitest'

import {FAULT_KINDS, FaultPlan, type FaultKind, type RunningSandbox} from '../../src/sandbox/index.js'
import {rawRequest, sandboxClient, startTestSandbox, type RawOutcome} from '../helpers/sandbox.js'

/* eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are inspected freely */
type Json = Record<string, any>

const running: RunningSandbox[] = []
async function start(opts: Parameters<typeof startTestSandbox>[0]): Promise<RunningSandbox> {
  const sandbox = await startTestSandbox(opts)
  running.push(sandbox)
  return sandbox
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()))
})

const createQuotes = (s: RunningSandbox) => `/api/public/v1/demand/create-quotes/${s.businesses[0]!.id}`
const createDemands = '/api/v2/ms-machine-owner/demand/create-demands'

/** The demands of the demo business carrying `draftId` (a GET: never faulted). */
async function withDraftId(sandbox: RunningSandbox, draftId: string): Promise<Json[]> {
  const demo = sandboxClient(sandbox)
  const answer = await demo.get(
    `/api/public/v1/demand/${demo.business.id}/all?draftId=${encodeURIComponent(draftId)}&archived=false&pageSize=100`,
  )
  expect(answer.status).toBe(200)
  return answer.body.data
}

/** What the client saw, in terms of the four kinds (connection errors alike for now). */
function seen(outcome: RawOutcome): 'connection-error' | FaultKind | number {
  if (outcome.kind === 'connection-error') return 'connection-error'
  if (outcome.status === 503) return 'unavailable'
  if (outcome.status === 429) return 'rate_limited'
  return outcome.status
}

function predict(seed: number, rate: number, n: number): (FaultKind | undefined)[] {
  const plan = new FaultPlan({rate, seed})
  return Array.from({length: n}, () => plan.next())
}

/** The first seed whose plan at rate 1 starts with `kinds`. */
function seedStartingWith(...kinds: FaultKind[]): number {
  for (let seed = 0; seed < 100_000; seed++) {
    const plan = predict(seed, 1, kinds.length)
    if (plan.every((kind, i) => kind === kinds[i])) return seed
  }
  throw new Error('no such seed')
}

describe('fault injection', () => {
  it('with rate 1 and a seed, every write faults as the seeded plan says, each kind as described', async () => {
    const seed = 3
    const plan = predict(seed, 1, 12)
    expect(new Set(plan)).toEqual(new Set(FAULT_KINDS))
    const sandbox = await start({faults: {rate: 1, seed}})
    for (const [i, kind] of plan.entries()) {
      const draftId = `fault-${i}`
      const outcome =
        i % 2 === 0
          ? await rawRequest(sandbox, 'POST', createQuotes(sandbox), {
              body: [{draftId, technique: '3D_PRINTING', material: 'PLA'}],
            })
          : await rawRequest(sandbox, 'POST', createDemands, {
              body: [{draftId, technique: '3D_PRINTING', material: 'PLA'}],
            })
      const stored = await withDraftId(sandbox, draftId)
      switch (kind) {
        case 'reset':
          expect([i, seen(outcome)]).toEqual([i, 'connection-error'])
          expect(outcome.kind === 'connection-error' && outcome.code).toBe('ECONNRESET')
          expect(stored).toHaveLength(0)
          break
        case 'unavailable':
          expect([i, seen(outcome)]).toEqual([i, 'unavailable'])
          expect(outcome.kind === 'answer' && outcome.body).toEqual({
            statusCode: 503,
            error: 'Service Unavailable',
            message: expect.any(String),
          })
          expect(stored).toHaveLength(0)
          break
        case 'rate_limited':
          expect([i, seen(outcome)]).toEqual([i, 'rate_limited'])
          expect(outcome.kind === 'answer' && outcome.headers['retry-after']).toBe('1')
          expect(outcome.kind === 'answer' && outcome.body).toMatchObject({statusCode: 429, error: 'Too Many Requests'})
          expect(stored).toHaveLength(0)
          break
        case 'commit_then_drop':
          // The client never learns the outcome, but the demand exists.
          expect([i, seen(outcome)]).toEqual([i, 'connection-error'])
          expect(stored).toHaveLength(1)
          expect(stored[0]).toMatchObject({draftId, material: 'PLA', status: 'Quote Sent'})
          break
        default:
          throw new Error(`rate 1 served request ${i} normally`)
      }
    }
    const counts = Object.fromEntries(FAULT_KINDS.map((k) => [k, plan.filter((p) => p === k).length]))
    const stats = sandbox.faultStats()
    expect(stats).toEqual({enabled: true, rate: 1, seed, writeRequests: 12, injected: counts, total: 12})
    // The stats route is outside /api and needs no credentials.
    const route = await rawRequest(sandbox, 'GET', '/__sandbox/stats', {as: null})
    expect(route.kind === 'answer' && route.status).toBe(200)
    expect(route.kind === 'answer' && route.body).toEqual({replay: true, faults: stats})
  })

  it('commits a PUT and a DELETE before dropping the connection', async () => {
    const seed = seedStartingWith('commit_then_drop', 'commit_then_drop')
    const sandbox = await start({faults: {rate: 1, seed}})
    const [quote] = await withDraftId(sandbox, 'seed-quote-sent')
    const [review] = await withDraftId(sandbox, 'seed-in-review')
    const put = await rawRequest(sandbox, 'PUT', `/api/public/v1/demand/${quote!._id}`, {
      body: {demandStatusInfo: {status: 'special_verified'}, remark: ['after drop']},
    })
    expect(put.kind).toBe('connection-error')
    const del = await rawRequest(sandbox, 'DELETE', `/api/v2/ms-machine-owner/demand/${review!._id}`)
    expect(del.kind).toBe('connection-error')
    const demo = sandboxClient(sandbox)
    expect((await demo.get(`/api/public/v1/demand/${quote!._id}`)).body).toMatchObject({
      demandStatusInfo: {status: 'special_verified'},
      remark: ['after drop'],
    })
    expect((await demo.get(`/api/v2/ms-machine-owner/demand/${review!._id}`)).body).toMatchObject({
      status: 'Cancelled',
      archive: true,
    })
    expect(sandbox.faultStats().injected.commit_then_drop).toBe(2)
  })

  it('never faults reads, even at rate 1', async () => {
    const sandbox = await start({faults: {rate: 1, seed: 9}})
    const demo = sandboxClient(sandbox)
    for (let i = 0; i < 10; i++) {
      expect((await demo.get(`/api/public/v1/demand/${demo.business.id}/all`)).status).toBe(200)
    }
    expect(sandbox.faultStats()).toMatchObject({writeRequests: 0, total: 0})
  })

  it('never faults at rate 0', async () => {
    const sandbox = await start({faults: {rate: 0, seed: 1}})
    for (let i = 0; i < 30; i++) {
      const outcome =
        i % 3 === 0
          ? await rawRequest(sandbox, 'POST', createQuotes(sandbox), {
              body: [{draftId: `zero-${i}`, technique: '3D_PRINTING', material: 'PLA'}],
            })
          : i % 3 === 1
            ? await rawRequest(sandbox, 'POST', createDemands, {
                body: [{draftId: `zero-${i}`, technique: '3D_PRINTING', material: 'PLA'}],
              })
            : await rawRequest(sandbox, 'POST', '/api/v2/ms-machine-owner/demand/list', {body: {demands: ['x']}})
      expect([i, seen(outcome)]).toEqual([i, i % 3 === 2 ? 200 : 201])
    }
    expect(sandbox.faultStats()).toEqual({
      enabled: true,
      rate: 0,
      seed: 1,
      writeRequests: 30,
      injected: {reset: 0, unavailable: 0, rate_limited: 0, commit_then_drop: 0},
      total: 0,
    })
  })

  it('faults the seeded fraction of writes, the same for the same seed', async () => {
    const [seed, rate, n] = [42, 0.3, 200]
    const plan = predict(seed, rate, n)
    const expected = plan.filter(Boolean).length
    expect(expected).toBeGreaterThan(n * rate * 0.6)
    expect(expected).toBeLessThan(n * rate * 1.4)
    const sandbox = await start({faults: {rate, seed}})
    const outcomes: ReturnType<typeof seen>[] = []
    for (let i = 0; i < n; i++) {
      const outcome = await rawRequest(sandbox, 'POST', '/api/v2/ms-machine-owner/demand/list', {
        body: {demands: ['x']},
      })
      outcomes.push(seen(outcome))
    }
    // Reads through POST (list) have nothing to commit, so a drop looks like a reset.
    const fromPlan = plan.map((kind) =>
      kind === undefined ? 200 : kind === 'reset' || kind === 'commit_then_drop' ? 'connection-error' : kind,
    )
    expect(outcomes).toEqual(fromPlan)
    expect(sandbox.faultStats().total).toBe(expected)
    expect(sandbox.faultStats().writeRequests).toBe(n)
  })

  it('draws a seed when none is given and reports it', async () => {
    const sandbox = await start({faults: {rate: 0.5}})
    const {seed, enabled} = sandbox.faultStats()
    expect(enabled).toBe(true)
    expect(Number.isSafeInteger(seed)).toBe(true)
    const plain = await start({})
    expect(plain.faultStats()).toMatchObject({enabled: false, rate: 0, seed: null, total: 0})
  })

  it('refuses a rate outside 0..1 or a bad seed', async () => {
    await expect(start({faults: {rate: 1.5}})).rejects.toThrow(/rate must be a number from 0 to 1/)
    await expect(start({faults: {rate: -0.1}})).rejects.toThrow(RangeError)
    await expect(start({faults: {rate: 0.1, seed: 1.5}})).rejects.toThrow(/seed must be a non-negative integer/)
  })
})

describe('replay switch', () => {
  const item = (draftId: string) => ({draftId, technique: '3D_PRINTING', material: 'PLA'})

  it('replay:false creates duplicates for repeated draftIds and ignores Idempotency-Key', async () => {
    const sandbox = await start({replay: false})
    const demo = sandboxClient(sandbox)
    const a = await demo.post(createQuotes(sandbox), [item('dup-1')])
    const b = await demo.post(createQuotes(sandbox), [item('dup-1')])
    const c = await demo.post(createDemands, [item('dup-1'), item('dup-1')])
    for (const answer of [a, b, c]) expect(answer.status).toBe(201)
    const ids = [a.body[0]._id, b.body[0]._id, c.body[0]._id, c.body[1]._id]
    expect(new Set(ids).size).toBe(4)
    const stored = await withDraftId(sandbox, 'dup-1')
    expect(stored).toHaveLength(4)
    expect(stored.every((d) => d.draftId === 'dup-1')).toBe(true)

    const headers = {'idempotency-key': 'same-key'}
    const k1 = await demo.post(createQuotes(sandbox), [item('dup-2')], {headers})
    const k2 = await demo.post(createQuotes(sandbox), [item('dup-2')], {headers})
    expect(k2.headers.get('idempotent-replayed')).toBeNull()
    expect(k2.body[0]._id).not.toBe(k1.body[0]._id)
    expect(await withDraftId(sandbox, 'dup-2')).toHaveLength(2)
    expect((await demo.get('/__sandbox/stats')).body.replay).toBe(false)
  })

  it('replay:true (the default) returns the stored demand and replays the key', async () => {
    const sandbox = await start({})
    const demo = sandboxClient(sandbox)
    const a = await demo.post(createQuotes(sandbox), [item('once-1')])
    const b = await demo.post(createQuotes(sandbox), [item('once-1')])
    const c = await demo.post(createDemands, [item('once-1'), item('once-1')])
    expect(new Set([a.body[0]._id, b.body[0]._id, c.body[0]._id, c.body[1]._id]).size).toBe(1)
    expect(await withDraftId(sandbox, 'once-1')).toHaveLength(1)
    const headers = {'idempotency-key': 'same-key'}
    const k1 = await demo.post(createQuotes(sandbox), [item('once-2')], {headers})
    const k2 = await demo.post(createQuotes(sandbox), [item('once-2')], {headers})
    expect(k2.headers.get('idempotent-replayed')).toBe('true')
    expect(k2.body).toEqual(k1.body)
  })

  it('replay:false keeps the v1 list draftId filter and the other rules', async () => {
    const sandbox = await start({replay: false})
    const demo = sandboxClient(sandbox)
    const created = await demo.post(createQuotes(sandbox), [
      item('keep-filter'),
      {technique: 'CNC_MACHINING', material: 'Brass'},
    ])
    const found = await withDraftId(sandbox, 'keep-filter')
    expect(found.map((d) => d._id)).toEqual([created.body[0]._id])
    // A draftId already in use still cannot be given to another demand by update.
    const clash = await demo.put(`/api/public/v1/demand/${created.body[1]._id}`, {draftId: 'keep-filter'})
    expect(clash.status).toBe(409)
    expect(clash.body.message).toMatch(/already belongs to demand/)
  })
})
