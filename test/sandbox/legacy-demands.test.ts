import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {ErrorBody} from '../../src/schemas/common.js'
import {LegacyDemandRecord} from '../../src/schemas/legacy-demand.js'
import type {RunningSandbox} from '../../src/sandbox/index.js'
import {MACHINES, MATERIALS, PRODUCTS} from '../../src/sandbox/seed.js'
import {sandboxClient, startTestSandbox, type SandboxClient} from '../helpers/sandbox.js'

/* eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are inspected freely */
type Json = Record<string, any>

const CREATE = '/api/v2/ms-machine-owner/demand/create-demands'
const PRODUCTS_PATH = '/api/v2/ms-machine-owner/demand/products'
const LIST = '/api/v2/ms-machine-owner/demand/list'
const one = (id: string) => `/api/v2/ms-machine-owner/demand/${id}`

let sandbox: RunningSandbox
let demo: SandboxClient
let second: SandboxClient

beforeAll(async () => {
  sandbox = await startTestSandbox()
  demo = sandboxClient(sandbox)
  second = sandboxClient(sandbox, sandbox.businesses[1])
})
afterAll(() => sandbox.close())

const pla = MATERIALS.find((m) => m.materials === 'PLA' && m.technology === 'FDM')!
const fdm = MACHINES.find((m) => m.technology === 'FDM')!
const product = PRODUCTS[0]!.product

/** A create-demands item shaped like the interface's sample. */
function legacyItem(extra: Json = {}): Json {
  return {
    quoteModel: [
      {
        viewerType: '3D',
        discount: 0,
        quantity: 4,
        color: 'Black',
        colorHex: '#000000',
        priceCalculatorTool: 'default',
        scale: 1,
        fileLink: 'https://files.example.com/bracket.stl',
        fileName: 'bracket.stl',
        modelType: 'stl',
        service: '3D_PRINTING',
        technology: 'FDM',
        material: pla._id,
        machine: fdm._id,
        priceMachine: '2.50',
        priceConception: 1,
        priceExtra: 0.5,
        price_min: 8,
        priceWithMargin: 4.8,
        pricePerPiece: 4,
        currency: 'EUR',
        startupCost: 2,
        priceEngine: 4,
        discountAmount: 0,
      },
    ],
    minEstimatedPrice: 15,
    maxEstimatedPrice: null,
    email: 'jane@example.com',
    country: 'BE',
    address: 'Main Street 1',
    phone: '+32 9 123 45 67',
    zip: '9000',
    firstName: 'Jane',
    lastName: 'Doe',
    city: 'Ghent',
    region: 'Flanders',
    typeDelivery: 'home delivery',
    isCompany: false,
    taxType: 'B2C',
    shippingAddressDetails: {country: 'BE', city: 'Ghent', region: 'Flanders', zip: '9000', address: 'Main Street 1'},
    billingAddressDetails: {country: 'BE', city: 'Ghent', region: 'Flanders', zip: '9000', address: 'Main Street 1'},
    client: null,
    technique: '3D_PRINTING',
    shippingMethod: {regionTo: 'EU', price: 6.5, currency: 'EUR', daysToDeliver: 4},
    currency: 'EUR',
    remark: ['deburr edges'],
    type: 'normal',
    status: 'quote sent',
    fixedPrice: 0,
    priceMin: 8,
    priceMinPart: 8,
    referral: 'api',
    ...extra,
  }
}

async function createLegacy(extra: Json = {}, client = demo): Promise<Json> {
  const answer = await client.post(CREATE, [legacyItem(extra)])
  expect(answer.status).toBe(201)
  return answer.body[0]
}

function order(extra: Json = {}): Json {
  return {
    productId: product._id,
    referral: 'api',
    material: 'PLA',
    filling: 20,
    quantity: 3,
    color: 'White',
    shippingMethod: {method: 'standard', type: 'home', currency: 'EUR', price: 4.9},
    shippingAddress: {
      address: 'Rue Haute 5',
      firstName: 'Paul',
      lastName: 'Martin',
      email: 'paul@example.com',
      phone: '+33 1 23 45 67 89',
      city: 'Lille',
      country: 'FR',
      zip: '59000',
    },
    clientInfo: {firstName: 'Paul', lastName: 'Martin', email: 'paul@example.com'},
    ...extra,
  }
}

describe('legacy create-demands', () => {
  it('creates demands and answers the legacy create shape: string prices, client as id, echoed fields', async () => {
    const answer = await demo.post(CREATE, [legacyItem({draftId: 'lg-create-1'}), legacyItem({client: 'cust-77'})])
    expect(answer.status).toBe(201)
    expect(answer.body).toHaveLength(2)
    const [first, next] = answer.body as [Json, Json]
    LegacyDemandRecord.parse(first)
    expect(first).toMatchObject({
      status: 'Quote Sent',
      machineOwner: demo.business.id,
      technique: '3D_PRINTING',
      email: 'jane@example.com',
      phone: '+32 9 123 45 67',
      city: 'Ghent',
      zip: '9000',
      country: 'BE',
      file: 'https://files.example.com/bracket.stl',
      remark: ['deburr edges'],
      typeDelivery: 'home delivery',
      quantity: 4,
      thickness: null,
      tolerance: null,
      draftId: 'lg-create-1',
      // pricePerPiece 4 × 4 + startup 2 = 18, + delivery 6.5 from shippingMethod.price
      priceToClient: '24.50',
      priceToMachnieOwner: '24.50',
      priceMachine: '10.00',
      priceConception: 4,
      priceExtra: 2,
      priceDelivery: 6.5,
      priceTotal: 24.5,
      taxPaid: 0,
      platformFee: 0,
      processorExtraFees: 0,
      priceSurcharge: 0,
      paymentStatus: 'PENDING_PAYMENT',
      settings: {notification: {user: true, machineOwner: true}},
      // echoed as submitted
      shippingMethod: {regionTo: 'EU', price: 6.5, currency: 'EUR', daysToDeliver: 4},
      minEstimatedPrice: 15,
      maxEstimatedPrice: null,
      taxType: 'B2C',
      isCompany: false,
      region: 'Flanders',
      referral: 'api',
      priceMinPart: 8,
    })
    // The quote model item's material id reads as the catalogue material's name on the demand.
    expect(first.material).toBe('PLA')
    expect(first.quoteModel[0]).toMatchObject({material: pla._id, machine: fdm._id})
    expect(first.quoteModel[0]._id).toMatch(/^[0-9a-f]{24}$/)
    for (const key of ['priceToClient', 'priceMachine', 'priceToMachnieOwner']) expect(typeof first[key]).toBe('string')
    expect(first.client).toMatch(/^[0-9a-f]{24}$/)
    expect(next.client).toBe('cust-77')
    expect(first.tracking).toEqual([{status: 'quote sent', date: expect.any(Number)}])
    expect(Date.parse(first.createdAt)).toBe(first.tracking[0].date)
    expect(next.orderNumber).toBe(first.orderNumber + 1)

    // v1 sees the same demand, with its own shape.
    const v1 = await demo.get(`/api/public/v1/demand/${first._id}`)
    expect(v1.status).toBe(200)
    expect(v1.body).toMatchObject({
      _id: first._id,
      orderNumber: first.orderNumber,
      priceToClient: 24.5,
      status: 'Quote Sent',
      draftId: 'lg-create-1',
      shippingDuration: 4,
      jobDetails: {takenAs: 'QUOTE'},
      demandStatusInfo: {status: 'quote_sent'},
    })
  })

  it('validates the whole body first and creates nothing when an item is invalid', async () => {
    const before = await demo.get(`/api/public/v1/demand/${demo.business.id}/all?pageSize=1`)
    const answer = await demo.post(CREATE, [
      legacyItem(),
      legacyItem({status: 'in shipping', remark: [1]}),
      legacyItem({quoteModel: [], technique: undefined}),
      legacyItem({priceToMachineOwner: 5, typeDelivery: 'drone'}),
    ])
    expect(answer.status).toBe(400)
    expect(answer.body.message).toBe('3 of 4 demands are invalid (items 1, 2, 3); nothing was created.')
    const paths = answer.body.details.map((d: {path: string}) => d.path).sort()
    expect(paths).toEqual(['1.remark.0', '1.status', '2.technique', '3.priceToMachineOwner', '3.typeDelivery'])
    const after = await demo.get(`/api/public/v1/demand/${demo.business.id}/all?pageSize=1`)
    expect(after.body.total).toBe(before.body.total)
  })

  it('reads priceToMachineOwner as the interface\u2019s priceToMachnieOwner in v1 bodies too', async () => {
    const v1 = `/api/public/v1/demand/create-quotes/${demo.business.id}`
    const bad = await demo.post(v1, [{technique: '3D_PRINTING', material: 'PLA', priceToMachineOwner: 5}])
    expect(bad.status).toBe(400)
    expect(bad.body.details).toEqual([{path: '0.priceToMachnieOwner', message: 'must be a string'}])
    const good = await demo.post(v1, [{technique: '3D_PRINTING', material: 'PLA', priceToMachineOwner: '5.00'}])
    expect(good.status).toBe(201)
    const update = await demo.put(`/api/public/v1/demand/${good.body[0]._id}`, {priceToMachineOwner: 7})
    expect(update.status).toBe(400)
    expect(update.body.details).toEqual([{path: 'priceToMachnieOwner', message: 'must be a string'}])
  })

  it('accepts priceToMachineOwner as an alias and legacy status spellings of the first stage', async () => {
    for (const status of ['quote sent', 'Quote Sent', 'quote_sent']) {
      const created = await createLegacy({status, priceToMachineOwner: '18.00'})
      expect(created.status).toBe('Quote Sent')
    }
  })

  it('holds 1 to 100 demands per body', async () => {
    const empty = await demo.post(CREATE, [])
    expect(empty.status).toBe(400)
    expect(empty.body.message).toMatch(/1 to 100 demands; this one has 0/)
    const tooMany = await demo.post(
      CREATE,
      Array.from({length: 101}, () => ({technique: '3D_PRINTING', material: 'PLA'})),
    )
    expect(tooMany.status).toBe(400)
    expect(tooMany.body.message).toMatch(/this one has 101/)
    const notArray = await demo.post(CREATE, {technique: '3D_PRINTING'})
    expect(notArray.status).toBe(400)
    const hundred = await demo.post(
      CREATE,
      Array.from({length: 100}, (_, i) => ({technique: 'CNC_MACHINING', material: 'Brass', draftId: `lg-100-${i}`})),
    )
    expect(hundred.status).toBe(201)
    expect(hundred.body.map((d: Json) => d.draftId)).toEqual(Array.from({length: 100}, (_, i) => `lg-100-${i}`))
  })

  it('replays a draftId and an Idempotency-Key like v1', async () => {
    const first = await createLegacy({draftId: 'lg-replay'})
    const again = await demo.post(CREATE, [legacyItem({draftId: 'lg-replay', remark: ['changed']})])
    expect(again.status).toBe(201)
    expect(again.body[0]._id).toBe(first._id)
    expect(again.body[0].remark).toEqual(['deburr edges'])
    // The v1 draftId replay finds the legacy demand too.
    const v1 = await demo.post(`/api/public/v1/demand/create-quotes/${demo.business.id}`, [
      {draftId: 'lg-replay', technique: '3D_PRINTING', material: 'PLA'},
    ])
    expect(v1.body[0]._id).toBe(first._id)

    const headers = {'idempotency-key': 'lg-key-1'}
    const a = await demo.post(CREATE, [legacyItem()], {headers})
    const b = await demo.post(CREATE, [legacyItem()], {headers})
    expect(b.status).toBe(201)
    expect(b.headers.get('idempotent-replayed')).toBe('true')
    expect(b.body).toEqual(a.body)
    const other = await demo.post(CREATE, [legacyItem({remark: []})], {headers})
    expect(other.status).toBe(400)
    expect(other.body.message).toMatch(/different request/)
  })

  it('refuses a business or machineOwner other than the key\u2019s business (403)', async () => {
    const otherId = sandbox.businesses[1]!.id
    expect((await demo.post(CREATE, [legacyItem({business: otherId})])).status).toBe(403)
    const owner = await demo.post(CREATE, [legacyItem({machineOwner: otherId})])
    expect(owner.status).toBe(403)
    expect(owner.body.message).toContain(otherId)
    expect((await demo.post(CREATE, [legacyItem({machineOwner: demo.business.id})])).status).toBe(201)
  })

  it('needs both v2 headers', async () => {
    const noToken = await demo.post(CREATE, [legacyItem()], {v2: false})
    expect(noToken.status).toBe(401)
    expect(noToken.body.message).toMatch(/X-Auth-Token/)
  })
})

describe('legacy by-product orders', () => {
  it('creates orders linked to the product, taken as ORDER, with display text in the language asked', async () => {
    const answer = await demo.post(`${PRODUCTS_PATH}?lang=de`, [order(), order({quantity: 1, material: 'pla'})])
    expect(answer.status).toBe(201)
    expect(answer.headers.get('content-language')).toBe('de')
    const [first, next] = answer.body as [Json, Json]
    LegacyDemandRecord.parse(first)
    const unit = Number(product.price.priceMachine) + product.price.priceConception + product.price.priceExtra
    expect(first).toMatchObject({
      productId: product._id,
      status: 'Quote Sent',
      technique: product.service,
      material: 'PLA',
      color: 'White',
      quantity: 3,
      filling: 20,
      priceDelivery: 4.9,
      priceToClient: (Math.round((unit * 3 + 4.9) * 100) / 100).toFixed(2),
      email: 'paul@example.com',
      city: 'Lille',
      file: product.models[0]!.files[0]!.url,
      machineOwner: demo.business.id,
      message: `Bestellung Nr. ${first.orderNumber} für ${product.title} aufgegeben.`,
    })
    expect(first.client).toMatch(/^[0-9a-f]{24}$/)
    expect(next.quantity).toBe(1)
    const v1 = await demo.get(`/api/public/v1/demand/${first._id}`)
    expect(v1.body).toMatchObject({type: 'PRODUCT_SALE', post: product._id, jobDetails: {takenAs: 'ORDER'}})
    const orders = await demo.get(`/api/public/v1/demand/${demo.business.id}/orders?pageSize=100`)
    expect(orders.body.data.map((d: Json) => d._id)).toContain(first._id)
  })

  it('answers in en (the default), fr and es', async () => {
    const expected: Record<string, RegExp> = {
      '': /^Order #\d+ placed for /,
      '?lang=en': /^Order #\d+ placed for /,
      '?lang=fr': /^Commande n° \d+ passée pour /,
      '?lang=es': /^Pedido n\.º \d+ realizado para /,
      '?lang=FR': /^Commande n° /,
    }
    for (const [query, message] of Object.entries(expected)) {
      const answer = await demo.post(`${PRODUCTS_PATH}${query}`, [order()])
      expect([query, answer.status]).toEqual([query, 201])
      expect(answer.body[0].message).toMatch(message)
    }
  })

  it('refuses an unknown lang with 400 listing en, fr, de, es, before anything is created', async () => {
    for (const lang of ['it', 'english', '']) {
      const answer = await demo.post(`${PRODUCTS_PATH}?lang=${lang}`, [order({draftId: `lang-${lang}`})])
      expect(answer.status).toBe(400)
      expect(answer.body.message).toContain('en, fr, de, es')
      expect(answer.body.details).toEqual([{path: 'lang', message: 'must be one of "en", "fr", "de", "es"'}])
    }
    const list = await demo.get(`/api/public/v1/demand/${demo.business.id}/all?draftId=lang-it`)
    expect(list.body.total).toBe(0)
  })

  it('refuses a wrong referral with 400 without revealing the right value', async () => {
    const answer = await demo.post(PRODUCTS_PATH, [order(), order({referral: 'API'}), order({referral: 'api-second'})])
    expect(answer.status).toBe(400)
    expect(answer.body.message).toBe('The referral is not valid for this business (items 1, 2); nothing was created.')
    expect(answer.body.details.map((d: Json) => d.path)).toEqual(['1.referral', '2.referral'])
    expect(answer.text).not.toMatch(/"api"/)
    expect(answer.text).not.toMatch(/\bapi\b(?!-second)/)
    // The second business's own referral works for it; the demo's does not.
    const wrong = await second.post(PRODUCTS_PATH, [order({referral: 'api', productId: product._id})])
    expect(wrong.status).toBe(400)
  })

  it('answers 404 for an unknown product or another business\u2019s product', async () => {
    const unknown = await demo.post(PRODUCTS_PATH, [order(), order({productId: 'ffffffffffffffffffffffff'})])
    expect(unknown.status).toBe(404)
    expect(unknown.body.message).toContain('ffffffffffffffffffffffff (item 1)')
    const others = await second.post(PRODUCTS_PATH, [order({referral: 'api-second', draftId: 'cross-product'})])
    expect(others.status).toBe(404)
    expect((await second.get(`/api/public/v1/demand/${second.business.id}/all?draftId=cross-product`)).body.total).toBe(
      0,
    )
  })

  it('validates the items: schema errors and materials the product does not offer', async () => {
    const bad = await demo.post(PRODUCTS_PATH, [order({quantity: 0, filling: 'full'}), {referral: 'api'}])
    expect(bad.status).toBe(400)
    expect(bad.body.details.map((d: Json) => d.path).sort()).toEqual(['0.filling', '0.quantity', '1.productId'])
    const material = await demo.post(PRODUCTS_PATH, [order({material: 'Titanium'})])
    expect(material.status).toBe(400)
    expect(material.body.details).toEqual([
      {path: '0.material', message: expect.stringContaining(`"${product.materials[0]!.title}"`)},
    ])
  })

  it('replays a draftId of a by-product order', async () => {
    const first = await demo.post(PRODUCTS_PATH, [order({draftId: 'order-replay'})])
    const again = await demo.post(PRODUCTS_PATH, [order({draftId: 'order-replay', quantity: 9})])
    expect(again.body[0]._id).toBe(first.body[0]._id)
    expect(again.body[0].quantity).toBe(3)
  })
})

describe('legacy list by ids', () => {
  it('answers legacy records in the requested order and leaves out unknown and other businesses\u2019 ids', async () => {
    const a = await createLegacy()
    const b = await createLegacy()
    const c = await createLegacy()
    const foreign = await createLegacy({}, second)
    const answer = await demo.post(LIST, {
      demands: [c._id, 'ffffffffffffffffffffffff', a._id, foreign._id, b._id, a._id],
    })
    expect(answer.status).toBe(200)
    expect(answer.body.map((d: Json) => d._id)).toEqual([c._id, a._id, b._id])
    for (const record of answer.body) {
      LegacyDemandRecord.parse(record)
      expect(typeof record.priceToClient).toBe('string')
      expect(record.status).toBe('Quote Sent')
    }
    expect(answer.body[1]).toEqual((await demo.get(one(a._id))).body)
    const none = await demo.post(LIST, {demands: ['nope']})
    expect(none.status).toBe(200)
    expect(none.body).toEqual([])
  })

  it('takes 1 to 500 ids', async () => {
    const a = await createLegacy()
    const empty = await demo.post(LIST, {demands: []})
    expect(empty.status).toBe(400)
    expect(empty.body.details).toEqual([{path: 'demands', message: 'must have at least 1 item'}])
    const tooMany = await demo.post(LIST, {demands: Array.from({length: 501}, (_, i) => `id-${i}`)})
    expect(tooMany.status).toBe(400)
    expect(tooMany.body.details).toEqual([{path: 'demands', message: 'must have at most 500 items'}])
    const max = await demo.post(LIST, {demands: [...Array.from({length: 499}, (_, i) => `id-${i}`), a._id]})
    expect(max.status).toBe(200)
    expect(max.body.map((d: Json) => d._id)).toEqual([a._id])
    for (const body of [undefined, [a._id], {demands: a._id}, {demands: [1]}, {ids: [a._id]}]) {
      const answer = await demo.request('POST', LIST, body === undefined ? {rawBody: '{}'} : {body})
      expect([body, answer.status]).toEqual([body, 400])
      ErrorBody.parse(answer.body)
    }
  })
})

describe('legacy get, update and delete', () => {
  it('reads one demand; another business\u2019s id is 404', async () => {
    const created = await createLegacy()
    const read = await demo.get(one(created._id))
    expect(read.status).toBe(200)
    expect(read.body).toMatchObject({_id: created._id, status: 'Quote Sent', priceToClient: created.priceToClient})
    expect((await second.get(one(created._id))).status).toBe(404)
    expect((await second.put(one(created._id), {color: 'Red'})).status).toBe(404)
    expect((await second.delete(one(created._id))).status).toBe(404)
    expect((await demo.get(one(created._id))).body.status).toBe('Quote Sent')
  })

  it('updates the eight legacy fields and answers the updated fields with _id', async () => {
    const created = await createLegacy()
    const answer = await demo.put(one(created._id), {
      material: 'PETG',
      resolution: '0.2mm',
      filling: 50,
      quantity: 6,
      color: 'Orange',
      thickness: 2,
      tolerance: 0.1,
      shippingAddress: {city: 'Bruges', zip: '8000'},
    })
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual({
      _id: created._id,
      material: 'PETG',
      resolution: '0.2mm',
      filling: 50,
      quantity: 6,
      color: 'Orange',
      thickness: 2,
      tolerance: 0.1,
      shippingAddress: expect.objectContaining({city: 'Bruges', zip: '8000', address: 'Main Street 1', country: 'BE'}),
    })
    const partial = await demo.put(one(created._id), {color: 'Blue'})
    expect(partial.body).toEqual({_id: created._id, color: 'Blue'})
    const legacy = (await demo.get(one(created._id))).body
    expect(legacy).toMatchObject({material: 'PETG', color: 'Blue', quantity: 6, tolerance: 0.1, thickness: 2})
    const v1 = (await demo.get(`/api/public/v1/demand/${created._id}`)).body
    expect(v1).toMatchObject({material: 'PETG', color: 'Blue', quantity: 6, tolerance: '0.1'})
    expect(v1.shippingAddress.city).toBe('Bruges')
  })

  it('refuses other fields, empty updates and bad types with 400', async () => {
    const created = await createLegacy()
    const unknown = await demo.put(one(created._id), {color: 'Red', status: 'Done', priceToClient: '1.00'})
    expect(unknown.status).toBe(400)
    expect(unknown.body.details.map((d: Json) => d.path).sort()).toEqual(['priceToClient', 'status'])
    expect(unknown.body.message).toContain('material, resolution, filling, quantity, color, thickness, tolerance')
    expect((await demo.put(one(created._id), {})).status).toBe(400)
    const types = await demo.put(one(created._id), {quantity: 1.5, tolerance: 'tight'})
    expect(types.status).toBe(400)
    expect(types.body.details.map((d: Json) => d.path).sort()).toEqual(['quantity', 'tolerance'])
    expect((await demo.get(one(created._id))).body.color).toBe('Black')
  })

  it('follows the stage rules: frozen fields 409 from production on, address editable until delivered', async () => {
    const created = await createLegacy()
    const v1put = (status: string) => demo.put(`/api/public/v1/demand/${created._id}`, {demandStatusInfo: {status}})
    expect((await v1put('special_verified')).status).toBe(200)
    expect((await v1put('special_accepted')).status).toBe(200)
    for (const change of [
      {material: 'ABS'},
      {resolution: 'fine'},
      {filling: 80},
      {quantity: 9},
      {color: 'Red'},
      {thickness: 4},
      {tolerance: 0.2},
    ]) {
      const answer = await demo.put(one(created._id), change)
      expect([change, answer.status]).toEqual([change, 409])
      expect(answer.body.message).toContain(Object.keys(change)[0])
      expect(answer.body.message).toContain('special_accepted')
    }
    const address = await demo.put(one(created._id), {shippingAddress: {city: 'Namur'}})
    expect(address.status).toBe(200)
    expect(address.body.shippingAddress.city).toBe('Namur')
    // Sending a frozen field unchanged is not a change.
    expect((await demo.put(one(created._id), {quantity: 4, color: 'Black'})).status).toBe(200)
    for (const stage of ['done', 'in_shipping', 'delivered']) expect((await v1put(stage)).status).toBe(200)
    const late = await demo.put(one(created._id), {shippingAddress: {city: 'Liège'}})
    expect(late.status).toBe(409)
    expect(late.body.message).toMatch(/delivered/)
    expect((await demo.get(one(created._id))).body).toMatchObject({status: 'Delivered', material: 'PLA', quantity: 4})
  })

  it('deletes by cancelling and archiving, keeps the demand readable, and answers the cancelled record', async () => {
    const created = await createLegacy({draftId: 'lg-delete'})
    const answer = await demo.delete(one(created._id))
    expect(answer.status).toBe(200)
    LegacyDemandRecord.parse(answer.body)
    expect(answer.body).toMatchObject({
      _id: created._id,
      status: 'Cancelled',
      archive: true,
      demandStatusInfo: {status: 'cancelled'},
      priceToClient: created.priceToClient,
      draftId: 'lg-delete',
    })
    expect(answer.body.tracking.map((t: Json) => t.status)).toEqual(['quote sent', 'cancelled'])
    expect((await demo.get(one(created._id))).body.status).toBe('Cancelled')
    expect((await demo.post(LIST, {demands: [created._id]})).body).toHaveLength(1)
    const v1 = await demo.get(`/api/public/v1/demand/${demo.business.id}/all?draftId=lg-delete&archived=true`)
    expect(v1.body.data[0]).toMatchObject({_id: created._id, status: 'Cancelled', archive: true})
    const again = await demo.delete(one(created._id))
    expect(again.status).toBe(409)
    expect(again.body.message).toMatch(/already cancelled/)
    expect((await demo.delete(one('ffffffffffffffffffffffff'))).status).toBe(404)
  })
})
