// The rules a batch follows for each chunk, as the pure functions that hold them:
// a create goes again only with proof that the earlier attempt created nothing.
import {describe, expect, it} from 'vitest'

import {
  ApiError,
  AuthenticationError,
  NetworkError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServerError,
  ValidationError,
} from '../../src/api/errors.js'
import {
  classifySendFailure,
  decideChunk,
  lookupFailure,
  matchAnswer,
  rowError,
  ServiceHealth,
  type AnsweredRecord,
  type ChunkEvent,
  type ChunkState,
  type ChunkStep,
  type SendFailure,
} from '../../src/services/demands/batch-chunk.js'
import {InputError} from '../../src/services/errors.js'

const MAX_SENDS = 4
const running = (sends: number): ChunkState => ({sends, stopped: false})
const stopping = (sends: number): ChunkState => ({sends, stopped: true})
const looked = (missing: number, proven: boolean, confirmed = false): ChunkEvent => ({
  type: 'looked-up',
  missing,
  proven,
  confirmed,
})

describe('decideChunk', () => {
  const cases: [string, ChunkState, ChunkEvent, ChunkStep][] = [
    ['created: done', running(1), {type: 'created'}, {next: 'done'}],
    ['created while stopping: done all the same', stopping(1), {type: 'created'}, {next: 'done'}],
    ['fatal: stop', running(1), {type: 'fatal'}, {next: 'stop'}],
    // Refused bodies: the service created nothing, so the rows it did not name may go again.
    ['refused, every row named: done', running(1), {type: 'refused', rest: 0}, {next: 'done'}],
    ['refused, some rows not named: send those', running(1), {type: 'refused', rest: 3}, {next: 'send'}],
    [
      'refused, out of sends',
      running(MAX_SENDS),
      {type: 'refused', rest: 3},
      {next: 'give-up', outcome: 'not-created'},
    ],
    ['refused while stopping: the rest wait for a re-run', stopping(1), {type: 'refused', rest: 3}, {next: 'stop'}],
    // Proven not processed: the client already retried it by its RetryPolicy.
    ['not sent: give up, not created', running(1), {type: 'not-sent'}, {next: 'give-up', outcome: 'not-created'}],
    ['not sent while stopping', stopping(1), {type: 'not-sent'}, {next: 'stop'}],
    // The rows may exist: never sent again before a look-up.
    ['unknown: look up', running(1), {type: 'unknown'}, {next: 'reconcile'}],
    ['unknown at the last send: still look up', running(MAX_SENDS), {type: 'unknown'}, {next: 'reconcile'}],
    ['unknown while stopping: the journal keeps it', stopping(1), {type: 'unknown'}, {next: 'stop'}],
    // A 2xx is proof the rows exist: a look-up may add their ids, nothing sends them again.
    ['confirmed, every row named: done', running(1), {type: 'confirmed', rest: 0}, {next: 'done'}],
    ['confirmed without details: look them up', running(1), {type: 'confirmed', rest: 2}, {next: 'reconcile'}],
    [
      'confirmed without details while stopping: reported as confirmed',
      stopping(1),
      {type: 'confirmed', rest: 2},
      {next: 'give-up', outcome: 'confirmed'},
    ],
    [
      'confirmed rows a proven look-up did not find: still confirmed, never sent again',
      running(1),
      looked(2, true, true),
      {next: 'give-up', outcome: 'confirmed'},
    ],
    [
      'confirmed rows an unproven look-up did not find: confirmed',
      running(1),
      looked(2, false, true),
      {next: 'give-up', outcome: 'confirmed'},
    ],
    [
      'confirmed rows whose look-up failed: confirmed',
      running(1),
      {type: 'lookup-failed', confirmed: true},
      {next: 'give-up', outcome: 'confirmed'},
    ],
    ['confirmed rows all found: done', running(1), looked(0, true, true), {next: 'done'}],
    ['look-up found every row: done', running(1), looked(0, true), {next: 'done'}],
    ['look-up found every row, unproven: done all the same', running(1), looked(0, false), {next: 'done'}],
    ['look-up proved rows missing: send them', running(1), looked(5, true), {next: 'send'}],
    [
      'look-up proved rows missing, out of sends',
      running(MAX_SENDS),
      looked(5, true),
      {next: 'give-up', outcome: 'not-created'},
    ],
    [
      'a look-up that cannot be trusted proves nothing: unknown, never resent',
      running(1),
      looked(5, false),
      {next: 'give-up', outcome: 'unknown'},
    ],
    [
      'an unproven look-up on the first send: unknown all the same',
      running(0),
      looked(1, false),
      {next: 'give-up', outcome: 'unknown'},
    ],
    [
      'look-up failed: unknown',
      running(1),
      {type: 'lookup-failed', confirmed: false},
      {next: 'give-up', outcome: 'unknown'},
    ],
    ['look-up failed while stopping', stopping(1), {type: 'lookup-failed', confirmed: false}, {next: 'stop'}],
    ['look-up while stopping, rows still missing', stopping(1), looked(5, true), {next: 'stop'}],
  ]
  it.each(cases)('%s', (_name, state, event, step) => {
    expect(decideChunk(state, event, MAX_SENDS)).toEqual(step)
  })
})

describe('classifySendFailure', () => {
  const at = {method: 'POST', path: '/api/public/v1/demand/create-quotes/b'}
  const cases: [string, unknown, SendFailure][] = [
    ['401', new AuthenticationError({...at, status: 401}), {type: 'fatal'}],
    ['403', new PermissionError({...at, status: 403}), {type: 'fatal'}],
    ['invalid input found before sending', new ValidationError({...at, clientSide: true}), {type: 'fatal'}],
    ['a journal that cannot be written', new InputError('disk full'), {type: 'fatal'}],
    ['something else entirely', new TypeError('x is undefined'), {type: 'fatal'}],
    ['429 (the client gave up waiting)', new RateLimitError({...at, status: 429}), {type: 'not-sent'}],
    ['408', new ApiError({...at, status: 408}), {type: 'not-sent'}],
    ['refused connection', new NetworkError({...at, mayHaveBeenSent: false}), {type: 'not-sent'}],
    ['reset after sending', new NetworkError({...at, mayHaveBeenSent: true}), {type: 'unknown'}],
    ['aborted', new NetworkError({...at, code: 'aborted', mayHaveBeenSent: false}), {type: 'unknown'}],
    ['500', new ServerError({...at, status: 500}), {type: 'unknown'}],
    ['503', new ServerError({...at, status: 503}), {type: 'unknown'}],
    // The service said 2xx: it processed the request, whatever its body.
    ['a 2xx answer of the wrong shape', new ApiError({...at, status: 201, code: 'bad_response'}), {type: 'confirmed'}],
    ['a 2xx answer that is not JSON', new ApiError({...at, status: 200, code: 'bad_response'}), {type: 'confirmed'}],
    ['an answer that cannot be read, no status', new ApiError({...at, code: 'bad_response'}), {type: 'unknown'}],
    // Answered before the request is handled; following it would send the key elsewhere.
    ['308 redirect', new ApiError({...at, status: 308, code: 'redirect'}), {type: 'not-sent'}],
    ['502', new ServerError({...at, status: 502}), {type: 'unknown'}],
    ['404', new NotFoundError({...at, status: 404}), {type: 'refused', rows: new Set()}],
    [
      '400 naming rows 0 and 2',
      new ValidationError({
        ...at,
        status: 400,
        details: [
          {path: '0.quantity', message: 'must be at least 1'},
          {path: '2.technique', message: 'unknown'},
          {path: '0.material', message: 'required'},
        ],
      }),
      {type: 'refused', rows: new Set([0, 2])},
    ],
    ['400 naming no row', new ValidationError({...at, status: 400}), {type: 'refused', rows: new Set()}],
  ]
  it.each(cases)('%s', (_name, error, failure) => {
    expect(classifySendFailure(error)).toEqual(failure)
  })

  it("a refused row's message is its own details, or the service's message", () => {
    const error = new ValidationError({
      ...at,
      status: 400,
      serverMessage: '2 items are invalid',
      details: [
        {path: '0.quantity', message: 'must be at least 1'},
        {path: '0', message: 'needs a technique'},
      ],
    })
    expect(rowError(error, 0)).toBe('quantity: must be at least 1; (row): needs a technique')
    expect(rowError(error, 1)).toBe('2 items are invalid')
  })
})

describe('matchAnswer: which record of a 2xx create answer is which row', () => {
  const rows = [
    {row: 1, draftId: 'd1'},
    {row: 2, draftId: 'd2'},
    {row: 3, draftId: 'd3'},
  ]
  const cases: [string, AnsweredRecord[], {ids: (string | undefined)[]; rest: number[]}][] = [
    ['one record per row, draftIds echoed', [rec('a', 'd1'), rec('b', 'd2'), rec('c', 'd3')], ids('a', 'b', 'c')],
    [
      'one record per row in another order: by draftId',
      [rec('c', 'd3'), rec('a', 'd1'), rec('b', 'd2')],
      ids('a', 'b', 'c'),
    ],
    ['ids alone, one per row: in the order sent', [rec('a'), rec('b'), rec('c')], ids('a', 'b', 'c')],
    ['no body: every row confirmed without details', [], {ids: [], rest: [0, 1, 2]}],
    ['ids alone, fewer than rows: none can be placed', [rec('a'), rec('b')], {ids: [], rest: [0, 1, 2]}],
    ['fewer records, draftIds echoed: those placed, the rest confirmed', [rec('b', 'd2')], {ids: ['b'], rest: [0, 2]}],
    [
      "a record carrying another run's draftId is never claimed",
      [rec('x', 'other'), rec('b', 'd2'), rec('c', 'd3')],
      {ids: ['b', 'c'], rest: [0]},
    ],
    [
      'more records than rows: only those carrying a draftId sent',
      [rec('a', 'd1'), rec('b', 'd2'), rec('c', 'd3'), rec('z')],
      ids('a', 'b', 'c'),
    ],
  ]
  it.each(cases)('%s', (_name, records, want) => {
    const {results, rest} = matchAnswer(rows, records)
    expect(results.map((r) => r.id)).toEqual(want.ids)
    expect(rest).toEqual(want.rest)
    for (const r of results) expect(r.draftId).toBe(rows.find((x) => x.row === r.row)!.draftId)
  })

  it('keeps orderNumber and status, and the draftId sent', () => {
    const {results} = matchAnswer([{row: 7, draftId: 'd7'}], [{_id: 'a', orderNumber: 41, status: 'Quote Sent'}])
    expect(results).toEqual([{row: 7, id: 'a', orderNumber: 41, draftId: 'd7', status: 'Quote Sent'}])
  })
})

describe('ServiceHealth', () => {
  it('is down after two chunks in a row failed because of the service, naming the failure', () => {
    const h = new ServiceHealth({failures: 2, deadMs: 30_000}, () => 0)
    h.failed('boom (POST /create-quotes → 502)')
    expect(h.down()).toBeUndefined()
    h.failed('bang (POST /create-quotes → 502)')
    expect(h.down()).toBe('bang (POST /create-quotes → 502)')
  })

  it('an answer that worked in between starts the count again', () => {
    const h = new ServiceHealth({failures: 2, deadMs: 30_000}, () => 0)
    h.failed('a')
    h.alive()
    h.failed('b')
    expect(h.down()).toBeUndefined()
  })

  it('is down once failures have gone on for deadMs without an answer that worked', () => {
    let now = 0
    const h = new ServiceHealth({failures: 5, deadMs: 30_000}, () => now)
    now = 29_999
    h.failed('slow')
    expect(h.down()).toBeUndefined()
    now = 30_000
    expect(h.down()).toBe('slow')
  })

  it('a lost answer counts for the time, not for the chunks in a row', () => {
    let now = 0
    const h = new ServiceHealth({failures: 2, deadMs: 30_000}, () => now)
    h.lost('no answer within 30 s')
    h.lost('no answer within 30 s')
    expect(h.down()).toBeUndefined()
    now = 30_000
    expect(h.down()).toBe('no answer within 30 s')
  })

  it('a lost answer whose look-up worked is forgotten', () => {
    let now = 0
    const h = new ServiceHealth({failures: 2, deadMs: 30_000}, () => now)
    h.lost('503')
    h.alive()
    now = 60_000
    expect(h.down()).toBeUndefined()
  })

  it('is never down without a failure, however long the batch', () => {
    let now = 0
    const h = new ServiceHealth({failures: 2, deadMs: 30_000}, () => now)
    now = 10 * 60_000
    expect(h.down()).toBeUndefined()
  })
})

describe('lookupFailure', () => {
  it('says what failed without the look-up path', () => {
    const at = {method: 'GET', path: '/api/public/v1/demand/b/all'}
    expect(lookupFailure(new ServerError({...at, status: 502}))).toBe('HTTP 502')
    expect(lookupFailure(new NetworkError({...at, serverMessage: 'connection refused', mayHaveBeenSent: false}))).toBe(
      'connection refused; the request was not sent',
    )
  })
})

function rec(id: string, draftId?: string): AnsweredRecord {
  return {_id: id, ...(draftId === undefined ? {} : {draftId})}
}

function ids(...list: string[]): {ids: string[]; rest: number[]} {
  return {ids: list, rest: []}
}
