import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {ErrorBody} from '../../src/schemas/common.js'
import {STAGE_EPOCH_FIELD, STAGE_INFO, STAGE_MOVES, STAGES, type Stage} from '../../src/schemas/demand.js'
import type {RunningSandbox} from '../../src/sandbox/index.js'
import {sandboxClient, startTestSandbox, type SandboxClient} from '../helpers/sandbox.js'

/* eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are inspected freely */
type DemandJson = Record<string, any>

let sandbox: RunningSandbox
let demo: SandboxClient

beforeAll(async () => {
  sandbox = await startTestSandbox()
  demo = sandboxClient(sandbox)
})
afterAll(() => sandbox.close())

async function create(item: Record<string, unknown> = {}): Promise<DemandJson> {
  const answer = await demo.post(`/api/public/v1/demand/create-quotes/${demo.business.id}`, [
    {
      technique: '3D_PRINTING',
      material: 'PLA',
      color: 'Black',
      quantity: 3,
      quoteModel: [{fileName: 'a.stl', material: 'PLA', quantity: 3, priceMachine: '2.00', priceExtra: 1}],
      shippingAddress: {address: 'Old Road 1', city: 'Ghent', country: 'BE', zip: '9000'},
      ...item,
    },
  ])
  expect(answer.status).toBe(201)
  return answer.body[0]
}

const put = (id: string, body: unknown) => demo.put(`/api/public/v1/demand/${id}`, body)
const move = (id: string, status: Stage) => put(id, {demandStatusInfo: {status}})

/** Walks a fresh demand to `stage` along allowed moves. */
async function demandAt(stage: Stage): Promise<DemandJson> {
  const path: Record<Stage, Stage[]> = {
    quote_sent: [],
    special_verified: ['special_verified'],
    special_accepted: ['special_verified', 'special_accepted'],
    done: ['special_verified', 'special_accepted', 'done'],
    in_shipping: ['special_verified', 'special_accepted', 'done', 'in_shipping'],
    delivered: ['special_verified', 'special_accepted', 'done', 'in_shipping', 'delivered'],
    cancelled: ['cancelled'],
  }
  let demand = await create()
  for (const step of path[stage]) {
    const answer = await move(demand._id, step)
    expect(answer.status).toBe(200)
    demand = answer.body
  }
  return demand
}

describe('v1 get and update', () => {
  it('reads one demand and answers an update with the full updated record', async () => {
    const demand = await create()
    const read = await demo.get(`/api/public/v1/demand/${demand._id}`)
    expect(read.status).toBe(200)
    expect(read.body._id).toBe(demand._id)
    const answer = await put(demand._id, {shippingAddress: {city: 'Antwerp'}, priceDelivery: 9, remark: ['call first']})
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({
      _id: demand._id,
      orderNumber: demand.orderNumber,
      priceDelivery: 9,
      remark: ['call first'],
    })
    // Objects merge: the rest of the address is kept.
    expect(answer.body.shippingAddress).toMatchObject({
      city: 'Antwerp',
      address: 'Old Road 1',
      zip: '9000',
      country: 'BE',
    })
    expect(answer.body.priceTotal).toBe(demand.priceTotal + 9)
    expect(answer.body.paymentAuthToken).toBeUndefined()
    expect(Date.parse(answer.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(demand.updatedAt))
    expect((await demo.get(`/api/public/v1/demand/${demand._id}`)).body).toEqual(answer.body)
  })

  it('answers 404 for an unknown demand and 400 for an invalid update', async () => {
    const missing = await demo.get('/api/public/v1/demand/ffffffffffffffffffffffff')
    expect(missing.status).toBe(404)
    expect(ErrorBody.parse(missing.body).message).toMatch(/not found/)
    expect((await put('ffffffffffffffffffffffff', {color: 'Red'})).status).toBe(404)
    const demand = await create()
    const bad = await put(demand._id, {
      quantity: 0,
      paymentProvider: 'CASH',
      demandStatusInfo: {status: 'shipped'},
      paymentStatus: 'MAYBE',
    })
    expect(bad.status).toBe(400)
    const paths = bad.body.details.map((d: {path: string}) => d.path).sort()
    expect(paths).toEqual(['demandStatusInfo.status', 'paymentProvider', 'paymentStatus', 'quantity'])
    expect(bad.body.details.find((d: {path: string}) => d.path === 'paymentProvider').message).toMatch(
      /"CARD_PROCESSOR"/,
    )
    expect((await demo.get(`/api/public/v1/demand/${demand._id}`)).body.quantity).toBe(3)
  })

  it('allows every move of the stage table, recording tracking and epoch fields', async () => {
    const moves = STAGES.flatMap((from) => STAGE_MOVES[from].map((to) => [from, to] as const))
    expect(moves).toHaveLength(8)
    for (const [from, to] of moves) {
      const demand = await demandAt(from)
      const before = Date.now()
      const answer = await move(demand._id, to)
      expect([from, to, answer.status]).toEqual([from, to, 200])
      const record = answer.body
      expect(record.demandStatusInfo.status).toBe(to)
      expect(record.status).toBe(STAGE_INFO[to].display)
      expect(record.tracking).toHaveLength(demand.tracking.length + 1)
      expect(record.tracking.at(-1).status).toBe(STAGE_INFO[to].tracking)
      expect(record.tracking.at(-1).date).toBeGreaterThanOrEqual(before)
      expect(record.tracking.slice(0, -1)).toEqual(demand.tracking)
      const epoch = STAGE_EPOCH_FIELD[to]
      if (epoch) expect(record[epoch]).toBe(record.tracking.at(-1).date)
    }
  })

  it('fills fabricatedDate when a demand is done', async () => {
    const done = await demandAt('done')
    expect(done.fabricatedDate).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    expect(done.status).toBe('Ready to Ship')
  })

  it('refuses moves outside the table with 409 naming both stages', async () => {
    const refused: [Stage, Stage][] = [
      ['quote_sent', 'done'],
      ['quote_sent', 'special_accepted'],
      ['special_verified', 'delivered'],
      ['special_accepted', 'quote_sent'],
      ['special_accepted', 'cancelled'],
      ['in_shipping', 'done'],
      ['delivered', 'cancelled'],
      ['cancelled', 'quote_sent'],
    ]
    for (const [from, to] of refused) {
      const demand = await demandAt(from)
      const answer = await move(demand._id, to)
      expect([from, to, answer.status]).toEqual([from, to, 409])
      expect(answer.body.error).toBe('Conflict')
      expect(answer.body.message).toContain(`from ${from} to ${to}`)
      const after = await demo.get(`/api/public/v1/demand/${demand._id}`)
      expect(after.body.demandStatusInfo.status).toBe(from)
      expect(after.body.tracking).toEqual(demand.tracking)
    }
  })

  it('treats the current stage as no move and keeps substatus edits', async () => {
    const demand = await create()
    const answer = await put(demand._id, {demandStatusInfo: {status: 'quote_sent', substatus: 'waiting for drawing'}})
    expect(answer.status).toBe(200)
    expect(answer.body.demandStatusInfo).toEqual({status: 'quote_sent', substatus: 'waiting for drawing'})
    expect(answer.body.tracking).toHaveLength(1)
  })

  it('freezes production fields from special_accepted on (409) but keeps addresses and prices editable', async () => {
    for (const stage of ['special_accepted', 'done', 'in_shipping'] as const) {
      const demand = await demandAt(stage)
      for (const change of [
        {material: 'ABS'},
        {quantity: 5},
        {color: 'Red'},
        {tolerance: '0.1'},
        {technique: 'CNC_MACHINING'},
        {quoteModel: [{fileName: 'b.stl', quantity: 1}]},
      ]) {
        const answer = await put(demand._id, change)
        expect([stage, change, answer.status]).toEqual([stage, change, 409])
        expect(answer.body.message).toContain(Object.keys(change)[0])
        expect(answer.body.message).toContain(stage)
      }
      // The record sent back as read changes nothing frozen.
      const same = await put(demand._id, {
        material: demand.material,
        quantity: demand.quantity,
        quoteModel: demand.quoteModel,
      })
      expect(same.status).toBe(200)
      const editable = await put(demand._id, {shippingAddress: {city: 'Bruges'}, priceDelivery: 4, trackId: 'TRK-1'})
      expect(editable.status).toBe(200)
      expect(editable.body).toMatchObject({priceDelivery: 4, trackId: 'TRK-1', material: 'PLA', quantity: 3})
      expect(editable.body.shippingAddress.city).toBe('Bruges')
    }
    // Before production the same fields can change.
    const review = await demandAt('special_verified')
    const changed = await put(review._id, {material: 'PETG', quantity: 5})
    expect(changed.status).toBe(200)
    expect(changed.body).toMatchObject({material: 'PETG', quantity: 5})
  })

  it('locks a delivered demand except archive and payment fields', async () => {
    const delivered = await demandAt('delivered')
    const address = await put(delivered._id, {shippingAddress: {city: 'Elsewhere'}})
    expect(address.status).toBe(409)
    expect(address.body.message).toMatch(/delivered; shippingAddress/)
    const archive = await put(delivered._id, {archive: true, paymentStatus: 'PAID'})
    expect(archive.status).toBe(200)
    expect(archive.body).toMatchObject({archive: true, isPaid: true, paymentStatus: 'PAID'})
  })

  it('turns a quote into an order by takenAs or by payment, never back', async () => {
    const byTakenAs = await create()
    expect(byTakenAs.jobDetails.takenAs).toBe('QUOTE')
    const answer = await put(byTakenAs._id, {jobDetails: {takenAs: 'ORDER'}})
    expect(answer.body.jobDetails.takenAs).toBe('ORDER')
    expect(answer.body.isPaid).toBe(false)
    const byPayment = await create()
    const paid = await put(byPayment._id, {paymentStatus: 'PAID'})
    expect(paid.body).toMatchObject({paymentStatus: 'PAID', isPaid: true, jobDetails: {takenAs: 'ORDER'}})
    const orders = await demo.get(`/api/public/v1/demand/${demo.business.id}/orders?pageSize=100`)
    const ids = orders.body.data.map((d: {_id: string}) => d._id)
    expect(ids).toEqual(expect.arrayContaining([byTakenAs._id, byPayment._id]))
    const back = await put(byPayment._id, {jobDetails: {takenAs: 'QUOTE'}})
    expect(back.status).toBe(409)
    expect(back.body.message).toMatch(/order cannot be taken as a quote/)
  })

  it('keeps a draftId once set and refuses to change it', async () => {
    const demand = await create({draftId: 'keep-me'})
    const answer = await put(demand._id, {draftId: 'other'})
    expect(answer.status).toBe(409)
    expect((await put(demand._id, {color: 'White'})).body.draftId).toBe('keep-me')
  })

  it('archives and recomputes money from update fields', async () => {
    const demand = await create()
    expect(demand.priceTotal).toBe(9)
    const answer = await put(demand._id, {taxPercentage: 21, discountedAmount: 1, archive: true})
    expect(answer.body).toMatchObject({
      archive: true,
      discount: 1,
      priceTotal: 8,
      taxPercentage: 21,
      taxPaid: 1.68,
      total: 9.68,
    })
    const list = await demo.get(`/api/public/v1/demand/${demo.business.id}/all?archived=true&pageSize=100`)
    expect(list.body.data.map((d: {_id: string}) => d._id)).toContain(demand._id)
  })

  it('refuses a body that names another business with 403', async () => {
    const demand = await create()
    const answer = await put(demand._id, {business: sandbox.businesses[1]?.id})
    expect(answer.status).toBe(403)
  })
})
