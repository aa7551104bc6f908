// The batch keeps the first pass's valid rows for the second (in memory, then in
// a temporary file) and marks each chunk `sent` on the disk before its request
// leaves, several chunks sharing one sync.
import {spawn} from 'node:child_process'
import {
  appendFileSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import {tmpdir} from 'node:os'
import {basename, join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {createClient} from '../../src/api/http.js'
import {memoryRowSource} from '../../src/cli/rows.js'
import type {RunningSandbox} from '../../src/sandbox/index.js'
import {
  BatchJournal,
  journalFileName,
  OTHER_INPUTS_DAYS,
  TARGET_LIST_PRUNE_LINES,
  type JournalKey,
} from '../../src/services/demands/batch-journal.js'
import {RowSpool, validateSource, type InputRow, type RowSource} from '../../src/services/demands/batch-validate.js'
import {isFailure, runBatch, type RowOutcome} from '../../src/services/demands/batch.js'
import {sandboxClient, startTestSandbox} from '../helpers/sandbox.js'

const collect = async <T>(it: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = []
  for await (const x of it) out.push(x)
  return out
}

/**
 * A journals directory and `n` live processes standing for mfg runs of other inputs
 * (a journal's lock naming one of their pids, `live`, makes its run one going on).
 */
function otherRuns(n: number) {
  const dir = mkdtempSync(join(tmpdir(), 'mfg-runs-test-'))
  const holders = Array.from({length: n}, () => spawn('sleep', ['60']))
  return {
    dir,
    holders,
    key: (input: string, target = 'http://x b'): JournalKey => ({input, shard: '1/1', target, api: 'v1'}),
    live: (path: string, i: number) => writeFileSync(`${path}.lock`, JSON.stringify({pid: holders[i]!.pid, at: 'now'})),
    dispose() {
      for (const h of holders) h.kill()
      rmSync(dir, {recursive: true, force: true})
    },
  }
}

describe('RowSpool', () => {
  it('gives the rows back in order from memory, then from its file, and removes the file', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'mfg-spool-test-'))
    try {
      // Room in memory for about three rows; the rest spill to the file.
      const spool = new RowSpool(300, tmp)
      const rows = Array.from({length: 40}, (_, i) => ({
        row: i * 2 + 1,
        item: {n: i, text: `line\nbreak ${i}`, sep: '\u2028\u2029', emoji: '😀', space: 'a b', list: [1, {x: null}]},
      }))
      for (const r of rows) spool.add(r.row, r.item)
      expect(spool.size).toBe(40)
      const [dir] = readdirSync(tmp)
      expect(dir).toMatch(/^mfg-rows-/)
      expect(statSync(join(tmp, dir!, 'rows')).mode & 0o777).toBe(0o600)
      const back = await collect(spool.read())
      expect(back.map(({row, item}) => ({row, item}))).toEqual(rows)
      // The length of each row's JSON, for the chunks' size: exact for the rows read back from the file.
      expect(back.slice(-30).map((r) => r.chars)).toEqual(rows.slice(-30).map((r) => JSON.stringify(r.item).length))
      // The first rows stayed in memory (the same objects); the others came back from the file.
      expect(back[0]!.item).toBe(rows[0]!.item)
      expect(back[39]!.item).not.toBe(rows[39]!.item)
      // A second read gives the same rows.
      expect(await collect(spool.read())).toEqual(back)
      spool.close()
      expect(readdirSync(tmp)).toEqual([])
    } finally {
      rmSync(tmp, {recursive: true, force: true})
    }
  })

  it('keeps everything in memory within its budget (no file)', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'mfg-spool-test-'))
    try {
      const spool = new RowSpool(10_000, tmp)
      spool.add(1, {a: 1})
      spool.add(3, {b: 'two'})
      expect(readdirSync(tmp)).toEqual([])
      // Each with the length of its JSON as estimated without building it (a number counts as 8).
      expect(await collect(spool.read())).toEqual([
        {row: 1, item: {a: 1}, chars: 15},
        {row: 3, item: {b: 'two'}, chars: 12},
      ])
      spool.close()
    } finally {
      rmSync(tmp, {recursive: true, force: true})
    }
  })
})

describe('validateSource over a source that reads a piece at a time', () => {
  const rows: InputRow[] = [
    {row: 1, line: 2, value: {technique: 'PCB', material: 'FR4'}},
    {row: 2, line: 3, value: {technique: 'PCB'}},
    {row: 3, line: 4, value: {quoteModel: [{fileName: 'a.stl'}], extra: 1}},
  ]
  const source = (batched: boolean): RowSource => ({
    label: 'test',
    async *read() {
      if (batched) throw new Error('read() must not be used when readBatches() is there')
      yield* rows
    },
    ...(batched
      ? {
          async *readBatches() {
            yield rows.slice(0, 2)
            yield []
            yield rows.slice(2)
          },
        }
      : {}),
    contentHash: () => 'hash',
  })

  it('reports the same rows, problems and valid rows either way', async () => {
    const valid: number[][] = [[], []]
    const reports = await Promise.all(
      [false, true].map((batched, i) =>
        validateSource(source(batched), {skipInvalid: true, onValid: (input) => valid[i]!.push(input.row)}),
      ),
    )
    expect(reports[1]).toEqual(reports[0])
    expect(reports[0]).toMatchObject({
      rows: 3,
      valid: 2,
      invalid: 1,
      unknownFields: [{field: 'extra', rows: 1, firstRows: [{row: 3, line: 4}]}],
    })
    expect(reports[0]!.problems).toEqual([
      {row: 2, line: 3, path: 'material', reason: 'a demand needs a non-empty quoteModel, or technique and material'},
    ])
    expect(valid).toEqual([
      [1, 3],
      [1, 3],
    ])
  })
})

describe('BatchJournal.appendDurable', () => {
  it('resolves every concurrent mark once it is written, and a re-open reads them all', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mfg-journal-test-'))
    try {
      const key: JournalKey = {input: 'abc', shard: '1/1', target: 'http://x b', api: 'v1'}
      const {journal} = BatchJournal.open(dir, key)
      const marks = Array.from({length: 25}, (_, c) =>
        journal.appendDurable({
          t: 'sent',
          c,
          rows: [c * 2 + 1, c * 2 + 2],
          draftIds: [`d${c}a`, `d${c}b`],
          at: 1000 + c,
        }),
      )
      await Promise.all(marks)
      journal.append({t: 'done', c: 0, results: [{row: 1, id: 'x1', draftId: 'd0a'}]})
      await journal.close()
      const lines = readFileSync(journal.path, 'utf8').trim().split('\n')
      expect(lines).toHaveLength(27)
      const again = BatchJournal.open(dir, key)
      expect(again.resumed).toBe(true)
      expect(again.rows.get(1)).toEqual({state: 'done', result: {row: 1, id: 'x1', draftId: 'd0a'}})
      // A row maybe sent keeps the draftId it went with: a re-run looks it up by that.
      expect(again.rows.get(2)).toEqual({state: 'maybe', sentAt: 1000, draftId: 'd0b'})
      expect(again.rows.get(50)).toEqual({state: 'maybe', sentAt: 1024, draftId: 'd24b'})
      expect(again.rows.size).toBe(50)
      await again.journal.close()
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })
})

describe("BatchJournal.open and the target's other inputs", () => {
  it('knows by draftId what runs of other inputs to the same target created or maybe sent, and which of them run now', async () => {
    const {dir, holders, key, dispose} = otherRuns(1)
    const holder = holders[0]!
    try {
      // Input A: d1 created, d2 maybe sent (no answer), d3 refused, d4 known not sent.
      const a = BatchJournal.open(dir, key('a')).journal
      await a.appendDurable({t: 'sent', c: 0, rows: [1, 2, 3, 4], draftIds: ['d1', 'd2', 'd3', 'd4'], at: 500})
      a.append({t: 'done', c: 0, results: [{row: 1, id: 'x1', draftId: 'd1'}]})
      a.append({t: 'failed', c: 0, failures: [{row: 3, draftId: 'd3', error: 'refused'}]})
      a.append({t: 'notsent', c: 0, rows: [4]})
      await a.close()
      // Input C, going on now (a live process holds its lock): d5 maybe sent.
      const c = BatchJournal.open(dir, key('c')).journal
      await c.appendDurable({t: 'sent', c: 0, rows: [1], draftIds: ['d5'], at: 700})
      await c.close()
      writeFileSync(`${c.path}.lock`, JSON.stringify({pid: holder.pid, at: 'now'}))
      // Another target: never read.
      const other = BatchJournal.open(dir, key('z', 'http://y b')).journal
      other.append({t: 'done', c: 0, results: [{row: 1, id: 'y1', draftId: 'd9'}]})
      await other.close()

      const b = BatchJournal.open(dir, key('b'))
      const from = {at: expect.any(String)}
      expect(Object.fromEntries(b.byDraftId)).toEqual({
        d1: {state: 'done', result: {row: 1, id: 'x1', draftId: 'd1'}, from},
        d2: {state: 'maybe', sentAt: 500, from},
        d5: {state: 'maybe', sentAt: 700, pid: holder.pid, journal: basename(c.path), from},
      })
      await b.journal.close()
      // --fresh reads none of it.
      const fresh = BatchJournal.open(dir, key('b'), {fresh: true})
      expect(fresh.byDraftId.size).toBe(0)
      await fresh.journal.close()
      // A journal older than OTHER_INPUTS_DAYS is left out.
      const old = (Date.now() - (OTHER_INPUTS_DAYS + 1) * 24 * 3600 * 1000) / 1000
      utimesSync(a.path, old, old)
      const later = BatchJournal.open(dir, key('b'))
      expect([...later.byDraftId.keys()]).toEqual(['d5'])
      await later.journal.close()
      // Within a byte budget, the newest journals only (here: room for C's alone).
      utimesSync(a.path, new Date(), new Date(Date.now() - 60_000))
      const budget = statSync(c.path).size + 1
      const within = BatchJournal.open(dir, key('b'), {otherInputsBytes: budget})
      expect([...within.byDraftId.keys()].sort()).toEqual(['d5'])
      await within.journal.close()
      const roomy = BatchJournal.open(dir, key('b'))
      expect([...roomy.byDraftId.keys()].sort()).toEqual(['d1', 'd2', 'd5'])
      await roomy.journal.close()
    } finally {
      dispose()
    }
  })
})

describe('BatchJournal.markSent and the runs of other inputs going on at the same time', () => {
  it("leaves out the rows another input's run has marked or created since this run began, in either order of start", async () => {
    // Each journal's lock names a live process other than this one, as two mfg processes would.
    const {dir, holders, live, key, dispose} = otherRuns(2)
    try {
      const a = BatchJournal.open(dir, key('a'))
      live(a.journal.path, 0)
      // B starts after A: A learns of it at its next mark, through the target's list.
      const b = BatchJournal.open(dir, key('b'))
      live(b.journal.path, 1)
      const rows = (...pairs: [number, string][]) => pairs.map(([row, draftId]) => ({row, draftId}))

      expect(await a.journal.markSent(0, rows([1, 'x'], [2, 'y']), 100)).toEqual(new Map())
      a.journal.append({t: 'done', c: 0, results: [{row: 1, id: 'id-x', draftId: 'x'}]})
      // B claims y (A marked it) and x (A created it); z is B's.
      const takenByA = await b.journal.markSent(0, rows([5, 'y'], [6, 'z'], [7, 'x']), 200)
      expect(Object.fromEntries(takenByA)).toEqual({
        5: {
          state: 'maybe',
          sentAt: 100,
          pid: holders[0]!.pid,
          journal: basename(a.journal.path),
          from: {at: expect.any(String)},
        },
        7: {
          state: 'done',
          result: {row: 1, id: 'id-x', draftId: 'x'},
          pid: holders[0]!.pid,
          journal: basename(a.journal.path),
          from: {at: expect.any(String)},
        },
      })
      // A started first, yet sees what B marked since: z is B's.
      const takenByB = await a.journal.markSent(1, rows([3, 'z'], [4, 'w']), 300)
      expect([...takenByB.keys()]).toEqual([3])
      expect(takenByB.get(3)).toMatchObject({state: 'maybe', sentAt: 200, pid: holders[1]!.pid})
      // What each journal marked: only the rows it claimed.
      const marked = (path: string) =>
        readFileSync(path, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as {t: string; draftIds?: string[]})
          .filter((e) => e.t === 'sent')
          .flatMap((e) => e.draftIds)
      expect(marked(a.journal.path)).toEqual(['x', 'y', 'w'])
      expect(marked(b.journal.path)).toEqual(['z'])
      // A row B gave up (known not sent) may be claimed again.
      b.journal.append({t: 'notsent', c: 0, rows: [6]})
      expect(await a.journal.markSent(2, rows([8, 'z']), 400)).toEqual(new Map())
      await a.journal.close()
      await b.journal.close()
    } finally {
      dispose()
    }
  })
})

describe('BatchJournal.standing: rows left to a run of another input', () => {
  it('are going while that run goes on, unless created there; once it has ended, maybe sent there or free', async () => {
    const {dir, holders, live, key, dispose} = otherRuns(1)
    const holder = holders[0]!
    try {
      const a = BatchJournal.open(dir, key('a'))
      live(a.journal.path, 0)
      const b = BatchJournal.open(dir, key('b'))
      await a.journal.markSent(
        0,
        [1, 2, 3].map((row) => ({row, draftId: `d${row}`})),
        100,
      )
      const journal = basename(a.journal.path)
      const rows = [1, 2, 3].map((row) => ({row: row + 10, draftId: `d${row}`, journal}))
      const look = () => Object.fromEntries(b.journal.standing(rows).verdicts)
      expect(b.journal.standing(rows)).toEqual({verdicts: new Map(rows.map((r) => [r.row, 'going'])), grew: true})
      expect(b.journal.standing(rows).grew).toBe(false)
      // d1 created there, d2 given up there (not sent): d1 answered at once, d2 still that run's while it goes on.
      a.journal.append({t: 'done', c: 0, results: [{row: 1, id: 'id-1', draftId: 'd1'}]})
      a.journal.append({t: 'notsent', c: 0, rows: [2]})
      expect(look()).toEqual({
        11: expect.objectContaining({state: 'done', result: {row: 1, id: 'id-1', draftId: 'd1'}}),
        12: 'going',
        13: 'going',
      })
      // That run over: d2 is free, d3 maybe sent there (to be looked up).
      holder.kill()
      await new Promise((resolve) => holder.once('exit', resolve))
      expect(look()).toEqual({
        11: expect.objectContaining({state: 'done', from: {at: expect.any(String)}}),
        12: 'free',
        13: {state: 'maybe', sentAt: 100, from: {at: expect.any(String)}},
      })
      await a.journal.close()
      await b.journal.close()
    } finally {
      dispose()
    }
  })
  it("counts as growth only what the runs waited for record, not another run's work (--wait-others' clock)", async () => {
    const {dir, live, key, dispose} = otherRuns(2)
    try {
      const a = BatchJournal.open(dir, key('a'))
      live(a.journal.path, 0)
      const c = BatchJournal.open(dir, key('c'))
      live(c.journal.path, 1)
      const b = BatchJournal.open(dir, key('b'))
      await a.journal.markSent(0, [{row: 1, draftId: 'd1'}], 100)
      const rows = [{row: 11, draftId: 'd1', journal: basename(a.journal.path)}]
      expect(b.journal.standing(rows).grew).toBe(true)
      // C, a run that holds none of the rows waited for, goes on recording its own chunks.
      await c.journal.markSent(0, [{row: 5, draftId: 'd5'}], 200)
      c.journal.append({t: 'done', c: 0, results: [{row: 5, id: 'id-5', draftId: 'd5'}]})
      expect(b.journal.standing(rows)).toEqual({verdicts: new Map([[11, 'going']]), grew: false})
      // A records something: the wait's clock starts again.
      a.journal.append({t: 'notsent', c: 0, rows: []})
      expect(b.journal.standing(rows).grew).toBe(true)
      for (const j of [a, b, c]) await j.journal.close()
    } finally {
      dispose()
    }
  })
  it('a row handed back by a run that ended with it maybe sent is no longer claimed by that run: looked up, it may be sent', async () => {
    const {dir, holders, live, key, dispose} = otherRuns(1)
    const holder = holders[0]!
    try {
      const a = BatchJournal.open(dir, key('a'))
      live(a.journal.path, 0)
      const b = BatchJournal.open(dir, key('b'))
      // A marks d1 after B began, then ends (killed) without an outcome for it.
      await a.journal.markSent(0, [{row: 1, draftId: 'd1'}], 100)
      const mine = [{row: 11, draftId: 'd1'}]
      expect([...(await b.journal.markSent(0, mine, 200)).keys()]).toEqual([11])
      holder.kill()
      await new Promise((resolve) => holder.once('exit', resolve))
      const journal = basename(a.journal.path)
      expect(b.journal.standing([{...mine[0]!, journal}]).verdicts.get(11)).toEqual({
        state: 'maybe',
        sentAt: 100,
        from: {at: expect.any(String)},
      })
      // B looked it up and found nothing: its mark now claims it, and nothing holds it back.
      expect(await b.journal.markSent(1, mine, 300)).toEqual(new Map())
      // A run of A's input taking its journal up again and marking d1 claims it anew.
      await a.journal.close()
      const again = BatchJournal.open(dir, key('a')).journal
      writeFileSync(`${again.path}.lock`, JSON.stringify({pid: process.ppid, at: 'now'}))
      again.append({t: 'sent', c: 1, rows: [1], draftIds: ['d1'], at: 400})
      expect([...(await b.journal.markSent(2, mine, 500)).keys()]).toEqual([11])
      await again.close()
      await b.journal.close()
    } finally {
      dispose()
    }
  })
})

describe("the target's list of journals", () => {
  it('a run started while this one waited for the lock is read from its first line: what it claimed meanwhile holds', async () => {
    const {dir, holders, key, dispose} = otherRuns(2)
    try {
      await BatchJournal.open(dir, key('first')).journal.close()
      const list = join(
        dir,
        readdirSync(dir).find((n) => n.endsWith('.target'))!,
      )
      // The claims' lock held by another process: B reads the list, takes its journal, and waits.
      writeFileSync(`${list}.lock`, JSON.stringify({pid: holders[0]!.pid, token: 'held'}))
      // Meanwhile C (another process) is listed and marks d1 sent, then lets the lock go.
      const c = join(dir, journalFileName(key('c')))
      const lines = [
        {t: 'start', v: 1, key: key('c'), at: new Date().toISOString()},
        {t: 'sent', c: 0, rows: [1], draftIds: ['d1'], at: 100},
      ]
      const script = `
        const fs = require('node:fs')
        const [bLock, c, list, text, pid] = process.argv.slice(1)
        while (!fs.existsSync(bLock)) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5)
        fs.writeFileSync(c, text)
        fs.writeFileSync(c + '.lock', JSON.stringify({pid: Number(pid), at: 'now'}))
        fs.appendFileSync(list, require('node:path').basename(c) + '\\n')
        fs.rmSync(list + '.lock')
      `
      const bLock = join(dir, `${journalFileName(key('b'))}.lock`)
      const text = lines.map((l) => `${JSON.stringify(l)}\n`).join('')
      const child = spawn(process.execPath, ['-e', script, bLock, c, list, text, String(holders[1]!.pid)])
      const b = BatchJournal.open(dir, key('b'))
      await new Promise((resolve) => child.once('exit', resolve))
      expect(readdirSync(dir)).not.toContain(`${basename(list)}.lock`)
      // B leaves d1 to C (its plan waits for it), and marks it only once C has given it up.
      expect(b.byDraftId.get('d1')).toMatchObject({state: 'maybe', pid: holders[1]!.pid, journal: basename(c)})
      appendFileSync(c, `${JSON.stringify({t: 'notsent', c: 0, rows: [1]})}\n`)
      expect(await b.journal.markSent(0, [{row: 5, draftId: 'd1'}], 200)).toEqual(new Map())
      await b.journal.close()
    } finally {
      dispose()
    }
  })

  it('stays short however many runs add to it, and a run going on still learns of a run started after a rewrite', async () => {
    const {dir, holders, live, key, dispose} = otherRuns(2)
    try {
      const list = () => {
        const name = readdirSync(dir).find((n) => n.endsWith('.target'))!
        return readFileSync(join(dir, name), 'utf8').split('\n').filter(Boolean)
      }
      const a = BatchJournal.open(dir, key('a'))
      live(a.journal.path, 0)
      const rows = (...pairs: [number, string][]) => pairs.map(([row, draftId]) => ({row, draftId}))
      expect(await a.journal.markSent(0, rows([1, 'x']), 100)).toEqual(new Map())
      // A journal since removed, and one not written to for longer than the journals are read.
      const gone = BatchJournal.open(dir, key('gone'))
      await gone.journal.close({remove: true})
      const old = BatchJournal.open(dir, key('old'))
      await old.journal.close()
      const longAgo = new Date(Date.now() - (OTHER_INPUTS_DAYS + 1) * 24 * 3600 * 1000)
      utimesSync(old.journal.path, longAgo, longAgo)
      // Runs of one input taken up again and again: a line each.
      let longest = 0
      for (let i = 0; i < TARGET_LIST_PRUNE_LINES + 40; i++) {
        const b = BatchJournal.open(dir, key('b'))
        await b.journal.close()
        longest = Math.max(longest, list().length)
      }
      expect(longest).toBe(TARGET_LIST_PRUNE_LINES)
      const names = list()
      expect(names.length).toBeLessThan(50)
      expect(names).toContain(basename(a.journal.path))
      expect(names).not.toContain(basename(gone.journal.path))
      expect(names).not.toContain(basename(old.journal.path))
      // A run started after the rewrite claims y; A, which read the list before it, sees that claim.
      const d = BatchJournal.open(dir, key('d'))
      live(d.journal.path, 1)
      expect(await d.journal.markSent(0, rows([9, 'y']), 200)).toEqual(new Map())
      const taken = await a.journal.markSent(1, rows([2, 'y'], [3, 'z']), 300)
      expect([...taken.keys()]).toEqual([2])
      expect(taken.get(2)).toMatchObject({state: 'maybe', sentAt: 200, pid: holders[1]!.pid})
      await a.journal.close()
      await d.journal.close()
    } finally {
      dispose()
    }
  })
})

describe('runBatch with rows spilled to the temporary file', () => {
  let sandbox: RunningSandbox
  beforeAll(async () => {
    sandbox = await startTestSandbox()
  })
  afterAll(async () => {
    await sandbox.close()
  })

  it('creates every row exactly once, in chunks, with results for every row', async () => {
    const business = sandbox.businesses[0]!
    const client = createClient({baseUrl: sandbox.url, apiKey: business.apiKey})
    const journalDir = mkdtempSync(join(tmpdir(), 'mfg-journal-test-'))
    const tag = `spill-${Date.now()}`
    const values = Array.from({length: 230}, (_, i) => ({
      technique: 'CNC_MACHINING',
      material: 'Aluminium 6061',
      quantity: (i % 4) + 1,
      email: `${tag}-${i}@example.com`,
      unknownField: 'left out',
    }))
    const outcomes: RowOutcome[] = []
    try {
      const summary = await runBatch({client, businessId: business.id}, memoryRowSource(values, 'test', tag), {
        concurrency: 3,
        chunkSize: 40,
        // A few rows fit in memory; the others go through the file.
        spoolBudget: 2_000,
        journal: {dir: journalDir},
        onResult: (o) => outcomes.push(o),
      })
      expect(summary).toMatchObject({created: 230, failed: 0, pending: 0, requests: 6, interrupted: false})
    } finally {
      client.close?.()
      rmSync(journalDir, {recursive: true, force: true})
    }
    expect(outcomes.filter(isFailure)).toEqual([])
    expect(outcomes.map((o) => o.row).sort((a, b) => a - b)).toEqual(values.map((_, i) => i + 1))
    expect(new Set(outcomes.map((o) => o.draftId)).size).toBe(230)

    const api = sandboxClient(sandbox)
    const emails: string[] = []
    for (let page = 1; ; page++) {
      const r = await api.get(`/api/public/v1/demand/${business.id}/all?pageSize=100&page=${page}`)
      expect(r.status).toBe(200)
      for (const d of r.body.data as {email?: string; unknownField?: unknown}[]) {
        if (d.email?.startsWith(tag)) {
          emails.push(d.email)
          expect(d.unknownField).toBeUndefined()
        }
      }
      if (page >= r.body.totalPages) break
    }
    expect(emails.sort()).toEqual(values.map((v) => v.email).sort())
  })
})
