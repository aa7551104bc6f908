import type {SqlDatabase, SqlStatement} from './sql.js'

/** A webhook subscription as stored. */
export interface Webhook {
  id: string
  businessId: string
  url: string
  secret: string
  events: string[]
  useSecret: boolean
  createdAt: number
  updatedAt: number
}

interface Row {
  id: string
  business_id: string
  url: string
  secret: string
  events: string
  use_secret: number
  created_at: number
  updated_at: number
}

function fromRow(row: Row): Webhook {
  return {
    id: row.id,
    businessId: row.business_id,
    url: row.url,
    secret: row.secret,
    events: JSON.parse(row.events) as string[],
    useSecret: row.use_secret === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

export class WebhookStore {
  private readonly insertRow: SqlStatement
  private readonly selectByBusiness: SqlStatement
  private readonly selectById: SqlStatement
  private readonly selectAnyById: SqlStatement
  private readonly updateRow: SqlStatement

  constructor(db: SqlDatabase) {
    this.insertRow =
      db.prepare(`INSERT INTO webhooks (id, business_id, url, secret, events, use_secret, created_at, updated_at)
      VALUES (@id, @business_id, @url, @secret, @events, @use_secret, @created_at, @updated_at)`)
    this.selectByBusiness = db.prepare('SELECT * FROM webhooks WHERE business_id = ? ORDER BY created_at, rowid')
    this.selectById = db.prepare('SELECT * FROM webhooks WHERE business_id = ? AND id = ?')
    this.selectAnyById = db.prepare('SELECT * FROM webhooks WHERE id = ?')
    this.updateRow = db.prepare(
      'UPDATE webhooks SET url = @url, secret = @secret, events = @events, use_secret = @use_secret, updated_at = @updated_at WHERE business_id = @business_id AND id = @id',
    )
  }

  update(webhook: Webhook): void {
    this.updateRow.run({
      id: webhook.id,
      business_id: webhook.businessId,
      url: webhook.url,
      secret: webhook.secret,
      events: JSON.stringify(webhook.events),
      use_secret: webhook.useSecret ? 1 : 0,
      updated_at: webhook.updatedAt,
    })
  }

  /** A subscription by id alone, for the delivery worker. */
  get(id: string): Webhook | undefined {
    const row = this.selectAnyById.get(id) as Row | undefined
    return row && fromRow(row)
  }

  insert(webhook: Webhook): void {
    this.insertRow.run({
      id: webhook.id,
      business_id: webhook.businessId,
      url: webhook.url,
      secret: webhook.secret,
      events: JSON.stringify(webhook.events),
      use_secret: webhook.useSecret ? 1 : 0,
      created_at: webhook.createdAt,
      updated_at: webhook.updatedAt,
    })
  }

  listByBusiness(businessId: string): Webhook[] {
    return (this.selectByBusiness.all(businessId) as Row[]).map(fromRow)
  }

  /** A subscription of this business; another business's id reads as unknown. */
  byId(businessId: string, id: string): Webhook | undefined {
    const row = this.selectById.get(businessId, id) as Row | undefined
    return row && fromRow(row)
  }
}
