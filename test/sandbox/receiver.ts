import {createServer, type IncomingHttpHeaders, type Server} from 'node:http'

/** One request a test receiver saw. */
export interface Received {
  headers: IncomingHttpHeaders
  body: string
  json: {id: string; type: string; createdAt: string; data: Record<string, unknown>}
  at: number
}

/**
 * A real HTTP receiver on 127.0.0.1 (on `port`, default a free one) for webhook tests;
 * `status` decides each answer, and `hold` (optional) when it is sent: after the promise
 * it returns settles (never, for a receiver that hangs; close() drops such requests).
 */
export interface Receiver {
  url: string
  received: Received[]
  status: (request: Received, index: number) => number
  close(): Promise<void>
}

export async function startReceiver(
  status: Receiver['status'] = () => 200,
  opts: {hold?: (request: Received, index: number) => Promise<void>; port?: number} = {},
): Promise<Receiver> {
  const {hold, port = 0} = opts
  const receiver: Receiver = {url: '', received: [], status, close: async () => undefined}
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      let json: Received['json']
      try {
        json = JSON.parse(body) as Received['json']
      } catch {
        json = {id: '', type: '', createdAt: '', data: {}}
      }
      const entry: Received = {headers: req.headers, body, json, at: Date.now()}
      const index = receiver.received.length
      receiver.received.push(entry)
      const answer = () => {
        res.statusCode = receiver.status(entry, index)
        res.setHeader('connection', 'close')
        res.end('ok')
      }
      if (hold) void hold(entry, index).then(answer)
      else answer()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', resolve)
  })
  const address = server.address()
  receiver.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return receiver
}

/** Polls `condition` every 20 ms until it holds; fails after a generous cap. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  capMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + capMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
