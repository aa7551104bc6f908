import type Database from 'better-sqlite3'

/** Small key/value settings of one sandbox database (signing secrets and the like). */
export class MetaStore {
  private readonly select: Database.Statement
  private readonly upsert: Database.Statement

  constructor(db: Database.Database) {
    this.select = db.prepare('SELECT value FROM meta WHERE key = ?')
    this.upsert = db.prepare(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    )
  }

  get(key: string): string | undefined {
    return (this.select.get(key) as {value: string} | undefined)?.value
  }

  set(key: string, value: string): void {
    this.upsert.run(key, value)
  }
}
