/* eslint-disable @typescript-eslint/no-explicit-any -- records are arbitrary JSON that tests inspect freely */
import {spawn} from 'node:child_process'
import {appendFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import type {RunningSandbox, SandboxOptions} from '../../src/sandbox/index.js'
import {ContentDraftIds} from '../../src/services/demands/batch-ids.js'
import {BatchJournal, type JournalKey} from '../../src/services/demands/batch-journal.js'
import {cliEnv, json, runBuiltCli, runCli, type CliResult} from '../helpers/cli.js'
import {sandboxClient, startTestSandbox} from '../helpers/sandbox.js'

interface Outcome {
  row: number
  id?: string
  orderNumber?: number
  draftId: string
  status?: string
  error?: string
}

const quotes = (n: number, tag: string) =>
  Array.from({length: n}, (_, i) => ({
    technique: '3D_PRINTING',
    material: 'PLA',
    quantity: (i % 5) + 1,
    email: `${tag}-${i}@example.com`,
  }))
const ndjson = (rows: object[]) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`
const lines = (r: CliResult): Outcome[] =>
  r.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Outcome)

/** Every demand of the business whose draftId is in `draftIds` (all pages, archived or not). */
async function demandsWith(sandbox: RunningSandbox, draftIds: Set<string>): Promise<any[]> {
  const client = sandboxClient(sandbox)
  const id = sandbox.businesses[0]!.id
  const found: any[] = []
  for (const archived of ['false', 'true']) {
    for (let page = 1; ; page++) {
      const r = await client.get(`/api/public/v1/demand/${id}/all?pageSize=100&page=${page}&archived=${archived}`)
      expect(r.status).toBe(200)
      for (const d of r.body.data) if (draftIds.has(d.draftId)) found.push(d)
      if (page >= r.body.totalPages) break
    }
  }
  return found
}

interface Harness {
  sandbox: RunningSandbox
  home: string
  run(argv: string[], stdin?: string): Promise<CliResult>
  file(name: string, content: string): string
  close(): Promise<void>
}

async function harness(opts: SandboxOptions = {}): Promise<Harness> {
  const sandbox = await startTestSandbox(opts)
  const home = mkdtempSync(join(tmpdir(), 'mfg-batch-'))
  const env = cliEnv(sandbox, home)
  return {
    sandbox,
    home,
    run: (argv, stdin) => runCli(argv, {env, ...(stdin === undefined ? {} : {stdin})}),
    file(name, content) {
      const path = join(home, name)
      writeFileSync(path, content)
      return path
    },
    async close() {
      await sandbox.close()
      rmSync(home, {recursive: true, force: true})
    },
  }
}

describe('demand create under faults, against a server without replay', () => {
  let h: Harness
  afterEach(async () => h.close())

  it('ends with exactly N demands and N distinct draftIds (faults 0.15, replay off, concurrency 4)', async () => {
    h = await harness({faults: {rate: 0.15, seed: 20240601}, replay: false})
    const n = 320
    const path = h.file('faulty.ndjson', ndjson(quotes(n, 'faulty')))
    const r = await h.run(['demand', 'create', '--file', path, '--concurrency', '4'])
    expect(r.exitCode, r.stderr).toBe(0)
    const out = lines(r)
    expect(out.map((o) => o.row).sort((a, b) => a - b)).toEqual(Array.from({length: n}, (_, i) => i + 1))
    expect(out.every((o) => o.id && !o.error)).toBe(true)
    const stats = h.sandbox.faultStats()
    expect(stats.total).toBeGreaterThan(0)
    const stored = await demandsWith(h.sandbox, new Set(out.map((o) => o.draftId)))
    expect(stored).toHaveLength(n)
    expect(new Set(stored.map((d) => d.draftId)).size).toBe(n)
    expect(new Set(stored.map((d) => d._id))).toEqual(new Set(out.map((o) => o.id)))
  })

  it('a run of the whole file after one of its shards sends only the other rows; a shard running now makes it wait', async () => {
    h = await harness({replay: false})
    const n = 10
    const path = h.file('sliced.ndjson', ndjson(quotes(n, 'sliced')))
    const first = await h.run(['demand', 'create', '--file', path, '--shard', '1/2', '--json'])
    expect(json<any>(first)).toMatchObject({created: 5})
    // The shard's journal as if its run were going on now, held by a live process.
    const dir = join(h.home, 'journals')
    const journal = readdirSync(dir).find((f) => f.endsWith('.ndjson'))!
    const holder = spawn('sleep', ['60'])
    writeFileSync(join(dir, `${journal}.lock`), JSON.stringify({pid: holder.pid, at: 'now'}))
    const busy = await h.run(['demand', 'create', '--file', path])
    holder.kill()
    expect(busy.exitCode, busy.stderr).toBe(1)
    expect(busy.stderr).toContain(`another run of the same input (shard 1/2) is in progress (pid ${holder.pid}`)
    rmSync(join(dir, `${journal}.lock`))
    const whole = await h.run(['demand', 'create', '--file', path, '--json'])
    expect(whole.exitCode, whole.stderr).toBe(0)
    expect(json<any>(whole)).toMatchObject({created: 5, resumed: 5})
    const draftIds = new Set(json<{results: Outcome[]}>(whole).results.map((o) => o.draftId))
    const stored = await demandsWith(h.sandbox, draftIds)
    expect(stored).toHaveLength(n)
    // And a shard after the whole file: everything is already there.
    const again = await h.run(['demand', 'create', '--file', path, '--shard', '2/2', '--json'])
    expect(json<any>(again)).toMatchObject({created: 0, resumed: 5})
    expect(await demandsWith(h.sandbox, draftIds)).toHaveLength(n)
  })

  it('an edited file sends only its new and fixed rows: draftIds come from the rows, not the file', async () => {
    h = await harness({replay: false})
    const header = 'technique,material,quantity,email,currency'
    const row = (tag: string, currency = 'EUR') => `3D_PRINTING,PLA,2,${tag}@example.com,${currency}`
    // Row 2 is invalid (no such currency); rows 3 and 4 are the same demand twice, on purpose.
    const first = [header, row('a'), row('b', 'EURO'), row('twin'), row('twin'), row('c')]
    const path = h.file('edited.csv', `${first.join('\n')}\n`)
    const run = async () => {
      const r = await h.run(['demand', 'create', '--file', path, '--skip-invalid', '--json'])
      return {r, out: json<any>(r)}
    }
    const one = await run()
    expect(one.out, one.r.stderr).toMatchObject({created: 4, resumed: 0, validation: {invalid: 1}})
    const draftIds = new Set<string>(one.out.results.map((o: Outcome) => o.draftId))
    // Fixed in place, a row added at the top and one at the end, saved with CRLF line endings.
    const second = [header, row('new-top'), row('a'), row('b'), row('twin'), row('twin'), row('c'), row('new-end')]
    writeFileSync(path, `${second.join('\r\n')}\r\n`)
    const two = await run()
    expect(two.r.exitCode, two.r.stderr).toBe(0)
    expect(two.out).toMatchObject({created: 3, resumed: 4, resumedElsewhere: 4, failed: 0})
    expect(two.out.earlierInputs).toEqual([{source: path, at: expect.any(String)}])
    const byRow = new Map<number, Outcome>(two.out.results.map((o: Outcome) => [o.row, o]))
    // The rows the first run made keep their ids under their new row numbers.
    const firstIds = new Map<string, string>(one.out.results.map((o: Outcome) => [o.draftId, o.id!]))
    for (const r of [2, 4, 5, 6]) expect(firstIds.get(byRow.get(r)!.draftId)).toBe(byRow.get(r)!.id)
    for (const o of two.out.results as Outcome[]) draftIds.add(o.draftId)
    expect(draftIds.size).toBe(7)
    expect(await demandsWith(h.sandbox, draftIds)).toHaveLength(7)
    // One twin taken out: nothing to send, and still no duplicate.
    writeFileSync(path, `${second.filter((_, i) => i !== 5).join('\n')}\n`)
    const three = await run()
    expect(three.out).toMatchObject({created: 0, resumed: 6})
    expect(await demandsWith(h.sandbox, draftIds)).toHaveLength(7)
    // The same rows in another file are the same demands, and the summary says so and how to make new ones.
    const copy = h.file('copy.csv', `${second.join('\n')}\n`)
    const again = await h.run(['demand', 'create', '--file', copy])
    expect(again.exitCode, again.stderr).toBe(0)
    expect(again.stderr).toContain('Created 0 of 7 demand(s); 7 already created by an earlier run')
    expect(again.stderr).toMatch(
      /7 row\(s\) have the content of rows that a run of another input created \(.*edited\.csv at \d{4}-\d\d-\d\d \d\d:\d\d UTC/,
    )
    expect(again.stderr).toContain('give each a draftId of its own (a draftId column)')
    expect(await demandsWith(h.sandbox, draftIds)).toHaveLength(7)
    // --fresh forgets: the rows are sent again (a service without replay makes new demands).
    const fresh = await h.run(['demand', 'create', '--file', path, '--fresh', '--json'])
    expect(json<any>(fresh)).toMatchObject({created: 6, resumed: 0})
  })

  it("a row another file's run is sending now is left to it: waited for, answered with what that run made, or sent once it has ended without it", async () => {
    h = await harness({replay: false})
    const mine = {technique: '3D_PRINTING', material: 'PLA', email: 'shared@example.com'}
    const later = {technique: '3D_PRINTING', material: 'PLA', email: 'later@example.com'}
    const own = {technique: '3D_PRINTING', material: 'PETG', email: 'own@example.com'}
    const warm = await h.run(['demand', 'create', '--file', h.file('warm.ndjson', ndjson([own])), '--json'])
    expect(warm.exitCode, warm.stderr).toBe(0)
    // Another input's run to the same target, going on now, has marked `mine` and `later` as sent.
    const dir = join(h.home, 'journals')
    const started = readFileSync(
      join(
        dir,
        readdirSync(dir).find((f) => f.endsWith('.ndjson'))!,
      ),
      'utf8',
    )
    const {key} = JSON.parse(started.split('\n')[0]!) as {key: JournalKey}
    const other = BatchJournal.open(dir, {...key, input: 'another-file'}).journal
    const draftIds = new ContentDraftIds()
    const [draftId, laterId] = [draftIds.next(mine), draftIds.next(later)]
    await other.appendDurable({t: 'sent', c: 0, rows: [7, 8], draftIds: [draftId, laterId], at: Date.now()})
    await other.close()
    const holder = spawn('sleep', ['60'])
    writeFileSync(`${other.path}.lock`, JSON.stringify({pid: holder.pid, at: 'now'}))
    const file = h.file('mine.ndjson', ndjson([own, mine]))
    try {
      // Not waited for (--wait-others 0): left to it, reported not sent, naming its process.
      const r = await h.run(['demand', 'create', '--file', file, '--json', '--wait-others', '0'])
      expect(r.exitCode).toBe(1)
      const out = json<any>(r)
      expect(out).toMatchObject({created: 0, resumed: 1, failed: 1})
      expect(out.results[1]).toMatchObject({row: 2, draftId})
      expect(out.results[1].error).toContain(`another run (pid ${holder.pid}, of another input to the same service)`)
      expect(await demandsWith(h.sandbox, new Set([draftId]))).toHaveLength(0)

      // Waited for: that run creates the demand while this one waits, and this one answers with it.
      const made = await sandboxClient(h.sandbox).post(
        `/api/public/v1/demand/create-quotes/${h.sandbox.businesses[0]!.id}`,
        [{...mine, draftId}],
      )
      expect(made.status).toBe(201)
      const id = (made.body as any[])[0]._id as string
      const settle = setTimeout(() => {
        appendFileSync(other.path, `${JSON.stringify({t: 'done', c: 0, results: [{row: 7, id, draftId}]})}\n`)
      }, 500)
      const waited = await h.run(['demand', 'create', '--file', file])
      clearTimeout(settle)
      expect(waited.exitCode, waited.stderr).toBe(0)
      expect(lines(waited)[1]).toMatchObject({row: 2, id, draftId})
      expect(waited.stderr).toContain(`Waiting for another run (pid ${holder.pid}) of another input to settle 1 row(s)`)
      expect(waited.stderr).toContain('Created 0 of 2 demand(s)')
      expect(await demandsWith(h.sandbox, new Set([draftId]))).toHaveLength(1)

      // That run ends without creating `later`: looked up (not there), then sent, once.
      const end = setTimeout(() => holder.kill(), 500)
      const after = await h.run(['demand', 'create', '--file', h.file('later.ndjson', ndjson([later])), '--json'])
      clearTimeout(end)
      expect(after.exitCode, after.stderr).toBe(0)
      expect(json<any>(after)).toMatchObject({created: 1, failed: 0, lookups: expect.any(Number)})
      expect(json<any>(after).lookups).toBeGreaterThan(0)
      expect(await demandsWith(h.sandbox, new Set([laterId]))).toHaveLength(1)
    } finally {
      holder.kill()
    }
  })

  it("a run waiting for another file's run sends its own rows meanwhile, and sends once a row that run ended without", async () => {
    h = await harness({replay: false})
    const shared = {technique: '3D_PRINTING', material: 'PLA', email: 'waited-for@example.com'}
    const own = {technique: '3D_PRINTING', material: 'PETG', email: 'own-meanwhile@example.com'}
    const warm = await h.run(['demand', 'create', '--file', h.file('warm.ndjson', ndjson([{...own, quantity: 2}]))])
    expect(warm.exitCode, warm.stderr).toBe(0)
    // Another input's run to the same target, going on now, has marked `shared` as sent.
    const dir = join(h.home, 'journals')
    const first = readdirSync(dir).find((f) => f.endsWith('.ndjson'))!
    const {key} = JSON.parse(readFileSync(join(dir, first), 'utf8').split('\n')[0]!) as {key: JournalKey}
    const other = BatchJournal.open(dir, {...key, input: 'another-file'}).journal
    const draftId = new ContentDraftIds().next(shared)
    await other.appendDurable({t: 'sent', c: 0, rows: [3], draftIds: [draftId], at: Date.now()})
    await other.close()
    const holder = spawn('sleep', ['60'])
    writeFileSync(`${other.path}.lock`, JSON.stringify({pid: holder.pid, at: 'now'}))
    try {
      let over = false
      const running = h
        .run([
          'demand',
          'create',
          '--file',
          h.file('both.ndjson', ndjson([own, shared])),
          '--json',
          '--wait-others',
          '20',
        ])
        .finally(() => (over = true))
      // While it waits, its own row is created.
      const ownId = new ContentDraftIds().next(own)
      while (!over && (await demandsWith(h.sandbox, new Set([ownId]))).length === 0)
        await new Promise((resolve) => setTimeout(resolve, 100))
      expect(over).toBe(false)
      // That run sends `shared` again, then ends (killed) without its outcome.
      appendFileSync(
        other.path,
        [
          {t: 'notsent', c: 0, rows: [3]},
          {t: 'sent', c: 1, rows: [3], draftIds: [draftId], at: Date.now()},
        ]
          .map((e) => `${JSON.stringify(e)}\n`)
          .join(''),
      )
      holder.kill()
      const r = await running
      expect(r.exitCode, r.stderr).toBe(0)
      const out = json<any>(r)
      expect(out).toMatchObject({created: 2, failed: 0, pending: 0})
      expect(out.results.map((o: Outcome) => o.draftId)).toEqual([ownId, draftId])
      const stored = await demandsWith(h.sandbox, new Set([ownId, draftId]))
      expect(stored.map((d) => d.draftId).sort()).toEqual([ownId, draftId].sort())
      expect(new Set(stored.map((d) => d._id))).toEqual(new Set(out.results.map((o: Outcome) => o.id)))
    } finally {
      holder.kill()
    }
  }, 60_000)

  it('two files sharing rows, sent at the same moment: each shared row is created once, by one run or the other', async () => {
    h = await harness({replay: false})
    const shared = quotes(1500, 'shared')
    const a = h.file('a.ndjson', ndjson([...quotes(20, 'only-a'), ...shared]))
    const b = h.file('b.ndjson', ndjson([...quotes(20, 'only-b'), ...shared]))
    // Two processes, as two terminals or two CI jobs would run them.
    const env = cliEnv(h.sandbox, h.home)
    const first = await Promise.all(
      [a, b].map((f) => runBuiltCli(['demand', 'create', '--file', f, '--json', '--concurrency', '1'], {env})),
    )
    const results = first.map((r) => {
      expect(r.exitCode, r.stderr).toBe(0)
      return json<any>(r).results as Outcome[]
    })
    const draftIds = new Set(results.flat().map((o) => o.draftId))
    expect(draftIds.size).toBe(1540)
    // No draftId stored twice: a row one run sent, the other left to it, waited for, and answered with its demand.
    const stored = await demandsWith(h.sandbox, draftIds)
    expect(stored).toHaveLength(1540)
    const idOf = new Map(stored.map((d) => [d.draftId as string, d._id as string]))
    for (const o of results.flat()) expect(o.id).toBe(idOf.get(o.draftId))
    expect(first.map((r) => json<any>(r).created).reduce((a: number, b: number) => a + b)).toBe(1540)
    // Once both have ended, each file run again has every row, none made anew.
    for (const f of [a, b]) {
      const again = json<any>(await h.run(['demand', 'create', '--file', f, '--json']))
      expect(again.created).toBe(0)
      expect(again.results.filter((o: Outcome) => o.id === undefined)).toEqual([])
    }
    expect(await demandsWith(h.sandbox, draftIds)).toHaveLength(1540)
  })

  it('settles a lost answer (commit, then drop) by looking the rows up: nothing is sent twice', async () => {
    const {FaultPlan} = await import('../../src/sandbox/index.js')
    // A seed whose first write commits and drops the connection, and whose next ones are served.
    let seed = 0
    for (; seed < 100_000; seed++) {
      const plan = new FaultPlan({rate: 0.3, seed})
      if (plan.next() === 'commit_then_drop' && [1, 2, 3, 4].every(() => plan.next() === undefined)) break
    }
    h = await harness({faults: {rate: 0.3, seed}, replay: false})
    const path = h.file('dropped.ndjson', ndjson(quotes(60, 'dropped')))
    const r = await h.run(['demand', 'create', '--file', path])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/60 row\(s\) found on the server after an unknown outcome/)
    const stats = h.sandbox.faultStats()
    expect(stats.injected.commit_then_drop).toBe(1)
    // One POST in all: the chunk was found, not sent again.
    expect(stats.writeRequests).toBe(1)
    const out = lines(r)
    expect(out).toHaveLength(60)
    const stored = await demandsWith(h.sandbox, new Set(out.map((o) => o.draftId)))
    expect(stored).toHaveLength(60)
    expect(new Set(stored.map((d) => d._id))).toEqual(new Set(out.map((o) => o.id)))
  })
})

describe('demand create inputs, validation, shards and the journal', () => {
  let h: Harness
  beforeAll(async () => {
    h = await harness()
  })
  afterAll(async () => h.close())

  const csv = [
    'technique,material,quantity,isCompany,jobDetails.takenAs,shippingAddress.city,quoteModel.0.fileName,quoteModel.0.scale,color',
    '3D_PRINTING,PLA,3,yes,ORDER,"Lyon, France","bracket',
    'v2.stl",1.5,',
    'CNC_MACHINING,Brass,2,false,QUOTE,Paris,,,red',
    'SHEET_METAL,Steel S235,abc,maybe,QUOTE,Nice,,,',
    'PCB,FR4,1,,,,,,',
  ].join('\r\n')

  it('converts CSV cells to the schema types: numbers, booleans, nested paths; empty cells left out', async () => {
    const path = h.file('typed.csv', csv)
    const refused = await h.run(['demand', 'create', '--file', path])
    expect(refused.exitCode).toBe(2)
    expect(refused.stderr).toMatch(/1 of 4 rows invalid; nothing was sent/)
    expect(refused.stderr).toMatch(/row 3 \(line 5\): quantity: expected a number, got "abc"/)
    expect(refused.stderr).toMatch(/row 3 \(line 5\): isCompany: expected true or false, got "maybe"/)

    const errors = join(h.home, 'rejected.ndjson')
    const r = await h.run(['demand', 'create', '--file', path, '--skip-invalid', '--errors', errors])
    expect(r.exitCode, r.stderr).toBe(0)
    const out = lines(r)
    expect(out.map((o) => o.row)).toEqual([1, 2, 4])
    const rejected = readFileSync(errors, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(rejected).toEqual([
      {
        row: 3,
        line: 5,
        errors: [
          {path: 'quantity', reason: 'expected a number, got "abc"'},
          {path: 'isCompany', reason: 'expected true or false, got "maybe"'},
        ],
        input: expect.any(Object),
      },
    ])

    const first = json<any>(await h.run(['demand', 'get', out[0]!.id!, '--json']))
    expect(first).toMatchObject({
      quantity: 3,
      isCompany: true,
      jobDetails: {takenAs: 'ORDER'},
      shippingAddress: {city: 'Lyon, France'},
    })
    expect(first.quoteModel[0]).toMatchObject({fileName: 'bracket\r\nv2.stl', scale: 1.5})
    const second = json<any>(await h.run(['demand', 'get', out[1]!.id!, '--json']))
    expect(second).toMatchObject({quantity: 2, isCompany: false, color: 'red', shippingAddress: {city: 'Paris'}})
    const fourth = json<any>(await h.run(['demand', 'get', out[2]!.id!, '--json']))
    expect(fourth).toMatchObject({technique: 'PCB', quantity: 1, jobDetails: {takenAs: 'QUOTE'}})
    expect(fourth.isCompany ?? false).toBe(false)
  })

  it('refuses what the service would refuse before sending any row: currency, date, first status', async () => {
    const path = h.file(
      'values.csv',
      [
        'technique,material,quantity,currency,fabricatedDate,demandStatusInfo.status,email',
        '3D_PRINTING,PLA,1,eur,,,values-1@example.com',
        '3D_PRINTING,PLA,1,EURO,,,values-2@example.com',
        '3D_PRINTING,PLA,1,GBP,tomorrow,,values-3@example.com',
        '3D_PRINTING,PLA,1,USD,2026-12-01,done,values-4@example.com',
      ].join('\n'),
    )
    for (const extra of [['--dry-run'], []]) {
      const r = await h.run(['demand', 'create', '--file', path, ...extra])
      expect(r.exitCode, r.stderr).toBe(2)
      expect(r.stderr).toContain('3 of 4 rows invalid; nothing was sent')
      expect(r.stderr).toContain('row 2 (line 3): currency: "EURO" is not allowed (allowed: EUR, USD,')
      expect(r.stderr).toContain('did you mean EUR?')
      expect(r.stderr).toContain('row 3 (line 4): fabricatedDate: must be a date as YYYY-MM-DD (DD/MM/YYYY accepted)')
      expect(r.stderr).toContain(
        'row 4 (line 5): demandStatusInfo.status: a new demand starts in "quote_sent"; move it with an update afterwards',
      )
    }
    const page = await sandboxClient(h.sandbox).get(
      `/api/public/v1/demand/${h.sandbox.businesses[0]!.id}/all?pageSize=100`,
    )
    expect(page.body.data.filter((d: any) => String(d.email).startsWith('values-'))).toEqual([])
  })

  it('refuses a row naming another business before sending any row (the service would answer its chunk 403)', async () => {
    const own = h.sandbox.businesses[0]!.id
    const other = h.sandbox.businesses[1]!.id
    const path = h.file(
      'business.csv',
      [
        'technique,material,quantity,business,email',
        `3D_PRINTING,PLA,1,${own},business-1@example.com`,
        `3D_PRINTING,PLA,1,${other},business-2@example.com`,
        '3D_PRINTING,PLA,1,,business-3@example.com',
      ].join('\n'),
    )
    for (const extra of [[], ['--legacy'], ['--dry-run']]) {
      const r = await h.run(['demand', 'create', '--file', path, ...extra])
      expect(r.exitCode, r.stderr).toBe(2)
      expect(r.stderr).toContain('1 of 3 rows invalid; nothing was sent')
      expect(r.stderr).toContain(`row 2 (line 3): business: is "${other}", but the demands go to business ${own}`)
    }
    const legacy = h.file('owner.json', JSON.stringify([{technique: 'PCB', material: 'FR4', machineOwner: other}]))
    const r = await h.run(['demand', 'create', '--file', legacy, '--legacy'])
    expect(r.exitCode, r.stderr).toBe(2)
    expect(r.stderr).toContain(`row 1: machineOwner: is "${other}", but the demands go to business ${own}`)
    const page = await sandboxClient(h.sandbox).get(`/api/public/v1/demand/${own}/all?pageSize=100`)
    expect(page.body.data.filter((d: any) => String(d.email).startsWith('business-'))).toEqual([])
  })

  it('reads a spreadsheet’s CSV as saved: semicolons, windows-1252 with --encoding, refused with its line without', async () => {
    const text = 'technique;material;lastName;email\r\nCNC_MACHINING;Brass;Löwe;excel-1@example.com\r\n'
    const path = join(h.home, 'excel.csv')
    writeFileSync(path, Buffer.from(text, 'latin1'))
    const refused = await h.run(['demand', 'create', '--file', path])
    expect(refused.exitCode).toBe(2)
    expect(refused.stderr).toContain(`${path}: line 2: not UTF-8 text (byte 0xF6); save it as UTF-8`)
    const r = await h.run(['demand', 'create', '--file', path, '--encoding', 'windows-1252', '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    const id = json<any>(r).results[0].id as string
    expect(json<any>(await h.run(['demand', 'get', id, '--json', 'material,lastName,email']))).toEqual({
      material: 'Brass',
      lastName: 'Löwe',
      email: 'excel-1@example.com',
    })
    // Told to split at commas, the header is one unknown field and the row has no technique.
    const forced = await h.run(['demand', 'create', '--file', path, '--encoding', 'windows-1252', '--delimiter', ','])
    expect(forced.exitCode).toBe(2)
    expect(forced.stderr).toContain('technique: a demand needs a non-empty quoteModel, or technique and material')
  })

  it('keeps each request under the service’s 10 MiB: big rows go in smaller chunks, a row too big for any is refused', async () => {
    const note = 'n'.repeat(1_500_000)
    const rows = Array.from({length: 10}, (_, i) => ({...quotes(1, `big-${i}`)[0], remark: [note]}))
    const r = await h.run(['demand', 'create', '--file', h.file('big.ndjson', ndjson(rows)), '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json<any>(r)).toMatchObject({created: 10, failed: 0, requests: 2})
    const huge = [{...quotes(1, 'huge')[0], remark: ['h'.repeat(11 * 1024 * 1024)]}, ...quotes(1, 'small')]
    const refused = await h.run(['demand', 'create', '--file', h.file('huge.ndjson', ndjson(huge))])
    expect(refused.exitCode).toBe(2)
    expect(refused.stderr).toContain('row 1: is 11.0 MiB as JSON; a request to the service holds at most 10 MiB')
    expect(refused.stderr).toContain('1 of 2 rows invalid; nothing was sent')
  })

  it('sends nothing when its journal cannot be kept, and says where and why', async () => {
    const file = h.file('not-a-dir', '')
    const path = h.file('journal-less.ndjson', ndjson(quotes(3, 'nojournal')))
    const r = await runCli(['demand', 'create', '--file', path], {env: cliEnv(h.sandbox, join(file, 'home'))})
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toContain(
      `cannot keep the journal in ${join(file, 'home', 'journals')}: a part of the path is not a directory; nothing was sent`,
    )
    expect(r.stderr).not.toMatch(/ENOTDIR|\n\s+at /)
    const page = await sandboxClient(h.sandbox).get(
      `/api/public/v1/demand/${h.sandbox.businesses[0]!.id}/all?pageSize=100`,
    )
    expect(page.body.data.filter((d: any) => String(d.email).startsWith('nojournal-'))).toEqual([])
  })

  it('--dry-run validates and sends nothing', async () => {
    const path = h.file('dry.ndjson', ndjson(quotes(250, 'dry')))
    const r = await h.run(['demand', 'create', '--file', path, '--dry-run'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/250 row\(s\) valid; would send 3 request\(s\)\. Nothing was sent/)
    const rows = await demandsWith(h.sandbox, new Set(['x']))
    expect(rows).toHaveLength(0)
    const list = sandboxClient(h.sandbox)
    const page = await list.get(`/api/public/v1/demand/${h.sandbox.businesses[0]!.id}/all?pageSize=100`)
    expect(page.body.data.some((d: any) => String(d.email).startsWith('dry-'))).toBe(false)
  })

  it('--shard 1/3 … 3/3 cover the input exactly once, with the draftIds of an unsharded run', async () => {
    const content = ndjson(quotes(10, 'shard'))
    const path = h.file('shard.ndjson', content)
    const plan = await h.run(['demand', 'create', '--file', path, '--dry-run', '--shard', '1/3', '--json'])
    expect(json<any>(plan).validation).toMatchObject({rows: 10, selected: 4, valid: 4})
    const all: Outcome[] = []
    for (const shard of ['1/3', '2/3', '3/3']) {
      const r = await h.run(['demand', 'create', '--file', path, '--shard', shard, '--json'])
      expect(r.exitCode, r.stderr).toBe(0)
      const got = json<{results: Outcome[]}>(r).results
      const i = Number(shard[0])
      expect(got.map((o) => o.row)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].filter((row) => (row - 1) % 3 === i - 1))
      all.push(...got)
    }
    expect(all.map((o) => o.row).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    expect(new Set(all.map((o) => o.id)).size).toBe(10)
    // The unsharded run of the same file gives every row the same draftId, and the server answers the same demands.
    const whole = await h.run(['demand', 'create', '--file', path, '--json'])
    const byRow = new Map(json<{results: Outcome[]}>(whole).results.map((o) => [o.row, o]))
    for (const o of all) expect(byRow.get(o.row)).toMatchObject({draftId: o.draftId, id: o.id})
    expect(await demandsWith(h.sandbox, new Set(all.map((o) => o.draftId)))).toHaveLength(10)
    const bad = await h.run(['demand', 'create', '--file', path, '--shard', '4/3'])
    expect(bad.exitCode).toBe(2)
    expect(bad.stderr).toMatch(/--shard must be I\/N/)
  })

  it('keeps its journal private: directory 0700, file 0600', () => {
    const dir = join(h.home, 'journals')
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    const files = readdirSync(dir)
    expect(files.length).toBeGreaterThan(0)
    for (const f of files) expect(statSync(join(dir, f)).mode & 0o777).toBe(0o600)
  })

  it('reads a JSON array from stdin and answers a re-run from the journal without sending', async () => {
    const body = JSON.stringify(quotes(5, 'stdin'))
    const first = await h.run(['demand', 'create', '--file', '-', '--json'], body)
    expect(first.exitCode, first.stderr).toBe(0)
    const again = await h.run(['demand', 'create', '--file', '-'], body)
    expect(again.stderr).toMatch(/Created 0 of 5 demand\(s\); 5 already created by an earlier run; 0 request\(s\)/)
    expect(lines(again).map((o) => o.id)).toEqual(json<{results: Outcome[]}>(first).results.map((o) => o.id))
    const fresh = await h.run(['demand', 'create', '--file', '-', '--fresh', '--json'], body)
    expect(fresh.exitCode, fresh.stderr).toBe(0)
    // The sandbox replays draftIds, so even a fresh run answers the same demands.
    expect(json<{results: Outcome[]}>(fresh).results.map((o) => o.id)).toEqual(
      json<{results: Outcome[]}>(first).results.map((o) => o.id),
    )
    // ...which this run did not make: its counts are its own, the earlier run's work said apart (issue 18).
    expect(json<{created: number; resumed: number; requests: number}>(fresh)).toMatchObject({
      created: 0,
      resumed: 5,
      requests: 1,
    })
    const freshTable = await h.run(['demand', 'create', '--file', '-', '--fresh'], body)
    expect(freshTable.stderr).toMatch(/Created 0 of 5 demand\(s\); 5 already created by an earlier run; 1 request\(s\)/)
  })

  it('with its journal lost, a re-run is told apart by the service replaying the same key: nothing counted as new', async () => {
    const body = JSON.stringify(quotes(4, 'lost-journal'))
    const first = await h.run(['demand', 'create', '--file', '-', '--json'], body)
    expect(first.exitCode, first.stderr).toBe(0)
    expect(json<{created: number}>(first).created).toBe(4)
    // The journals are gone (another machine, a cleaned home): only the service knows.
    rmSync(join(h.home, 'journals'), {recursive: true, force: true})
    const again = await h.run(['demand', 'create', '--file', '-', '--json'], body)
    expect(again.exitCode, again.stderr).toBe(0)
    expect(json<{created: number; resumed: number; requests: number}>(again)).toMatchObject({
      created: 0,
      resumed: 4,
      requests: 1,
    })
    expect(json<{results: Outcome[]}>(again).results.map((o) => o.id)).toEqual(
      json<{results: Outcome[]}>(first).results.map((o) => o.id),
    )
  })
})
