import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {ErrorBody} from '../../src/schemas/common.js'
import type {RunningSandbox} from '../../src/sandbox/index.js'
import {sandboxClient, startTestSandbox, type SandboxClient} from '../helpers/sandbox.js'

let sandbox: RunningSandbox
let demo: SandboxClient
let second: SandboxClient
let demoDemandId: string

beforeAll(async () => {
  sandbox = await startTestSandbox()
  demo = sandboxClient(sandbox, sandbox.businesses[0])
  second = sandboxClient(sandbox, sandbox.businesses[1])
  const created = await demo.post(`/api/public/v1/demand/create-quotes/${demo.business.id}`, [
    {technique: '3D_PRINTING', material: 'PLA'},
  ])
  demoDemandId = created.body[0]._id
})
afterAll(() => sandbox.close())

describe('seeded credentials', () => {
  it('reports the demo business first, then the second shop, with distinct credentials', () => {
    const [first, other] = sandbox.businesses
    expect(first).toMatchObject({name: 'Demo Print & Machining', webhookAccess: true})
    expect(other).toMatchObject({name: 'Second Shop', webhookAccess: false})
    expect(first?.apiKey).toMatch(/^pk_business_[A-Za-z0-9_-]+$/)
    expect(first?.id).toMatch(/^[0-9a-f]{24}$/)
    expect(first?.apiKey).not.toBe(other?.apiKey)
    expect(first?.authToken).not.toBe(other?.authToken)
    expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  })
})

describe('v1 authentication and tenancy', () => {
  const list = () => `/api/public/v1/demand/${demo.business.id}/all`

  it('answers 401 naming the Authorization header when it is missing, malformed or unknown', async () => {
    const missing = await demo.get(list(), {as: null})
    expect(missing.status).toBe(401)
    expect(ErrorBody.parse(missing.body)).toMatchObject({statusCode: 401, error: 'Unauthorized'})
    expect(missing.body.message).toMatch(/Authorization/)
    const basic = await demo.get(list(), {as: null, headers: {authorization: 'Basic abc'}})
    expect(basic.status).toBe(401)
    expect(basic.body.message).toMatch(/Bearer/)
    const unknown = await demo.get(list(), {as: null, headers: {authorization: 'Bearer pk_business_nope'}})
    expect(unknown.status).toBe(401)
    expect(unknown.body.message).toMatch(/API key/)
  })

  it("answers 403 on another business's list and create path", async () => {
    const answer = await second.get(list())
    expect(answer.status).toBe(403)
    expect(answer.body.message).toContain(demo.business.id)
    const create = await second.post(`/api/public/v1/demand/create-quotes/${demo.business.id}`, [
      {technique: '3D_PRINTING', material: 'PLA'},
    ])
    expect(create.status).toBe(403)
    expect((await demo.get(`${list()}?pageSize=100`)).body.total).toBe(8)
  })

  it("answers 404 for another business's demand, exactly as for an unknown one", async () => {
    const theirs = await second.get(`/api/public/v1/demand/${demoDemandId}`)
    const unknown = await second.get('/api/public/v1/demand/000000000000000000000000')
    expect(theirs.status).toBe(404)
    expect(unknown.status).toBe(404)
    expect(theirs.body.message.replace(demoDemandId, 'ID')).toBe(
      unknown.body.message.replace('000000000000000000000000', 'ID'),
    )
    const update = await second.put(`/api/public/v1/demand/${demoDemandId}`, {color: 'Red'})
    expect(update.status).toBe(404)
    expect((await demo.get(`/api/public/v1/demand/${demoDemandId}`)).body.color).toBe('')
  })

  it('refuses a create item naming another business with 403', async () => {
    const answer = await demo.post(`/api/public/v1/demand/create-quotes/${demo.business.id}`, [
      {technique: '3D_PRINTING', material: 'PLA', business: second.business.id},
    ])
    expect(answer.status).toBe(403)
  })
})

describe('v2 authentication', () => {
  const webhooks = () => `/api/v2/integrations_ms/webhooks/${demo.business.id}`

  it('answers 401 naming X-Auth-Token when only the API key is sent', async () => {
    const answer = await demo.get(webhooks(), {v2: false})
    expect(answer.status).toBe(401)
    expect(answer.body.message).toMatch(/X-Auth-Token/)
  })

  it('answers 401 naming Authorization when only the token is sent', async () => {
    const answer = await demo.get(webhooks(), {as: null, headers: {'x-auth-token': demo.business.authToken}})
    expect(answer.status).toBe(401)
    expect(answer.body.message).toMatch(/Authorization/)
  })

  it("answers 401 for a token that is not the key's business's", async () => {
    const answer = await demo.get(webhooks(), {v2: false, headers: {'x-auth-token': second.business.authToken}})
    expect(answer.status).toBe(401)
    expect(answer.body.message).toMatch(/X-Auth-Token/)
  })

  it('lists webhook subscriptions (none yet) and refuses another business with 403', async () => {
    const answer = await demo.get(webhooks())
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual({message: expect.any(String), data: []})
    expect((await second.get(webhooks())).status).toBe(403)
  })
})
