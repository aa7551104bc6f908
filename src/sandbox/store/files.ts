import type {SqlDatabase, SqlStatement} from './sql.js'

/** A stored file's metadata; its bytes are `<fileDir>/<blob>`. */
export interface StoredFile {
  key: string
  businessId: string
  blob: string
  originalName: string
  contentType: string
  size: number
  createdAt: number
}

interface Row {
  key: string
  business_id: string
  blob: string
  original_name: string
  content_type: string
  size: number
  created_at: number
}

const fromRow = (row: Row): StoredFile => ({
  key: row.key,
  businessId: row.business_id,
  blob: row.blob,
  originalName: row.original_name,
  contentType: row.content_type,
  size: row.size,
  createdAt: row.created_at,
})

/** Signed-link grants are kept this long after they expire, to explain a tampered link. */
const GRANT_RETENTION_S = 24 * 60 * 60

/** File metadata and the signed-link grants issued for files. */
export class FileStore {
  private readonly insertRow: SqlStatement
  private readonly selectByKey: SqlStatement
  private readonly insertGrant: SqlStatement
  private readonly selectGrant: SqlStatement
  private readonly purgeGrants: SqlStatement

  constructor(db: SqlDatabase) {
    this.insertRow =
      db.prepare(`INSERT INTO files (key, business_id, blob, original_name, content_type, size, created_at)
      VALUES (@key, @business_id, @blob, @original_name, @content_type, @size, @created_at)`)
    this.selectByKey = db.prepare('SELECT * FROM files WHERE key = ?')
    this.insertGrant = db.prepare('INSERT OR IGNORE INTO file_grants (signature, key, expires) VALUES (?, ?, ?)')
    this.selectGrant = db.prepare('SELECT key, expires FROM file_grants WHERE signature = ?')
    this.purgeGrants = db.prepare('DELETE FROM file_grants WHERE expires < ?')
  }

  insert(file: StoredFile): void {
    this.insertRow.run({
      key: file.key,
      business_id: file.businessId,
      blob: file.blob,
      original_name: file.originalName,
      content_type: file.contentType,
      size: file.size,
      created_at: file.createdAt,
    })
  }

  byKey(key: string): StoredFile | undefined {
    const row = this.selectByKey.get(key) as Row | undefined
    return row && fromRow(row)
  }

  /** Remembers an issued link (and forgets links expired for a day). */
  addGrant(signature: string, key: string, expires: number, nowS: number): void {
    this.purgeGrants.run(nowS - GRANT_RETENTION_S)
    this.insertGrant.run(signature, key, expires)
  }

  grant(signature: string): {key: string; expires: number} | undefined {
    return this.selectGrant.get(signature) as {key: string; expires: number} | undefined
  }
}
