import {performance} from 'node:perf_hooks'

import {seconds} from './response-error.js'
import type {BudgetState} from './retry.js'

/** How long a command may spend failing (failed attempts and the waits between them) unless told otherwise. */
export const DEFAULT_FAILING_BUDGET_MS = 30_000

/** Which of a command's budgets ran out: its time for failures, or its whole time (`--total-timeout`). */
export type BudgetKind = 'failing' | 'total'

export interface CommandBudgetOptions {
  /** The whole command's wall-clock limit, retries included (`--total-timeout`); it replaces the time for failures. */
  totalMs?: number
  /** The time for failures when `totalMs` is unset. Default DEFAULT_FAILING_BUDGET_MS. */
  failingMs?: number
  /** Follows the message when a budget runs out: how to allow more. */
  hint?: string
  now?: () => number
}

/**
 * The time budget of one command: made with the command's client, shared by every
 * request of the command (batches, look-ups, pages, downloads, MCP calls).
 *
 * - Failing time: every failed attempt of a request (a transient status, a network
 *   failure, a time-out) and every wait before a retry add to it, summed over the
 *   command's requests (concurrent ones too). Once it reaches its limit (30 s), nothing is
 *   retried and no new request starts: a sick service cannot keep a command retrying
 *   for minutes across many requests, while a long healthy batch or `--all` listing,
 *   which spends no time failing, is never cut.
 * - Total time, when `totalMs` is set: a wall-clock cap on the whole command, in
 *   place of the time for failures. Each attempt's time-out is cut to what is left,
 *   and no request starts after it.
 *
 * `ranOut` remembers the first budget that stopped something (a retry refused, a
 * request not started, an attempt cut short), for a command's closing note.
 */
export class CommandBudget {
  readonly failingLimitMs: number
  readonly totalMs: number | undefined
  private started: number
  private failed = 0
  private stopped: {kind: BudgetKind; ahead: boolean} | undefined
  private readonly now: () => number

  constructor(private readonly opts: CommandBudgetOptions = {}) {
    this.now = opts.now ?? (() => performance.now())
    this.started = this.now()
    this.totalMs = opts.totalMs
    // With a total limit, that limit is the only one: the user has said how long failing may go on.
    this.failingLimitMs =
      opts.totalMs === undefined ? (opts.failingMs ?? DEFAULT_FAILING_BUDGET_MS) : Number.POSITIVE_INFINITY
  }

  /**
   * Starts afresh: for a long-running command that acts on messages one by one
   * (`mcp proxy`), each message has the budget of a command of its own.
   */
  renew(): void {
    this.started = this.now()
    this.failed = 0
    this.stopped = undefined
  }

  /** Which budget stopped something in this command, if any, worded as `stoppedBy` words it. */
  ranOut(): string | undefined {
    return this.stopped === undefined ? undefined : this.wording(this.stopped.kind, this.stopped.ahead)
  }

  /** Wall-clock time left (Infinity without a total limit). */
  leftMs(): number {
    return this.totalMs === undefined ? Number.POSITIVE_INFINITY : this.totalMs - (this.now() - this.started)
  }

  /** Time for failures left (Infinity with a total limit). */
  failingLeftMs(): number {
    return this.failingLimitMs - this.failed
  }

  /** Adds a failed attempt's time, or a wait before a retry. */
  addFailing(ms: number): void {
    this.failed += Math.max(0, ms)
  }

  state(): BudgetState {
    const left = this.leftMs()
    return {
      failingMs: this.failed,
      failingLimitMs: this.failingLimitMs,
      ...(Number.isFinite(left) ? {leftMs: left} : {}),
    }
  }

  /** Which budget is spent, if any: no request starts then. */
  spent(): BudgetKind | undefined {
    if (this.leftMs() <= 0) return 'total'
    if (this.failed >= this.failingLimitMs) return 'failing'
    return undefined
  }

  /**
   * Records that `kind` stopped something (a retry refused, a request not started,
   * an attempt cut short) and words it for the error: what ran out, its value and
   * how to allow more. `ahead`: not spent yet, but too little is left for another try.
   */
  stoppedBy(kind: BudgetKind, ahead = false): string {
    this.stopped ??= {kind, ahead}
    return this.wording(kind, ahead)
  }

  private wording(kind: BudgetKind, ahead: boolean): string {
    const hint = this.opts.hint ? `; ${this.opts.hint}` : ''
    if (kind === 'total') {
      const limit = `the command's time limit of ${seconds(this.totalMs ?? 0)}`
      return `${ahead ? `too little left of ${limit} for another try` : `${limit} ran out`}${hint}`
    }
    const limit = `the command's ${seconds(this.failingLimitMs)} for failed attempts and waits`
    const spent = `${seconds(this.failed)} spent, summed over its requests`
    return `${ahead ? `another try would overrun ${limit} (${spent})` : `${limit} ran out (${spent})`}${hint}`
  }
}
