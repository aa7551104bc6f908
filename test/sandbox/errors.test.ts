import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {ErrorBody} from '../../src/schemas/common.js'
import type {RunningSandbox} from '../../src/sandbox/index.js'
import {sandboxClient, startTestSandbox, type SandboxClient} from '../helpers/sandbox.js'

let sandbox: RunningSandbox
let demo: SandboxClient
let createPath: string

beforeAll(async () => {
  sandbox = await startTestSandbox()
  demo = sandboxClient(sandbox)
  createPath = `/api/public/v1/demand/create-quotes/${demo.business.id}`
})
afterAll(() => sandbox.close())

describe('error answers', () => {
  it('answers 413 with the contract body for a JSON body over 10 MiB', async () => {
    const big = JSON.stringify([{technique: '3D_PRINTING', material: 'x'.repeat(10 * 1024 * 1024)}])
    const answer = await demo.request('POST', createPath, {rawBody: big})
    expect(answer.status).toBe(413)
    expect(ErrorBody.parse(answer.body)).toMatchObject({statusCode: 413, error: 'Payload Too Large'})
    expect(answer.body.message).toMatch(/10 MiB/)
    // Just under the limit is parsed and validated normally.
    const under = JSON.stringify([{technique: '3D_PRINTING', material: 'x'.repeat(9 * 1024 * 1024)}])
    expect((await demo.request('POST', createPath, {rawBody: under})).status).toBe(201)
  })

  it('answers 400 for invalid JSON and an empty JSON body', async () => {
    const invalid = await demo.request('POST', createPath, {rawBody: '[{"technique": '})
    expect(invalid.status).toBe(400)
    expect(ErrorBody.parse(invalid.body).message).toMatch(/not valid JSON/)
    const empty = await demo.request('PUT', '/api/public/v1/demand/abc', {rawBody: ''})
    expect(empty.status).toBe(400)
    expect(empty.body.message).toMatch(/empty/)
    const poisoned = await demo.request('POST', createPath, {rawBody: '[{"__proto__": {"admin": true}}]'})
    expect(poisoned.status).toBe(400)
  })

  it('answers 415 for a body that is not JSON', async () => {
    const answer = await demo.request('POST', createPath, {
      rawBody: '<demands/>',
      headers: {'content-type': 'application/xml'},
    })
    expect(answer.status).toBe(415)
    expect(ErrorBody.parse(answer.body).message).toMatch(/application\/json/)
  })

  it('answers 404 with the contract body for unknown routes and methods', async () => {
    for (const [method, path] of [
      ['GET', '/nothing/here'],
      ['DELETE', `/api/public/v1/demand/${demo.business.id}/all`],
      ['GET', '/api/public/v1/demand/access/nothing/x'],
    ]) {
      const answer = await demo.request(method as string, path as string)
      expect([method, path, answer.status]).toEqual([method, path, 404])
      expect(ErrorBody.parse(answer.body).message).toContain(path)
    }
  })

  it('routes /demand/{id}, /demand/{businessId}/{type} and /demand/create-quotes/{businessId} apart', async () => {
    const list = await demo.get(`/api/public/v1/demand/${demo.business.id}/quotes`)
    expect(list.status).toBe(200)
    expect(list.body.data.length).toBeGreaterThan(0)
    const one = await demo.get(`/api/public/v1/demand/${list.body.data[0]._id}`)
    expect(one.body._id).toBe(list.body.data[0]._id)
    // A GET on the create path reads "create-quotes" as a business id: not the key's.
    expect((await demo.get(`/api/public/v1/demand/create-quotes/${demo.business.id}`)).status).toBe(403)
    expect((await demo.get(`/api/public/v1/demand/${demo.business.id}/all/`)).status).toBe(200)
  })

  it('never answers 5xx to odd input', async () => {
    const odd: [string, string, string | undefined][] = [
      ['POST', createPath, 'null'],
      ['POST', createPath, '"text"'],
      ['POST', createPath, '[null, 1, "x", []]'],
      ['PUT', '/api/public/v1/demand/x', '[]'],
      ['PUT', '/api/public/v1/demand/x', '123'],
      ['GET', `/api/public/v1/demand/${demo.business.id}/all?page=1&page=2`, undefined],
      ['GET', `/api/public/v1/demand/${demo.business.id}/all?pageSize=1e3`, undefined],
      ['GET', `/api/public/v1/demand/%E0%A4%A`, undefined],
    ]
    for (const [method, path, rawBody] of odd) {
      const answer = await demo.request(method, path, rawBody === undefined ? {} : {rawBody})
      expect([method, path, answer.status < 500]).toEqual([method, path, true])
      expect(ErrorBody.safeParse(answer.body).success).toBe(true)
    }
  })
})
