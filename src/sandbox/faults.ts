import {randomInt} from 'node:crypto'

import type {FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction} from 'fastify'

import {sendError} from './errors.js'

/**
 * Fault injection for tests and benchmarks. A fraction `rate` of write requests
 * (POST, PUT, DELETE) misbehaves in one of four ways, drawn from a PRNG seeded
 * with `seed`, so a seed and an order of requests always give the same faults:
 *
 * - `reset`: the connection is reset before the request is handled; nothing is stored.
 * - `unavailable`: a 503 with the contract's error body; nothing is stored.
 * - `rate_limited`: a 429 with `Retry-After: 1`; nothing is stored.
 * - `commit_then_drop`: the request is handled and its changes committed, then the
 *   connection is closed without an answer.
 */

export const FAULT_KINDS = ['reset', 'unavailable', 'rate_limited', 'commit_then_drop'] as const
export type FaultKind = (typeof FAULT_KINDS)[number]

export interface FaultOptions {
  /** Fraction of write requests that misbehave, 0 to 1. */
  rate: number
  /** PRNG seed (an integer); random when absent, and reported in the stats. */
  seed?: number
  /** The kinds a fault is drawn from, equally likely; all four by default (quirks.ts draws one). */
  kinds?: readonly FaultKind[]
}

/**
 * Which requests draw from a plan, and what an injected 503 or 429 says caused it.
 * `--faults` draws on the write requests; the quirks (quirks.ts) on others.
 */
export interface FaultScope {
  draws(request: FastifyRequest): boolean
  cause: string
}

export interface FaultStats {
  /** Whether fault injection is on. */
  enabled: boolean
  rate: number
  /** The seed in use (null when injection is off). */
  seed: number | null
  /** Write requests seen (POST, PUT, DELETE). */
  writeRequests: number
  /** Faults injected, by kind. */
  injected: Record<FaultKind, number>
  /** Sum of `injected`. */
  total: number
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'DELETE'])

/** The scope of `--faults`: every POST, PUT and DELETE. */
export const WRITE_REQUESTS: FaultScope = {
  draws: (request) => WRITE_METHODS.has(request.method),
  cause: 'fault injected by the sandbox',
}

/** mulberry32: a small, fast, seedable PRNG with uniform output in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Checks fault options; throws a RangeError that says what is wrong. */
export function checkFaultOptions(opts: FaultOptions): void {
  if (typeof opts.rate !== 'number' || !Number.isFinite(opts.rate) || opts.rate < 0 || opts.rate > 1) {
    throw new RangeError(`The fault rate must be a number from 0 to 1; got ${String(opts.rate)}.`)
  }
  if (opts.seed !== undefined && (!Number.isSafeInteger(opts.seed) || opts.seed < 0)) {
    throw new RangeError(`The fault seed must be a non-negative integer; got ${String(opts.seed)}.`)
  }
  if (opts.kinds !== undefined && (opts.kinds.length === 0 || opts.kinds.some((k) => !FAULT_KINDS.includes(k)))) {
    throw new RangeError(`The fault kinds must be some of ${FAULT_KINDS.join(', ')}; got ${opts.kinds.join(', ')}.`)
  }
}

/**
 * The sequence of fault decisions, one per write request in arrival order. Each
 * request draws one number (fault or not) and, when it faults, one more (the kind).
 */
export class FaultPlan {
  readonly rate: number
  readonly seed: number
  private readonly kinds: readonly FaultKind[]
  private readonly random: () => number

  constructor(opts: FaultOptions) {
    checkFaultOptions(opts)
    this.rate = opts.rate
    this.seed = opts.seed ?? randomInt(0, 2 ** 32)
    this.kinds = opts.kinds ?? FAULT_KINDS
    this.random = mulberry32(this.seed)
  }

  /** The fault of the next write request, or undefined when it is served normally. */
  next(): FaultKind | undefined {
    if (this.random() >= this.rate) return undefined
    return this.kinds[Math.floor(this.random() * this.kinds.length)] as FaultKind
  }
}

/** Applies a FaultPlan to an app through hooks, and counts what it injected. */
export class FaultInjector {
  private readonly plan: FaultPlan | undefined
  private readonly decided = new WeakMap<FastifyRequest, FaultKind>()
  private writeRequests = 0
  private readonly injected: Record<FaultKind, number> = {
    reset: 0,
    unavailable: 0,
    rate_limited: 0,
    commit_then_drop: 0,
  }

  constructor(
    opts?: FaultOptions,
    private readonly scope: FaultScope = WRITE_REQUESTS,
  ) {
    this.plan = opts ? new FaultPlan(opts) : undefined
  }

  stats(): FaultStats {
    const injected = {...this.injected}
    return {
      enabled: this.plan !== undefined,
      rate: this.plan?.rate ?? 0,
      seed: this.plan?.seed ?? null,
      writeRequests: this.writeRequests,
      injected,
      total: Object.values(injected).reduce((a, b) => a + b, 0),
    }
  }

  /**
   * Adds the hooks to the root app (before the route plugins). The kind is drawn
   * when a request arrives; a reset, 503 or 429 happens once the body has been
   * read (preHandler), so the client has sent the whole request; a drop replaces
   * the answer after the handler has committed. Callback-style hooks end the
   * request at once when they answer.
   */
  register(app: FastifyInstance): void {
    const plan = this.plan
    if (!plan) return
    app.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
      if (this.scope.draws(request)) {
        this.writeRequests++
        const kind = plan.next()
        if (kind) this.decided.set(request, kind)
      }
      done()
    })
    app.addHook('preHandler', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
      const kind = this.decided.get(request)
      switch (kind) {
        case 'reset': {
          this.injected.reset++
          reply.hijack()
          const socket = request.raw.socket
          if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy()
          else socket.destroy()
          return
        }
        case 'unavailable':
          this.injected.unavailable++
          sendError(reply, 503, `The service is temporarily unavailable (${this.scope.cause}); retry later.`)
          return
        case 'rate_limited':
          this.injected.rate_limited++
          sendError(reply, 429, `Too many requests (${this.scope.cause}); retry after 1 second.`, undefined, {
            'retry-after': '1',
          })
          return
        default:
          done()
      }
    })
    app.addHook(
      'onSend',
      (request: FastifyRequest, _reply: FastifyReply, payload: unknown, done: (err: null, p?: unknown) => void) => {
        if (this.decided.get(request) === 'commit_then_drop') {
          this.injected.commit_then_drop++
          // The handler ran synchronously against SQLite, so its transaction has committed.
          // Closing the socket before fastify writes the head means no byte of the answer leaves.
          request.raw.socket.destroy()
        }
        done(null, payload)
      },
    )
  }
}
