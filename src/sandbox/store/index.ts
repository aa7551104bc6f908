import {closeSync, existsSync, mkdirSync, openSync, chmodSync} from 'node:fs'
import {join} from 'node:path'

import Database from 'better-sqlite3'

import {AllowanceStore} from './allowance.js'
import {BusinessStore} from './businesses.js'
import {CatalogStore} from './catalog.js'
import {DemandStore} from './demands.js'
import {IdempotencyStore} from './idempotency.js'
import {MetaStore} from './meta.js'
import {migrate} from './schema.js'
import {WebhookStore} from './webhooks.js'

export const DB_FILE_NAME = 'sandbox.db'

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
  /** True when this database was created by this open (it needs seeding). */
  readonly fresh: boolean
  private closed = false

  constructor(
    readonly db: Database.Database,
    fresh: boolean,
  ) {
    this.fresh = fresh
    this.businesses = new BusinessStore(db)
    this.demands = new DemandStore(db)
    this.catalog = new CatalogStore(db)
    this.idempotency = new IdempotencyStore(db)
    this.webhooks = new WebhookStore(db)
    this.meta = new MetaStore(db)
    this.allowance = new AllowanceStore(db)
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
  }
}

/**
 * Opens (creating when needed) the sandbox database: `<dataDir>/sandbox.db`, with
 * the directory at mode 0700 and the file at 0600 before SQLite first touches it,
 * or an in-memory database.
 */
export function openStore(location: StoreLocation): Store {
  let db: Database.Database
  if ('memory' in location) {
    db = new Database(':memory:')
  } else {
    mkdirSync(location.dataDir, {recursive: true, mode: 0o700})
    const file = join(location.dataDir, DB_FILE_NAME)
    if (!existsSync(file)) closeSync(openSync(file, 'wx', 0o600))
    chmodSync(file, 0o600)
    db = new Database(file)
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
  }
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  try {
    migrate(db)
    const fresh = (db.prepare('SELECT COUNT(*) AS n FROM businesses').get() as {n: number}).n === 0
    return new Store(db, fresh)
  } catch (error) {
    db.close()
    throw error
  }
}
