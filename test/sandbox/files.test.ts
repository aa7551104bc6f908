import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {RunningSandbox} from '../../src/sandbox/index.js'
import {FileGrant, FileGrants} from '../../src/schemas/posts.js'
import {sandboxClient, startTestSandbox, type SandboxClient} from '../helpers/sandbox.js'

// A clock the tests move: signed links expire by it.
let now = Date.UTC(2025, 5, 1, 12, 0, 0)
let sandbox: RunningSandbox
let demo: SandboxClient
let second: SandboxClient
let seedQuoteId: string

const MINUTE = 60_000

beforeAll(async () => {
  sandbox = await startTestSandbox({clock: () => now})
  demo = sandboxClient(sandbox, sandbox.businesses[0])
  second = sandboxClient(sandbox, sandbox.businesses[1])
  const list = await demo.get(`/api/public/v1/demand/${demo.business.id}/all?draftId=seed-quote-sent`)
  seedQuoteId = list.body.data[0]._id
})
afterAll(async () => {
  await sandbox.close()
})

const access = (demandId: string, query = '', client = demo) =>
  client.get(`/api/public/v1/demand/access/file/${demandId}${query}`)
const storage = (fileLink: string, client = demo) =>
  client.get(`/api/v2/ms-machine-owner/demand/access-storage?fileLink=${encodeURIComponent(fileLink)}`)

/** A binary STL's triangle count from its bytes (header 80 bytes, then uint32 LE). */
const triangles = (bytes: Buffer) => bytes.readUInt32LE(80)

describe('signed links', () => {
  it('v1 access/file answers {url, token} for the first file, served by the sandbox for 30 minutes', async () => {
    const answer = await access(seedQuoteId)
    expect(answer.status, answer.text).toBe(200)
    const grant = FileGrant.parse(answer.body)
    const expires = Math.floor(now / 1000) + 30 * 60
    expect(grant.url).toMatch(
      new RegExp(
        `^${sandbox.url}/files/seed/demands/sensor-bracket\\.stl\\?expires=${expires}&signature=[0-9a-f]{64}$`,
      ),
    )
    expect(grant.token).toBe(grant.url.split('?')[1])
    const file = await fetch(grant.url)
    expect(file.status).toBe(200)
    expect(file.headers.get('content-type')).toBe('model/stl')
    expect(file.headers.get('content-disposition')).toContain('sensor-bracket.stl')
    const bytes = Buffer.from(await file.arrayBuffer())
    expect(bytes.length).toBe(84 + 12 * 50)
    expect(triangles(bytes)).toBe(12)

    now += 29 * MINUTE + 59_000
    expect((await fetch(grant.url)).status).toBe(200)
    now += 1000
    const expired = await fetch(grant.url)
    expect(expired.status).toBe(403)
    expect(((await expired.json()) as {message: string}).message).toMatch(/expired/)
    now -= 30 * MINUTE
  })

  it('answers 403 saying what changed: the path, the expiry, the signature; unsigned too', async () => {
    const grant = FileGrant.parse((await access(seedQuoteId)).body)
    const url = new URL(grant.url)
    const cases: [string, RegExp][] = [
      [grant.url.replace('sensor-bracket.stl', 'phone-stand.stl'), /path/],
      [grant.url.replace(/expires=(\d+)/, (_m, e: string) => `expires=${Number(e) + 3600}`), /expiry/],
      [grant.url.replace(/signature=([0-9a-f])/, (_m, c: string) => `signature=${c === 'a' ? 'b' : 'a'}`), /signature/],
      [`${url.origin}${url.pathname}`, /not signed/],
    ]
    for (const [tampered, words] of cases) {
      const answer = await fetch(tampered)
      expect(answer.status, tampered).toBe(403)
      const body = (await answer.json()) as {statusCode: number; message: string}
      expect(body.statusCode).toBe(403)
      expect(body.message, tampered).toMatch(words)
    }
  })

  it('chooses among several files by ?fileName= or ?index=; the default is the first', async () => {
    const created = await demo.post(`/api/public/v1/demand/create-quotes/${demo.business.id}`, [
      {
        quoteModel: [
          {fileName: 'a.stl', fileLink: 'https://files.mfg-sandbox.test/seed/demands/drone-frame.stl', material: 'PLA'},
          {
            fileName: 'b.step',
            fileLink: 'https://files.mfg-sandbox.test/seed/demands/valve-knob.step',
            material: 'PLA',
          },
        ],
      },
    ])
    expect(created.status, created.text).toBe(201)
    const id = created.body[0]._id
    expect((await access(id)).body.url).toContain('/files/seed/demands/drone-frame.stl?')
    expect((await access(id, '?fileName=b.step')).body.url).toContain('/files/seed/demands/valve-knob.step?')
    expect((await access(id, '?index=1')).body.url).toContain('/valve-knob.step?')
    expect((await access(id, '?index=2')).status).toBe(400)
    expect((await access(id, '?fileName=c.stl')).status).toBe(404)
    const step = await fetch((await access(id, '?index=1')).body.url)
    expect((await step.text()).startsWith('ISO-10303-21;')).toBe(true)
  })

  it('answers 404 for a demand without stored files, and for another business', async () => {
    const created = await demo.post(`/api/public/v1/demand/create-quotes/${demo.business.id}`, [
      {technique: '3D_PRINTING', material: 'PLA'},
      {quoteModel: [{fileName: 'x.stl', fileLink: 'https://example.com/x.stl', material: 'PLA'}]},
    ])
    expect((await access(created.body[0]._id)).status).toBe(404)
    const elsewhere = await access(created.body[1]._id)
    expect(elsewhere.status).toBe(404)
    expect(elsewhere.body.message).toContain('https://example.com/x.stl')
    expect((await access(seedQuoteId, '', second)).status).toBe(404)
  })

  it('legacy access-storage answers [{url, token}] for a stored file link; the link works', async () => {
    const answer = await storage('https://files.mfg-sandbox.test/seed/products/cable-clip.stl')
    expect(answer.status, answer.text).toBe(200)
    const [grant] = FileGrants.parse(answer.body)
    expect(grant?.token).toMatch(/^expires=\d+&signature=[0-9a-f]{64}$/)
    const file = await fetch(grant?.url ?? '')
    expect(file.status).toBe(200)
    expect(triangles(Buffer.from(await file.arrayBuffer()))).toBe(12)
    // A signed link of this sandbox is accepted as the fileLink too.
    expect((await storage(grant?.url ?? '')).status).toBe(200)
  })

  it('legacy access-storage: fileLink required (400); unknown or another business (404)', async () => {
    expect((await demo.get('/api/v2/ms-machine-owner/demand/access-storage')).status).toBe(400)
    expect((await storage('https://files.mfg-sandbox.test/seed/demands/nothing.stl')).status).toBe(404)
    expect((await storage('https://files.mfg-sandbox.test/seed/demands/spacer.stl')).status).toBe(404)
    expect((await storage('https://files.mfg-sandbox.test/seed/demands/spacer.stl', second)).status).toBe(200)
    expect((await storage('not a url')).status).toBe(404)
  })

  it('supports byte ranges, so a download can resume', async () => {
    const grant = FileGrant.parse((await access(seedQuoteId)).body)
    const whole = Buffer.from(await (await fetch(grant.url)).arrayBuffer())
    const tail = await fetch(grant.url, {headers: {range: 'bytes=84-'}})
    expect(tail.status).toBe(206)
    expect(tail.headers.get('content-range')).toBe(`bytes 84-${whole.length - 1}/${whole.length}`)
    expect(Buffer.from(await tail.arrayBuffer()).equals(whole.subarray(84))).toBe(true)
  })
})
