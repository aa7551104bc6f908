// Baseline for bench/demand-create.ts: the least a client can do to create the same demands.
// Reads prepared chunks (a JSON array whose elements are arrays of items, or
// {idempotencyKey, items} to send the same Idempotency-Key header as the CLI) and
// posts them to create-quotes over N keep-alive connections, N requests in
// flight, with no validation, journal or output.
import {readFileSync} from 'node:fs'
import http from 'node:http'

const [file, url, businessId, apiKey, concurrency] = process.argv.slice(2)
const chunks = JSON.parse(readFileSync(file, 'utf8'))
const agent = new http.Agent({keepAlive: true, maxSockets: Number(concurrency)})
const target = new URL(`/api/public/v1/demand/create-quotes/${businessId}`, url)

function post(chunk) {
  const body = Array.isArray(chunk) ? chunk : chunk.items
  const key = Array.isArray(chunk) ? undefined : chunk.idempotencyKey
  return new Promise((ok, fail) => {
    const data = Buffer.from(JSON.stringify(body))
    const req = http.request(
      target,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': data.length,
          authorization: `Bearer ${apiKey}`,
          ...(key === undefined ? {} : {'idempotency-key': key}),
        },
      },
      (res) => {
        const parts = []
        res.on('data', (c) => parts.push(c))
        res.on('end', () =>
          res.statusCode === 201 ? ok(Buffer.concat(parts)) : fail(new Error(`HTTP ${res.statusCode}`)),
        )
      },
    )
    req.on('error', fail)
    req.end(data)
  })
}

let next = 0
async function worker() {
  while (next < chunks.length) await post(chunks[next++])
}
await Promise.all(Array.from({length: Number(concurrency)}, worker))
agent.destroy()
