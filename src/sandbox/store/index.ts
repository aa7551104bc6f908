import {closeSync, mkdirSync, mkdtempSync, openSync, chmodSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {fileReason} from '../../util/file-reason.js'

import {AllowanceStore} from './allowance.js'
import {BusinessStore} from './businesses.js'
import {CatalogStore} from './catalog.js'
import {DeliveryStore} from './deliveries.js'
import {DemandStore} from './demands.js'
import {FileStore} from './files.js'
import {IdempotencyStore} from './idempotency.js'
import {MetaStore} from './meta.js'
import {PostStore} from './posts.js'
import {migrate} from './schema.js'
import {registerUser} from './users.js'
import {nodeSqliteDriver, scalar, transaction, type SqlDatabase, type SqlDriver} from './sql.js'
import {WebhookStore} from './webhooks.js'

export const DB_FILE_NAME = 'sandbox.db'
/** Stored files live in `<dataDir>/files`, one file per blob id. */
export const FILES_DIR_NAME = 'files'

export type StoreLocation = {dataDir: string} | {memory: true}

/** The sandbox's persistence: one SQLite database and a module per entity. */
export class Store {
  readonly businesses: BusinessStore
  readonly demands: DemandStore
  readonly catalog: CatalogStore
  readonly idempotency: IdempotencyStore
  readonly webhooks: WebhookStore
  readonly meta: MetaStore
  readonly allowance: AllowanceStore
  readonly posts: PostStore
  readonly files: FileStore
  readonly deliveries: DeliveryStore
  /** Directory of the stored files' bytes (a temporary one for a memory store, removed on close). */
  readonly fileDir: string
  /** True when this database was created by this open (it needs seeding). */
  readonly fresh: boolean
  private closed = false
  private readonly temporaryFileDir: boolean

  constructor(
    readonly db: SqlDatabase,
    fresh: boolean,
    fileDir: {path: string; temporary: boolean},
    private readonly release: () => void = () => undefined,
  ) {
    this.fresh = fresh
    this.fileDir = fileDir.path
    this.temporaryFileDir = fileDir.temporary
    this.businesses = new BusinessStore(db)
    this.demands = new DemandStore(db)
    this.catalog = new CatalogStore(db)
    this.idempotency = new IdempotencyStore(db)
    this.webhooks = new WebhookStore(db)
    this.meta = new MetaStore(db)
    this.allowance = new AllowanceStore(db)
    this.posts = new PostStore(db)
    this.files = new FileStore(db)
    this.deliveries = new DeliveryStore(db)
  }

  /**
   * Runs `fn` in one transaction (nested calls become savepoints). It takes the
   * write lock at BEGIN (IMMEDIATE), so a read-then-insert such as the draftId
   * replay check cannot interleave with another process writing the same file.
   */
  transaction<T>(fn: () => T): T {
    return transaction(this.db, fn, 'immediate')
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    this.db.close()
    this.release()
    if (this.temporaryFileDir) rmSync(this.fileDir, {recursive: true, force: true})
  }
}

/** How long a statement waits for another connection's lock before failing with "database is locked". */
export const BUSY_TIMEOUT_MS = 5000

/**
 * Opens (creating when needed) the sandbox database: `<dataDir>/sandbox.db`, with
 * the directory at mode 0700 and the file at 0600 before SQLite first touches it,
 * and `<dataDir>/files` for stored files; or an in-memory database with a temporary
 * file directory that close() removes. A file database is in WAL mode with
 * `synchronous = NORMAL`; several processes may open the same file at once.
 * `driver` is node:sqlite unless a benchmark passes another.
 */
export function openStore(location: StoreLocation, driver: SqlDriver = nodeSqliteDriver): Store {
  let db: SqlDatabase
  let fileDir: {path: string; temporary: boolean}
  const memory = 'memory' in location
  if (memory) {
    fileDir = {path: mkdtempSync(join(tmpdir(), 'mfg-sandbox-files-')), temporary: true}
    try {
      db = driver.open(':memory:')
    } catch (error) {
      rmSync(fileDir.path, {recursive: true, force: true})
      throw error
    }
  } else {
    const file = join(location.dataDir, DB_FILE_NAME)
    fileDir = {path: join(location.dataDir, FILES_DIR_NAME), temporary: false}
    try {
      mkdirSync(location.dataDir, {recursive: true, mode: 0o700})
      try {
        closeSync(openSync(file, 'wx', 0o600))
      } catch (error) {
        // Already there (perhaps created a moment ago by another process opening it too).
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
      chmodSync(file, 0o600)
      mkdirSync(fileDir.path, {recursive: true, mode: 0o700})
    } catch (error) {
      throw new SandboxDataError(location.dataDir, error)
    }
    db = driver.open(file)
  }
  try {
    // First the busy timeout: turning a new file to WAL takes a lock another process may hold.
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
    if (!memory) {
      db.exec('PRAGMA journal_mode = WAL')
      db.exec('PRAGMA synchronous = NORMAL')
    }
    db.exec('PRAGMA foreign_keys = ON')
    migrate(db)
    const fresh = scalar(db, 'SELECT COUNT(*) FROM businesses') === 0
    return new Store(db, fresh, fileDir, memory ? undefined : registerUser(location.dataDir))
  } catch (error) {
    db.close()
    if (fileDir.temporary) rmSync(fileDir.path, {recursive: true, force: true})
    throw error
  }
}

/**
 * The sandbox's data directory cannot be made or written (a home that is read-only or
 * another user's, a path under a file): said with the directory and what chooses it.
 */
export class SandboxDataError extends Error {
  readonly exitCode = 1
  readonly code = 'sandbox_data_unwritable'
  constructor(
    readonly dataDir: string,
    cause: unknown,
  ) {
    super(
      `cannot keep the sandbox data in ${dataDir}: ${fileReason(cause, true)} (MFG_HOME chooses where mfg keeps its files; sandbox serve also takes --data-dir or --memory).`,
    )
    this.name = 'SandboxDataError'
  }
}

export type {SqlDatabase, SqlDriver} from './sql.js'
