// The sandbox's only contact with SQLite. The store's modules see the small
// interfaces below; the product opens databases with Node's built-in
// node:sqlite, which needs no native module of ours. A driver is a seam, not a
// plug-in point: bench/ passes a better-sqlite3 adapter through it to compare the two.
import type {DatabaseSync} from 'node:sqlite'

/** What a statement binds and reads: never a boolean (node:sqlite on Node 22 refuses to bind one). */
export type SqlValue = null | number | bigint | string | Uint8Array

/** Positional parameters (`?`), or one object of named ones (`@name` in the SQL, bare `name` keys). */
export type SqlParams = SqlValue[] | [Record<string, SqlValue>]

/**
 * A prepared statement. A row is an object keyed by column name (without a
 * prototype under node:sqlite); the store's modules say which columns they
 * selected. Integers come back as numbers: nothing turns on bigint reads.
 */
export interface SqlStatement {
  run(...params: SqlParams): {changes: number; lastInsertRowid: number | bigint}
  /** The first row, or undefined. */
  get(...params: SqlParams): unknown
  all(...params: SqlParams): unknown[]
}

export interface SqlDatabase {
  prepare(sql: string): SqlStatement
  /** A scalar SQL function written in JavaScript (both drivers' `function`). */
  function(name: string, options: {deterministic: boolean}, fn: (...args: SqlValue[]) => SqlValue): void
  exec(sql: string): void
  close(): void
}

export interface SqlDriver {
  readonly name: string
  /**
   * Opens a database file, creating it when missing, or `:memory:`. With
   * `readOnly` the file must exist and nothing is ever written to it.
   */
  open(location: string, options?: {readOnly?: boolean}): SqlDatabase
}

type NodeSqlite = typeof import('node:sqlite')
let nodeSqlite: NodeSqlite | undefined

const EXPERIMENTAL_SQLITE = /^SQLite is an experimental feature/

/**
 * node:sqlite, loaded on first use. Node 22 announces it with an
 * ExperimentalWarning on stderr as it loads; exactly that warning is held back
 * (Node emits it once, synchronously, while the module loads), every other
 * warning passes through unchanged.
 */
function loadNodeSqlite(): NodeSqlite {
  if (nodeSqlite) return nodeSqlite
  const emitWarning = process.emitWarning
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as {type?: string} | undefined)?.type
    const name = typeof warning === 'string' ? type : warning.name
    const message = typeof warning === 'string' ? warning : warning.message
    if (name === 'ExperimentalWarning' && EXPERIMENTAL_SQLITE.test(message)) return
    return (emitWarning as (...args: unknown[]) => void).call(this, warning, ...rest)
  } as typeof process.emitWarning
  let loaded: NodeSqlite | undefined
  try {
    loaded = process.getBuiltinModule('node:sqlite') as NodeSqlite | undefined
  } finally {
    process.emitWarning = emitWarning
  }
  // Before Node 22.13 node:sqlite needs a flag (and Node 20 has none): say so rather than fail on undefined.
  if (!loaded)
    throw new Error(`The sandbox needs node:sqlite, built into Node 22.13 and later; this is Node ${process.version}.`)
  return (nodeSqlite = loaded)
}

/** The product's driver: Node's built-in node:sqlite. */
export const nodeSqliteDriver: SqlDriver = {
  name: 'node:sqlite',
  open(location, options = {}): SqlDatabase {
    const {DatabaseSync} = loadNodeSqlite()
    const db: DatabaseSync = new DatabaseSync(location, {readOnly: options.readOnly ?? false})
    // Its statements take SqlParams as they are (named ones bare, the default) and,
    // with bigint reads off, count `changes` in numbers: the cast only merges overloads.
    return db as SqlDatabase
  },
}

/** The first column of a statement's first row: a pragma's value such as `user_version`. */
export function scalar(db: SqlDatabase, sql: string): SqlValue | undefined {
  const row = db.prepare(sql).get() as Record<string, SqlValue> | undefined
  return row === undefined ? undefined : Object.values(row)[0]
}

/** The first column of every row, as text: the lines of `PRAGMA quick_check` and the like. */
export function column(db: SqlDatabase, sql: string): string[] {
  return (db.prepare(sql).all() as Record<string, SqlValue>[]).map((row) => String(Object.values(row)[0]))
}

/** SQLite's primary result codes by number (the low byte of an extended code). */
const RESULT_CODES = [
  'OK',
  'ERROR',
  'INTERNAL',
  'PERM',
  'ABORT',
  'BUSY',
  'LOCKED',
  'NOMEM',
  'READONLY',
  'INTERRUPT',
  'IOERR',
  'CORRUPT',
  'NOTFOUND',
  'FULL',
  'CANTOPEN',
  'PROTOCOL',
  'EMPTY',
  'SCHEMA',
  'TOOBIG',
  'CONSTRAINT',
  'MISMATCH',
  'MISUSE',
  'NOLFS',
  'AUTH',
  'FORMAT',
  'RANGE',
  'NOTADB',
]

/**
 * SQLite's name for what went wrong, such as `SQLITE_NOTADB` or `SQLITE_BUSY`,
 * or undefined for an error that did not come from SQLite. node:sqlite gives the
 * number (`errcode`) under the generic code ERR_SQLITE_ERROR.
 */
export function sqliteCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const {code, errcode} = error as {code?: unknown; errcode?: unknown}
  if (typeof errcode === 'number') return `SQLITE_${RESULT_CODES[errcode & 0xff] ?? errcode & 0xff}`
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined
}

/** Transactions open on each database (0 or 1; deeper calls are savepoints). */
const depth = new WeakMap<SqlDatabase, number>()

/**
 * Runs `fn` in a transaction and answers what it returns: committed when it
 * returns, rolled back when it throws. Nested calls become savepoints, so an
 * inner failure the caller catches undoes only the inner work. `immediate`
 * takes the write lock at BEGIN, so a read-then-write cannot interleave with
 * another connection writing the same file (which waits up to the busy
 * timeout for the lock). `fn` must be synchronous: SQLite's transaction
 * cannot span an await.
 */
export function transaction<T>(db: SqlDatabase, fn: () => T, mode: 'deferred' | 'immediate' = 'deferred'): T {
  const level = depth.get(db) ?? 0
  const savepoint = `mfg_tx_${level}`
  db.exec(level === 0 ? `BEGIN ${mode === 'immediate' ? 'IMMEDIATE' : 'DEFERRED'}` : `SAVEPOINT ${savepoint}`)
  depth.set(db, level + 1)
  let result: T
  try {
    result = fn()
    if (result instanceof Promise) throw new TypeError('a transaction function must not return a promise')
  } catch (error) {
    depth.set(db, level)
    if (level === 0) rollback(db, 'ROLLBACK')
    else rollback(db, `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`)
    throw error
  }
  depth.set(db, level)
  if (level > 0) {
    db.exec(`RELEASE ${savepoint}`)
    return result
  }
  try {
    db.exec('COMMIT')
  } catch (error) {
    // A failed COMMIT may leave the transaction open: end it, so the connection stays usable.
    rollback(db, 'ROLLBACK')
    throw error
  }
  return result
}

/** Undoes a transaction or savepoint; SQLite may already have rolled back on its own (then there is nothing to undo). */
function rollback(db: SqlDatabase, sql: string): void {
  try {
    db.exec(sql)
  } catch {
    // "no transaction is active" / "no such savepoint": SQLite ended it itself (a full disk, an interrupt).
  }
}
