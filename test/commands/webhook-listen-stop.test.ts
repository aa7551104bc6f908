// How `webhook listen` stops (its stdout reader gone, Ctrl-C with forwards queued)
// and where it forwards to (any port, as the service's own delivery reaches).
import {spawn, type ChildProcess} from 'node:child_process'
import {existsSync, mkdtempSync, rmSync} from 'node:fs'
import {createServer, request, type Server} from 'node:http'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {createInterface} from 'node:readline'

import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import type {RunningSandbox} from '../../src/sandbox/index.js'
import {startListener, type Listener, type ReceivedEvent} from '../../src/services/webhooks/listen.js'
import {cliEnv, json, runCli} from '../helpers/cli.js'
import {startTestSandbox} from '../helpers/sandbox.js'
import {startReceiver, waitFor, type Receiver} from '../sandbox/receiver.js'

const root = resolve(import.meta.dirname, '../..')

/** One POST from a real node:http client; answers the status (or the connection error). */
function post(url: string, body: string): Promise<number | string> {
  return new Promise((done) => {
    const req = request(url, {method: 'POST', headers: {'content-type': 'application/json'}, agent: false}, (res) => {
      res.resume()
      res.on('end', () => done(res.statusCode ?? 0))
    })
    req.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? 'error'))
    req.end(body)
  })
}

const event = (id: string, type = 'order_placed') =>
  JSON.stringify({id, type, createdAt: new Date().toISOString(), data: {_id: 'd1', orderNumber: 7}})

/** `mfg webhook listen` as a real process, its stdout and stderr collected. */
function startListen(args: string[], env: Record<string, string>) {
  if (!existsSync(join(root, 'dist/commands/webhook/listen.js'))) throw new Error('run `npm run build` first')
  const proc = spawn(process.execPath, [join(root, 'bin/run.js'), 'webhook', 'listen', '--port', '0', ...args], {
    env: {...process.env, ...env, NO_COLOR: '1'},
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const out = {
    proc,
    stderr: '',
    lines: [] as string[],
    exit: new Promise<number | null>((done) => proc.on('exit', done)),
  }
  proc.stderr!.on('data', (d: Buffer) => (out.stderr += d.toString()))
  createInterface({input: proc.stdout!}).on('line', (line) => out.lines.push(line))
  const url = async () => {
    await waitFor(() => /Listening for webhooks on (http:\S+) /.test(out.stderr), 'the listener URL')
    return /Listening for webhooks on (http:\S+) /.exec(out.stderr)![1]!
  }
  return Object.assign(out, {url})
}

describe('webhook listen forwards through node:http', () => {
  let listener: Listener | undefined
  let receiver: Receiver | undefined
  afterEach(async () => {
    await listener?.close()
    await receiver?.close()
  })

  it('reaches a port that fetch refuses (6000, 10080, ...)', async () => {
    // The first of fetch's blocked ports that is free on this machine.
    for (const port of [6000, 10080, 6665, 6666, 6667, 6668, 6669, 5060, 5061, 6697]) {
      receiver = await startReceiver(() => 200, {port}).catch(() => undefined)
      if (receiver) break
    }
    if (!receiver) throw new Error('none of the ports fetch blocks is free here')
    const forwarded: number[] = []
    const errors: string[] = []
    listener = await startListener({
      port: 0,
      forwardTo: receiver.url,
      onEvent: () => undefined,
      onForwarded: (_e, status) => forwarded.push(status),
      onForwardError: (_e, message) => errors.push(message),
    })
    expect(await post(listener.url, event('evt_port'))).toBe(200)
    await waitFor(() => forwarded.length + errors.length === 1, 'the forward')
    expect(errors).toEqual([])
    expect(receiver.received.map((r) => r.json.id)).toEqual(['evt_port'])
  })

  it('does not acknowledge nor forward an event it could not pass on (503), and takes the next', async () => {
    receiver = await startReceiver()
    const shown: string[] = []
    listener = await startListener({
      port: 0,
      forwardTo: receiver.url,
      onEvent: async (e: ReceivedEvent) => {
        if (e.id === 'evt_lost') throw new Error('stdout is closed')
        shown.push(e.id!)
      },
    })
    expect(await post(listener.url, event('evt_lost'))).toBe(503)
    expect(await post(listener.url, event('evt_shown'))).toBe(200)
    await waitFor(() => receiver!.received.length === 1, 'the forward')
    expect(shown).toEqual(['evt_shown'])
    expect(receiver.received.map((r) => r.json.id)).toEqual(['evt_shown'])
  })
})

describe('mfg webhook listen stops', () => {
  let sandbox: RunningSandbox
  let home: string
  let child: ChildProcess | undefined
  let hanging: Server | undefined
  const env = (): Record<string, string> => cliEnv(sandbox, home)
  const run = (argv: string[]) => runCli(argv, {env: env()})

  beforeAll(async () => {
    sandbox = await startTestSandbox({webhooks: {retryBaseMs: 50}})
    home = mkdtempSync(join(tmpdir(), 'mfg-listen-stop-'))
  })
  afterEach(async () => {
    child?.kill('SIGKILL')
    child = undefined
    if (hanging) {
      hanging.closeAllConnections()
      await new Promise((done) => hanging!.close(done))
      hanging = undefined
    }
  })
  afterAll(async () => {
    await sandbox.close()
    rmSync(home, {recursive: true, force: true})
  })

  it('when its stdout reader has gone: the next event is not acknowledged (the service retries it) and it exits 0', async () => {
    const listen = startListen(['--json'], env())
    child = listen.proc
    const url = await listen.url()
    const created = await run([
      'webhook',
      'create',
      '--url',
      url,
      '--events',
      'order_placed',
      '--secret',
      'abcdefgh',
      '--json',
    ])
    expect(created.exitCode, created.stderr).toBe(0)
    const hookId = json<{_id: string}>(created)._id

    const first = await run(['webhook', 'trigger', 'order_placed', '--webhook', hookId, '--json'])
    expect(first.exitCode, first.stderr).toBe(0)
    await waitFor(() => listen.lines.length === 1, 'the first event on stdout')
    const shown = JSON.parse(listen.lines[0]!) as ReceivedEvent
    // As `| head -1` does once it has its line.
    listen.proc.stdout!.destroy()

    const second = await run(['webhook', 'trigger', 'order_placed', '--webhook', hookId, '--json'])
    expect(second.exitCode, second.stderr).toBe(0)
    expect(await listen.exit).toBe(0)
    child = undefined
    expect(listen.stderr).not.toMatch(/Error|Stopped/)

    const deliveries = json<{eventId: string; status: string; attempts: {statusCode: number | null}[]}[]>(
      await run(['webhook', 'deliveries', hookId, '--json']),
    )
    const delivered = deliveries.filter((d) => d.status === 'delivered').map((d) => d.eventId)
    expect(delivered).toEqual([shown.id])
    const unwritten = deliveries.find((d) => d.eventId !== shown.id)!
    expect(unwritten.status).not.toBe('delivered')
    expect(unwritten.attempts[0]!.statusCode).toBe(503)
  })

  it('on Ctrl-C with forwards queued: cuts the one running, names each not sent, exits 130', async () => {
    const seen: string[] = []
    // A target that never answers.
    hanging = createServer((req) => {
      let body = ''
      req.on('data', (d: Buffer) => (body += d.toString()))
      req.on('end', () => seen.push((JSON.parse(body) as {id: string}).id))
    })
    await new Promise<void>((done) => hanging!.listen(0, '127.0.0.1', done))
    const target = `http://127.0.0.1:${(hanging.address() as {port: number}).port}/`
    const listen = startListen(['--forward-to', target], env())
    child = listen.proc
    const url = await listen.url()
    for (const id of ['evt_a', 'evt_b', 'evt_c', 'evt_d']) expect(await post(url, event(id))).toBe(200)
    await waitFor(() => listen.lines.length === 4 && seen.length === 1, 'four events shown, the first forward started')

    listen.proc.kill('SIGINT')
    expect(await listen.exit).toBe(130)
    child = undefined
    const stderr = listen.stderr
    expect(stderr).toMatch(/Stopped \(SIGINT\)/)
    expect(stderr).not.toMatch(/no answer within/)
    expect(stderr).toMatch(/Forwarding evt_a failed: .* cut off by the stop/)
    for (const id of ['evt_b', 'evt_c', 'evt_d']) {
      expect(stderr).toMatch(new RegExp(`Forwarding ${id} failed: not sent .* the listener stopped first`))
    }
    // Each report comes before the last word.
    expect(stderr.lastIndexOf('Forwarding')).toBeLessThan(stderr.indexOf('Stopped (SIGINT)'))
    expect(seen).toEqual(['evt_a'])
  })
})
