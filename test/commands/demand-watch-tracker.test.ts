// The watch's bookkeeping on its own: which record makes which event, what a
// late or repeated copy does, and the saved state between runs.
import {appendFileSync, existsSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import type {DemandRecord} from '../../src/schemas/read/types.js'
import {emptyState, journalSeen, loadState, saveState} from '../../src/services/watch/state.js'
import {DemandTracker} from '../../src/services/watch/tracker.js'

const dir = mkdtempSync(join(tmpdir(), 'mfg-watch-state-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

const rec = (id: string, stage: string, updatedAt: string, createdAt = '2026-01-01T00:00:00.000Z') =>
  ({_id: id, demandStatusInfo: {status: stage}, updatedAt, createdAt, jobDetails: {takenAs: 'QUOTE'}}) as DemandRecord

describe('demand watch: the tracker', () => {
  it('records what is there on a first run, then reports new, moved and changed demands once each', () => {
    const t = new DemandTracker(emptyState(), {firstRun: true})
    expect(t.observe(rec('a', 'quote_sent', '2026-01-01T00:00:00.000Z'), 'poll')).toBeUndefined()
    t.caughtUp()
    expect(t.observe(rec('b', 'quote_sent', '2026-01-02T00:00:00.000Z'), 'webhook')).toMatchObject({
      event: 'created',
      id: 'b',
      via: 'webhook',
    })
    // The same record by the other path: nothing.
    expect(t.observe(rec('b', 'quote_sent', '2026-01-02T00:00:00.000Z'), 'poll')).toBeUndefined()
    expect(t.observe(rec('a', 'special_verified', '2026-01-03T00:00:00.000Z'), 'poll')).toMatchObject({
      event: 'stage',
      stage: 'special_verified',
      previousStage: 'quote_sent',
    })
    expect(t.observe(rec('a', 'special_verified', '2026-01-04T00:00:00.000Z'), 'poll')).toMatchObject({
      event: 'changed',
    })
  })

  it('ignores an older copy that arrives after a newer one, and keeps the newer', () => {
    const t = new DemandTracker(emptyState(), {firstRun: false})
    t.observe(rec('a', 'quote_sent', '2026-01-01T00:00:00.000Z'), 'poll')
    t.observe(rec('a', 'special_verified', '2026-01-03T00:00:00.000Z'), 'poll')
    expect(t.observe(rec('a', 'quote_sent', '2026-01-02T00:00:00.000Z'), 'webhook')).toBeUndefined()
    expect(t.observe(rec('a', 'special_verified', '2026-01-03T00:00:00.000Z'), 'webhook')).toBeUndefined()
  })

  it('with since, shows on a first run the demands created from then on', () => {
    const t = new DemandTracker(emptyState(), {firstRun: true, since: Date.parse('2026-02-01T00:00:00Z')})
    expect(t.observe(rec('old', 'quote_sent', '2026-01-05T00:00:00.000Z'), 'poll')).toBeUndefined()
    const fresh = rec('new', 'quote_sent', '2026-02-02T00:00:00.000Z', '2026-02-02T00:00:00.000Z')
    expect(t.observe(fresh, 'poll')).toMatchObject({event: 'created', at: '2026-02-02T00:00:00.000Z'})
  })

  it('handles a webhook event id once', () => {
    const t = new DemandTracker(emptyState(), {firstRun: false})
    expect(t.seenEvent('evt_1')).toBe(false)
    expect(t.seenEvent('evt_1')).toBe(true)
  })
})

describe('demand watch: the saved state', () => {
  it('round-trips, keeps the last 500 event ids, and names a damaged file', () => {
    const file = join(dir, 'w', 'state.json')
    expect(loadState(file)).toBeUndefined()
    const state = emptyState()
    state.demands.a = {stage: 'quote_sent', updatedAt: '2026-01-01T00:00:00.000Z'}
    state.eventIds = Array.from({length: 600}, (_, i) => `evt_${i}`)
    state.subscriptionId = 'hook1'
    saveState(file, state)
    const back = loadState(file)!
    expect(back.demands).toEqual(state.demands)
    expect(back.subscriptionId).toBe('hook1')
    expect(back.eventIds).toHaveLength(500)
    expect(back.eventIds.at(-1)).toBe('evt_599')
    writeFileSync(file, '{not json')
    expect(() => loadState(file)).toThrow(/state\.json is not JSON; delete it/)
  })

  it('reads back the demands told since the last whole write from its journal, a line cut by a crash left out', () => {
    const file = join(dir, 'j', 'state.json')
    const state = emptyState()
    state.demands.a = {stage: 'quote_sent', updatedAt: '2026-01-01T00:00:00.000Z'}
    state.demands.gone = {stage: 'quote_sent', updatedAt: '2026-01-01T00:00:00.000Z'}
    saveState(file, state)
    journalSeen(file, 'a', {stage: 'in_production', updatedAt: '2026-01-02T00:00:00.000Z'})
    journalSeen(file, 'b', {stage: 'quote_sent', updatedAt: '2026-01-03T00:00:00.000Z'})
    journalSeen(file, 'gone', undefined)
    appendFileSync(`${file}.journal`, '{"id":"c","seen":{"sta')
    const back = loadState(file)!
    expect(back.demands).toEqual({
      a: {stage: 'in_production', updatedAt: '2026-01-02T00:00:00.000Z'},
      b: {stage: 'quote_sent', updatedAt: '2026-01-03T00:00:00.000Z'},
    })
    // Written whole, the state holds it all and the journal is gone.
    saveState(file, back)
    expect(existsSync(`${file}.journal`)).toBe(false)
    expect(loadState(file)!.demands).toEqual(back.demands)
  })
})
