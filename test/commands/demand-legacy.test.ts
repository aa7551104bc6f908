/* eslint-disable @typescript-eslint/no-explicit-any -- records are arbitrary JSON that tests inspect freely */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {json, secretsOf, useCliSandbox} from '../helpers/cli.js'

const {sb, outputs, run} = useCliSandbox()
let quotes = 0
/** A new demand each call: the same quote from flags on the same day would be the same demand. */
const newQuote = async (material = 'PLA'): Promise<string> => {
  const r = await run([
    'demand',
    'create',
    '--technique',
    '3D_PRINTING',
    '--material',
    material,
    '--quantity',
    String(++quotes),
    '--json',
  ])
  expect(r.exitCode, r.stderr).toBe(0)
  return json<{results: {id: string}[]}>(r).results[0]!.id
}

describe('legacy demands', () => {
  let ids: string[]

  it('creates through create-demands: string prices, display statuses', async () => {
    const rows = [
      {technique: 'SHEET_METAL', material: 'Steel S235', thickness: 2, quantity: 4, email: 'l1@example.com'},
      {
        quoteModel: [
          {fileName: 'part.stl', service: '3D_PRINTING', material: 'PLA', quantity: 2, priceMachine: '2.50'},
        ],
        email: 'l2@example.com',
      },
    ]
    const path = join(sb.home, 'legacy.json')
    writeFileSync(path, JSON.stringify(rows))
    const r = await run(['demand', 'create', '--file', path, '--legacy', '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    const out = json<any>(r).results as any[]
    expect(out).toHaveLength(2)
    expect(out.every((o) => o.status === 'Quote Sent' && /^mfg-/.test(o.draftId))).toBe(true)
    ids = out.map((o) => o.id)
    const got = json<any>(await run(['demand', 'get', ids[0]!, '--legacy', '--json']))
    expect(got).toMatchObject({_id: ids[0], status: 'Quote Sent', thickness: 2, quantity: 4})
    expect(typeof got.priceToClient).toBe('string')
  })

  it('counts as already there the demands the service answers by their draftId, whichever generation made them', async () => {
    const path = join(sb.home, 'both.json')
    writeFileSync(path, JSON.stringify([{technique: 'PCB', material: 'FR4', email: 'both-1@example.com'}]))
    const first = await run(['demand', 'create', '--file', path, '--json'])
    expect(json<any>(first)).toMatchObject({created: 1, resumed: 0})
    // Another generation's call, with no journal entry for it: the service answers the same demand.
    // Later: the service's clock comes in its Date header, which counts whole seconds, and the
    // second request's own duration (long on a loaded machine) is taken off it: 3 s leaves room.
    await new Promise((done) => setTimeout(done, 3000))
    const second = await run(['demand', 'create', '--file', path, '--legacy', '--json'])
    expect(second.exitCode, second.stderr).toBe(0)
    expect(json<any>(second)).toMatchObject({created: 0, resumed: 1})
    expect(json<any>(second).results[0].id).toBe(json<any>(first).results[0].id)
  })

  it('refuses a legacy row with a v1-only value before sending', async () => {
    const path = join(sb.home, 'legacy-bad.json')
    writeFileSync(path, JSON.stringify([{technique: 'PCB', material: 'FR4', tolerance: 'tight'}]))
    const r = await run(['demand', 'create', '--file', path, '--legacy'])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toMatch(/row 1: tolerance: /)
  })

  it('lists by stored ids in the order given and reports the missing ones', async () => {
    const unknown = '000000000000000000000000'
    const r = await run(['demand', 'list', '--ids', `${ids[1]},${unknown},${ids[0]}`, '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json<any[]>(r).map((d) => d._id)).toEqual([ids[1], ids[0]])
    expect(r.stderr).toContain(`Not found: 1 of 3 id(s): ${unknown}`)
    const file = join(sb.home, 'ids.txt')
    writeFileSync(file, `${ids[0]}\n${ids[1]}\n`)
    const table = await run(['demand', 'list', '--ids-file', file])
    expect(table.exitCode, table.stderr).toBe(0)
    const lines = table.stdout.trim().split('\n')
    expect(lines[0]).toMatch(/^orderNumber\s+_id\s+status/)
    expect(lines[1]).toContain(ids[0])
    expect(lines[2]).toContain(ids[1])
  })

  it('updates the legacy fields and refuses the others', async () => {
    const r = await run([
      'demand',
      'update',
      ids[0]!,
      '--legacy',
      '--quantity',
      '6',
      '--tolerance',
      '0.05',
      '--shipping-city',
      'Lyon',
      '--json',
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json(r)).toMatchObject({_id: ids[0], quantity: 6, tolerance: 0.05, shippingAddress: {city: 'Lyon'}})
    const got = json<any>(await run(['demand', 'get', ids[0]!, '--legacy', '--json']))
    expect(got).toMatchObject({quantity: 6, tolerance: 0.05, city: 'Lyon'})
    const refused = await run(['demand', 'update', ids[0]!, '--legacy', '--status', 'done'])
    expect(refused.exitCode).toBe(2)
    expect(refused.stderr).toMatch(/--status is not part of the legacy update/)
  })

  it('refuses to delete without a terminal and without --yes: exit 2, nothing sent', async () => {
    const r = await run(['demand', 'delete', ids[1]!])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toMatch(/--yes/)
    const still = json<any>(await run(['demand', 'get', ids[1]!, '--legacy', '--json']))
    expect(still.status).toBe('Quote Sent')
  })

  it('deletes with --yes: the record comes back cancelled and archived', async () => {
    const r = await run(['demand', 'delete', ids[1]!, '--yes', '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json(r)).toMatchObject({_id: ids[1], status: 'Cancelled', archive: true})
    const v1 = json<any>(await run(['demand', 'get', ids[1]!, '--json']))
    expect(v1.demandStatusInfo.status).toBe('cancelled')
    // Again (a script run twice): the service answers 409, and the demand is as asked.
    const again = await run(['demand', 'delete', ids[1]!, '--yes'])
    expect(again.exitCode, again.stderr).toBe(0)
    expect(again.stderr).toContain(`Demand ${ids[1]} was already cancelled and archived; nothing changed.`)
    // A demand cancelled through its stage is not archived: deleting it is still refused.
    const staged = await newQuote()
    expect((await run(['demand', 'stage', staged, 'cancelled'])).exitCode).toBe(0)
    const refused = await run(['demand', 'delete', staged, '--yes'])
    expect(refused.exitCode).toBe(1)
    expect(refused.stderr).toContain('409 Conflict')
  })

  it('places a by-product order in the language asked, and refuses a wrong referral', async () => {
    // The demo business's first seeded product (docs/sandbox.md, Seed: kind 5, number 1).
    const product = '65f000050000000000000001'
    const r = await run([
      'demand',
      'order',
      '--product',
      product,
      '--referral',
      'api',
      '--lang',
      'fr',
      '--quantity',
      '2',
      '--shipping-city',
      'Lyon',
      '--json',
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    const [order] = json<any[]>(r)
    expect(order).toMatchObject({productId: product, quantity: 2, status: 'Quote Sent'})
    const listed = json<any[]>(await run(['demand', 'list', '--ids', order._id, '--json']))
    expect(listed[0]._id).toBe(order._id)
    const wrong = await run(['demand', 'order', '--product', product, '--referral', 'nope'])
    expect(wrong.exitCode).toBe(1)
    expect(wrong.stderr).toMatch(/referral/)
    const missing = await run(['demand', 'order', '--product', product])
    expect(missing.exitCode).toBe(2)
    expect(missing.stderr).toMatch(/--referral/)
  })
})

describe('demand stage and track', () => {
  it('moves through every allowed stage, by id or display name, and tracks each move', async () => {
    const id = await newQuote()
    const moves: [string, string, string][] = [
      ['In Review', 'special_verified', 'In Review'],
      ['quote_sent', 'quote_sent', 'Quote Sent'],
      ['special verified', 'special_verified', 'In Review'],
      ['In Production', 'special_accepted', 'In Production'],
      ['DONE', 'done', 'Ready to Ship'],
      ['in-shipping', 'in_shipping', 'In Shipping'],
      ['Delivered', 'delivered', 'Delivered'],
    ]
    for (const [arg, stage, display] of moves) {
      const r = await run(['demand', 'stage', id, arg, '--json'])
      expect(r.exitCode, `${arg}: ${r.stderr}`).toBe(0)
      expect(json(r)).toMatchObject({demandStatusInfo: {status: stage}, status: display})
    }
    const track = await run(['demand', 'track', id, '--json'])
    expect(track.exitCode, track.stderr).toBe(0)
    const timeline = json<any>(track)
    expect(timeline.steps.map((s: any) => s.stage)).toEqual([
      'quote_sent',
      'special_verified',
      'quote_sent',
      'special_verified',
      'special_accepted',
      'done',
      'in_shipping',
      'delivered',
    ])
    expect(timeline.dates.map((d: any) => d.field)).toEqual([
      'dateAccepted',
      'producedAt',
      'startedShippingAt',
      'deliveredAt',
    ])
    const table = await run(['demand', 'track', id])
    const rows = table.stdout.trim().split('\n')
    expect(rows[0]).toMatch(/^stage\s+tracking\s+date$/)
    expect(rows[1]).toMatch(/^quote_sent\s+quote sent\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    expect(rows[8]).toMatch(/^delivered\s+delivered\s+\d{4}-/)
    expect(table.stdout).toMatch(/^deliveredAt\s+\d{4}-\d\d-\d\dT[\d:]+Z\s+\d{13}$/m)
  })

  it('cancels from quote_sent and from special_verified', async () => {
    const a = await newQuote()
    expect(json<any>(await run(['demand', 'stage', a, 'Cancelled', '--json'])).demandStatusInfo.status).toBe(
      'cancelled',
    )
    const b = await newQuote()
    await run(['demand', 'stage', b, 'special_verified'])
    expect(json<any>(await run(['demand', 'stage', b, 'cancelled', '--json'])).demandStatusInfo.status).toBe(
      'cancelled',
    )
  })

  it("shows the server's refusal of a move: exit 1, both stages named", async () => {
    const id = await newQuote()
    const r = await run(['demand', 'stage', id, 'Delivered'])
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toMatch(/quote_sent/)
    expect(r.stderr).toMatch(/delivered/)
    expect(r.stderr).toMatch(/409/)
    const back = await run(['demand', 'stage', id, 'Special Accepted'])
    expect(back.exitCode).toBe(1)
    const unknown = await run(['demand', 'stage', id, 'shipped'])
    expect(unknown.exitCode).toBe(2)
    expect(unknown.stderr.trim()).toMatch(/unknown stage "shipped"; use a status id or display name: .*\.$/)
    expect(unknown.stderr).not.toContain('did you mean')
    // A slip of the keyboard in a status id or a display name gets the stage probably meant.
    for (const typo of ['special_acepted', 'In Produciton']) {
      const near = await run(['demand', 'stage', id, typo])
      expect(near.exitCode).toBe(2)
      expect(near.stderr.trim()).toMatch(
        new RegExp(
          `^Error: unknown stage "${typo}"; use a status id or display name: .*; did you mean special_accepted\\?$`,
        ),
      )
    }
  })

  it('never shows a full key or token', () => {
    const all = outputs.map((o) => o.stdout + o.stderr).join('\n')
    for (const secret of secretsOf(sb)) expect(all).not.toContain(secret)
  })
})
