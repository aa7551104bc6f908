import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {RunningSandbox} from '../../src/sandbox/index.js'
import {sandboxClient, startTestSandbox, type SandboxClient} from '../helpers/sandbox.js'

let sandbox: RunningSandbox
let demo: SandboxClient

beforeAll(async () => {
  sandbox = await startTestSandbox()
  demo = sandboxClient(sandbox)
})
afterAll(() => sandbox.close())

describe('legacy demand record', () => {
  it('answers string prices, the legacy status text and the client as an id', async () => {
    const created = await demo.post(`/api/public/v1/demand/create-quotes/${demo.business.id}`, [
      {
        draftId: 'legacy-1',
        technique: 'CNC_MACHINING',
        client: 'client-42',
        email: 'c@example.com',
        tolerance: '0.05',
        thickness: 2,
        quoteModel: [
          {
            fileName: 'p.step',
            fileLink: 'https://files.example.com/p.step',
            material: 'Brass',
            quantity: 2,
            priceMachine: '10.00',
            priceConception: 5,
            priceExtra: 2.5,
          },
        ],
        priceDelivery: 5,
      },
    ])
    const id = created.body[0]._id
    const moved = await demo.put(`/api/public/v1/demand/${id}`, {demandStatusInfo: {status: 'special_verified'}})
    expect(moved.status).toBe(200)
    const answer = await demo.get(`/api/v2/ms-machine-owner/demand/${id}`)
    expect(answer.status).toBe(200)
    const legacy = answer.body
    expect(legacy).toMatchObject({
      _id: id,
      status: 'Special Verified',
      client: 'client-42',
      machineOwner: demo.business.id,
      technique: 'CNC_MACHINING',
      email: 'c@example.com',
      tolerance: 0.05,
      thickness: 2,
      quantity: 2,
      file: 'https://files.example.com/p.step',
      draftId: 'legacy-1',
      priceMachine: '20.00',
      priceConception: 10,
      priceExtra: 5,
      priceToClient: '40.00',
      priceToMachnieOwner: '40.00',
      priceDelivery: 5,
      typeDelivery: 'home delivery',
    })
    expect(typeof legacy.priceToClient).toBe('string')
    expect(legacy.settings).toEqual({notification: {user: true, machineOwner: true}})
    expect(legacy.tracking.map((t: {status: string}) => t.status)).toEqual(['quote sent', 'special verified'])
  })

  it('gives every demand a client id and answers 404 for another business', async () => {
    const created = await demo.post(`/api/public/v1/demand/create-quotes/${demo.business.id}`, [
      {technique: '3D_PRINTING', material: 'PLA'},
    ])
    const id = created.body[0]._id
    const legacy = await demo.get(`/api/v2/ms-machine-owner/demand/${id}`)
    expect(legacy.body.client).toMatch(/^[0-9a-f]{24}$/)
    expect(legacy.body.status).toBe('Quote Sent')
    const other = sandboxClient(sandbox, sandbox.businesses[1])
    expect((await other.get(`/api/v2/ms-machine-owner/demand/${id}`)).status).toBe(404)
  })
})
