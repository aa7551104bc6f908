import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {beforeAll, describe, expect, it} from 'vitest'

import {json, jsonLines, secretsOf, useCliSandbox} from '../helpers/cli.js'
import {startProxy} from '../helpers/proxy.js'

interface Demand {
  _id: string
  orderNumber: number
  status: string
  technique: string
  material: string
  draftId?: string
  paymentAuthToken?: string
  demandStatusInfo?: {status?: string}
  tracking?: {status: string; date: number}[]
  jobDetails?: {takenAs?: string}
}

interface Result {
  row: number
  id: string
  orderNumber: number
  draftId: string
  status: string
}

const {sb, outputs, run} = useCliSandbox()
const count = async () => {
  const r = await run(['demand', 'list', '--all', '--json'])
  expect(r.exitCode, r.stderr).toBe(0)
  return jsonLines<Demand>(r).length
}
const file = (name: string, content: string) => {
  const path = join(sb.home, name)
  writeFileSync(path, content)
  return path
}
const quotes = (n: number, extra: (i: number) => object = () => ({})) =>
  Array.from({length: n}, (_, i) => ({
    technique: '3D_PRINTING',
    material: 'PLA',
    quantity: (i % 5) + 1,
    email: `b${i}@example.com`,
    ...extra(i),
  }))

describe('mfg demand create', () => {
  it('creates 100 quotes from a file: the list grows by exactly 100, and again by 0 when re-run', async () => {
    const before = await count()
    const path = file('hundred.json', JSON.stringify(quotes(100)))
    const r = await run(['demand', 'create', '--file', path, '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    const created = json<{results: Result[]}>(r).results
    expect(created).toHaveLength(100)
    expect(created.map((d) => d.row)).toEqual(Array.from({length: 100}, (_, i) => i + 1))
    expect(new Set(created.map((d) => d.id)).size).toBe(100)
    expect(created.every((d) => /^mfg-[0-9a-f]{24}$/.test(d.draftId ?? ''))).toBe(true)
    expect(created[0]).toMatchObject({status: 'Quote Sent', orderNumber: expect.any(Number)})
    expect(await count()).toBe(before + 100)

    const again = await run(['demand', 'create', '--file', path])
    expect(again.exitCode, again.stderr).toBe(0)
    const lines = again.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Result)
    expect(lines.map((d) => d.id)).toEqual(created.map((d) => d.id))
    expect(again.stderr).toMatch(/100 already created by an earlier run; 0 request/)
    expect(await count()).toBe(before + 100)
  })

  it('sends more than 100 rows in chunks', async () => {
    const before = await count()
    const r = await run([
      'demand',
      'create',
      '--file',
      file('many.json', JSON.stringify(quotes(150, (i) => ({color: `c${i}`})))),
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/Created 150 of 150 demand\(s\); 2 request\(s\)/)
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Result)
    expect(lines).toHaveLength(150)
    expect(lines.map((l) => l.row).sort((a, b) => a - b)).toEqual(Array.from({length: 150}, (_, i) => i + 1))
    expect(await count()).toBe(before + 150)
  })

  it('rejects an unknown technique before sending: exit 2, row and field named, nothing created', async () => {
    const before = await count()
    const path = file('bad.json', JSON.stringify(quotes(3, (i) => (i === 1 ? {technique: 'LASER_WELDING'} : {}))))
    const r = await run(['demand', 'create', '--file', path])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain(
      'row 2: technique: "LASER_WELDING" is not allowed (allowed: 3D_PRINTING, CNC_MACHINING, SHEET_METAL, PCB)',
    )
    expect(r.stderr).toMatch(/1 of 3 rows invalid; nothing was sent/)
    expect(r.stderr).not.toMatch(/\n\s+at /)
    expect(await count()).toBe(before)

    const j = await run(['demand', 'create', '--file', path, '--json'])
    expect(j.exitCode).toBe(2)
    expect(j.stdout).toBe('')
    const err = JSON.parse(j.stderr).error
    expect(err.code).toBe('invalid_input')
    expect(err.details).toContainEqual(expect.objectContaining({path: '1.technique'}))
  })

  it('lists every invalid row with its field path', async () => {
    const rows = [
      {technique: 'CNC_MACHINING'},
      {technique: 'PCB', material: 'FR4', quantity: 0},
      {technique: 'PCB', material: 'FR4', jobDetails: {takenAs: 'MAYBE'}},
    ]
    const r = await run(['demand', 'create', '--file', file('several.json', JSON.stringify(rows))])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toMatch(/row 1: material: /)
    expect(r.stderr).toMatch(/row 2: quantity: must be at least 1/)
    expect(r.stderr).toMatch(/row 3: jobDetails\.takenAs: "MAYBE" is not allowed \(allowed: QUOTE, ORDER\)/)
  })

  it('warns about unknown fields, which are not sent', async () => {
    const rows = [{technique: 'PCB', material: 'FR4', materail: 'x', colour: 'red'}]
    const r = await run(['demand', 'create', '--file', file('typo.json', JSON.stringify(rows)), '--dry-run'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stderr).toMatch(
      /unknown fields are not sent:\s+materail: row 1; did you mean material\?\s+colour: row 1; did you mean color\?/,
    )
  })

  it('names a misspelt column once, however many rows have it', async () => {
    const header = 'technique,material,quantity,emial,notes.colour\n'
    const body = Array.from(
      {length: 500},
      (_, i) => `3D_PRINTING,PLA,${i + 1},b${i}@example.com,${i % 100 === 7 ? 'red' : ''}`,
    )
    const csv = file('wide.csv', header + body.join('\n') + '\n')
    const r = await run(['demand', 'create', '--file', csv, '--dry-run'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stderr).toContain(
      [
        'Warning: unknown fields are not sent:',
        '  emial: every row (500); did you mean email?',
        '  notes: row 8 (line 9), row 108 (line 109), row 208 (line 209) and 2 more rows',
      ].join('\n'),
    )
    expect(r.stderr.split('\n').length).toBeLessThan(8)
    const j = await run(['demand', 'create', '--file', csv, '--dry-run', '--json'])
    const v = json<{validation: {unknownFields: unknown[]; moreUnknownFields: number}}>(j).validation
    expect(v.unknownFields).toEqual([
      {field: 'emial', rows: 500, firstRows: [1, 2, 3, 4, 5].map((row) => ({row, line: row + 1})), meant: 'email'},
      {field: 'notes', rows: 5, firstRows: [8, 108, 208, 308, 408].map((row) => ({row, line: row + 1}))},
    ])
    expect(v.moreUnknownFields).toBe(0)
  })

  it('leaves out misspelt fields at any depth, names the fields probably meant, and never sends them', async () => {
    // What reaches the service, read through a proxy in front of the sandbox.
    const sent: unknown[] = []
    const proxy = await startProxy(sb.url, (req) => {
      if (req.method !== 'POST') return
      const parts: Buffer[] = []
      req.on('data', (c: Buffer) => parts.push(c))
      req.on('end', () => sent.push(...(JSON.parse(Buffer.concat(parts).toString('utf8')) as unknown[])))
    })
    try {
      const csv = file(
        'typos.csv',
        'technique,material,quantity,emial,shippingAddress.city,shippingAddress.cty,jobDetails.takenAss,quoteModel.0.fileNam\n' +
          '3D_PRINTING,PLA,2,a@example.com,Lyon,Paris,ORDER,a.stl\n' +
          '3D_PRINTING,PETG,3,b@example.com,Nantes,,,b.stl\n',
      )
      const r = await run(['demand', 'create', '--file', csv, '--json'], {env: {MFG_BASE_URL: proxy.url}})
      expect(r.exitCode, r.stderr).toBe(0)
      const v = json<{validation: {unknownFields: object[]; lookalikeFields: object[]}}>(r).validation
      expect(v.unknownFields).toEqual([
        {
          field: 'emial',
          rows: 2,
          firstRows: [
            {row: 1, line: 2},
            {row: 2, line: 3},
          ],
          meant: 'email',
        },
        {field: 'shippingAddress.cty', rows: 1, firstRows: [{row: 1, line: 2}], meant: 'shippingAddress.city'},
        {field: 'jobDetails.takenAss', rows: 1, firstRows: [{row: 1, line: 2}], meant: 'jobDetails.takenAs'},
      ])
      // quoteModel items keep fields they do not name: sent as given, and named when they look misspelt.
      expect(v.lookalikeFields).toEqual([
        {
          field: 'quoteModel.0.fileNam',
          rows: 2,
          firstRows: [
            {row: 1, line: 2},
            {row: 2, line: 3},
          ],
          meant: 'quoteModel.0.fileName',
        },
      ])
      // Without --json the warning says it.
      const dry = await run(['demand', 'create', '--file', csv, '--dry-run'])
      expect(dry.exitCode, dry.stderr).toBe(0)
      expect(dry.stderr).toContain(
        [
          '  emial: every row (2); did you mean email?',
          '  shippingAddress.cty: row 1 (line 2); did you mean shippingAddress.city?',
          '  jobDetails.takenAss: row 1 (line 2); did you mean jobDetails.takenAs?',
        ].join('\n'),
      )
      expect(dry.stderr).toMatch(
        /these fields are sent as given but look like misspelt known ones:\s+quoteModel\.0\.fileNam: every row \(2\); did you mean quoteModel\.0\.fileName\?/,
      )
      expect(sent).toHaveLength(2)
      expect(sent[0]).toMatchObject({
        material: 'PLA',
        shippingAddress: {city: 'Lyon'},
        quoteModel: [{fileNam: 'a.stl'}],
      })
      expect(sent[1]).toMatchObject({material: 'PETG', shippingAddress: {city: 'Nantes'}})
      for (const item of sent as {shippingAddress: object; jobDetails?: object}[]) {
        expect(Object.keys(item)).not.toContain('emial')
        expect(Object.keys(item.shippingAddress)).toEqual(['city'])
        expect(item.jobDetails ?? {}).toEqual({})
      }
    } finally {
      await proxy.close()
    }
  })

  it('lists the misspelt fields of invalid rows with the fields probably meant', async () => {
    const csv = file('materail.csv', 'technique,materail,quantity\n3D_PRINTING,PLA,2\n')
    const r = await run(['demand', 'create', '--file', csv])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('row 1 (line 2): material: a demand needs a non-empty quoteModel')
    expect(r.stderr).toMatch(/Unknown fields \(never sent\):\s+materail: row 1 \(line 2\); did you mean material\?/)
  })

  it('reports bad JSON with line and column, exit 2', async () => {
    const r = await run([
      'demand',
      'create',
      '--file',
      file('broken.json', '[\n  {"technique": "PCB",\n   "material": }\n]\n'),
    ])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toMatch(/broken\.json: invalid JSON at line 3, column 16/)
  })

  it('reads NDJSON from stdin and names the line of a bad row', async () => {
    const before = await count()
    // Rows of their own: the same content as another test's rows would be those demands.
    const ndjson = quotes(3, (i) => ({email: `stdin-${i}@example.com`}))
      .map((q) => JSON.stringify(q))
      .join('\n')
    const r = await run(['demand', 'create', '--file', '-', '--json'], {stdin: `${ndjson}\n`})
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json<{results: Result[]}>(r).results).toHaveLength(3)
    expect(await count()).toBe(before + 3)
    const bad = await run(['demand', 'create', '--file', '-'], {stdin: `${ndjson}\n{"technique": "PCB", }\n`})
    expect(bad.exitCode).toBe(2)
    expect(bad.stderr).toMatch(/row 4: invalid JSON on line 4 of stdin \(column 22/)
    expect(await count()).toBe(before + 3)
  })

  it('creates one quote from flags, as an order when asked', async () => {
    const r = await run([
      'demand',
      'create',
      '--technique',
      'CNC_MACHINING',
      '--material',
      'Brass',
      '--quantity',
      '3',
      '--email',
      'ada@example.com',
      '--first-name',
      'Ada',
      '--last-name',
      'Lovelace',
      '--taken-as',
      'ORDER',
      '--json',
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    const [d] = json<{results: Result[]}>(r).results
    const got = await run(['demand', 'get', d!.id, '--json'])
    expect(json(got)).toMatchObject({
      _id: d!.id,
      technique: 'CNC_MACHINING',
      material: 'Brass',
      jobDetails: {takenAs: 'ORDER'},
      quantity: 3,
      email: 'ada@example.com',
      firstName: 'Ada',
    })
  })

  it('needs a file or technique and material without a terminal (exit 2)', async () => {
    const r = await run(['demand', 'create'])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toMatch(/--file PATH/)
  })

  it('validates only with --dry-run', async () => {
    const before = await count()
    const r = await run(['demand', 'create', '--file', 'examples/quotes.json', '--dry-run', '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json(r)).toMatchObject({dryRun: true, created: 0, requests: 0, validation: {rows: 5, valid: 5, chunks: 1}})
    expect(await count()).toBe(before)
  })
})

describe('mfg demand list', () => {
  it('prints a table with the default columns', async () => {
    const r = await run(['demand', 'list', '--limit', '3'])
    expect(r.exitCode).toBe(0)
    const lines = r.stdout.trim().split('\n')
    expect(lines[0]).toMatch(
      /^orderNumber\s+_id\s+type\s+status\s+technique\s+material\s+priceTotal\s+currency\s+createdAt$/,
    )
    expect(lines).toHaveLength(4)
    expect(r.stderr).toMatch(/Page 1 of \d+/)
  })

  it('--verbose tells each leniency of a listing once, not once per page', async () => {
    const r = await run(['demand', 'list', '--all', '--page-size', '2', '--verbose', '--ndjson'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stdout.trim().split('\n').length).toBeGreaterThan(4)
    // The sandbox, as the service, sends fabricatedDate: null on every demand of every page.
    const nulls = r.stderr
      .split('\n')
      .filter((l) => /^↳ read GET .*\/all: data\[(\d+|\*)\]\.fabricatedDate: null read as absent/.test(l))
    expect(nulls).toHaveLength(1)
  })

  it('selects and sorts columns, and prints CSV without header', async () => {
    const r = await run([
      'demand',
      'list',
      '--all',
      '--columns',
      'orderNumber,shippingAddress.city',
      '--sort',
      'orderNumber',
      '--csv',
      '--no-header',
    ])
    expect(r.exitCode).toBe(0)
    const lines = r.stdout.trim().split('\r\n')
    expect(lines[0]).toMatch(/^1,\w+/)
    const numbers = lines.map((l) => Number(l.split(',')[0]))
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b))
    expect(numbers.length).toBe(await count())
  })

  it('streams NDJSON with --all (--ndjson, or --json); one page with --json is one array', async () => {
    const total = await count()
    const nd = await run(['demand', 'list', '--all', '--ndjson', '--columns', 'orderNumber,status'])
    const lines = nd.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(lines).toHaveLength(total)
    expect(Object.keys(lines[0])).toEqual(['orderNumber', 'status'])
    const page = await run(['demand', 'list', '--limit', '5', '--page', '2', '--json'])
    expect(json<Demand[]>(page)).toHaveLength(5)
    const limited = await run(['demand', 'list', '--all', '--limit', '130', '--json'])
    expect(jsonLines<Demand>(limited)).toHaveLength(130)
    // --limit past one page follows the pages without --all, as one array.
    const over = await run(['demand', 'list', '--limit', '130', '--json'])
    expect(json<Demand[]>(over)).toHaveLength(130)
  })

  it('filters by type and status, and rejects an unknown status (exit 2)', async () => {
    const r = await run(['demand', 'list', '--all', '--status', 'delivered', '--json'])
    const rows = jsonLines<Demand>(r)
    expect(rows.length).toBeGreaterThan(0)
    expect(rows.every((d) => d.demandStatusInfo?.status === 'delivered')).toBe(true)
    const orders = jsonLines<Demand>(await run(['demand', 'list', '--type', 'orders', '--all', '--json']))
    expect(orders.every((d) => d.jobDetails?.takenAs === 'ORDER')).toBe(true)
    const bad = await run(['demand', 'list', '--status', 'shipped'])
    expect(bad.exitCode).toBe(2)
    expect(bad.stderr).toMatch(/quote_sent, special_verified/)
  })

  it('tells a missing business id apart (exit 2 naming the setting)', async () => {
    const r = await run(['demand', 'list'], {env: {MFG_BUSINESS_ID: undefined}})
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toMatch(/--business-id/)
    expect(r.stderr).toMatch(/MFG_BUSINESS_ID/)
  })
})

describe('mfg demand get and update', () => {
  let id: string
  beforeAll(async () => {
    const r = await run(['demand', 'create', '--technique', '3D_PRINTING', '--material', 'PETG', '--json'])
    id = json<{results: Result[]}>(r).results[0]!.id
  })

  it('shows a demand as key/value lines', async () => {
    const r = await run(['demand', 'get', id])
    expect(r.exitCode).toBe(0)
    // An id pasted with the spaces around it is the id.
    const pasted = await run(['demand', 'get', ` ${id}\n`])
    expect(pasted.exitCode, pasted.stderr).toBe(0)
    expect(pasted.stdout).toBe(r.stdout)
    expect(r.stdout).toMatch(new RegExp(`^_id\\s+${id}$`, 'm'))
    expect(r.stdout).toMatch(/^demandStatusInfo\.status\s+quote_sent$/m)
    const missing = await run(['demand', 'get', '000000000000000000000000'])
    expect(missing.exitCode).toBe(1)
    expect(missing.stderr).toMatch(/404/)
  })

  it('shows dates as demand list does, and --json as the service answered them', async () => {
    const raw = json<{createdAt: string; updatedAt: string}>(await run(['demand', 'get', id, '--json']))
    expect(raw.createdAt).toMatch(/\.\d{3}Z$/)
    const list = await run(['demand', 'list', '--all', '--columns', '_id,createdAt,updatedAt', '--no-header'])
    expect(list.exitCode, list.stderr).toBe(0)
    const [, createdAt, updatedAt] = list.stdout
      .split('\n')
      .find((l) => l.startsWith(id))!
      .split(/\s+/)
    expect(createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    const shown = await run(['demand', 'get', id])
    expect(shown.stdout).toMatch(new RegExp(`^createdAt\\s+${createdAt}$`, 'm'))
    expect(shown.stdout).toMatch(new RegExp(`^updatedAt\\s+${updatedAt}$`, 'm'))
  })

  it('shows a value a buyer typed with terminal codes or a line break as one line of escapes', async () => {
    const body = JSON.stringify({shippingAddress: {city: 'Lyon\u001b[2J\u001b]0;owned\u0007\nINJECTED'}})
    const updated = await run(['demand', 'update', id, '--file', '-'], {stdin: body})
    expect(updated.exitCode, updated.stderr).toBe(0)
    const raw = (text: string) => text.includes('\u001b') || text.includes('\u0007')
    expect(raw(updated.stdout)).toBe(false)
    const shown = await run(['demand', 'get', id])
    expect(raw(shown.stdout)).toBe(false)
    expect(shown.stdout).toMatch(/^shippingAddress\.city\s+Lyon\\u001b\[2J\\u001b\]0;owned\\u0007 INJECTED$/m)
    expect(shown.stdout).not.toMatch(/^INJECTED/m)
  })

  it('moves the stage and changes fields', async () => {
    let r = await run(['demand', 'update', id, '--status', 'special_verified', '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json<Demand>(r)).toMatchObject({demandStatusInfo: {status: 'special_verified'}, status: 'In Review'})
    r = await run(['demand', 'update', id, '--material', 'PLA', '--quantity', '7', '--price-total', '42.5'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stdout).toContain(id)
    const got = json<Demand & {quantity: number; priceTotal: number}>(await run(['demand', 'get', id, '--json']))
    expect(got).toMatchObject({material: 'PLA', quantity: 7, priceTotal: 42.5})
    expect(got.tracking?.map((t) => t.status)).toEqual(['quote sent', 'special verified'])
    // A price below 0 (149.5 typed -149.5) is refused before anything is sent.
    for (const flag of ['--price-total', '--price-delivery']) {
      const negative = await run(['demand', 'update', id, flag, '-149.5'])
      expect(negative.exitCode).toBe(2)
      expect(negative.stderr.trim()).toBe(`Error: ${flag} must be a number of 0 or more, got "-149.5".`)
    }
    expect(json<{priceTotal: number}>(await run(['demand', 'get', id, '--json'])).priceTotal).toBe(42.5)
  })

  it('takes any field of the interface by name, and names a misspelt one after an id', async () => {
    const r = await run([
      'demand',
      'create',
      '--technique',
      'PCB',
      '--material',
      'FR4',
      '--email',
      'e@example.com',
      '--first-name',
      'Ada',
      '--json',
    ])
    const created = json<{results: Result[]}>(r).results[0]!.id
    const picked = await run(['demand', 'get', created, '--json', 'orderNumber,email,firstName'])
    expect(picked.exitCode, picked.stderr).toBe(0)
    expect(json(picked)).toEqual({orderNumber: expect.any(Number), email: 'e@example.com', firstName: 'Ada'})
    const listed = await run(['demand', 'list', '--columns', 'orderNumber,email', '--sort', 'email', '--limit', '1'])
    expect(listed.exitCode, listed.stderr).toBe(0)
    const misspelt = await run(['demand', 'get', created, '--json', 'ordrNumber,status'])
    expect(misspelt.exitCode).toBe(2)
    const {message} = (JSON.parse(misspelt.stderr) as {error: {message: string}}).error
    expect(message).toMatch(/^--json: unknown field "ordrNumber" .* Did you mean "orderNumber"\?/)
  })

  it('refuses a value the service would refuse before sending it: a date, a currency, a payment status', async () => {
    const before = json<Demand>(await run(['demand', 'get', id, '--json']))
    let r = await run(['demand', 'update', id, '--fabricated-date', 'tomorrow'])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('fabricatedDate: must be a date as YYYY-MM-DD (DD/MM/YYYY accepted)')
    r = await run(['demand', 'update', id, '--file', '-'], {stdin: '{"currency": "EURO", "paymentStatus": "paid!"}'})
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('currency: "EURO" is not allowed (allowed: EUR, USD,')
    expect(r.stderr).toContain('paymentStatus: "paid!" is not allowed (allowed: PENDING_PAYMENT, PAID)')
    // An empty value (an unset shell variable) is refused, not dropped while the other flags go through.
    r = await run(['demand', 'update', id, '--material', 'PETG', '--fabricated-date', ''])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('--fabricated-date is empty: give it a value, or leave the flag out.')
    expect(json<Demand>(await run(['demand', 'get', id, '--json']))).toStrictEqual(before)
    r = await run(['demand', 'update', id, '--fabricated-date', '01/12/2026', '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json(r)).toMatchObject({fabricatedDate: '2026-12-01'})
  })

  it('shows a refused move clearly: exit 1, both stages named', async () => {
    const r = await run(['demand', 'update', id, '--status', 'delivered'])
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toMatch(/special_verified/)
    expect(r.stderr).toMatch(/delivered/)
    expect(r.stderr).toMatch(/409/)
  })

  it('takes an update body from stdin and refuses unknown fields before sending', async () => {
    let r = await run(['demand', 'update', id, '--file', '-', '--json'], {
      stdin: '{"shippingAddress": {"city": "Lyon"}}',
    })
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json(r)).toMatchObject({shippingAddress: {city: 'Lyon'}})
    r = await run(['demand', 'update', id, '--file', '-'], {stdin: '{"materail": "PLA"}'})
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('(body): unknown field materail (did you mean material?)')
    // At any depth: dropped without a word, it would look like a change made.
    const fields = ['demand', 'get', id, '--json', 'shippingAddress,jobDetails']
    const before = json(await run(fields))
    r = await run(['demand', 'update', id, '--file', '-', '--json'], {
      stdin: '{"shippingAddress": {"cty": "Paris"}, "jobDetails": {"takenAs": "ORDER", "zzz": 1}}',
    })
    expect(r.exitCode).toBe(2)
    expect(r.stdout).toBe('')
    expect(JSON.parse(r.stderr)).toMatchObject({
      error: {
        details: [
          {path: 'shippingAddress', message: 'unknown field cty (did you mean city?)'},
          {path: 'jobDetails', message: 'unknown field zzz'},
        ],
      },
    })
    expect(json(await run(fields))).toEqual(before)
    r = await run(['demand', 'update', id])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toMatch(/nothing to update/)
  })

  it("changes the shipping address from the --shipping-* flags alone, over the file's, checked like the body", async () => {
    let r = await run(['demand', 'update', id, '--shipping-city', 'Lyon', '--shipping-zip', '69001'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stderr).toContain('Updated shippingAddress.')
    const address = async () =>
      json<{shippingAddress: object}>(await run(['demand', 'get', id, '--json', 'shippingAddress'])).shippingAddress
    expect(await address()).toMatchObject({city: 'Lyon', zip: '69001'})
    const flags = ['demand', 'update', id, '--file', '-', '--shipping-city', 'Nantes']
    r = await run(flags, {stdin: '{"shippingAddress": {"city": "Paris", "region": "Loire"}}'})
    expect(r.exitCode, r.stderr).toBe(0)
    expect(await address()).toMatchObject({city: 'Nantes', region: 'Loire', zip: '69001'})
    r = await run(flags, {stdin: '{"shippingAddress": {"cty": "Paris"}}'})
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('shippingAddress: unknown field cty (did you mean city?)')
    expect(await address()).toMatchObject({city: 'Nantes'})
  })

  it('never shows a full key or token', () => {
    const all = outputs.map((o) => o.stdout + o.stderr).join('\n')
    for (const secret of secretsOf(sb)) expect(all).not.toContain(secret)
  })
})
