import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {STAGE_EPOCH_FIELD, STAGE_INFO, STAGE_MOVES, STAGES, type Stage} from '../../src/schemas/demand.js'
import type {RunningSandbox} from '../../src/sandbox/index.js'
import {sandboxClient, startTestSandbox, type SandboxClient} from '../helpers/sandbox.js'

/* eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are inspected freely */
type Json = Record<string, any>

/** The contract's stage table, written out independently of the code under test. */
const ALLOWED: Record<Stage, Stage[]> = {
  quote_sent: ['special_verified', 'cancelled'],
  special_verified: ['special_accepted', 'quote_sent', 'cancelled'],
  special_accepted: ['done'],
  done: ['in_shipping'],
  in_shipping: ['delivered'],
  delivered: [],
  cancelled: [],
}

/** A shortest path of allowed moves from quote_sent to each stage. */
const PATH: Record<Stage, Stage[]> = {
  quote_sent: [],
  special_verified: ['special_verified'],
  special_accepted: ['special_verified', 'special_accepted'],
  done: ['special_verified', 'special_accepted', 'done'],
  in_shipping: ['special_verified', 'special_accepted', 'done', 'in_shipping'],
  delivered: ['special_verified', 'special_accepted', 'done', 'in_shipping', 'delivered'],
  cancelled: ['cancelled'],
}

let sandbox: RunningSandbox
let demo: SandboxClient

beforeAll(async () => {
  sandbox = await startTestSandbox()
  demo = sandboxClient(sandbox)
})
afterAll(() => sandbox.close())

const v1 = (id: string) => `/api/public/v1/demand/${id}`
const legacy = (id: string) => `/api/v2/ms-machine-owner/demand/${id}`
const move = (id: string, status: Stage) => demo.put(v1(id), {demandStatusInfo: {status}})

/** A new demand (created through the given generation) walked to `stage`. */
async function demandAt(stage: Stage, via: 'v1' | 'legacy' = 'v1'): Promise<Json> {
  const created =
    via === 'v1'
      ? await demo.post(`/api/public/v1/demand/create-quotes/${demo.business.id}`, [
          {technique: '3D_PRINTING', material: 'PLA', quantity: 2, priceMachine: '3.00'},
        ])
      : await demo.post('/api/v2/ms-machine-owner/demand/create-demands', [
          {technique: '3D_PRINTING', material: 'PLA', quantity: 2, priceMachine: '3.00'},
        ])
  expect(created.status).toBe(201)
  let demand = (await demo.get(v1(created.body[0]._id))).body
  for (const step of PATH[stage]) {
    const answer = await move(demand._id, step)
    expect([stage, step, answer.status]).toEqual([stage, step, 200])
    demand = answer.body
  }
  return demand
}

describe('one stage machine for both generations', () => {
  it('the schema table matches the contract', () => {
    for (const from of STAGES) expect([from, [...STAGE_MOVES[from]].sort()]).toEqual([from, [...ALLOWED[from]].sort()])
  })

  const pairs = STAGES.flatMap((from) => STAGES.map((to) => [from, to] as const))

  it.each(pairs)('%s -> %s', async (from, to) => {
    const demand = await demandAt(from, STAGES.indexOf(to) % 2 === 0 ? 'v1' : 'legacy')
    const before = Date.now()
    const answer = await move(demand._id, to)
    const after = (await demo.get(legacy(demand._id))).body
    if (from === to) {
      // Naming the current stage is no move: nothing is recorded.
      expect(answer.status).toBe(200)
      expect(answer.body.tracking).toEqual(demand.tracking)
      expect(after.status).toBe(STAGE_INFO[from].legacy)
    } else if (ALLOWED[from].includes(to)) {
      expect(answer.status).toBe(200)
      expect(answer.body.demandStatusInfo.status).toBe(to)
      expect(answer.body.status).toBe(STAGE_INFO[to].display)
      const entry = answer.body.tracking.at(-1)
      expect(answer.body.tracking).toEqual([...demand.tracking, {status: STAGE_INFO[to].tracking, date: entry.date}])
      expect(entry.date).toBeGreaterThanOrEqual(before)
      const epoch = STAGE_EPOCH_FIELD[to]
      if (epoch) expect([answer.body[epoch], after[epoch]]).toEqual([entry.date, entry.date])
      // The legacy generation sees the same move, in its own words.
      expect(after.status).toBe(STAGE_INFO[to].legacy)
      expect(after.tracking).toEqual(answer.body.tracking)
    } else {
      expect(answer.status).toBe(409)
      expect(answer.body).toMatchObject({statusCode: 409, error: 'Conflict'})
      expect(answer.body.message).toContain(`from ${from} to ${to}`)
      expect(after.status).toBe(STAGE_INFO[from].legacy)
      expect(after.tracking).toEqual(demand.tracking)
    }
  })

  it('counts 8 allowed moves and 34 refused ones among the 42 real moves', () => {
    const real = pairs.filter(([from, to]) => from !== to)
    expect(real.filter(([from, to]) => ALLOWED[from].includes(to))).toHaveLength(8)
    expect(real.filter(([from, to]) => !ALLOWED[from].includes(to))).toHaveLength(34)
  })

  it.each(STAGES)('legacy DELETE from %s', async (stage) => {
    const demand = await demandAt(stage)
    const answer = await demo.delete(legacy(demand._id))
    const v1After = (await demo.get(v1(demand._id))).body
    if (stage === 'quote_sent' || stage === 'special_verified') {
      expect(answer.status).toBe(200)
      expect(answer.body).toMatchObject({status: 'Cancelled', archive: true})
      expect(answer.body.tracking).toEqual([...demand.tracking, {status: 'cancelled', date: expect.any(Number)}])
      expect(v1After).toMatchObject({status: 'Cancelled', archive: true, demandStatusInfo: {status: 'cancelled'}})
    } else {
      expect(answer.status).toBe(409)
      expect(answer.body.message).toContain(stage)
      if (stage !== 'cancelled') expect(answer.body.message).toContain(`from ${stage} to cancelled`)
      expect(v1After.demandStatusInfo.status).toBe(stage)
      expect(v1After.archive).toBe(false)
      expect(v1After.tracking).toEqual(demand.tracking)
    }
  })

  it('turns a legacy-created quote into an order through v1, and legacy reads it after', async () => {
    const demand = await demandAt('quote_sent', 'legacy')
    expect(demand.jobDetails.takenAs).toBe('QUOTE')
    const paid = await demo.put(v1(demand._id), {paymentStatus: 'PAID'})
    expect(paid.body.jobDetails.takenAs).toBe('ORDER')
    const read = (await demo.get(legacy(demand._id))).body
    expect(read.paymentStatus).toBe('PAID')
    const orders = await demo.get(`/api/public/v1/demand/${demo.business.id}/orders?pageSize=100`)
    expect(orders.body.data.map((d: Json) => d._id)).toContain(demand._id)
  })

  it('freezes through v1 what legacy changed before production, and legacy sees v1 changes', async () => {
    const demand = await demandAt('special_verified', 'legacy')
    expect((await demo.put(legacy(demand._id), {material: 'ABS', tolerance: 0.05})).status).toBe(200)
    expect((await move(demand._id, 'special_accepted')).status).toBe(200)
    const v1Change = await demo.put(v1(demand._id), {material: 'PETG'})
    expect(v1Change.status).toBe(409)
    expect(v1Change.body.message).toMatch(/special_accepted.*material/)
    expect((await demo.put(v1(demand._id), {material: 'ABS', tolerance: '0.05'})).status).toBe(200)
    expect((await demo.put(v1(demand._id), {remark: ['rush']})).status).toBe(200)
    expect((await demo.get(legacy(demand._id))).body).toMatchObject({
      material: 'ABS',
      tolerance: 0.05,
      remark: ['rush'],
      status: 'Special Accepted',
    })
    const accepted = (await demo.get(v1(demand._id))).body.dateAccepted
    expect(accepted).toEqual(expect.any(Number))
    expect((await demo.get(legacy(demand._id))).body.dateAccepted).toBe(accepted)
  })
})
