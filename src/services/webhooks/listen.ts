import {createHmac, timingSafeEqual} from 'node:crypto'
import {createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'

import {tolerate} from '../../schemas/read/core.js'
import {WebhookEventRead} from '../../schemas/read/webhooks.js'
import {SIGNATURE_HEADER, SIGNATURE_SHA256_HEADER, WEBHOOK_EVENT_ALIASES} from '../../schemas/webhooks.js'
import {maskUrlPassword} from '../../schemas/secrets.js'

/** Largest body the receiver reads; a longer one is a 413 and is not read further. */
export const MAX_WEBHOOK_BODY = 1024 * 1024
/** How old (or how far ahead) a `service-signature-sha256` timestamp may be. */
export const SIGNATURE_TOLERANCE_S = 300
/** How long one forward may take before it counts as failed. */
const FORWARD_TIMEOUT_MS = 10_000
/**
 * Most accepted events waiting to be forwarded (the one under way included). Past it a
 * delivery is answered 503 unprinted, so a slow forward target holds the service back
 * (it retries later) instead of piling events up in memory, to be lost at the stop.
 */
export const MAX_FORWARD_BACKLOG = 100
/** How many event ids the receiver remembers to tell a redelivery (the oldest forgotten first). */
const REMEMBERED_IDS = 10_000

export interface ReceivedEvent {
  /** The event's id (the contract's); a service that sends none leaves it absent, and repeats unmarked. */
  id?: string
  type: string
  createdAt?: string
  data: Record<string, unknown>
  /** When the receiver got it (ISO). */
  receivedAt: string
  /** `verified` when a secret checked it, `unchecked` without a secret. */
  signature: 'verified' | 'unchecked'
  /**
   * True when this receiver already passed on an event with this id: the service delivers
   * at least once (an acknowledgement it did not get, a retry), and receivers deduplicate by id.
   */
  redelivered: boolean
}

export interface Rejection {
  status: number
  reason: string
}

export interface ListenOptions {
  port?: number
  /** Default 127.0.0.1: only this machine can send to it. */
  host?: string
  /** When given, every request must carry a valid signature. */
  secret?: string
  /** Only these event types are printed and forwarded (others are acknowledged and dropped). */
  events?: readonly string[]
  /** Where verified events are sent on, with their original headers and body. */
  forwardTo?: string
  /** Most events waiting for the forward target before deliveries get 503 (default MAX_FORWARD_BACKLOG). */
  maxForwardBacklog?: number
  maxBodyBytes?: number
  toleranceSeconds?: number
  /** Epoch ms; tests may pass a fixed clock. */
  now?: () => number
  /**
   * Passes one event on (prints it). The delivery is acknowledged (200) once it
   * returns, or once its promise resolves; when it throws or rejects, the
   * delivery is answered 503 and not forwarded, so the sender tries it again.
   */
  onEvent: (event: ReceivedEvent) => unknown
  onRejected?: (rejection: Rejection) => void
  onForwardError?: (event: ReceivedEvent, message: string) => void
  onForwarded?: (event: ReceivedEvent, status: number) => void
}

export interface Listener {
  url: string
  port: number
  /** Stops accepting, waits for forwards in flight (bounded), then closes every connection. */
  close(): Promise<void>
}

/** How messages name an event: its id, or its type when the service sent no id. */
export function eventName(e: Pick<ReceivedEvent, 'id' | 'type'>): string {
  return e.id ?? `a ${e.type} event without id`
}

/** Compares two strings in time that does not depend on where they differ. */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8')
  const y = Buffer.from(b, 'utf8')
  // Equal lengths for timingSafeEqual; the length itself is not secret.
  if (x.length !== y.length) {
    timingSafeEqual(x, x)
    return false
  }
  return timingSafeEqual(x, y)
}

/** `t=<unix s>,v1=<hex>` for a body, as the service signs it. */
export function signatureSha256(secret: string, body: Buffer | string, t: number): string {
  const mac = createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex')
  return `t=${t},v1=${mac}`
}

/**
 * Checks the signature headers of one delivery: `service-signature` (the secret
 * itself, sent when the subscription has useSecret) and the sandbox's own
 * `service-signature-sha256` (HMAC over "<t>.<body>", fresh within the
 * tolerance). Each header present must be valid, and one must be present.
 * Answers undefined when valid, else the reason.
 */
export function verifySignature(
  headers: IncomingHttpHeaders,
  body: Buffer,
  secret: string,
  nowMs: number,
  toleranceSeconds = SIGNATURE_TOLERANCE_S,
): string | undefined {
  const plain = one(headers[SIGNATURE_HEADER])
  const hmac = one(headers[SIGNATURE_SHA256_HEADER])
  if (plain === undefined && hmac === undefined) {
    // The service sends the secret only when asked to; the HMAC header is the sandbox's own.
    return `no ${SIGNATURE_HEADER} header: the service sends it only to a subscription with useSecret on (mfg webhook create --use-secret, or mfg webhook update ID --use-secret)`
  }
  if (plain !== undefined && !safeEqual(plain, secret)) return `${SIGNATURE_HEADER} does not match the secret`
  if (hmac !== undefined) {
    const parts = new Map(
      hmac.split(',').map((p) => {
        const i = p.indexOf('=')
        return [p.slice(0, i).trim(), p.slice(i + 1).trim()] as const
      }),
    )
    const t = Number(parts.get('t'))
    const v1 = parts.get('v1') ?? ''
    if (!parts.has('t') || !Number.isInteger(t) || !/^[0-9a-f]{64}$/i.test(v1)) {
      return `${SIGNATURE_SHA256_HEADER} is malformed (want t=<unix s>,v1=<hex>)`
    }
    const now = Math.floor(nowMs / 1000)
    if (t < now - toleranceSeconds) return `${SIGNATURE_SHA256_HEADER} timestamp is ${now - t} s old (stale)`
    if (t > now + toleranceSeconds) return `${SIGNATURE_SHA256_HEADER} timestamp is ${t - now} s in the future`
    const want = createHmac('sha256', secret).update(`${t}.`).update(body).digest()
    const got = Buffer.from(v1, 'hex')
    if (got.length !== want.length || !timingSafeEqual(got, want)) {
      // An HMAC cannot tell a changed body from another key: name both (a listener started
      // with another secret than the subscription's is the usual cause).
      return `${SIGNATURE_SHA256_HEADER} does not match: the body was changed, or it was signed with another secret than this one`
    }
  }
  return undefined
}

function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

/** Headers that belong to one connection and are not forwarded. */
const HOP_BY_HOP = new Set([
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'upgrade',
  'proxy-connection',
  'te',
  'trailer',
])

/** Forwards events to one address one at a time, in order of arrival. */
class Forwarder {
  private queue: Promise<void> = Promise.resolve()
  /** Events taken and not yet answered by the target (or given up). */
  waiting = 0
  /** Aborted when the listener stops: cuts off the forward under way and skips those still queued. */
  private readonly stopping = new AbortController()

  /** The target as said in messages: a password in it masked. */
  readonly shown: string

  constructor(
    private readonly target: string,
    private readonly opts: Pick<ListenOptions, 'onForwarded' | 'onForwardError'>,
  ) {
    this.shown = maskUrlPassword(target)
  }

  send(event: ReceivedEvent, headers: IncomingHttpHeaders, body: Buffer): void {
    const sendHeaders: Record<string, string> = {}
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined || HOP_BY_HOP.has(name)) continue
      sendHeaders[name] = Array.isArray(value) ? value.join(', ') : value
    }
    // In order of arrival: the next forward starts when this one has an answer.
    this.waiting += 1
    this.queue = this.queue
      .then(() => this.post(event, sendHeaders, body))
      .finally(() => {
        this.waiting -= 1
      })
  }

  /**
   * Waits up to `ms` for the forwards under way and queued, then cuts off the one
   * running and reports the others as not sent. Resolves once each is reported.
   */
  async drain(ms: number): Promise<void> {
    const drained = await Promise.race([
      this.queue.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms).unref()),
    ])
    if (drained) return
    this.stopping.abort()
    await this.queue
  }

  private async post(event: ReceivedEvent, headers: Record<string, string>, body: Buffer): Promise<void> {
    const {target, shown, opts, stopping} = this
    if (stopping.signal.aborted) return opts.onForwardError?.(event, `not sent to ${shown}: the listener stopped first`)
    const timeout = AbortSignal.timeout(FORWARD_TIMEOUT_MS)
    try {
      const status = await postOnce(target, headers, body, AbortSignal.any([stopping.signal, timeout]))
      if (status >= 200 && status < 300) opts.onForwarded?.(event, status)
      else opts.onForwardError?.(event, `${shown} answered ${status}`)
    } catch (error) {
      const why = stopping.signal.aborted
        ? 'cut off by the stop before it answered'
        : timeout.aborted
          ? `no answer within ${FORWARD_TIMEOUT_MS / 1000} s`
          : ((error as NodeJS.ErrnoException).code ?? (error as Error).message)
      opts.onForwardError?.(event, `${shown} failed: ${why}`)
    }
  }
}

/**
 * One POST with node:http(s), as the service's own delivery sends it (fetch
 * refuses ports such as 6000 or 10080 that a receiver may well use). Resolves
 * with the status once the answer has been read; rejects on a connection
 * error or when `signal` aborts.
 */
function postOnce(url: string, headers: Record<string, string>, body: Buffer, signal: AbortSignal): Promise<number> {
  const lib = process.getBuiltinModule(url.startsWith('https:') ? 'node:https' : 'node:http')
  return new Promise<number>((resolve, reject) => {
    const sendHeaders = {...headers, 'content-length': String(body.length)}
    const req = lib.request(url, {method: 'POST', headers: sendHeaders, agent: false, signal}, (res) => {
      res.on('end', () => resolve(res.statusCode ?? 0))
      // Closed before its end: the answer was cut off.
      res.on('close', () => reject(new Error('the connection closed before the answer ended')))
      res.on('error', reject)
      res.resume()
    })
    req.on('error', reject)
    req.end(body)
  })
}

function acknowledge(res: ServerResponse): void {
  res.statusCode = 200
  res.setHeader('content-type', 'application/json')
  res.end('{"received":true}')
}

/** 503: the event was not taken, and the service sends it again later. */
function notPassedOn(
  res: ServerResponse,
  message = 'the receiver could not pass the event on; send it again later',
): void {
  res.statusCode = 503
  res.setHeader('content-type', 'application/json')
  res.setHeader('connection', 'close')
  res.end(JSON.stringify({statusCode: 503, message}))
}

/** The last `limit` ids added, the oldest forgotten first (a Set keeps the order of insertion). */
class RecentIds {
  private readonly ids = new Set<string>()
  constructor(private readonly limit: number) {}
  has(id: string): boolean {
    return this.ids.has(id)
  }
  add(id: string): void {
    this.ids.delete(id)
    this.ids.add(id)
    if (this.ids.size > this.limit) this.ids.delete(this.ids.values().next().value!)
  }
}

/**
 * A local webhook receiver (pure node:http): reads at most `maxBodyBytes`,
 * checks signatures when a secret is given, filters by event type, reports each
 * verified event and forwards it in order of arrival; answers 200, 401 to a bad
 * signature, 413 to a body that is too large, 400 to a body that is no event,
 * 503 to an event `onEvent` could not pass on.
 */
export async function startListener(opts: ListenOptions): Promise<Listener> {
  const maxBody = opts.maxBodyBytes ?? MAX_WEBHOOK_BODY
  const now = opts.now ?? Date.now
  const wanted = opts.events?.length ? new Set(opts.events.map((e) => WEBHOOK_EVENT_ALIASES[e] ?? e)) : undefined
  const forwarder = opts.forwardTo ? new Forwarder(opts.forwardTo, opts) : undefined
  const maxBacklog = opts.maxForwardBacklog ?? MAX_FORWARD_BACKLOG
  const passedOn = new RecentIds(REMEMBERED_IDS)

  const reject = (res: ServerResponse, status: number, reason: string, close = false): void => {
    opts.onRejected?.({status, reason})
    res.statusCode = status
    res.setHeader('content-type', 'application/json')
    if (close) res.setHeader('connection', 'close')
    res.end(JSON.stringify({statusCode: status, message: reason}))
  }

  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    if (opts.secret !== undefined) {
      const problem = verifySignature(req.headers, body, opts.secret, now(), opts.toleranceSeconds)
      if (problem) return reject(res, 401, `invalid signature: ${problem}`)
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(body.toString('utf8'))
    } catch {
      return reject(res, 400, 'the body is not JSON')
    }
    // Read as leniently as an answer: the interface promises only type and data.
    const event = WebhookEventRead.safeParse(tolerate(WebhookEventRead, parsed, []))
    if (!event.success) return reject(res, 400, 'the body is not an event: a JSON object with a type (the event name)')
    const {id, createdAt} = event.data
    const received: ReceivedEvent = {
      ...(id === undefined ? {} : {id}),
      type: event.data.type,
      ...(createdAt === undefined ? {} : {createdAt}),
      data: event.data.data,
      receivedAt: new Date(now()).toISOString(),
      signature: opts.secret === undefined ? 'unchecked' : 'verified',
      redelivered: id !== undefined && passedOn.has(id),
    }
    if (wanted && !wanted.has(WEBHOOK_EVENT_ALIASES[received.type] ?? received.type)) return acknowledge(res)
    if (forwarder && forwarder.waiting >= maxBacklog) {
      // Not printed nor taken: the service sends it again once the target has caught up.
      const reason = `${eventName(received)} not taken: ${forwarder.waiting} events are waiting for ${forwarder.shown}; the service sends it again later`
      opts.onRejected?.({status: 503, reason})
      return notPassedOn(res, reason)
    }
    // Acknowledged only once passed on: one that could not be is left for the sender to retry.
    void Promise.resolve()
      .then(() => opts.onEvent(received))
      .then(
        () => {
          if (received.id !== undefined) passedOn.add(received.id)
          acknowledge(res)
          forwarder?.send(received, req.headers, body)
        },
        () => notPassedOn(res),
      )
  }

  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST')
      return reject(res, 405, 'webhooks are delivered with POST')
    }
    const declared = Number(req.headers['content-length'])
    if (Number.isFinite(declared) && declared > maxBody) {
      reject(res, 413, `the body is over ${maxBody} bytes`, true)
      req.destroy()
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    let refused = false
    req.on('data', (chunk: Buffer) => {
      if (refused) return
      size += chunk.length
      if (size > maxBody) {
        refused = true
        chunks.length = 0
        // Stop reading: answer, then drop the connection rather than drain the rest.
        req.pause()
        reject(res, 413, `the body is over ${maxBody} bytes`, true)
        res.on('finish', () => req.destroy())
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => {
      if (!refused) handle(req, res, Buffer.concat(chunks, size))
    })
    req.on('error', () => undefined)
  })
  server.on('clientError', (_err, socket) => socket.destroy())

  await new Promise<void>((resolve, rejectListen) => {
    server.once('error', rejectListen)
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', rejectListen)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    url: `http://${host}:${address.port}/`,
    port: address.port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections()
      // Forwards in flight get a moment, then are cut off.
      await forwarder?.drain(2000)
      server.closeAllConnections()
      await closed
    },
  }
}
