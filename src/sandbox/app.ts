import Fastify, {type FastifyInstance} from 'fastify'

import {BODY_LIMIT} from '../schemas/common.js'
import {MAX_JSON_DEPTH, nestedDeeperThan} from '../schemas/depth.js'

import {badRequest, errorHandler, notFoundHandler, sendError} from './errors.js'
import {DeliveryWorker, type DeliveryOptions} from './events.js'
import {FaultInjector, type FaultStats} from './faults.js'
import {QuirkLayer, type QuirkStats} from './quirks.js'
import {signingSecret, type SandboxContext} from './context.js'
import {fileHostRoutes, v1FileRoutes, v2FileRoutes} from './routes/files.js'
import {postRoutes} from './routes/posts.js'
import {pricingRoutes} from './routes/pricing.js'
import {v1Routes} from './routes/v1.js'
import {v2Routes} from './routes/v2.js'
import {webhookRoutes} from './routes/webhooks.js'
import type {Store} from './store/index.js'

/** Request bodies nest at most this many levels (schemas/depth.ts). */
export const MAX_BODY_DEPTH = MAX_JSON_DEPTH

export interface AppOptions {
  logger?: boolean
  /** Epoch ms; tests may pass a fake clock. */
  clock?: () => number
  /** Fault injection on write requests (see faults.ts); none by default. */
  faults?: FaultInjector
  /** Answers the way real services deviate (see quirks.ts); none by default. */
  quirks?: QuirkLayer
  /** draftId replay and Idempotency-Key handling on create; default true. */
  replay?: boolean
  /** Origin of signed file links; default the origin each request reached (the sandbox itself). */
  fileHost?: string
  /** Webhook delivery: back-off base, timeout, attempts, drain on close (events.ts). */
  webhooks?: DeliveryOptions
}

/** What `GET /__sandbox/stats` answers. */
export interface SandboxStats {
  replay: boolean
  faults: FaultStats
  /** Only when quirks are on, so the faithful sandbox answers as it always has. */
  quirks?: QuirkStats
}

/** The sandbox's own routes live under this prefix, outside /api, without authentication. */
export const SANDBOX_ROUTES_PREFIX = '/__sandbox'

/** Builds the sandbox's HTTP app over a store, without listening. */
export function buildApp(store: Store, opts: AppOptions = {}): FastifyInstance {
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: BODY_LIMIT,
    forceCloseConnections: 'idle',
    routerOptions: {ignoreTrailingSlash: true, maxParamLength: 500},
    // Errors raised before routing (a malformed percent-escape in the path) get the contract body too.
    frameworkErrors: (error, request, reply) => {
      if (error.code === 'FST_ERR_BAD_URL')
        return sendError(reply, 400, 'The request path is not valid: it holds a malformed %-escape.')
      return errorHandler(BODY_LIMIT)(error, request, reply)
    },
  })
  const ctx: SandboxContext = {
    store,
    clock: opts.clock ?? Date.now,
    signingSecret: signingSecret(store),
    replay: opts.replay ?? true,
    ...(opts.fileHost !== undefined ? {fileHost: opts.fileHost.replace(/\/+$/, '')} : {}),
  }
  // Webhook deliveries run while the app is up; close() stops them (no timers left).
  const deliveries = new DeliveryWorker(store, opts.webhooks)
  app.addHook('onReady', async () => deliveries.start())
  app.addHook('onClose', async () => deliveries.stop())
  const faults = opts.faults ?? new FaultInjector()
  app.setErrorHandler(errorHandler(BODY_LIMIT))
  app.setNotFoundHandler(notFoundHandler)
  // First, so a fault is drawn before authentication and applies to every write route.
  faults.register(app)
  // After the faults, so their answers are reshaped like every other one.
  opts.quirks?.register(app)
  app.addHook('preValidation', async (request) => {
    if (nestedDeeperThan(request.body, MAX_BODY_DEPTH))
      throw badRequest(`The body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep.`)
  })
  app.get(`${SANDBOX_ROUTES_PREFIX}/stats`, async (): Promise<SandboxStats> => ({
    replay: ctx.replay,
    faults: faults.stats(),
    ...(opts.quirks ? {quirks: opts.quirks.stats()} : {}),
  }))
  app.register(async (v1) => v1Routes(v1, ctx), {prefix: '/api/public/v1'})
  app.register(async (v2) => v2Routes(v2, ctx), {prefix: '/api/v2'})
  app.register(async (pricing) => pricingRoutes(pricing, ctx))
  app.register(async (v2) => postRoutes(v2, ctx), {prefix: '/api/v2'})
  app.register(async (v2) => webhookRoutes(v2, ctx), {prefix: '/api/v2'})
  app.register(async (v2) => v2FileRoutes(v2, ctx), {prefix: '/api/v2'})
  app.register(async (v1) => v1FileRoutes(v1, ctx), {prefix: '/api/public/v1'})
  app.register(async (files) => fileHostRoutes(files, ctx))
  app.register(async (mcp) => (await import('./routes/mcp.js')).mcpRoutes(mcp, ctx))
  return app
}
