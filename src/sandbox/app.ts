import Fastify, {type FastifyInstance} from 'fastify'

import {errorHandler, notFoundHandler} from './errors.js'
import {randomSecret} from './ids.js'
import {v1Routes} from './routes/v1.js'
import {v2Routes} from './routes/v2.js'
import type {Store} from './store/index.js'

/** JSON bodies up to 10 MiB (contract, Limits). */
export const BODY_LIMIT = 10 * 1024 * 1024

export interface AppOptions {
  logger?: boolean
  /** Epoch ms; tests may pass a fake clock. */
  clock?: () => number
}

/** What every route plugin gets. */
export interface SandboxContext {
  store: Store
  clock: () => number
  /** Signs payment auth tokens (and later file links); kept in the database. */
  signingSecret: string
}

/** The signing secret of this database, created on first use. */
export function signingSecret(store: Store): string {
  let secret = store.meta.get('signing_secret')
  if (!secret) {
    secret = randomSecret(32)
    store.meta.set('signing_secret', secret)
  }
  return secret
}

/** Builds the sandbox's HTTP app over a store, without listening. */
export function buildApp(store: Store, opts: AppOptions = {}): FastifyInstance {
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: BODY_LIMIT,
    forceCloseConnections: 'idle',
    routerOptions: {ignoreTrailingSlash: true, maxParamLength: 500},
  })
  const ctx: SandboxContext = {store, clock: opts.clock ?? Date.now, signingSecret: signingSecret(store)}
  app.setErrorHandler(errorHandler(BODY_LIMIT))
  app.setNotFoundHandler(notFoundHandler)
  app.register(async (v1) => v1Routes(v1, ctx), {prefix: '/api/public/v1'})
  app.register(async (v2) => v2Routes(v2, ctx), {prefix: '/api/v2'})
  return app
}
