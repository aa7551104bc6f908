import {spawn, type ChildProcess} from 'node:child_process'
import {existsSync, mkdtempSync, rmSync} from 'node:fs'
import {request} from 'node:http'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {createInterface} from 'node:readline'

import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {checkForwardTo, eventLine, listeningNote} from '../../src/cli/webhooks.js'
import type {RunningSandbox} from '../../src/sandbox/index.js'
import {
  signatureSha256,
  startListener,
  type Listener,
  type ListenOptions,
  type ReceivedEvent,
  type Rejection,
} from '../../src/services/webhooks/listen.js'
import {cliEnv, json, runCli, type RunOptions} from '../helpers/cli.js'
import {startTestSandbox} from '../helpers/sandbox.js'
import {startReceiver, waitFor, type Receiver} from '../sandbox/receiver.js'

const SECRET = 'whsec_listen_test_0123456789'
const root = resolve(import.meta.dirname, '../..')

/** One POST from a real node:http client; answers the status (or the connection error). */
function post(url: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<number | string> {
  return new Promise((done) => {
    const req = request(
      url,
      {method: 'POST', headers: {'content-type': 'application/json', ...headers}, agent: false},
      (res) => {
        res.resume()
        res.on('end', () => done(res.statusCode ?? 0))
      },
    )
    req.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? 'error'))
    req.end(body)
  })
}

const event = (type = 'order_placed', id = `evt_${Math.random().toString(16).slice(2)}`) =>
  JSON.stringify({id, type, createdAt: new Date().toISOString(), data: {_id: 'd1', orderNumber: 7}})
const signed = (body: string, t = Math.floor(Date.now() / 1000), secret = SECRET) => ({
  'service-signature': secret,
  'service-signature-sha256': signatureSha256(secret, body, t),
})

describe('the webhook receiver (services/webhooks/listen)', () => {
  let listener: Listener | undefined
  let receiver: Receiver | undefined
  const events: ReceivedEvent[] = []
  const rejected: Rejection[] = []
  const forwardErrors: string[] = []
  const start = async (opts: Partial<ListenOptions> = {}) => {
    events.length = 0
    rejected.length = 0
    forwardErrors.length = 0
    listener = await startListener({
      port: 0,
      secret: SECRET,
      onEvent: (e) => events.push(e),
      onRejected: (r) => rejected.push(r),
      onForwardError: (_e, m) => forwardErrors.push(m),
      ...opts,
    })
    return listener
  }
  afterEach(async () => {
    await listener?.close()
    await receiver?.close()
    listener = undefined
    receiver = undefined
  })

  it('accepts a valid signature and rejects a bad one, a stale or future timestamp (401)', async () => {
    // The receiver's clock held still, so that 301 s from it is 301 s whichever second the checks fall in.
    const clock = Date.now()
    const {url} = await start({now: () => clock})
    const body = event('order_placed', 'evt_ok')
    expect(await post(url, body, signed(body))).toBe(200)
    expect(events.map((e) => [e.id, e.type, e.signature])).toEqual([['evt_ok', 'order_placed', 'verified']])
    expect(events[0]).toMatchObject({createdAt: expect.any(String), data: {_id: 'd1', orderNumber: 7}})

    // Either header alone is enough when it is valid.
    expect(
      await post(url, body, {'service-signature-sha256': signatureSha256(SECRET, body, Math.floor(Date.now() / 1000))}),
    ).toBe(200)
    expect(await post(url, body, {'service-signature': SECRET})).toBe(200)

    expect(await post(url, body)).toBe(401)
    // What a subscription without useSecret gets from the service: no header; the refusal says how to get one.
    expect(rejected.at(-1)!.reason).toMatch(/: no service-signature header: .*mfg webhook create --use-secret/)
    expect(await post(url, body, {'service-signature': 'wrong'})).toBe(401)
    expect(await post(url, body, {...signed(body), 'service-signature': `${SECRET.slice(0, -1)}X`})).toBe(401)
    expect(await post(url, body, signed(body, undefined, 'another-secret'))).toBe(401)
    const tampered = body.replace('7', '8')
    expect(await post(url, tampered, signed(body))).toBe(401)
    const now = Math.floor(clock / 1000)
    expect(await post(url, body, signed(body, now - 301))).toBe(401)
    expect(await post(url, body, signed(body, now + 301))).toBe(401)
    expect(await post(url, body, {'service-signature-sha256': 't=abc,v1=00'})).toBe(401)
    expect(rejected.every((r) => r.status === 401)).toBe(true)
    expect(rejected.some((r) => /stale|old/.test(r.reason))).toBe(true)
    expect(events).toHaveLength(3)

    // The sandbox's HMAC alone (a subscription without useSecret): a wrong secret is named as a cause, not only the body.
    rejected.length = 0
    const t = Math.floor(clock / 1000)
    const hmacOnly = (b: string, secret = SECRET) => ({'service-signature-sha256': signatureSha256(secret, b, t)})
    expect(await post(url, body, hmacOnly(body, 'another-secret'))).toBe(401)
    expect(await post(url, tampered, hmacOnly(body))).toBe(401)
    expect(rejected.map((r) => r.reason)).toEqual(
      Array(2).fill(
        'invalid signature: service-signature-sha256 does not match: the body was changed, or it was signed with another secret than this one',
      ),
    )
    expect(rejected.map((r) => r.reason).join('\n')).not.toContain(SECRET)
  })

  it('answers 413 to a body over 1 MiB without reading it, announced or streamed', async () => {
    const {url} = await start()
    const big = Buffer.alloc(1024 * 1024 + 1, 0x20)
    expect(await post(url, big, signed(big.toString()))).toBe(413)
    // Streamed in chunks without a Content-Length.
    const status = await new Promise<number | string>((done) => {
      const req = request(url, {method: 'POST', headers: {'content-type': 'application/json'}, agent: false}, (res) => {
        res.resume()
        done(res.statusCode ?? 0)
      })
      req.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? 'error'))
      const chunk = Buffer.alloc(64 * 1024, 0x20)
      let sent = 0
      const pump = () => {
        while (sent < 2 * 1024 * 1024) {
          sent += chunk.length
          if (!req.write(chunk)) return void req.once('drain', pump)
        }
        req.end()
      }
      pump()
    })
    expect(status).toBe(413)
    expect(rejected.map((r) => r.status)).toEqual([413, 413])
    expect(events).toHaveLength(0)
    // Still serving afterwards.
    const body = event()
    expect(await post(url, body, signed(body))).toBe(200)
  })

  it('filters by --events (others acknowledged, not shown) and forwards with the original headers', async () => {
    receiver = await startReceiver()
    const {url} = await start({events: ['quote_request_recieved', 'order_updated'], forwardTo: receiver.url})
    const kept = event('quote_request_received', 'evt_kept')
    const dropped = event('order_placed', 'evt_dropped')
    const also = event('order_updated', 'evt_also')
    // Signed once: the signature carries the time, which may tick between two calls.
    const keptHeaders = signed(kept)
    expect(await post(url, kept, {...keptHeaders, 'x-custom': 'yes'})).toBe(200)
    expect(await post(url, dropped, signed(dropped))).toBe(200)
    expect(await post(url, also, signed(also))).toBe(200)
    expect(events.map((e) => e.id)).toEqual(['evt_kept', 'evt_also'])
    await waitFor(() => receiver!.received.length === 2, 'two forwards')
    const [first, second] = receiver.received
    expect(first!.body).toBe(kept)
    expect(second!.body).toBe(also)
    expect(first!.headers['x-custom']).toBe('yes')
    expect(first!.headers['service-signature']).toBe(SECRET)
    expect(first!.headers['service-signature-sha256']).toBe(keptHeaders['service-signature-sha256'])
    expect(first!.headers['content-type']).toBe('application/json')
  })

  it('reports a failing forward target and still answers 200', async () => {
    receiver = await startReceiver(() => 500)
    // A password in the target's URL is masked wherever the target is named.
    const {url} = await start({forwardTo: receiver.url.replace('://', '://hook:fwd-pass-53cr3t@')})
    const body = event('order_placed', 'evt_fwd')
    expect(await post(url, body, signed(body))).toBe(200)
    await waitFor(() => forwardErrors.length === 1, 'the forward failure')
    expect(forwardErrors[0]).toMatch(/answered 500/)
    await receiver.close()
    const gone = event('order_placed', 'evt_gone')
    expect(await post(url, gone, signed(gone))).toBe(200)
    await waitFor(() => forwardErrors.length === 2, 'the second forward failure')
    expect(forwardErrors[1]).toMatch(/failed/)
    expect(forwardErrors.join('\n')).not.toContain('fwd-pass-53cr3t')
    expect(forwardErrors[0]).toContain('hook:****')
  })

  it('answers 503, unprinted, while the forward target is behind by the backlog limit, and takes it again after', async () => {
    let release: () => void = () => undefined
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    // The target takes the first forward and answers nothing until released.
    receiver = await startReceiver(() => 200, {hold: () => released})
    const {url} = await start({
      forwardTo: receiver.url.replace('://', '://hook:fwd-pass-53cr3t@'),
      maxForwardBacklog: 3,
    })
    for (const id of ['evt_b1', 'evt_b2', 'evt_b3']) {
      const body = event('order_placed', id)
      expect(await post(url, body, signed(body))).toBe(200)
    }
    const late = event('order_placed', 'evt_b4')
    expect(await post(url, late, signed(late))).toBe(503)
    expect(events.map((e) => e.id)).toEqual(['evt_b1', 'evt_b2', 'evt_b3'])
    expect(rejected.at(-1)).toMatchObject({status: 503, reason: expect.stringMatching(/evt_b4 not taken: 3 events/)})
    expect(JSON.stringify(rejected)).not.toContain('fwd-pass-53cr3t')
    release()
    await waitFor(() => receiver!.received.length === 3, 'the three forwards')
    // Caught up: the service's next attempt is taken, printed and forwarded.
    await waitFor(async () => (await post(url, late, signed(late))) === 200, 'evt_b4 taken')
    expect(events.map((e) => e.id)).toEqual(['evt_b1', 'evt_b2', 'evt_b3', 'evt_b4'])
    await waitFor(() => receiver!.received.length === 4, 'the fourth forward')
    expect(forwardErrors).toEqual([])
  })

  it('marks an event delivered again (an id it passed on before) and forwards it again; one refused before is no repeat', async () => {
    receiver = await startReceiver()
    const {url} = await start({forwardTo: receiver.url})
    const first = event('order_placed', 'evt_twice')
    expect(await post(url, first, signed(first))).toBe(200)
    // The service did not get the 200 (a lost answer) and sends the same event again.
    expect(await post(url, first, signed(first))).toBe(200)
    const other = event('order_placed', 'evt_once')
    expect(await post(url, other, signed(other))).toBe(200)
    expect(events.map((e) => [e.id, e.redelivered])).toEqual([
      ['evt_twice', false],
      ['evt_twice', true],
      ['evt_once', false],
    ])
    // The receiver behind it sees what the service sent, as it would in production, and deduplicates by id.
    await waitFor(() => receiver!.received.length === 3, 'three forwards')
    await listener!.close()
    // An event the printer could not take (503) was not passed on: its next delivery is its first.
    let fail = true
    const {url: url2} = await start({
      onEvent: (e) => {
        if (fail) throw new Error('stdout is full')
        events.push(e)
      },
    })
    const refused = event('order_placed', 'evt_refused')
    expect(await post(url2, refused, signed(refused))).toBe(503)
    fail = false
    expect(await post(url2, refused, signed(refused))).toBe(200)
    expect(events.map((e) => [e.id, e.redelivered])).toEqual([['evt_refused', false]])
  })

  it('checks nothing without a secret', async () => {
    const {url} = await start({secret: undefined})
    const body = event()
    expect(await post(url, body)).toBe(200)
    expect(events[0]!.signature).toBe('unchecked')
    expect(await post(url, 'not json')).toBe(400)
  })

  it("takes an event in the interface's form (type and data only) and the forms a real service may send", async () => {
    const {url} = await start()
    const bodies = [
      '{"type":"order_placed","data":{"_id":"d1","orderNumber":7}}',
      '{"id":42,"type":"order_updated","createdAt":1732836000000,"data":{"_id":"d2"}}',
      '{"id":"evt_null","type":"quote_request_recieved","createdAt":null,"data":null}',
      '{"id":"evt_new","type":"invoice_paid","data":{}}',
    ]
    for (const body of bodies) expect(await post(url, body, signed(body))).toBe(200)
    // Twice without an id: nothing to tell a repeat by, so neither is marked one.
    expect(await post(url, bodies[0]!, signed(bodies[0]!))).toBe(200)
    expect(events.map((e) => [e.id, e.type, e.createdAt, e.data, e.redelivered])).toEqual([
      [undefined, 'order_placed', undefined, {_id: 'd1', orderNumber: 7}, false],
      ['42', 'order_updated', '2024-11-28T23:20:00.000Z', {_id: 'd2'}, false],
      ['evt_null', 'quote_request_recieved', undefined, {}, false],
      ['evt_new', 'invoice_paid', undefined, {}, false],
      [undefined, 'order_placed', undefined, {_id: 'd1', orderNumber: 7}, false],
    ])
    expect(eventLine(events[0]!)).toMatch(/ {2}order_placed {12}— {2}order 7 d1$/)
    expect(rejected).toEqual([])

    for (const body of ['{"data":{}}', '[]', '"order_placed"']) expect(await post(url, body, signed(body))).toBe(400)
    expect(rejected.map((r) => r.reason)).toEqual(
      Array(3).fill('the body is not an event: a JSON object with a type (the event name)'),
    )
  })
})

describe('mfg webhook listen, end to end', () => {
  let sandbox: RunningSandbox
  let home: string
  let child: ChildProcess | undefined
  const env = (): Record<string, string> => cliEnv(sandbox, home)
  const run = (argv: string[], opts: RunOptions = {}) => runCli(argv, {...opts, env: {...env(), ...opts.env}})

  beforeAll(async () => {
    sandbox = await startTestSandbox({webhooks: {retryBaseMs: 50}})
    home = mkdtempSync(join(tmpdir(), 'mfg-listen-'))
  })
  afterAll(async () => {
    child?.kill('SIGKILL')
    await sandbox.close()
    rmSync(home, {recursive: true, force: true})
  })

  it('receives the events of demands created through the CLI, signed, then stops on SIGINT with 0', async () => {
    const bin = join(root, 'bin/run.js')
    if (!existsSync(join(root, 'dist/commands/webhook/listen.js'))) throw new Error('run `npm run build` first')
    const proc = spawn(process.execPath, [bin, 'webhook', 'listen', '--port', '0', '--json'], {
      env: {...process.env, ...env(), MFG_WEBHOOK_SECRET: SECRET, NO_COLOR: '1'},
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    child = proc
    let stderr = ''
    proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
    const lines: ReceivedEvent[] = []
    createInterface({input: proc.stdout!}).on('line', (line) => lines.push(JSON.parse(line) as ReceivedEvent))
    await waitFor(() => /Listening for webhooks on (http:\S+) /.test(stderr), 'the listener URL')
    const url = /Listening for webhooks on (http:\S+) /.exec(stderr)![1]!
    expect(stderr).toMatch(/signatures checked/)

    const created = await run(
      ['webhook', 'create', '--url', url, '--events', 'quote_request_received,order_placed', '--use-secret', '--json'],
      {env: {MFG_WEBHOOK_SECRET: SECRET}},
    )
    expect(created.exitCode, created.stderr).toBe(0)
    expect(created.stdout + created.stderr).not.toContain(SECRET)

    const quote = await run(['demand', 'create', '--technique', '3D_PRINTING', '--material', 'PLA', '--json'])
    expect(quote.exitCode, quote.stderr).toBe(0)
    const quoteId = json<{results: {id: string}[]}>(quote).results[0]!.id
    const order = await run([
      'demand',
      'create',
      '--technique',
      'CNC_MACHINING',
      '--material',
      'Brass',
      '--taken-as',
      'ORDER',
      '--json',
    ])
    expect(order.exitCode, order.stderr).toBe(0)
    const orderId = json<{results: {id: string}[]}>(order).results[0]!.id
    // An update emits quote_request_updated, which this subscription does not listen to.
    const updated = await run(['demand', 'update', quoteId, '--status', 'special_verified'])
    expect(updated.exitCode, updated.stderr).toBe(0)
    const trigger = await run(['webhook', 'trigger', 'order_placed', '--json'])
    expect(trigger.exitCode, trigger.stderr).toBe(0)

    await waitFor(() => lines.length >= 3, 'three events on stdout')
    const hookId = json<{_id: string}>(created)._id
    await waitFor(async () => {
      const r = await run(['webhook', 'deliveries', hookId, '--json'])
      return json<{status: string}[]>(r).every((d) => d.status === 'delivered')
    }, 'every delivery acknowledged')
    expect(lines.map((e) => [e.type, (e.data as {_id: string})._id])).toEqual([
      ['quote_request_received', quoteId],
      ['order_placed', orderId],
      ['order_placed', expect.any(String)],
    ])
    for (const e of lines) {
      expect(e).toMatchObject({
        id: expect.stringMatching(/^evt_/),
        createdAt: expect.any(String),
        signature: 'verified',
      })
    }
    expect(new Set(lines.map((e) => e.id)).size).toBe(3)
    expect(stderr).not.toMatch(/Refused/)
    expect(stderr).not.toContain(SECRET)

    const exit = new Promise<number | null>((done) => proc.on('exit', (code) => done(code)))
    proc.kill('SIGINT')
    // Stopped by Ctrl-C: 130, as every command a signal stops.
    expect(await exit).toBe(130)
    expect(stderr).toMatch(/Stopped \(SIGINT\)/)
    child = undefined
  })

  it('shows an unsigned event with terminal codes in its fields as one line of escapes', async () => {
    const proc = spawn(process.execPath, [join(root, 'bin/run.js'), 'webhook', 'listen', '--port', '0'], {
      env: {...process.env, ...env(), NO_COLOR: '1'},
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    child = proc
    let stderr = ''
    let stdout = ''
    proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
    proc.stdout!.on('data', (d: Buffer) => (stdout += d.toString()))
    await waitFor(() => /Listening for webhooks on (http:\S+) /.test(stderr), 'the listener URL')
    const url = /Listening for webhooks on (http:\S+) /.exec(stderr)![1]!
    const forged = {
      id: 'evt_\u001b]0;owned\u0007',
      type: 'order_placed\u001b[2J',
      createdAt: new Date().toISOString(),
      data: {_id: 'd1\nFORGED', orderNumber: 7},
    }
    expect(await post(url, JSON.stringify(forged))).toBe(200)
    await waitFor(() => stdout.includes('\n'), 'the event line')
    expect(stdout.includes('\u001b') || stdout.includes('\u0007')).toBe(false)
    expect(stdout).toMatch(/^\S+ {2}order_placed\\u001b\[2J +evt_\\u001b\]0;owned\\u0007 {2}order 7 d1 FORGED\n$/)
    // Delivered again: the same line, marked.
    expect(await post(url, JSON.stringify(forged))).toBe(200)
    await waitFor(() => stdout.split('\n').length === 3, 'the second event line')
    expect(stdout.split('\n')[1]).toMatch(/ {2}order 7 d1 FORGED {2}\(again: delivered before\)$/)
    const exit = new Promise<number | null>((done) => proc.on('exit', (code) => done(code)))
    proc.kill('SIGINT')
    expect(await exit).toBe(130)
    child = undefined
  })
})

describe("webhook listen's own lines name --forward-to with its password masked", () => {
  it('in the listening note and in the refusal of a URL that is not http(s)', async () => {
    const note = listeningNote('http://127.0.0.1:4848', {forwardTo: 'https://hook:fwd-pass-53cr3t@example.com/in'})
    expect(note).toContain('forwarding to https://hook:****cr3t@example.com/in')
    expect(note).not.toContain('fwd-pass-53cr3t')
    const refused = await checkForwardTo('ftp://hook:fwd-pass-53cr3t@example.com/in', false).catch((e: Error) => e)
    expect(String(refused)).toContain('--forward-to must be an http(s) URL')
    expect(String(refused)).not.toContain('fwd-pass-53cr3t')
  })
})
