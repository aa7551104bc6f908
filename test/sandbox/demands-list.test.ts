import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {DemandPage} from '../../src/schemas/demand.js'
import type {RunningSandbox} from '../../src/sandbox/index.js'
import {sandboxClient, startTestSandbox, type SandboxClient} from '../helpers/sandbox.js'

let sandbox: RunningSandbox
let shop: SandboxClient
let base: string
let created: {_id: string; orderNumber: number}[]

// The second shop is seeded with one quote; this file adds 30 demands to it:
// 20 quotes (5 of them archived) and 10 orders, 4 of the orders in review.
beforeAll(async () => {
  sandbox = await startTestSandbox()
  shop = sandboxClient(sandbox, sandbox.businesses[1])
  base = `/api/public/v1/demand/${shop.business.id}`
  const body = Array.from({length: 30}, (_, i) => ({
    technique: '3D_PRINTING',
    material: 'PLA',
    draftId: `list-${i}`,
    archive: i >= 15 && i < 20,
    jobDetails: {takenAs: i < 20 ? 'QUOTE' : 'ORDER'},
  }))
  const answer = await shop.post(`/api/public/v1/demand/create-quotes/${shop.business.id}`, body)
  expect(answer.status).toBe(201)
  created = answer.body
  for (const demand of created.slice(20, 24)) {
    const moved = await shop.put(`/api/public/v1/demand/${demand._id}`, {
      demandStatusInfo: {status: 'special_verified'},
    })
    expect(moved.status).toBe(200)
  }
})
afterAll(() => sandbox.close())

describe('v1 demand list', () => {
  it('pages with defaults page 1, pageSize 20, newest first', async () => {
    const answer = await shop.get(`${base}/all`)
    expect(answer.status).toBe(200)
    const page = DemandPage.parse(answer.body)
    expect(page).toMatchObject({page: 1, pageSize: 20, total: 26, totalPages: 2})
    expect(page.data).toHaveLength(20)
    // Created in one batch (same millisecond or close): order number breaks the tie.
    expect(page.data[0]?._id).toBe(created[29]?._id)
    const numbers = page.data.map((d) => d.orderNumber as number)
    expect(numbers).toEqual([...numbers].sort((a, b) => b - a))
    const second = await shop.get(`${base}/all?page=2`)
    expect(second.body.data).toHaveLength(6)
    expect(second.body.data.at(-1).draftId).toBe('second-shop-quote')
    const beyond = await shop.get(`${base}/all?page=9`)
    expect(beyond.status).toBe(200)
    expect(beyond.body).toMatchObject({data: [], page: 9, total: 26, totalPages: 2})
  })

  it('sorts oldest first with sort=createdAt', async () => {
    const answer = await shop.get(`${base}/all?sort=createdAt&pageSize=3`)
    expect(answer.body.data.map((d: {draftId: string}) => d.draftId)).toEqual(['second-shop-quote', 'list-0', 'list-1'])
  })

  it('filters by type, accepting QUOTE/ORDER in any case', async () => {
    const quotes = await shop.get(`${base}/quotes?pageSize=100`)
    expect(quotes.body.total).toBe(16)
    expect(quotes.body.data.every((d: {jobDetails: {takenAs: string}}) => d.jobDetails.takenAs === 'QUOTE')).toBe(true)
    for (const type of ['ORDER', 'orders', 'Orders']) {
      const orders = await shop.get(`${base}/${type}`)
      expect([type, orders.status, orders.body.total]).toEqual([type, 200, 10])
    }
    expect((await shop.get(`${base}/QUOTE`)).body.total).toBe(16)
  })

  it('filters by status, archived and draftId', async () => {
    const review = await shop.get(`${base}/all?status=special_verified`)
    expect(review.body.total).toBe(4)
    expect(review.body.data.every((d: {status: string}) => d.status === 'In Review')).toBe(true)
    const archived = await shop.get(`${base}/all?archived=true`)
    expect(archived.body.total).toBe(5)
    expect(archived.body.data.every((d: {archive: boolean}) => d.archive)).toBe(true)
    const archivedQuotes = await shop.get(`${base}/orders?archived=true`)
    expect(archivedQuotes.body.total).toBe(0)
    const draft = await shop.get(`${base}/all?draftId=list-7`)
    expect(draft.body.total).toBe(1)
    expect(draft.body.data[0]._id).toBe(created[7]?._id)
    const archivedDraft = await shop.get(`${base}/all?draftId=list-16`)
    expect(archivedDraft.body.total).toBe(0)
    expect((await shop.get(`${base}/all?draftId=list-16&archived=true`)).body.total).toBe(1)
  })

  it('honours pageSize up to 100 and refuses more', async () => {
    const small = await shop.get(`${base}/all?pageSize=7&page=4`)
    expect(small.body).toMatchObject({page: 4, pageSize: 7, total: 26, totalPages: 4})
    expect(small.body.data).toHaveLength(5)
    const max = await shop.get(`${base}/all?pageSize=100`)
    expect(max.body.data).toHaveLength(26)
    const tooBig = await shop.get(`${base}/all?pageSize=101`)
    expect(tooBig.status).toBe(400)
    expect(tooBig.body.details).toEqual([{path: 'pageSize', message: 'must be at most 100'}])
  })

  it('refuses bad list parameters with 400 naming the allowed values', async () => {
    const type = await shop.get(`${base}/drafts`)
    expect(type.status).toBe(400)
    expect(type.body.details[0]).toEqual({path: 'type', message: expect.stringMatching(/"quotes", "orders", "all"/)})
    const cases: [string, string, RegExp][] = [
      ['page=0', 'page', /at least 1/],
      ['page=abc', 'page', /whole number/],
      ['status=shipped', 'status', /"quote_sent".*"cancelled"/],
      ['archived=yes', 'archived', /"true", "false"/],
      ['sort=orderNumber', 'sort', /"createdAt", "-createdAt"/],
    ]
    for (const [query, path, message] of cases) {
      const answer = await shop.get(`${base}/all?${query}`)
      expect([query, answer.status]).toEqual([query, 400])
      expect(answer.body.details[0].path).toBe(path)
      expect(answer.body.details[0].message).toMatch(message)
    }
  })
})
