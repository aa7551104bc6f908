import type {SqlDatabase, SqlStatement} from './sql.js'

/** Small key/value settings of one sandbox database (signing secrets and the like). */
export class MetaStore {
  private readonly select: SqlStatement
  private readonly upsert: SqlStatement

  constructor(db: SqlDatabase) {
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
