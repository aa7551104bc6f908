import type {SqlDatabase, SqlStatement} from './sql.js'

import type {Product} from './catalog.js'

/** A product as stored with its sort keys (epoch ms). */
export interface StoredPost {
  post: Product
  createdAt: number
  updatedAt: number
}

interface Row {
  doc: string
  created_at: number
  updated_at: number | null
}

const fromRow = (row: Row): StoredPost => ({
  post: JSON.parse(row.doc) as Product,
  createdAt: row.created_at,
  updatedAt: row.updated_at ?? row.created_at,
})

/**
 * Products edited through the legacy posts API (the `products` table the catalogue
 * seeds). Deleting is soft: `deleted_at` hides the row from every read.
 */
export class PostStore {
  private readonly insertRow: SqlStatement
  private readonly updateRow: SqlStatement
  private readonly deleteRow: SqlStatement
  private readonly selectActive: SqlStatement
  private readonly selectOne: SqlStatement

  constructor(db: SqlDatabase) {
    this.insertRow = db.prepare(
      'INSERT INTO products (id, business_id, service, created_at, updated_at, doc) VALUES (?, ?, ?, ?, ?, ?)',
    )
    this.updateRow = db.prepare(
      'UPDATE products SET doc = ?, service = ?, updated_at = ? WHERE business_id = ? AND id = ? AND deleted_at IS NULL',
    )
    this.deleteRow = db.prepare(
      'UPDATE products SET deleted_at = ? WHERE business_id = ? AND id = ? AND deleted_at IS NULL',
    )
    this.selectActive = db.prepare(
      'SELECT doc, created_at, updated_at FROM products WHERE business_id = ? AND deleted_at IS NULL ORDER BY created_at, id',
    )
    this.selectOne = db.prepare(
      'SELECT doc, created_at, updated_at FROM products WHERE business_id = ? AND id = ? AND deleted_at IS NULL',
    )
  }

  insert(post: Product, now: number): void {
    this.insertRow.run(post._id, post.user, post.service, now, now, JSON.stringify(post))
  }

  update(post: Product, now: number): void {
    this.updateRow.run(JSON.stringify(post), post.service, now, post.user, post._id)
  }

  softDelete(businessId: string, id: string, now: number): boolean {
    return this.deleteRow.run(now, businessId, id).changes === 1
  }

  /** The business's products that are not deleted, oldest first. */
  active(businessId: string): StoredPost[] {
    return (this.selectActive.all(businessId) as Row[]).map(fromRow)
  }

  /** A product of this business; another business's id, or a deleted one, reads as unknown. */
  byId(businessId: string, id: string): StoredPost | undefined {
    const row = this.selectOne.get(businessId, id) as Row | undefined
    return row && fromRow(row)
  }
}
