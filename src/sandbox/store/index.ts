import {closeSync, existsSync, mkdirSync, mkdtempSync, openSync, chmodSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import Database from 'better-sqlite3'

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
    readonly db: Database.Database,
    fresh: boolean,
    fileDir: {path: string; temporary: boolean},
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
    return this.db.transaction(fn).immediate()
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    this.db.close()
    if (this.temporaryFileDir) rmSync(this.fileDir, {recursive: true, force: true})
  }
}

/**
 * Opens (creating when needed) the sandbox database: `<dataDir>/sandbox.db`, with
 * the directory at mode 0700 and the file at 0600 before SQLite first touches it,
 * and `<dataDir>/files` for stored files; or an in-memory database with a temporary
 * file directory that close() removes.
 */
export function openStore(location: StoreLocation): Store {
  let db: Database.Database
  let fileDir: {path: string; temporary: boolean}
  if ('memory' in location) {
    db = new Database(':memory:')
    fileDir = {path: mkdtempSync(join(tmpdir(), 'mfg-sandbox-files-')), temporary: true}
  } else {
    mkdirSync(location.dataDir, {recursive: true, mode: 0o700})
    const file = join(location.dataDir, DB_FILE_NAME)
    if (!existsSync(file)) closeSync(openSync(file, 'wx', 0o600))
    chmodSync(file, 0o600)
    db = new Database(file)
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
    fileDir = {path: join(location.dataDir, FILES_DIR_NAME), temporary: false}
    mkdirSync(fileDir.path, {recursive: true, mode: 0o700})
  }
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  try {
    migrate(db)
    const fresh = (db.prepare('SELECT COUNT(*) AS n FROM businesses').get() as {n: number}).n === 0
    return new Store(db, fresh, fileDir)
  } catch (error) {
    db.close()
    if (fileDir.temporary) rmSync(fileDir.path, {recursive: true, force: true})
    throw error
  }
}
