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
  rowError,
  type ChunkEvent,
  type ChunkState,
  type ChunkStep,
  type SendFailure,
} from '../../src/services/demands/batch-chunk.js'
import {InputError} from '../../src/services/errors.js'

const MAX_SENDS = 4
const running = (sends: number): ChunkState => ({sends, stopped: false})
const stopping = (sends: number): ChunkState => ({sends, stopped: true})

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
    ['look-up found every row: done', running(1), {type: 'looked-up', missing: 0, proven: true}, {next: 'done'}],
    [
      'look-up proved rows missing: send them',
      running(1),
      {type: 'looked-up', missing: 5, proven: true},
      {next: 'send'},
    ],
    [
      'look-up proved rows missing, out of sends',
      running(MAX_SENDS),
      {type: 'looked-up', missing: 5, proven: true},
      {next: 'give-up', outcome: 'not-created'},
    ],
    [
      'a look-up that cannot be trusted proves nothing: unknown',
      running(1),
      {type: 'looked-up', missing: 5, proven: false},
      {next: 'give-up', outcome: 'unknown'},
    ],
    ['look-up failed: unknown', running(1), {type: 'lookup-failed'}, {next: 'give-up', outcome: 'unknown'}],
    ['look-up failed while stopping', stopping(1), {type: 'lookup-failed'}, {next: 'stop'}],
    [
      'look-up while stopping, rows still missing',
      stopping(1),
      {type: 'looked-up', missing: 5, proven: true},
      {next: 'stop'},
    ],
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
    ['an answer of the wrong shape', new ApiError({...at, status: 201, code: 'bad_response'}), {type: 'unknown'}],
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
