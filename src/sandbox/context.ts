import {randomSecret} from './ids.js'
import type {Store} from './store/index.js'

// Routes and MCP tools take this, and app.ts builds it: kept apart from app.ts so
// that no route has to import the module that imports every route.

/** What every route plugin gets. */
export interface SandboxContext {
  store: Store
  clock: () => number
  /** Signs payment auth tokens (and later file links); kept in the database. */
  signingSecret: string
  /** draftId replay and Idempotency-Key handling on create. */
  replay: boolean
  /** Origin of signed file links, when fixed (else the request's origin). */
  fileHost?: string
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
