import type {PostSort} from '../../schemas/posts.js'
import type {Product} from './catalog.js'
import type {SqlDatabase, SqlStatement} from './sql.js'

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

/** What a list of products may be narrowed to; tags and formats lower-cased, any of them matches. */
export interface PostFilter {
  category?: string
  free?: boolean
  service?: string
  type?: string
  tags?: string[]
  formats?: string[]
}

/** Lower-cases as JavaScript does (SQLite's own lower() knows ASCII only), for tags and formats. */
const CASEFOLD = 'mfg_casefold'

/** A JSON array field of the document holds any of the values of a JSON array parameter. */
const anyOf = (field: string, param: string) =>
  `(@${param} IS NULL OR EXISTS (SELECT 1 FROM json_each(doc, '$.${field}') AS f ` +
  `WHERE ${CASEFOLD}(f.value) IN (SELECT value FROM json_each(@${param}))))`

const LISTED = `FROM products WHERE business_id = @business AND deleted_at IS NULL
  AND (@category IS NULL OR json_extract(doc, '$.category') = @category)
  AND (@free IS NULL OR json_extract(doc, '$.free') = @free)
  AND (@service IS NULL OR json_extract(doc, '$.service') = @service)
  AND (@type IS NULL OR json_extract(doc, '$.type') = @type)
  AND ${anyOf('tags', 'tags')} AND ${anyOf('formats', 'formats')}`

/** Ties fall to the newer product, then to the greater id, as the service orders them. */
const ORDER_BY: Record<PostSort, string> = {
  createdAtInc: 'created_at, id',
  createdAtDec: 'created_at DESC, id DESC',
  viewsDec: "json_extract(doc, '$.views') DESC, created_at DESC, id DESC",
  likesDec: "json_extract(doc, '$.likes') DESC, created_at DESC, id DESC",
}

/**
 * Products edited through the legacy posts API (the `products` table the catalogue
 * seeds). Deleting is soft: `deleted_at` hides the row from every read.
 */
export class PostStore {
  private readonly insertRow: SqlStatement
  private readonly updateRow: SqlStatement
  private readonly deleteRow: SqlStatement
  private readonly selectOne: SqlStatement
  private readonly countListed: SqlStatement
  private readonly selectPage: Record<PostSort, SqlStatement>

  constructor(db: SqlDatabase) {
    db.function(CASEFOLD, {deterministic: true}, (value) => (typeof value === 'string' ? value.toLowerCase() : value))
    this.insertRow = db.prepare(
      'INSERT INTO products (id, business_id, service, created_at, updated_at, doc) VALUES (?, ?, ?, ?, ?, ?)',
    )
    this.updateRow = db.prepare(
      'UPDATE products SET doc = ?, service = ?, updated_at = ? WHERE business_id = ? AND id = ? AND deleted_at IS NULL',
    )
    this.deleteRow = db.prepare(
      'UPDATE products SET deleted_at = ? WHERE business_id = ? AND id = ? AND deleted_at IS NULL',
    )
    this.selectOne = db.prepare(
      'SELECT doc, created_at, updated_at FROM products WHERE business_id = ? AND id = ? AND deleted_at IS NULL',
    )
    this.countListed = db.prepare(`SELECT count(*) AS n ${LISTED}`)
    const page = (sort: PostSort) =>
      db.prepare(`SELECT doc, created_at, updated_at ${LISTED} ORDER BY ${ORDER_BY[sort]} LIMIT @limit OFFSET @offset`)
    this.selectPage = {
      createdAtInc: page('createdAtInc'),
      createdAtDec: page('createdAtDec'),
      viewsDec: page('viewsDec'),
      likesDec: page('likesDec'),
    }
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

  /** One page of the business's products that are not deleted, with how many match in all. */
  list(
    businessId: string,
    filter: PostFilter,
    sort: PostSort,
    page: {offset: number; limit: number},
  ): {posts: StoredPost[]; total: number} {
    const params = {
      business: businessId,
      category: filter.category ?? null,
      free: filter.free === undefined ? null : Number(filter.free),
      service: filter.service ?? null,
      type: filter.type ?? null,
      tags: filter.tags ? JSON.stringify(filter.tags) : null,
      formats: filter.formats ? JSON.stringify(filter.formats) : null,
    }
    const {n} = this.countListed.get(params) as {n: number}
    const rows = this.selectPage[sort].all({...params, limit: page.limit, offset: page.offset}) as Row[]
    return {posts: rows.map(fromRow), total: n}
  }

  /** A product of this business; another business's id, or a deleted one, reads as unknown. */
  byId(businessId: string, id: string): StoredPost | undefined {
    const row = this.selectOne.get(businessId, id) as Row | undefined
    return row && fromRow(row)
  }
}
