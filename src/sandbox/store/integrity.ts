import {SCHEMA_VERSION, schemaVersion} from './schema.js'
import {column, nodeSqliteDriver, sqliteCode, type SqlDriver} from './sql.js'

/** What `mfg doctor` learns about a sandbox database file without changing it. */
export interface DatabaseInspection {
  /** `PRAGMA quick_check`: `['ok']` for a sound file, else SQLite's problem lines. */
  quickCheck: string[]
  /** `PRAGMA integrity_check`: the thorough version (indexes against tables too). */
  integrityCheck: string[]
  /** `PRAGMA user_version`: the number of migrations applied. */
  schemaVersion: number
  /** The number of migrations this program knows. */
  expectedSchemaVersion: number
}

/** At most this many problem lines per pragma: a badly damaged file can list thousands. */
const MAX_PROBLEMS = 10

/**
 * Opens the database read-only (it must exist) and runs SQLite's own
 * consistency checks. A file SQLite cannot read at all throws an error whose
 * `code` is SQLite's name for it (`SQLITE_NOTADB` for "file is not a database",
 * `SQLITE_CORRUPT`, `SQLITE_CANTOPEN`...); the caller reports the first two as
 * corruption.
 */
export function inspectDatabase(file: string, driver: SqlDriver = nodeSqliteDriver): DatabaseInspection {
  try {
    const db = driver.open(file, {readOnly: true})
    try {
      db.exec('PRAGMA busy_timeout = 2000')
      return {
        quickCheck: column(db, `PRAGMA quick_check(${MAX_PROBLEMS})`),
        integrityCheck: column(db, `PRAGMA integrity_check(${MAX_PROBLEMS})`),
        schemaVersion: schemaVersion(db),
        expectedSchemaVersion: SCHEMA_VERSION,
      }
    } finally {
      db.close()
    }
  } catch (error) {
    const code = sqliteCode(error)
    if (code === undefined || !(error instanceof Error)) throw error
    throw Object.assign(new Error(error.message, {cause: error}), {code})
  }
}
