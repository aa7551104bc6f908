import {describe, expect, it} from 'vitest'

import {CommandBudget, DEFAULT_FAILING_BUDGET_MS} from '../../src/api/budget.js'

/** A budget on a clock the test moves. */
function clocked(opts: ConstructorParameters<typeof CommandBudget>[0] = {}) {
  let now = 1_000
  const budget = new CommandBudget({...opts, now: () => now})
  return {budget, tick: (ms: number) => (now += ms)}
}

describe('CommandBudget', () => {
  it('by default bounds only the time spent failing, summed over requests, not the time spent working', () => {
    const {budget, tick} = clocked({hint: 'allow more with --total-timeout SECONDS'})
    expect(budget.failingLimitMs).toBe(DEFAULT_FAILING_BUDGET_MS)
    tick(10 * 60_000) // ten minutes of healthy work
    expect(budget.spent()).toBeUndefined()
    expect(budget.leftMs()).toBe(Infinity)
    expect(budget.state()).toEqual({failingMs: 0, failingLimitMs: 30_000})
    budget.addFailing(20_000)
    budget.addFailing(9_000)
    expect(budget.failingLeftMs()).toBe(1_000)
    expect(budget.spent()).toBeUndefined()
    budget.addFailing(1_000)
    expect(budget.spent()).toBe('failing')
    expect(budget.ranOut()).toBeUndefined()
    expect(budget.stoppedBy('failing')).toBe(
      "the command's 30 s for failed attempts and waits ran out (30 s spent, summed over its requests); allow more with --total-timeout SECONDS",
    )
    // The first budget that stopped something is the one a command's closing note names.
    budget.stoppedBy('total')
    expect(budget.ranOut()).toMatch(/^the command's 30 s for failed attempts and waits ran out/)
  })

  it('with a total limit: a wall-clock cap that replaces the time for failures', () => {
    const {budget, tick} = clocked({totalMs: 5_000})
    expect(budget.failingLimitMs).toBe(Infinity)
    budget.addFailing(60_000)
    expect(budget.spent()).toBeUndefined()
    tick(4_000)
    expect(budget.state()).toEqual({failingMs: 60_000, failingLimitMs: Infinity, leftMs: 1_000})
    expect(budget.stoppedBy('total', true)).toBe("too little left of the command's time limit of 5 s for another try")
    tick(1_000)
    expect(budget.spent()).toBe('total')
    expect(budget.stoppedBy('total')).toBe("the command's time limit of 5 s ran out")
  })

  it('renew starts afresh (each message of a long-running proxy)', () => {
    const {budget, tick} = clocked({totalMs: 1_000})
    tick(2_000)
    budget.stoppedBy('total')
    expect(budget.spent()).toBe('total')
    budget.renew()
    expect(budget.spent()).toBeUndefined()
    expect(budget.ranOut()).toBeUndefined()
  })
})
