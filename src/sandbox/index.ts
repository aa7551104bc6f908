import {rmSync} from 'node:fs'
import type {FastifyInstance} from 'fastify'
import {join} from 'node:path'

import type {SandboxBusiness} from '../schemas/business.js'
import type {SandboxStats} from './app.js'
import type {DeliveryOptions} from './events.js'
import {FaultInjector, type FaultOptions, type FaultStats} from './faults.js'
import {QuirkLayer, type QuirkOptions, type QuirkStats} from './quirks.js'
import {DEMO_BUSINESS_ID, SECOND_BUSINESS_ID, seed} from './seed.js'
import {ensureSeedFiles, seedFilesPresent} from './seed-files.js'
import {DB_FILE_NAME, FILES_DIR_NAME, openStore, type SqlDriver, type Store, type StoreLocation} from './store/index.js'
import {otherUsers} from './store/users.js'

export interface SandboxOptions {
  /** TCP port; 0 (default) picks a free one. */
  port?: number
  /** Default 127.0.0.1. */
  host?: string
  /** Keep the database in `<dataDir>/sandbox.db`. */
  dataDir?: string
  /** Keep the database in memory (the default when no dataDir is given). */
  memory?: boolean
  /** Fastify request logging; default false. */
  logger?: boolean
  /**
   * Fault injection: that fraction of write requests (POST, PUT, DELETE) resets the
   * connection, answers 503, answers 429 (`Retry-After: 1`) or commits and then drops
   * the connection, chosen by a PRNG seeded with `seed` (docs/sandbox.md, "Faults").
   */
  faults?: FaultOptions
  /**
   * Quirks: answer the way real services deviate from the interface (create answers,
   * records, lists, errors, 429/503, slowness), never changing what is stored
   * (docs/sandbox.md, "Quirks"). Names from parseQuirkList (src/schemas/quirks.ts).
   */
  quirks?: QuirkOptions
  /**
   * draftId replay and Idempotency-Key handling on create (default true). False makes
   * the sandbox a server without idempotency help: a repeated draftId creates a duplicate.
   */
  replay?: boolean
  /**
   * Webhook delivery tuning (docs/sandbox.md, "Webhooks"): `retryBaseMs` (1000),
   * `timeoutMs` (10000), `maxAttempts` (8), `drainMs` (2000, how long close() lets
   * in-flight deliveries finish before they are cut, as failed attempts). Tests shorten the back-off.
   */
  webhooks?: DeliveryOptions
  /** Epoch ms clock of the app (links, timestamps); tests may pass a fake one. */
  clock?: () => number
  /** The SQLite driver: node:sqlite unless a benchmark compares another (bench/sqlite-drivers.ts). */
  driver?: SqlDriver
}

export interface RunningSandbox {
  /** Base URL without trailing slash, e.g. http://127.0.0.1:43121. */
  url: string
  /** Seeded businesses with their credentials, demo business first. */
  businesses: SandboxBusiness[]
  /** Faults injected so far, by kind (also at `GET /__sandbox/stats`). */
  faultStats(): FaultStats
  /** What the quirks did so far; undefined when none is on (also at `GET /__sandbox/stats`). */
  quirkStats(): QuirkStats | undefined
  close(): Promise<void>
}

function location(opts: SandboxOptions): StoreLocation {
  if (opts.dataDir !== undefined && opts.memory !== true) return {dataDir: opts.dataDir}
  return {memory: true}
}

/**
 * Seeds a new store and adds any seeded file that is missing. Several processes
 * may open the same new file at once (CLIs sharing one embedded home), each
 * seeing it empty: whether to seed is decided again under the write lock, so
 * exactly one of them seeds and the others find its businesses and files.
 */
export function seedStore(store: Store): void {
  if (!store.fresh && seedFilesPresent(store, DEMO_BUSINESS_ID, SECOND_BUSINESS_ID)) return
  store.transaction(() => {
    if (store.businesses.all().length === 0) seed(store)
    ensureSeedFiles(store, DEMO_BUSINESS_ID, SECOND_BUSINESS_ID, Date.now())
  })
}

/** Opens a store and seeds it when it is new (seedStore). */
export function openSeededStore(where: StoreLocation, driver?: SqlDriver): Store {
  const store = openStore(where, driver)
  try {
    seedStore(store)
  } catch (error) {
    store.close()
    throw error
  }
  return store
}

/** The businesses of a store with their first API key, as `startSandbox` reports them. */
export function sandboxBusinesses(store: Store): SandboxBusiness[] {
  return store.businesses.all().map((b) => ({
    id: b.id,
    name: b.name,
    apiKey: store.businesses.apiKeys(b.id)[0] ?? '',
    authToken: b.authToken,
    webhookAccess: b.webhookAccess,
  }))
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host
}

/** Starts the sandbox: opens (and on first use seeds) the database, then listens. */
export async function startSandbox(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  const faults = new FaultInjector(opts.faults)
  const quirks = opts.quirks && opts.quirks.names.length > 0 ? new QuirkLayer(opts.quirks) : undefined
  // Loaded here, not at the top: `sandbox reset` and `doctor` use this module without fastify.
  const {buildApp} = await import('./app.js')
  const store = openSeededStore(location(opts), opts.driver)
  const app = buildApp(store, {
    logger: opts.logger ?? false,
    faults,
    ...(quirks ? {quirks} : {}),
    replay: opts.replay ?? true,
    ...(opts.webhooks ? {webhooks: opts.webhooks} : {}),
    ...(opts.clock ? {clock: opts.clock} : {}),
  })
  const host = opts.host ?? '127.0.0.1'
  try {
    await app.listen({port: opts.port ?? 0, host})
  } catch (error) {
    await app.close().catch(() => undefined)
    store.close()
    throw error
  }
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : (opts.port ?? 0)
  let closing: Promise<void> | undefined
  return {
    url: `http://${urlHost(host)}:${port}`,
    businesses: sandboxBusinesses(store),
    faultStats: () => faults.stats(),
    quirkStats: () => quirks?.stats(),
    close() {
      closing ??= closeApp(app).then(() => store.close())
      return closing
    },
  }
}

/** How long close() lets requests in flight finish before it drops their connections. */
const CLOSE_GRACE_MS = 2000

/**
 * Closes the server. Idle keep-alive connections close at once; a request still
 * in flight gets CLOSE_GRACE_MS to finish, then its connection is dropped, so a
 * client that stopped reading a response (a cut download) cannot hold close() open.
 */
async function closeApp(app: FastifyInstance): Promise<void> {
  const timer = setTimeout(() => app.server.closeAllConnections(), CLOSE_GRACE_MS)
  try {
    await app.close()
  } finally {
    clearTimeout(timer)
  }
}

/** A reset refused because other processes have the sandbox open; `pids` names them. */
export class SandboxInUseError extends Error {
  readonly exitCode = 1
  readonly code = 'sandbox_in_use'
  constructor(readonly pids: number[]) {
    super(
      `the sandbox is open in ${pids.length === 1 ? 'process' : 'processes'} ${pids.join(', ')} (a sandbox serve, a demand watch or another command); stop ${pids.length === 1 ? 'it' : 'them'} first, or its writes would go to a database that is no longer there. Nothing was changed.`,
    )
  }
}

/**
 * Wipes the sandbox database in `dataDir` (with its WAL files) and its stored files, and seeds a new one.
 * Refused (SandboxInUseError) while another process has it open.
 */
export async function resetSandbox(dataDir: string): Promise<void> {
  const users = otherUsers(dataDir)
  if (users.length > 0) throw new SandboxInUseError(users)
  const file = join(dataDir, DB_FILE_NAME)
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(file + suffix, {force: true})
  rmSync(join(dataDir, FILES_DIR_NAME), {recursive: true, force: true})
  openSeededStore({dataDir}).close()
}

export {inspectDatabase, type DatabaseInspection} from './store/integrity.js'
export type {DeliveryOptions} from './events.js'
export {FAULT_KINDS, FaultPlan, type FaultKind, type FaultOptions, type FaultStats} from './faults.js'
export {QUIRK_SEED, type QuirkOptions, type QuirkStats} from './quirks.js'
export {ALL_QUIRKS, QUIRKS, QuirkListError, parseQuirkList, type QuirkName} from '../schemas/quirks.js'
export type {SandboxStats}
export type {Store} from './store/index.js'
