import type {SqlDatabase, SqlStatement} from './sql.js'

/** A first answer kept for an `Idempotency-Key` replay. */
export interface IdempotentAnswer {
  businessId: string
  key: string
  /** Hash of method, path and body of the first request. */
  fingerprint: string
  statusCode: number
  body: string
  createdAt: number
}

interface Row {
  business_id: string
  key: string
  fingerprint: string
  status_code: number
  body: string
  created_at: number
}

export class IdempotencyStore {
  private readonly select: SqlStatement
  private readonly insert: SqlStatement
  private readonly purge: SqlStatement

  constructor(db: SqlDatabase) {
    this.select = db.prepare('SELECT * FROM idempotency_keys WHERE business_id = ? AND key = ? AND created_at >= ?')
    // A stale row (older than the window) may still hold the primary key: replace it.
    this.insert =
      db.prepare(`INSERT OR REPLACE INTO idempotency_keys (business_id, key, fingerprint, status_code, body, created_at)
      VALUES (@business_id, @key, @fingerprint, @status_code, @body, @created_at)`)
    this.purge = db.prepare('DELETE FROM idempotency_keys WHERE created_at < ?')
  }

  /** The answer stored for this key at or after `since` (epoch ms). */
  find(businessId: string, key: string, since: number): IdempotentAnswer | undefined {
    const row = this.select.get(businessId, key, since) as Row | undefined
    if (!row) return undefined
    return {
      businessId: row.business_id,
      key: row.key,
      fingerprint: row.fingerprint,
      statusCode: row.status_code,
      body: row.body,
      createdAt: row.created_at,
    }
  }

  save(answer: IdempotentAnswer): void {
    this.insert.run({
      business_id: answer.businessId,
      key: answer.key,
      fingerprint: answer.fingerprint,
      status_code: answer.statusCode,
      body: answer.body,
      created_at: answer.createdAt,
    })
  }

  /** Drops answers older than `before` (epoch ms), so the table stays small. */
  purgeBefore(before: number): number {
    return this.purge.run(before).changes
  }
}
