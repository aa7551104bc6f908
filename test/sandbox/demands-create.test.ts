import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {ErrorBody} from '../../src/schemas/common.js'
import {DemandRecord} from '../../src/schemas/demand.js'
import type {RunningSandbox} from '../../src/sandbox/index.js'
import {sandboxClient, startTestSandbox, type SandboxClient} from '../helpers/sandbox.js'

let sandbox: RunningSandbox
let demo: SandboxClient
let createPath: string
let listPath: string

beforeAll(async () => {
  sandbox = await startTestSandbox()
  demo = sandboxClient(sandbox)
  createPath = `/api/public/v1/demand/create-quotes/${demo.business.id}`
  listPath = `/api/public/v1/demand/${demo.business.id}/all`
})
afterAll(() => sandbox.close())

const part = (overrides: Record<string, unknown> = {}) => ({
  fileName: 'bracket.stl',
  fileLink: 'https://files.example.com/bracket.stl',
  service: '3D_PRINTING',
  technology: 'FDM',
  material: 'PLA',
  color: 'Black',
  quantity: 4,
  priceMachine: '2.50',
  priceConception: 1,
  priceExtra: 0.5,
  ...overrides,
})

async function countAll(): Promise<number> {
  const answer = await demo.get(`${listPath}?pageSize=1`)
  const archived = await demo.get(`${listPath}?pageSize=1&archived=true`)
  return answer.body.total + archived.body.total
}

/** Types of every field of the v1 demand record (interface, Demand record (v1 response)). */
const RECORD_TYPES: Record<string, string> = {
  _id: 'string',
  orderNumber: 'number',
  type: 'string',
  currency: 'string',
  technique: 'string',
  material: 'string',
  color: 'string',
  priceToClient: 'number',
  priceToManufacturer: 'number',
  priceTotal: 'number',
  platformFee: 'number',
  priceDelivery: 'number',
  taxPaid: 'number',
  taxPercentage: 'number',
  taxName: 'string',
  paymentStatus: 'string',
  archive: 'boolean',
  createdAt: 'string',
  updatedAt: 'string',
  demandStatusInfo: 'object',
  billingAddress: 'object',
  shippingAddress: 'object',
  quoteModel: 'object',
  tracking: 'object',
  uniqueItems: 'number',
  total: 'number',
  subtotal: 'number',
  feesTotalAmount: 'number',
  pricePerPiece: 'number',
  startupCost: 'number',
  discount: 'number',
  quantity: 'number',
  leadTime: 'number',
  shippingDuration: 'number',
  isPaid: 'boolean',
  status: 'string',
  jobDetails: 'object',
}

describe('v1 create-quotes', () => {
  it('creates one demand with every record field, typed as the interface says', async () => {
    const before = Date.now()
    const answer = await demo.post(createPath, [
      {
        draftId: 'create-one',
        technique: '3D_PRINTING',
        type: 'normal',
        quoteModel: [
          part(),
          part({
            fileName: 'lid.stl',
            quantity: 2,
            priceMachine: '1.00',
            priceConception: 0,
            priceExtra: 0.25,
            startupCost: 3,
          }),
        ],
        priceDelivery: 7.5,
        jobDetails: {invoiceData: {taxPercentage: 20}},
        fabricatedDate: '24/12/2025',
        billingAddress: {address: 'Main St 1', city: 'Berlin', country: 'DE', zip: '10115', companyName: 'ACME'},
      },
    ])
    expect(answer.status).toBe(201)
    expect(answer.body).toHaveLength(1)
    const record = answer.body[0]
    expect(DemandRecord.safeParse(record).success).toBe(true)
    for (const [field, type] of Object.entries(RECORD_TYPES))
      expect([field, typeof record[field]]).toEqual([field, type])
    expect(Number.isInteger(record.orderNumber)).toBe(true)
    expect(record._id).toMatch(/^[0-9a-f]{24}$/)
    expect(record.type).toBe('NORMAL')
    expect(record.currency).toBe('EUR')
    expect(record.technique).toBe('3D_PRINTING')
    expect(record.material).toBe('PLA')
    expect(record.draftId).toBe('create-one')
    expect(record.paymentStatus).toBe('PENDING_PAYMENT')
    expect(record.isPaid).toBe(false)
    expect(record.archive).toBe(false)
    expect(record.fabricatedDate).toBe('2025-12-24')
    expect(record.jobDetails.takenAs).toBe('QUOTE')
    expect(record.demandStatusInfo).toEqual({status: 'quote_sent', substatus: ''})
    expect(record.status).toBe('Quote Sent')
    expect(record.tracking).toHaveLength(1)
    expect(record.tracking[0].status).toBe('quote sent')
    expect(record.tracking[0].date).toBeGreaterThanOrEqual(before)
    expect(Date.parse(record.createdAt)).toBeGreaterThanOrEqual(before - 1000)
    for (const key of ['address', 'phone', 'city', 'region', 'country', 'zip', 'companyName']) {
      expect(typeof record.billingAddress[key]).toBe('string')
      expect(typeof record.shippingAddress[key]).toBe('string')
    }
    expect(record.billingAddress.companyName).toBe('ACME')
    expect(record.quoteModel.map((m: {position: number}) => m.position)).toEqual([0, 1])
    for (const item of record.quoteModel) expect(item._id).toMatch(/^[0-9a-f]{24}$/)
    // Money: (2.5 + 1 + 0.5) x 4 = 16; 1.25 x 2 + 3 setup = 5.5; subtotal 21.5; + delivery 7.5 = 29; tax 20 % = 5.8.
    expect(record.subtotal).toBe(21.5)
    expect(record.startupCost).toBe(3)
    expect(record.quantity).toBe(6)
    expect(record.uniqueItems).toBe(2)
    expect(record.pricePerPiece).toBe(3.58)
    expect(record.priceTotal).toBe(29)
    expect(record.taxPaid).toBe(5.8)
    expect(record.total).toBe(34.8)
    expect(record.priceToClient).toBe(34.8)
    expect(record.priceToManufacturer).toBe(34.8)
    expect(record.platformFee).toBe(0)
    expect(typeof record.paymentAuthToken).toBe('string')
    expect(record.paymentAuthToken.split('.')).toHaveLength(3)

    const read = await demo.get(`/api/public/v1/demand/${record._id}`)
    expect(read.status).toBe(200)
    expect(read.body.paymentAuthToken).toBeUndefined()
    const {paymentAuthToken: _token, ...withoutToken} = record
    expect(read.body).toEqual(withoutToken)
  })

  it('uses a given priceTotal and a given currency (any case)', async () => {
    const answer = await demo.post(createPath, [
      {
        technique: 'CNC_MACHINING',
        material: 'Brass',
        priceTotal: 120,
        currency: 'usd',
        type: 'express',
        jobDetails: {takenAs: 'ORDER'},
      },
    ])
    expect(answer.status).toBe(201)
    const record = answer.body[0]
    expect(record).toMatchObject({
      priceTotal: 120,
      total: 120,
      currency: 'USD',
      type: 'EXPRESS',
      technique: 'CNC_MACHINING',
      material: 'Brass',
      uniqueItems: 1,
    })
    expect(record.jobDetails.takenAs).toBe('ORDER')
    expect(record.quoteModel).toEqual([])
  })

  it('creates 100 demands in input order with consecutive order numbers', async () => {
    const before = await countAll()
    const body = Array.from({length: 100}, (_, i) => ({technique: '3D_PRINTING', material: 'PETG', remark: [`n${i}`]}))
    const answer = await demo.post(createPath, body)
    expect(answer.status).toBe(201)
    expect(answer.body).toHaveLength(100)
    expect(answer.body.map((r: {remark: string[]}) => r.remark[0])).toEqual(body.map((b) => b.remark[0]))
    const numbers = answer.body.map((r: {orderNumber: number}) => r.orderNumber)
    expect(numbers).toEqual(Array.from({length: 100}, (_, i) => (numbers[0] as number) + i))
    expect(new Set(answer.body.map((r: {_id: string}) => r._id)).size).toBe(100)
    expect(await countAll()).toBe(before + 100)
  })

  it('refuses 101 demands, an empty array and a non-array with 400, creating nothing', async () => {
    const before = await countAll()
    const tooMany = await demo.post(
      createPath,
      Array.from({length: 101}, () => ({technique: '3D_PRINTING', material: 'PLA'})),
    )
    expect(tooMany.status).toBe(400)
    expect(ErrorBody.parse(tooMany.body).message).toMatch(/1 to 100/)
    expect(tooMany.body.details[0].message).toMatch(/at most 100/)
    const empty = await demo.post(createPath, [])
    expect(empty.status).toBe(400)
    expect(empty.body.details[0].message).toMatch(/at least 1/)
    const object = await demo.post(createPath, {technique: '3D_PRINTING', material: 'PLA'})
    expect(object.status).toBe(400)
    expect(object.body.message).toMatch(/JSON array/)
    expect(await countAll()).toBe(before)
  })

  it('validates the whole batch first and lists every invalid item; nothing is created', async () => {
    const before = await countAll()
    const answer = await demo.post(createPath, [
      {technique: '3D_PRINTING', material: 'PLA'},
      {technique: 'LASER_ENGRAVING', material: 'PLA'},
      {technique: '3D_PRINTING', material: 'PLA', jobDetails: {takenAs: 'PURCHASE'}},
      {technique: 'SHEET_METAL'},
      {technique: '3D_PRINTING', material: 'PLA', currency: 'XYZ', fabricatedDate: 'tomorrow'},
    ])
    expect(answer.status).toBe(400)
    const body = ErrorBody.parse(answer.body)
    expect(body).toMatchObject({statusCode: 400, error: 'Bad Request'})
    expect(body.message).toMatch(/4 of 5 demands are invalid \(items 1, 2, 3, 4\); nothing was created/)
    const byPath = Object.fromEntries((body.details ?? []).map((d) => [d.path, d.message]))
    expect(byPath['1.technique']).toMatch(/"3D_PRINTING", "CNC_MACHINING", "SHEET_METAL", "PCB"/)
    expect(byPath['2.jobDetails.takenAs']).toMatch(/"QUOTE", "ORDER"/)
    expect(byPath['3.material']).toMatch(/quoteModel, or technique and material/)
    expect(byPath['4.currency']).toMatch(/"EUR".*"MYR"/)
    expect(byPath['4.fabricatedDate']).toMatch(/YYYY-MM-DD/)
    expect(Object.keys(byPath).some((p) => p.startsWith('0.'))).toBe(false)
    expect(await countAll()).toBe(before)
  })

  it('refuses a new demand that claims a later stage', async () => {
    const answer = await demo.post(createPath, [
      {technique: '3D_PRINTING', material: 'PLA', demandStatusInfo: {status: 'done'}},
    ])
    expect(answer.status).toBe(400)
    expect(answer.body.details).toEqual([
      {path: '0.demandStatusInfo.status', message: expect.stringMatching(/quote_sent/)},
    ])
  })

  it('replays a draftId: the stored demand comes back instead of a new one', async () => {
    const first = await demo.post(createPath, [{draftId: 'replay-1', technique: '3D_PRINTING', material: 'PLA'}])
    expect(first.status).toBe(201)
    const before = await countAll()
    const again = await demo.post(createPath, [
      {draftId: 'replay-1', technique: 'CNC_MACHINING', material: 'Brass'},
      {draftId: 'replay-2', technique: '3D_PRINTING', material: 'ABS'},
      {draftId: 'replay-2', technique: '3D_PRINTING', material: 'ABS'},
    ])
    expect(again.status).toBe(201)
    expect(again.body[0]._id).toBe(first.body[0]._id)
    expect(again.body[0].orderNumber).toBe(first.body[0].orderNumber)
    expect(again.body[0].material).toBe('PLA')
    expect(again.body[0].paymentAuthToken).toBe(first.body[0].paymentAuthToken)
    expect(again.body[2]._id).toBe(again.body[1]._id)
    expect(await countAll()).toBe(before + 1)
    const found = await demo.get(`${listPath}?draftId=replay-1`)
    expect(found.body.total).toBe(1)
    expect(found.body.data[0]._id).toBe(first.body[0]._id)
  })

  it('replays an Idempotency-Key seen before with the first answer', async () => {
    const body = [{technique: 'SHEET_METAL', material: 'Steel S235', thickness: 2}]
    const headers = {'idempotency-key': 'idem-create-1'}
    const first = await demo.post(createPath, body, {headers})
    expect(first.status).toBe(201)
    const before = await countAll()
    const second = await demo.post(createPath, body, {headers})
    expect(second.status).toBe(201)
    expect(second.text).toBe(first.text)
    expect(second.headers.get('idempotent-replayed')).toBe('true')
    expect(await countAll()).toBe(before)

    const other = await demo.post(createPath, [{technique: 'SHEET_METAL', material: 'Aluminium 5754'}], {headers})
    expect(other.status).toBe(400)
    expect(other.body.message).toMatch(/Idempotency-Key idem-create-1 was used .* different request/)

    // Keys are per business: the second shop's same key is a new request.
    const secondShop = sandboxClient(sandbox, sandbox.businesses[1])
    const theirs = await secondShop.post(`/api/public/v1/demand/create-quotes/${secondShop.business.id}`, body, {
      headers,
    })
    expect(theirs.status).toBe(201)
    expect(theirs.body[0]._id).not.toBe(first.body[0]._id)
    expect(theirs.body[0].currency).toBe('USD')
  })

  it('keeps no Idempotency-Key answer for a refused request', async () => {
    const headers = {'idempotency-key': 'idem-fix-and-retry'}
    const bad = await demo.post(createPath, [{technique: 'NOPE'}], {headers})
    expect(bad.status).toBe(400)
    const good = await demo.post(createPath, [{technique: '3D_PRINTING', material: 'PLA'}], {headers})
    expect(good.status).toBe(201)
  })

  it('numbers orders per business, one up each time', async () => {
    const a = await demo.post(createPath, [{technique: '3D_PRINTING', material: 'PLA'}])
    const b = await demo.post(createPath, [{technique: '3D_PRINTING', material: 'PLA'}])
    expect(b.body[0].orderNumber).toBe(a.body[0].orderNumber + 1)
  })
})
