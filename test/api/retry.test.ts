import {describe, expect, it} from 'vitest'

import {
  neverSent,
  parseRetryAfter,
  RetryPolicy,
  type AttemptFailure,
  type RetryDecision,
  type RetryQuestion,
} from '../../src/api/retry.js'

/** A policy whose jitter is fixed: random() always answers `r`. */
const policy = (r = 0.5, opts: Partial<{retries: number; baseMs: number; maxWaitMs: number}> = {}) =>
  new RetryPolicy({retries: 3, baseMs: 500, maxWaitMs: 8000, random: () => r, ...opts})

const status = (code: number, retryAfterSeconds?: number): AttemptFailure => ({
  kind: 'status',
  status: code,
  ...(retryAfterSeconds === undefined ? {} : {retryAfterSeconds}),
})
const net = (code: string, sent: 'never' | 'maybe' = 'maybe'): AttemptFailure => ({
  kind: 'network',
  code,
  neverSent: sent === 'never',
})
const ask = (failure: AttemptFailure, extra: Partial<RetryQuestion> = {}): RetryQuestion => ({
  failure,
  idempotent: true,
  retries: 0,
  ...extra,
})

describe('RetryPolicy.decide', () => {
  const cases: [string, RetryQuestion, RetryDecision][] = [
    // Which statuses.
    ['503 on a GET', ask(status(503)), {retry: true, waitMs: 375}],
    ['500 on a GET', ask(status(500)), {retry: true, waitMs: 375}],
    ['429 on a GET', ask(status(429)), {retry: true, waitMs: 375}],
    ['408 on a GET', ask(status(408)), {retry: true, waitMs: 375}],
    ['501 Not Implemented never passes', ask(status(501)), {retry: false, why: 'permanent'}],
    ['400 is final', ask(status(400)), {retry: false, why: 'permanent'}],
    ['404 is final', ask(status(404)), {retry: false, why: 'permanent'}],
    ['409 is final', ask(status(409)), {retry: false, why: 'permanent'}],
    // Which network failures.
    ['connection reset on a GET', ask(net('ECONNRESET')), {retry: true, waitMs: 375}],
    ['time-out on a GET', ask(net('ETIMEDOUT')), {retry: true, waitMs: 375}],
    ['connection refused on a GET', ask(net('ECONNREFUSED', 'never')), {retry: true, waitMs: 375}],
    ['unknown host is final', ask(net('ENOTFOUND', 'never')), {retry: false, why: 'permanent'}],
    ['a body that does not decode is final', ask(net('Z_DATA_ERROR')), {retry: false, why: 'permanent'}],
    // A request that is not idempotent: only with proof that nothing was processed.
    ['503 on a POST without key', ask(status(503), {idempotent: false}), {retry: false, why: 'unsafe'}],
    ['500 on a POST without key', ask(status(500), {idempotent: false}), {retry: false, why: 'unsafe'}],
    ['429 on a POST without key', ask(status(429), {idempotent: false}), {retry: true, waitMs: 375}],
    ['408 on a POST without key', ask(status(408), {idempotent: false}), {retry: true, waitMs: 375}],
    ['reset on a POST without key', ask(net('ECONNRESET'), {idempotent: false}), {retry: false, why: 'unsafe'}],
    ['time-out on a POST without key', ask(net('ETIMEDOUT'), {idempotent: false}), {retry: false, why: 'unsafe'}],
    [
      'refused connection on a POST without key',
      ask(net('ECONNREFUSED', 'never'), {idempotent: false}),
      {retry: true, waitMs: 375},
    ],
    [
      'connect time-out on a POST without key',
      ask(net('ETIMEDOUT', 'never'), {idempotent: false}),
      {retry: true, waitMs: 375},
    ],
    // Back-off: doubling, capped; the retry count.
    ['second retry waits twice as long', ask(status(503), {retries: 1}), {retry: true, waitMs: 750}],
    ['third retry', ask(status(503), {retries: 2}), {retry: true, waitMs: 1500}],
    ['no retries left', ask(status(503), {retries: 3}), {retry: false, why: 'exhausted'}],
    // Retry-After, in seconds already read from the header.
    ['Retry-After 2 s is waited, plus jitter', ask(status(429, 2)), {retry: true, waitMs: 2050}],
    ['Retry-After 0 goes at once', ask(status(503, 0)), {retry: true, waitMs: 50}],
    ['Retry-After beyond the cap is not waited for', ask(status(429, 3600)), {retry: false, why: 'retry-after'}],
    ['Retry-After does not make a POST safe', ask(status(503, 1), {idempotent: false}), {retry: false, why: 'unsafe'}],
    // The command's budget (budget.ts): its time for failures, summed over its requests, and its wall clock.
    [
      "a wait within the command's time for failures",
      ask(status(503), {command: {failingMs: 28_000, failingLimitMs: 30_000}}),
      {retry: true, waitMs: 375},
    ],
    [
      "a wait that would overrun the command's time for failures",
      ask(status(503), {command: {failingMs: 28_700, failingLimitMs: 30_000}}),
      {retry: false, why: 'command-failing'},
    ],
    [
      "the command's time for failures already spent by other requests, on a first failure",
      ask(net('ECONNREFUSED', 'never'), {command: {failingMs: 30_000, failingLimitMs: 30_000}}),
      {retry: false, why: 'command-failing'},
    ],
    [
      "a wait within the command's time limit",
      ask(status(503), {command: {failingMs: 0, failingLimitMs: Infinity, leftMs: 1_400}}),
      {retry: true, waitMs: 375},
    ],
    [
      "a wait that leaves less than a second of the command's time limit",
      ask(status(503), {command: {failingMs: 0, failingLimitMs: Infinity, leftMs: 1_300}}),
      {retry: false, why: 'command-total'},
    ],
    [
      "the command's time limit is asked before its time for failures",
      ask(status(503), {command: {failingMs: 40_000, failingLimitMs: 30_000, leftMs: 100}}),
      {retry: false, why: 'command-total'},
    ],
    [
      "a Retry-After wait longer than the command's time left",
      ask(status(429, 2), {command: {failingMs: 0, failingLimitMs: 30_000, leftMs: 2_500}}),
      {retry: false, why: 'command-total'},
    ],
    [
      'a final failure stays final whatever the budget',
      ask(status(400), {command: {failingMs: 0, failingLimitMs: 30_000}}),
      {retry: false, why: 'permanent'},
    ],
    [
      'a POST that may have been processed stays unsafe whatever the budget',
      ask(status(500), {idempotent: false, command: {failingMs: 0, failingLimitMs: 30_000}}),
      {retry: false, why: 'unsafe'},
    ],
  ]
  it.each(cases)('%s', (_name, question, decision) => {
    expect(policy().decide(question)).toEqual(decision)
  })

  it('jitter spans half to all of the step, and the step never exceeds the cap', () => {
    expect(policy(0).decide(ask(status(503)))).toEqual({retry: true, waitMs: 250})
    expect(policy(0.999999).decide(ask(status(503)))).toEqual({retry: true, waitMs: 500})
    const capped = policy(0.999999, {retries: 20})
    expect(capped.decide(ask(status(503), {retries: 10}))).toEqual({retry: true, waitMs: 8000})
    expect(policy(0, {retries: 20}).decide(ask(status(503), {retries: 10}))).toEqual({retry: true, waitMs: 4000})
  })

  it('with no retries configured, nothing is retried', () => {
    expect(policy(0.5, {retries: 0}).decide(ask(status(503)))).toEqual({retry: false, why: 'exhausted'})
  })
})

describe('neverSent', () => {
  const cases: [string, string | undefined, boolean][] = [
    ['ECONNREFUSED', undefined, true],
    ['ENOTFOUND', undefined, true],
    ['EAI_AGAIN', undefined, true],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', undefined, true],
    ['ECONNRESET', undefined, false],
    ['EPIPE', undefined, false],
    ['ETIMEDOUT', 'connect', true],
    ['ETIMEDOUT', 'lookup', true],
    ['ETIMEDOUT', 'request', false],
    ['ETIMEDOUT', undefined, false],
  ]
  it.each(cases)('%s (phase %s): %s', (code, phase, expected) => {
    expect(neverSent(code, phase)).toBe(expected)
  })
})

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z')
  const cases: [string | string[] | undefined, number | undefined][] = [
    ['7', 7],
    [' 7 ', 7],
    ['1.2', 2],
    [['3', '9'], 3],
    ['Wed, 01 Jan 2025 00:00:05 GMT', 5],
    ['Tue, 31 Dec 2024 23:00:00 GMT', 0],
    ['soon', undefined],
    ['', undefined],
    [undefined, undefined],
  ]
  it.each(cases)('%j → %s', (value, seconds) => {
    expect(parseRetryAfter(value, now)).toBe(seconds)
  })
})
