import {createHash} from 'node:crypto'

import type {FastifyReply, FastifyRequest} from 'fastify'

import type {SandboxContext} from './context.js'
import {badRequest} from './errors.js'
import type {Business} from './store/businesses.js'

/** How long a first answer is kept for an `Idempotency-Key` replay. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000

function idempotencyKey(request: FastifyRequest): string | undefined {
  const raw = request.headers['idempotency-key']
  if (raw === undefined) return undefined
  const key = Array.isArray(raw) ? (raw[0] ?? '') : raw
  if (key.length === 0 || key.length > 255) {
    throw badRequest('The Idempotency-Key header must be 1 to 255 characters long.', [
      {path: 'Idempotency-Key', message: 'must be 1 to 255 characters'},
    ])
  }
  return key
}

export function sendJson(reply: FastifyReply, statusCode: number, body: string): FastifyReply {
  return reply.code(statusCode).type('application/json; charset=utf-8').send(body)
}

/**
 * Runs a create with **[ext]** `Idempotency-Key` handling: a key seen in the last
 * 24 hours for the same business answers the first (successful) answer again;
 * the same key with another method, path or body is a 400. With the sandbox's
 * replay turned off the header is ignored, like a server without that help.
 * `create` returns the JSON body of a 201.
 */
export function createIdempotently(
  ctx: SandboxContext,
  request: FastifyRequest,
  reply: FastifyReply,
  business: Business,
  now: number,
  create: () => string,
): FastifyReply {
  const {store} = ctx
  const key = ctx.replay ? idempotencyKey(request) : undefined
  if (key === undefined) return sendJson(reply, 201, create())
  const fingerprint = createHash('sha256')
    .update(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`)
    .digest('hex')
  const first = store.idempotency.find(business.id, key, now - IDEMPOTENCY_WINDOW_MS)
  if (first) {
    if (first.fingerprint !== fingerprint) {
      throw badRequest(
        `Idempotency-Key ${key} was used in the last 24 hours with a different request; use a new key for a new request.`,
      )
    }
    reply.header('idempotent-replayed', 'true')
    return sendJson(reply, first.statusCode, first.body)
  }
  // The demands and the kept answer commit together.
  const body = store.transaction(() => {
    const created = create()
    store.idempotency.purgeBefore(now - IDEMPOTENCY_WINDOW_MS)
    store.idempotency.save({businessId: business.id, key, fingerprint, statusCode: 201, body: created, createdAt: now})
    return created
  })
  return sendJson(reply, 201, body)
}
