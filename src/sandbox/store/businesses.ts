import type {SqlDatabase, SqlStatement} from './sql.js'

/** A manufacturer account of the sandbox. */
export interface Business {
  id: string
  name: string
  currency: string
  webhookAccess: boolean
  /** The value a by-product order's `referral` must carry. */
  referral: string
  /** The v2 `X-Auth-Token` of the business. */
  authToken: string
  position: number
  createdAt: string
}

interface BusinessRow {
  id: string
  name: string
  currency: string
  webhook_access: number
  referral: string
  auth_token: string
  position: number
  created_at: string
}

function fromRow(row: BusinessRow): Business {
  return {
    id: row.id,
    name: row.name,
    currency: row.currency,
    webhookAccess: row.webhook_access === 1,
    referral: row.referral,
    authToken: row.auth_token,
    position: row.position,
    createdAt: row.created_at,
  }
}

export class BusinessStore {
  private readonly insertBusiness: SqlStatement
  private readonly insertKey: SqlStatement
  private readonly selectById: SqlStatement
  private readonly selectAll: SqlStatement
  private readonly selectByApiKey: SqlStatement
  private readonly selectKeys: SqlStatement

  constructor(db: SqlDatabase) {
    this.insertBusiness =
      db.prepare(`INSERT INTO businesses (id, name, currency, webhook_access, referral, auth_token, position, created_at)
      VALUES (@id, @name, @currency, @webhook_access, @referral, @auth_token, @position, @created_at)`)
    this.insertKey = db.prepare('INSERT INTO api_keys (key, business_id, created_at) VALUES (?, ?, ?)')
    this.selectById = db.prepare('SELECT * FROM businesses WHERE id = ?')
    this.selectAll = db.prepare('SELECT * FROM businesses ORDER BY position')
    this.selectByApiKey = db.prepare(
      'SELECT b.* FROM api_keys k JOIN businesses b ON b.id = k.business_id WHERE k.key = ?',
    )
    this.selectKeys = db.prepare('SELECT key FROM api_keys WHERE business_id = ? ORDER BY created_at, rowid')
  }

  insert(business: Business): void {
    this.insertBusiness.run({
      id: business.id,
      name: business.name,
      currency: business.currency,
      webhook_access: business.webhookAccess ? 1 : 0,
      referral: business.referral,
      auth_token: business.authToken,
      position: business.position,
      created_at: business.createdAt,
    })
  }

  addApiKey(key: string, businessId: string, createdAt: string): void {
    this.insertKey.run(key, businessId, createdAt)
  }

  byId(id: string): Business | undefined {
    const row = this.selectById.get(id) as BusinessRow | undefined
    return row && fromRow(row)
  }

  byApiKey(key: string): Business | undefined {
    const row = this.selectByApiKey.get(key) as BusinessRow | undefined
    return row && fromRow(row)
  }

  all(): Business[] {
    return (this.selectAll.all() as BusinessRow[]).map(fromRow)
  }

  apiKeys(businessId: string): string[] {
    return (this.selectKeys.all(businessId) as {key: string}[]).map((r) => r.key)
  }
}
