import Database from 'better-sqlite3'

import {SCHEMA_VERSION} from './schema.js'

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
 * Opens the database read-only and runs SQLite's own consistency checks. A file
 * SQLite cannot read at all ("file is not a database") throws; the caller
 * reports that as corruption too.
 */
export function inspectDatabase(file: string): DatabaseInspection {
  const db = new Database(file, {readonly: true, fileMustExist: true})
  try {
    db.pragma('busy_timeout = 2000')
    const lines = (pragma: string): string[] =>
      (db.pragma(`${pragma}(${MAX_PROBLEMS})`) as Record<string, unknown>[]).map((row) => String(Object.values(row)[0]))
    return {
      quickCheck: lines('quick_check'),
      integrityCheck: lines('integrity_check'),
      schemaVersion: db.pragma('user_version', {simple: true}) as number,
      expectedSchemaVersion: SCHEMA_VERSION,
    }
  } finally {
    db.close()
  }
}
