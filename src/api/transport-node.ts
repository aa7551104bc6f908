import type http from 'node:http'

import type {Agents, SendOptions, Transport, TransportResponse} from './transport.js'

/**
 * The transport for requests sent by the hundred (RequestOptions.bulk): node:http(s)
 * on the same keep-alive agents as got. got's per-request work (normalising
 * options, its stream wrapper, hooks, a timer per phase) costs about 1 ms of CPU
 * per request, and loading it about 25 ms, in a process that shares the machine with
 * the server it feeds (docs/benchmarks.md, demand create). Only the socket differs:
 * what arrives is decoded, retried and mapped by the same pipeline.
 *
 * The whole exchange, body included, is bounded by `timeoutMs`; running out
 * fails it with a TimeoutError (code ETIMEDOUT, event "request"), as got reports it.
 */
export function nodeTransport(agents: Agents): Transport {
  return {
    send(req, opts) {
      const lib = process.getBuiltinModule(req.url.protocol === 'https:' ? 'node:https' : 'node:http')
      const body = typeof req.body === 'string' ? Buffer.from(req.body) : (req.body as Buffer | undefined)
      const headers: Record<string, string> = {...req.headers}
      if (body !== undefined) headers['content-length'] = String(body.length)
      return new Promise<TransportResponse>((resolve, reject) => {
        const outgoing = lib.request(req.url, {method: req.method, agent: agents.for(req.url), headers})
        const timer = armTimeout(outgoing, opts)
        const onAbort = () => outgoing.destroy(Object.assign(new Error('request aborted'), {code: 'ABORT_ERR'}))
        opts.signal?.addEventListener('abort', onAbort, {once: true})
        const done = () => {
          if (timer) clearTimeout(timer)
          opts.signal?.removeEventListener('abort', onAbort)
        }
        outgoing.on('error', (error) => {
          done()
          reject(error)
        })
        outgoing.on('response', (res) => {
          // The request's failures from here on (its time-out, an abort) end the body too.
          outgoing.on('error', (error) => res.destroy(error))
          res.on('close', done)
          resolve({status: res.statusCode ?? 0, headers: res.headers, body: res})
        })
        outgoing.end(body)
      })
    },
  }
}

function armTimeout(outgoing: http.ClientRequest, opts: SendOptions): NodeJS.Timeout | undefined {
  if (opts.idleTimeoutMs !== undefined) {
    outgoing.setTimeout(opts.idleTimeoutMs, () =>
      outgoing.destroy(Object.assign(new Error(`no data for ${opts.idleTimeoutMs} ms`), {code: 'ETIMEDOUT'})),
    )
  }
  if (opts.timeoutMs === undefined) return undefined
  const ms = opts.timeoutMs
  const timer = setTimeout(() => {
    outgoing.destroy(
      Object.assign(new Error(`no answer within ${ms} ms`), {
        name: 'TimeoutError',
        code: 'ETIMEDOUT',
        event: 'request',
      }),
    )
  }, ms)
  timer.unref()
  return timer
}
