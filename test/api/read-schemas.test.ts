import {describe, expect, it} from 'vitest'
import type * as z from 'zod'

import {ApiError} from '../../src/api/errors.js'
import {onLenientRead, parseResponse, type ReadReport} from '../../src/api/parse.js'
import {DemandPage, DemandRecord} from '../../src/schemas/demand.js'
import {formatNotes, parseIsoMs, tolerate, type ReadNote} from '../../src/schemas/read/core.js'
import {
  CreatedDemandsRead,
  CreatedSummariesRead,
  DemandPageRead,
  DemandRecordRead,
  LegacyDemandRecordRead,
  LegacyDemandsRead,
} from '../../src/schemas/read/demand.js'
import {FileGrantRead, FileGrantsRead, PostRecordRead, PostsPageRead} from '../../src/schemas/read/posts.js'
import {EstimationAnswerRead, LegacyEstimationAnswerRead} from '../../src/schemas/read/pricing.js'
import {WebhookAnswerRead} from '../../src/schemas/read/webhooks.js'

/** Reads `body` as parseResponse does; answers the value and the notes as `path: text` lines. */
function read(schema: z.ZodType, body: unknown): {value: unknown; notes: string[]} {
  const notes: ReadNote[] = []
  const value = schema.parse(tolerate(schema, body, notes))
  return {value, notes: notes.map((n) => `${n.path}: ${n.text}`)}
}

interface Case {
  name: string
  schema: z.ZodType
  body: unknown
  /** Fields the read value has (toMatchObject). */
  value: unknown
  notes: string[]
  /** Keys that must be absent from the read object (or from its first item / page item). */
  absent?: string[]
}

const demand = {_id: 'd1', orderNumber: 7}

const cases: Case[] = [
  {
    name: 'a strict answer is read unchanged, with no note',
    schema: DemandRecordRead,
    body: {
      ...demand,
      priceTotal: 12.5,
      createdAt: '2025-01-03T10:00:00.000Z',
      tracking: [{status: 'quote sent', date: 1}],
    },
    value: {...demand, priceTotal: 12.5, createdAt: '2025-01-03T10:00:00.000Z'},
    notes: [],
  },
  {
    name: 'null where a value may be absent is read as absent',
    schema: DemandRecordRead,
    body: {...demand, priceTotal: null, shippingAddress: null, tracking: null, fabricatedDate: null},
    value: demand,
    absent: ['priceTotal', 'shippingAddress', 'tracking', 'fabricatedDate'],
    notes: [
      'priceTotal: null read as absent',
      'fabricatedDate: null read as absent',
      'shippingAddress: null read as absent',
      'tracking: null read as absent',
    ],
  },
  {
    name: 'numeric strings are read as numbers, numbers where text is expected as text',
    schema: DemandRecordRead,
    body: {_id: 'd1', orderNumber: '41', priceTotal: ' 12.50 ', shippingAddress: {zip: 75001}},
    value: {_id: 'd1', orderNumber: 41, priceTotal: 12.5, shippingAddress: {zip: '75001'}},
    notes: [
      'orderNumber: "41" read as number',
      'priceTotal: " 12.50 " read as number',
      'shippingAddress.zip: 75001 read as text',
    ],
  },
  {
    name: 'unknown fields and unknown enum values are kept as they are',
    schema: DemandRecordRead,
    body: {...demand, technique: 'LASER_WELDING', demandStatusInfo: {status: 'on_hold'}, futureField: {a: [1]}},
    value: {...demand, technique: 'LASER_WELDING', demandStatusInfo: {status: 'on_hold'}, futureField: {a: [1]}},
    notes: [
      'technique: "LASER_WELDING" is not a value the interface lists, kept as it is',
      'demandStatusInfo.status: "on_hold" is not a value the interface lists, kept as it is',
    ],
  },
  {
    name: 'ISO text in any form is kept; an epoch number where ISO text is expected is read as ISO',
    schema: DemandRecordRead,
    body: {...demand, createdAt: '2025-01-03', updatedAt: 1735898400000},
    value: {...demand, createdAt: '2025-01-03', updatedAt: '2025-01-03T10:00:00.000Z'},
    notes: ['updatedAt: 1735898400000 read as 2025-01-03T10:00:00.000Z'],
  },
  {
    name: 'epoch fields read ISO text (offsets, no Z, fractions) and numeric strings',
    schema: DemandRecordRead,
    body: {
      ...demand,
      dateAccepted: '2025-01-03T11:00:00+01:00',
      producedAt: '2025-01-03T10:00:00.123456',
      deliveredAt: '1735898400000',
      tracking: [{status: 'quote sent', date: '2025-01-03'}],
    },
    value: {
      ...demand,
      dateAccepted: 1735898400000,
      producedAt: 1735898400123,
      deliveredAt: 1735898400000,
      tracking: [{status: 'quote sent', date: 1735862400000}],
    },
    notes: [
      'tracking[0].date: "2025-01-03" read as epoch ms 1735862400000',
      'dateAccepted: "2025-01-03T11:00:00+01:00" read as epoch ms 1735898400000',
      'producedAt: "2025-01-03T10:00:00.123456" read as epoch ms 1735898400123',
      'deliveredAt: "1735898400000" read as number',
    ],
  },
  {
    name: 'a value that cannot be read as its type is left out when the field may be absent',
    schema: DemandRecordRead,
    body: {...demand, priceTotal: 'n/a', archive: 'maybe', shippingAddress: 'Main street 1'},
    value: demand,
    absent: ['priceTotal', 'archive', 'shippingAddress'],
    notes: [
      'priceTotal: "n/a" is not a number, left out',
      'archive: "maybe" is not true or false, left out',
      'shippingAddress: "Main street 1" is not an object, left out',
    ],
  },
  {
    name: 'a tracking entry without a date is kept without one; one without a status is left out, a null item too',
    schema: DemandRecordRead,
    body: {
      ...demand,
      tracking: [
        {status: 'quote sent', date: 5},
        {status: 'done'},
        {status: 'delivered', date: 'n/a'},
        {date: 9},
        null,
      ],
    },
    value: {...demand, tracking: [{status: 'quote sent', date: 5}, {status: 'done'}, {status: 'delivered'}]},
    notes: [
      'tracking[2].date: "n/a" is not an epoch time in milliseconds or an ISO 8601 time, left out',
      'tracking[3]: {"date":9} cannot be read, left out',
      'tracking[4]: null item left out',
    ],
  },
  {
    name: 'a record answered with id instead of _id',
    schema: DemandRecordRead,
    body: {id: 'x9', orderNumber: 3},
    value: {_id: 'x9', orderNumber: 3},
    notes: ['_id: absent, read from id'],
  },
  {
    name: 'a page read from a bare array, without paging fields',
    schema: DemandPageRead,
    body: [demand],
    value: {data: [demand]},
    absent: ['page', 'totalPages'],
    notes: ['(answer): a bare list read as a page (data) without paging fields'],
  },
  {
    name: 'paging fields that are text are read, ones that are not counts ignored',
    schema: DemandPageRead,
    body: {data: [demand], page: '2', pageSize: 0, total: -1, totalPages: 2.5},
    value: {data: [demand], page: 2},
    absent: ['pageSize', 'total', 'totalPages'],
    notes: [
      'page: "2" read as number',
      'pageSize: 0 is not a page number, ignored',
      'total: -1 is not a count, ignored',
      'totalPages: 2.5 is not a count, ignored',
    ],
  },
  {
    name: 'a page with data null or items under another name',
    schema: DemandPageRead,
    body: {items: [demand], total: 1},
    value: {data: [demand], total: 1},
    notes: ['data: read from items'],
  },
  {
    name: 'an empty page with data null',
    schema: DemandPageRead,
    body: {data: null, total: 0},
    value: {data: [], total: 0},
    notes: ['data: null, read as an empty list'],
  },
  {
    name: 'a create answered with one object, not an array',
    schema: CreatedDemandsRead,
    body: {_id: 'c1', orderNumber: '41', draftId: 'r1'},
    value: [{_id: 'c1', orderNumber: 41, draftId: 'r1'}],
    notes: ['(answer): one object read as a list of one', '[0].orderNumber: "41" read as number'],
  },
  {
    name: 'a create answered as {data: [...]}',
    schema: CreatedSummariesRead,
    body: {data: [{_id: 'c1'}, {_id: 'c2'}]},
    value: [{_id: 'c1'}, {_id: 'c2'}],
    notes: ['(answer): the list read from data'],
  },
  {
    name: 'a create answered with ids alone',
    schema: CreatedSummariesRead,
    body: ['c1', 'c2'],
    value: [{_id: 'c1'}, {_id: 'c2'}],
    notes: ['[0]: the id "c1" read as a record with that _id', '[1]: the id "c2" read as a record with that _id'],
  },
  {
    name: 'a legacy record with nulls and prices as numbers',
    schema: LegacyDemandRecordRead,
    body: {_id: 'l1', thickness: null, tolerance: '0.1', client: null, priceToClient: 120, typeDelivery: 'drone'},
    value: {_id: 'l1', tolerance: 0.1, priceToClient: '120', typeDelivery: 'drone'},
    absent: ['thickness', 'client'],
    notes: [
      'thickness: null read as absent',
      'tolerance: "0.1" read as number',
      'typeDelivery: "drone" is not a value the interface lists, kept as it is',
      'client: null read as absent',
      'priceToClient: 120 read as text',
    ],
  },
  {
    name: 'a legacy list as {data: [...]}',
    schema: LegacyDemandsRead,
    body: {data: [{_id: 'l1'}]},
    value: [{_id: 'l1'}],
    notes: ['(answer): the list read from data'],
  },
  {
    name: 'a post without price, materials, models or dates, with an unknown type and service',
    schema: PostRecordRead,
    body: {_id: 'p1', type: 'VIDEO', service: 'LASER_CUTTING'},
    value: {_id: 'p1', type: 'VIDEO', service: 'LASER_CUTTING'},
    notes: [
      'type: "VIDEO" is not a value the interface lists, kept as it is',
      'service: "LASER_CUTTING" is not a value the interface lists, kept as it is',
    ],
  },
  {
    name: "a post's models as one object, priceMachine as a number",
    schema: PostRecordRead,
    body: {_id: 'p1', price: {priceMachine: 12.5}, models: {price: 3, originalname: 'a.stl', files: []}},
    value: {_id: 'p1', price: {priceMachine: '12.5'}, models: [{price: 3, originalname: 'a.stl', files: []}]},
    notes: ['price.priceMachine: 12.5 read as text', 'models: one object read as a list of one'],
  },
  {
    name: 'posts without paging fields, as {data}, with page for currentPage',
    schema: PostsPageRead,
    body: {data: [{_id: 'p1'}], page: 2},
    value: {posts: [{_id: 'p1'}], currentPage: 2},
    notes: ['posts: read from data', 'currentPage: absent, read from page'],
  },
  {
    name: 'a file link without token takes it from the query of the url',
    schema: FileGrantRead,
    body: {url: 'https://files.example/f/a.stl?expires=1&signature=abc'},
    value: {url: 'https://files.example/f/a.stl?expires=1&signature=abc', token: 'expires=1&signature=abc'},
    notes: ['token: absent, taken from the query of url'],
  },
  {
    name: 'legacy file links as one object',
    schema: FileGrantsRead,
    body: {url: 'https://files.example/f/a.stl', token: null},
    value: [{url: 'https://files.example/f/a.stl', token: ''}],
    notes: ['(answer): one object read as a list of one', '[0].token: null read as absent'],
  },
  {
    name: 'an estimate without message, its price as text',
    schema: EstimationAnswerRead,
    body: {data: {price: '12.34', currency: null}},
    value: {message: '', data: {price: 12.34}},
    notes: ['message: absent, read as ""', 'data.price: "12.34" read as number', 'data.currency: null read as absent'],
  },
  {
    name: 'a legacy estimate as one object',
    schema: LegacyEstimationAnswerRead,
    body: {message: 'ok', data: {price: 3}},
    value: [{message: 'ok', data: {price: 3}}],
    notes: ['(answer): one object read as a list of one'],
  },
  {
    name: 'webhooks as a bare array, without message, useSecret or events',
    schema: WebhookAnswerRead,
    body: [{_id: 'w1', url: 'https://h.example/in', events: ['order_placed', 'order_shipped']}, {_id: 'w2'}],
    value: {
      data: [
        {_id: 'w1', events: ['order_placed', 'order_shipped'], useSecret: false},
        {_id: 'w2', events: [], useSecret: false},
      ],
    },
    notes: [
      '(answer): a bare list read as a page (data) without paging fields',
      'data[0].events[1]: "order_shipped" is not a value the interface lists, kept as it is',
      'data[0].useSecret: absent, read as false',
      'data[1].events: absent, read as []',
      'data[1].useSecret: absent, read as false',
    ],
  },
  {
    name: 'a webhook answer that is the subscription itself',
    schema: WebhookAnswerRead,
    body: {_id: 'w1', url: 'https://h.example/in', events: ['order_placed'], useSecret: 'true'},
    value: {data: [{_id: 'w1', useSecret: true}]},
    notes: ['(answer): one record read as a page of one (data)', 'data[0].useSecret: "true" read as true'],
  },
  {
    name: 'webhooks whose useSecret is 1/0 or "1"/"0" (a database flag), not left out as false',
    schema: WebhookAnswerRead,
    body: {
      message: 'ok',
      data: [
        {_id: 'w1', useSecret: 1},
        {_id: 'w2', useSecret: '1'},
        {_id: 'w3', useSecret: 0},
        {_id: 'w4', useSecret: '0'},
      ],
    },
    value: {
      data: [
        {_id: 'w1', useSecret: true},
        {_id: 'w2', useSecret: true},
        {_id: 'w3', useSecret: false},
        {_id: 'w4', useSecret: false},
      ],
    },
    notes: [
      'data[0].events: absent, read as []',
      'data[0].useSecret: 1 read as true',
      'data[1].events: absent, read as []',
      'data[1].useSecret: "1" read as true',
      'data[2].events: absent, read as []',
      'data[2].useSecret: 0 read as false',
      'data[3].events: absent, read as []',
      'data[3].useSecret: "0" read as false',
    ],
  },
]

describe('read schemas (table)', () => {
  it.each(cases)('$name', ({schema, body, value, notes, absent}) => {
    const before = JSON.stringify(body)
    const got = read(schema, body)
    expect(got.value).toMatchObject(value as object)
    expect(got.notes).toEqual(notes)
    const obj = got.value as Record<string, unknown>
    for (const key of absent ?? []) {
      const target = Array.isArray(obj.data) ? (obj.data[0] as Record<string, unknown>) : obj
      expect(Object.keys(obj).includes(key) || (target !== obj && Object.keys(target).includes(key))).toBe(false)
    }
    // The answer as received is never modified.
    expect(JSON.stringify(body)).toBe(before)
  })
})

describe('what the read still refuses', () => {
  const refused: {name: string; schema: z.ZodType; body: unknown; message: RegExp}[] = [
    {
      name: 'a demand without its id',
      schema: DemandRecordRead,
      body: {orderNumber: 3},
      message: /_id is required \(string\)/,
    },
    {
      name: 'a demand whose id is an object',
      schema: DemandRecordRead,
      body: {_id: {}},
      message: /_id must be a string/,
    },
    {
      name: 'an estimate without a price',
      schema: EstimationAnswerRead,
      body: {message: 'ok', data: {}},
      message: /data\.price is required \(number\)/,
    },
    {
      name: 'an estimate whose price is not a number',
      schema: EstimationAnswerRead,
      body: {data: {price: 'soon'}},
      message: /data\.price must be a number/,
    },
    {
      name: 'a file link without its url',
      schema: FileGrantRead,
      body: {token: 'expires=1'},
      message: /url is required \(string\)/,
    },
    {name: 'a post without its id', schema: PostRecordRead, body: {type: 'PRODUCT'}, message: /_id is required/},
    {
      name: 'a page that is an HTML error page',
      schema: DemandPageRead,
      body: '<html>502 Bad Gateway</html>',
      message: /\(body\) must be an object; received: "<html>502 Bad Gateway<\/html>"/,
    },
    {name: 'no body at all', schema: CreatedDemandsRead, body: '', message: /received: no body/},
    {
      name: 'a record left as text (JSON under another content type) is not taken for an id',
      schema: DemandRecordRead,
      body: '{"_id":"d1","orderNumber":41}',
      message: /\(body\) must be an object; received: "\{\\"_id/,
    },
  ]
  it.each(refused)('$name', ({schema, body, message}) => {
    const err = (() => {
      try {
        parseResponse(schema, body, 'GET', '/api/x', 200)
      } catch (e) {
        return e
      }
      return undefined
    })()
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).code).toBe('bad_response')
    expect((err as ApiError).message).toMatch(message)
  })

  it('shows at most about 120 characters of what arrived, secrets masked', () => {
    const body = {
      data: [
        {
          orderNumber: 1,
          paymentAuthToken: 'tok-very-secret-1234',
          note: `key pk_business_abcdef123456 and a long text ${'x'.repeat(300)}`,
        },
      ],
    }
    const err = (() => {
      try {
        parseResponse(DemandPageRead, body, 'GET', '/api/x', 200)
      } catch (e) {
        return e as ApiError
      }
      throw new Error('expected a refusal')
    })()
    const received = /received at data\.0: (.*) \(GET/.exec(err.message)?.[1] ?? ''
    expect(received.length).toBeGreaterThan(20)
    expect(received.length).toBeLessThanOrEqual(120)
    expect(err.message).not.toContain('tok-very-secret-1234')
    expect(err.message).not.toContain('pk_business_abcdef123456')
    expect(err.message).toContain('data.0._id is required (string)')
  })
})

describe('parseResponse reports leniencies to the client sink', () => {
  it('calls the sink once per answer with the notes, folded when they repeat across items', () => {
    const client = {}
    const reports: ReadReport[] = []
    onLenientRead(client, (r) => reports.push(r))
    const body = {data: Array.from({length: 5}, (_, i) => ({_id: `d${i}`, priceTotal: null, orderNumber: String(i)}))}
    const page = parseResponse(DemandPageRead, body, 'GET', '/api/public/v1/demand/b/all', 200, client)
    expect(page.data).toHaveLength(5)
    expect(reports).toHaveLength(1)
    expect(reports[0]?.notes).toHaveLength(10)
    expect(reports[0]?.lines).toEqual([
      'data[*].orderNumber: "0" read as number, and alike (×5: data[0].orderNumber, data[1].orderNumber, data[2].orderNumber, …)',
      'data[*].priceTotal: null read as absent (×5: data[0].priceTotal, data[1].priceTotal, data[2].priceTotal, …)',
    ])
    // A strict answer reports nothing.
    parseResponse(DemandRecordRead, {_id: 'x'}, 'GET', '/api/x', 200, client)
    expect(reports).toHaveLength(1)
  })

  it('a client without a sink, or no client, reads the same', () => {
    const body = {_id: 'd', priceTotal: null}
    expect(parseResponse(DemandRecordRead, body, 'GET', '/x', 200, {})).toEqual({_id: 'd'})
    expect(parseResponse(DemandRecordRead, body, 'GET', '/x')).toEqual({_id: 'd'})
  })
})

describe('the strict schemas stay strict', () => {
  it('what the reader accepts, the sandbox schemas still refuse', () => {
    const lenient = {_id: 'd', orderNumber: '41', priceTotal: null}
    expect(DemandRecord.safeParse(lenient).success).toBe(false)
    expect(read(DemandRecordRead, lenient).value).toEqual({_id: 'd', orderNumber: 41})
    expect(DemandPage.safeParse([{_id: 'd'}]).success).toBe(false)
  })
})

describe('parseIsoMs', () => {
  it.each([
    ['2025-01-03', Date.UTC(2025, 0, 3)],
    ['2025-01-03T10:00', Date.UTC(2025, 0, 3, 10)],
    ['2025-01-03T10:00:00Z', Date.UTC(2025, 0, 3, 10)],
    ['2025-01-03 10:00:00', Date.UTC(2025, 0, 3, 10)],
    ['2025-01-03T10:00:00.5Z', Date.UTC(2025, 0, 3, 10, 0, 0, 500)],
    ['2025-01-03T12:00:00+02:00', Date.UTC(2025, 0, 3, 10)],
    ['2025-01-03T05:30:00-0430', Date.UTC(2025, 0, 3, 10)],
    ['2025-01-03T12:00:00+02', Date.UTC(2025, 0, 3, 10)],
  ])('%s', (text, ms) => {
    expect(parseIsoMs(text)).toBe(ms)
  })

  it.each(['03/01/2025', '2025-02-30', '2025-01-03T25:00', 'yesterday', ''])('refuses %j', (text) => {
    expect(parseIsoMs(text)).toBeUndefined()
  })
})

describe('formatNotes', () => {
  it('keeps single notes as they are and folds repeated ones with a count', () => {
    expect(
      formatNotes([
        {path: 'a', text: 'null read as absent'},
        {path: 'x[0].b', text: 'null read as absent'},
        {path: 'x[1].b', text: 'null read as absent'},
      ]),
    ).toEqual(['a: null read as absent', 'x[*].b: null read as absent (×2: x[0].b, x[1].b)'])
  })
})
