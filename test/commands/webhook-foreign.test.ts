// The webhook commands against services written apart from the project (test/foreign/server.ts)
// that answer otherwise than the interface's examples.
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {json, runCli} from '../helpers/cli.js'
import {foreignEnv, startForeignServer, type ForeignServer, type Quirks} from '../foreign/server.js'

const SECRET = 'whsec_foreign_test_secret_Q7'
const servers: ForeignServer[] = []
let home: string

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mfg-webhook-foreign-'))
})
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()))
  rmSync(home, {recursive: true, force: true})
})

async function serve(quirks: Quirks): Promise<ForeignServer> {
  const server = await startForeignServer(quirks)
  servers.push(server)
  return server
}

const run = (server: ForeignServer, argv: string[]) =>
  runCli(argv, {env: {...foreignEnv(server, home), MFG_WEBHOOK_SECRET: SECRET}})

describe('webhook answers whose data is one subscription, not a list of one', () => {
  it('list shows it and create shows the subscription it made', async () => {
    const server = await serve({webhookDataObject: true})
    const list = await run(server, ['webhook', 'list', '--json'])
    expect(list.exitCode, list.stderr).toBe(0)
    expect(json<{_id: string}[]>(list).map((h) => h._id)).toEqual(server.seed.webhookIds)

    const made = await run(server, [
      'webhook',
      'create',
      '--url',
      'https://hooks.example.com/new',
      '--events',
      'order_placed',
      '--json',
    ])
    expect(made.exitCode, made.stderr).toBe(0)
    const hook = json<{_id: string; secret: string; confirmed?: boolean}>(made)
    expect(hook._id).toBe(server.stats().createdIds.webhooks[0])
    expect(hook.confirmed).toBeUndefined()
    expect(hook.secret).toMatch(/^\*{4}/)
  })
})

describe('webhook create answered without the subscription (201 or 204, no body)', () => {
  it.each([201, 204])('%i: says the secret is not sent unless --use-secret was given', async (status) => {
    const server = await serve({createAnswer: 'empty', createStatus: status})
    const argv = ['webhook', 'create', '--url', 'https://hooks.example.com/new', '--events', 'order_placed']
    const plain = await run(server, argv)
    expect(plain.exitCode, plain.stderr).toBe(0)
    expect(plain.stderr).toContain('without the subscription; find its id with mfg webhook list.')
    expect(plain.stderr).toContain(
      'Its secret is kept but not sent: deliveries carry it only with useSecret on (mfg webhook update ID --use-secret).',
    )
    expect(plain.stderr + plain.stdout).not.toContain(SECRET)

    const sent = await run(server, [...argv, '--use-secret'])
    expect(sent.exitCode, sent.stderr).toBe(0)
    expect(sent.stderr).not.toContain('not sent')
    expect(server.stats().created.webhooks).toBe(2)
  })
})

describe('webhook answers that leave the secret out (secret: null)', () => {
  it('show no secret rather than an empty one the service never sent', async () => {
    const server = await serve({webhookSecretNull: true})
    const list = await run(server, ['webhook', 'list', '--json'])
    expect(list.exitCode, list.stderr).toBe(0)
    const hooks = json<Record<string, unknown>[]>(list)
    expect(hooks).toHaveLength(1)
    expect('secret' in hooks[0]!).toBe(false)

    const made = await run(server, [
      'webhook',
      'create',
      '--url',
      'https://hooks.example.com/n',
      '--events',
      'order_placed',
    ])
    expect(made.exitCode, made.stderr).toBe(0)
    expect(made.stderr).toContain('(secret not shown by the service, kept but not sent: ')
    expect(made.stderr).not.toMatch(/undefined|secret ,/)
  })
})

describe('a subscription whose events come as one string ("events": "order_placed")', () => {
  it('is listed with that event, not with none', async () => {
    const server = await serve({webhookEventsString: true})
    const listed = await run(server, ['webhook', 'list', '--json'])
    expect(listed.exitCode, listed.stderr).toBe(0)
    expect(json<{events: string[]}[]>(listed).map((h) => h.events)).toEqual([['order_placed']])
    const table = await run(server, ['webhook', 'list', '--columns', '_id,events', '--no-header'])
    expect(table.stdout.trim()).toBe(`${server.seed.webhookIds[0]}  order_placed`)
  })
})
