import type {FastifyInstance} from 'fastify'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {buildApp} from '../../src/sandbox/app.js'
import {openSeededStore, sandboxBusinesses, type RunningSandbox} from '../../src/sandbox/index.js'
import {EUR_RATES, round2} from '../../src/sandbox/pricing.js'
import {DAILY_ESTIMATION_ALLOWANCE} from '../../src/sandbox/store/allowance.js'
import type {Store} from '../../src/sandbox/store/index.js'
import {CURRENCIES} from '../../src/schemas/common.js'
import {ErrorBody} from '../../src/schemas/common.js'
import {sandboxClient, type SandboxClient} from '../helpers/sandbox.js'

// A sandbox with a clock the tests move: 2025-03-10 22:00:00 UTC, two hours before midnight.
let now = Date.UTC(2025, 2, 10, 22, 0, 0)
let store: Store
let app: FastifyInstance
let demo: SandboxClient
let second: SandboxClient

beforeAll(async () => {
  store = openSeededStore({memory: true})
  app = buildApp(store, {clock: () => now})
  await app.listen({port: 0, host: '127.0.0.1'})
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  const sandbox = {url: `http://127.0.0.1:${port}`, businesses: sandboxBusinesses(store)} as RunningSandbox
  demo = sandboxClient(sandbox, sandbox.businesses[0])
  second = sandboxClient(sandbox, sandbox.businesses[1])
})
afterAll(async () => {
  await app.close()
  store.close()
})

const v1 = (businessId = demo.business.id, query = '') => `/api/public/v1/price-estimation/${businessId}${query}`
const legacy = (query = '?currency=EUR', businessId = demo.business.id) =>
  `/api/v2/ms-machine-learning/machine-learing/modelPriceEstimation/${businessId}${query}`

const PLA = {
  material: 'PLA',
  quantity: 3,
  slicingData: {volume: '8000.000', weight: '4.30', density: 1.24, hours: 0.26},
}
const model = (extra: Record<string, unknown> = {}) => ({
  model: {
    slicingData: {volume: '8000.000', weight: '4.30', density: 1.24, hours: 0.26, width: 20, depth: 20, height: 20},
    selectedOptions: [],
    material: 'PLA',
    postProduction: [],
    service: '3D_PRINTING',
    technology: 'FDM',
    viewerType: '3D',
    quantity: 3,
    ...extra,
  },
})

describe('v1 price-estimation', () => {
  it('answers 200 with {message, data: {price}} and the resolved machine', async () => {
    const answer = await demo.post(v1(), PLA)
    expect(answer.status, answer.text).toBe(200)
    // 3 × minimum 8.00 + startup 2.00.
    expect(answer.body).toEqual({
      message: 'Estimated price for 3 × PLA on FDM (3D_PRINTING): 26.00 EUR.',
      data: {
        price: 26,
        currency: 'EUR',
        quantity: 3,
        unitPrice: 8.67,
        service: '3D_PRINTING',
        technology: 'FDM',
        material: 'PLA',
      },
    })
  })

  it('takes the material as a catalogue object by _id, and prices it from the catalogue, not the request', async () => {
    const petg = store.catalog.materials(demo.business.id).find((m) => m.materials === 'PETG')!
    const cheap = {...petg, price: 0.01, materials: 'ignored'}
    const byObject = await demo.post(v1(), {...PLA, material: cheap, quantity: 50})
    const byName = await demo.post(v1(), {...PLA, material: 'petg', quantity: 50})
    expect(byObject.status, byObject.text).toBe(200)
    expect(byObject.body.data).toMatchObject({material: 'PETG'})
    expect(byObject.body.data.price).toBe(byName.body.data.price)
  })

  it('converts to each of the 22 currencies with the fixed table ([ext] currency query)', async () => {
    const body = {...PLA, quantity: 7}
    const eur = (await demo.post(v1(), body)).body.data.price as number
    for (const code of CURRENCIES) {
      const answer = await demo.post(v1(demo.business.id, `?currency=${code.toLowerCase()}`), body)
      expect(answer.status, answer.text).toBe(200)
      expect([code, answer.body.data.price]).toEqual([code, round2(eur * EUR_RATES[code])])
      expect(answer.body.data.currency).toBe(code)
    }
    const bad = await demo.post(v1(demo.business.id, '?currency=BTC'), body)
    expect(bad.status).toBe(400)
    expect(bad.body.details[0].path).toBe('currency')
  })

  it('answers bulk rows, startup spread over the quantity', async () => {
    const answer = await demo.post(v1(), {...PLA, bulkPricing: [1, 10, 100]})
    expect(answer.body.data.bulk).toEqual([
      {quantity: 1, unitPrice: 10, total: 10},
      {quantity: 10, unitPrice: 8.2, total: 82},
      {quantity: 100, unitPrice: 8.02, total: 802},
    ])
    expect(answer.body.data.price).toBe(26)
  })

  it('refuses schema errors with details paths relative to the body', async () => {
    const answer = await demo.post(v1(), {
      ...PLA,
      quantity: 0,
      discount: 120,
      slicingData: {volume: 'lots'},
      service: 'WELDING',
    })
    expect(answer.status).toBe(400)
    expect(ErrorBody.parse(answer.body).statusCode).toBe(400)
    const paths = answer.body.details.map((d: {path: string}) => d.path).sort()
    expect(paths).toEqual(['discount', 'quantity', 'service', 'slicingData.volume'])
    const body = await demo.post(v1(), [PLA])
    expect(body.status).toBe(400)
  })

  it('says a value of the wrong type must be that type, not that it is required (both generations)', async () => {
    const v1Answer = await demo.post(v1(), {...PLA, quantity: '3', isSupported: 'yes', bulkPricing: [1.5]})
    expect(v1Answer.status).toBe(400)
    const v1Messages = Object.fromEntries(
      v1Answer.body.details.map((d: {path: string; message: string}) => [d.path, d.message]),
    )
    expect(v1Messages).toEqual({
      quantity: 'must be a number',
      isSupported: 'must be a boolean',
      'bulkPricing.0': 'must be an int',
    })
    expect(v1Answer.body.message).not.toMatch(/required/)

    const legacyAnswer = await demo.post(legacy(), [model({quantity: '3'}), {model: 'PLA'}])
    expect(legacyAnswer.status).toBe(400)
    const legacyMessages = Object.fromEntries(
      legacyAnswer.body.details.map((d: {path: string; message: string}) => [d.path, d.message]),
    )
    expect(legacyMessages['0.model.quantity']).toBe('must be a number')
    expect(legacyMessages['1.model']).toBe('must be an object')
    const notAnArray = await demo.post(legacy(), {model: model().model})
    expect(notAnArray.body.details).toEqual([{path: '', message: 'must be an array'}])
  })

  it('names the allowed values for an unknown or ambiguous material, technology, colour or option', async () => {
    const unknown = await demo.post(v1(), {...PLA, material: 'Unobtainium'})
    expect(unknown.status).toBe(400)
    expect(unknown.body.details).toEqual([{path: 'material', message: expect.stringContaining('"PLA", "PETG", "ABS"')}])
    const missing = await demo.post(v1(), {service: 'CNC_MACHINING'})
    expect(missing.body.details[0]).toEqual({
      path: 'material',
      message: 'is required; must be one of "Aluminium 6061", "Steel S235", "Brass"',
    })
    const ambiguous = await demo.post(v1(), {...PLA, material: 'Steel S235'})
    expect(ambiguous.body.details).toEqual([{path: 'technology', message: 'must be one of "CNC", "LASER"'}])
    const tech = await demo.post(v1(), {...PLA, technology: 'MJF'})
    expect(tech.body.details).toEqual([
      {path: 'technology', message: 'must be one of "FDM", "SLA", "SLS", "CNC", "LASER"'},
    ])
    const wrongPlace = await demo.post(v1(), {...PLA, technology: 'SLA'})
    expect(wrongPlace.body.message).toMatch(/PLA is not offered for SLA; it is offered with FDM \(3D_PRINTING\)/)
    const extras = await demo.post(v1(), {
      ...PLA,
      color: 'Purple',
      selectedOptions: [
        {refer: 'lead_time', name: 'Tomorrow'},
        {refer: 'finishing', name: 'Anodising'},
      ],
    })
    expect(extras.body.details.map((d: {path: string}) => d.path)).toEqual([
      'color',
      'selectedOptions.0',
      'selectedOptions.1',
    ])
    expect(extras.body.details[0].message).toContain('"Signal Red"')
    // Anodising is for metal only: FDM's list has sanding, not anodising.
    expect(extras.body.details[1].message).toContain('"finishing=Sanding"')
    expect(extras.body.details[1].message).not.toContain('Anodising')
  })

  it('names the measure a technology needs when it is missing', async () => {
    const cnc = await demo.post(v1(), {material: 'Brass', slicingData: {volume: '1000'}})
    expect(cnc.status).toBe(400)
    expect(cnc.body.details[0].path).toBe('slicingData.width')
    const sheet = await demo.post(v1(), {technology: 'LASER', material: 'Aluminium 5754', thickness: 8, volume: '8000'})
    expect(sheet.status).toBe(400)
    expect(sheet.body.details).toEqual([{path: 'thickness', message: 'must be one of 1, 1.5, 2, 3 mm'}])
  })

  it('answers 401 without a key and 403 on another business path', async () => {
    expect((await demo.post(v1(), PLA, {as: null})).status).toBe(401)
    const other = await second.post(v1(demo.business.id), PLA)
    expect(other.status).toBe(403)
    // The second shop has no machines: nothing to price with.
    const own = await second.post(v1(second.business.id), PLA)
    expect(own.status).toBe(400)
    expect(own.body.message).toMatch(/no active machine/)
  })
})

describe('legacy modelPriceEstimation', () => {
  const remaining = (headers: Headers) => Number(headers.get('x-daily-allowance-remaining'))

  it('needs the currency query, listing the 22 codes', async () => {
    for (const query of ['', '?currency=', '?currency=XBT']) {
      const answer = await demo.post(legacy(query), [model()])
      expect(answer.status).toBe(400)
      for (const code of CURRENCIES) expect(answer.body.message).toContain(code)
      expect(answer.body.details[0].path).toBe('currency')
    }
  })

  it('checks the required model fields, per model, with index paths, and spends nothing', async () => {
    const before = store.allowance.used(demo.business.id, '2025-03-10')
    const answer = await demo.post(legacy(), [
      model(),
      {model: {material: 'PLA'}},
      model({technology: 'LASER', viewerType: '4D'}),
    ])
    expect(answer.status).toBe(400)
    const paths = answer.body.details.map((d: {path: string}) => d.path)
    expect(paths).toEqual(
      expect.arrayContaining([
        '1.model.slicingData',
        '1.model.selectedOptions',
        '1.model.postProduction',
        '1.model.service',
        '1.model.technology',
        '1.model.viewerType',
        '1.model.quantity',
        '2.model.technology',
        '2.model.viewerType',
      ]),
    )
    expect(paths.some((p: string) => p.startsWith('0.'))).toBe(false)
    expect(answer.body.details.find((d: {path: string}) => d.path === '1.model.quantity').message).toBe('is required')
    const unpriceable = await demo.post(legacy(), [model(), model({material: 'Unobtainium'})])
    expect(unpriceable.status).toBe(400)
    expect(unpriceable.body.details[0].path).toBe('1.model.material')
    expect(store.allowance.used(demo.business.id, '2025-03-10')).toBe(before)
    expect((await demo.post(legacy(), [model()], {v2: false})).status).toBe(401)
    expect((await second.post(legacy(), [model()])).status).toBe(403)
  })

  it('answers one {message, data: {price}} per model, in order, in the asked currency, like v1', async () => {
    const v1Usd = await demo.post(v1(demo.business.id, '?currency=USD'), {...PLA, quantity: 40})
    const answer = await demo.post(legacy('?currency=USD'), [
      model({quantity: 40}),
      model({technology: 'DEFAULT', service: 'SHEET_METAL', material: 'Steel S235', thickness: 2, quantity: 5}),
      model({quantity: 1}),
    ])
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toHaveLength(3)
    expect(answer.body[0].data).toEqual({price: v1Usd.body.data.price})
    expect(answer.body[1].message).toMatch(/5 × Steel S235 on LASER \(SHEET_METAL\)/)
    expect(answer.body[2].data.price).toBe(round2(10 * 1.08))
    const left = remaining(answer.headers)
    for (const item of answer.body) expect(item.message).toContain(`${left} of 100 daily estimations left`)
  })

  it('counts the daily allowance per model and answers 429 with Retry-After until UTC midnight', async () => {
    now = Date.UTC(2025, 2, 11, 9, 30, 0)
    const day = '2025-03-11'
    const first = await demo.post(legacy(), [model()])
    expect(first.status).toBe(200)
    expect(remaining(first.headers)).toBe(DAILY_ESTIMATION_ALLOWANCE - 1)
    const three = await demo.post(legacy(), [model(), model(), model()])
    expect(remaining(three.headers)).toBe(96)
    expect(three.body[2].message).toContain('96 of 100')
    // 96 left: a body of 97 is refused whole, nothing spent.
    const tooMany = await demo.post(
      legacy(),
      Array.from({length: 97}, () => model()),
    )
    expect(tooMany.status).toBe(429)
    expect(tooMany.body.message).toMatch(/only 96 of the daily 100 are left/)
    expect(remaining(tooMany.headers)).toBe(96)
    expect(store.allowance.used(demo.business.id, day)).toBe(4)
    const rest = await demo.post(
      legacy(),
      Array.from({length: 96}, () => model()),
    )
    expect(rest.status).toBe(200)
    expect(remaining(rest.headers)).toBe(0)
    now += 1500
    const spent = await demo.post(legacy(), [model()])
    expect(spent.status).toBe(429)
    expect(ErrorBody.parse(spent.body).message).toMatch(/daily allowance of 100/)
    // 09:30:01.5 → midnight: 14 h 29 min 58.5 s, rounded up.
    expect(spent.headers.get('retry-after')).toBe(String(14 * 3600 + 29 * 60 + 59))
    expect(remaining(spent.headers)).toBe(0)
    // Spent even for a bad body, and v1 is not limited.
    expect((await demo.post(legacy(), [{model: {}}])).status).toBe(429)
    expect((await demo.post(v1(), PLA)).status).toBe(200)
    // The next UTC day starts afresh.
    now = Date.UTC(2025, 2, 12, 0, 0, 1)
    const tomorrow = await demo.post(legacy(), [model()])
    expect(tomorrow.status).toBe(200)
    expect(remaining(tomorrow.headers)).toBe(99)
  })
})
