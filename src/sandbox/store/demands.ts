import type {SqlDatabase, SqlStatement, SqlValue} from './sql.js'

import type {Stage} from '../../schemas/demand.js'

export interface TrackingEntry {
  status: string
  date: number
}

export interface AddressRecord {
  address: string
  phone: string
  city: string
  region: string
  country: string
  zip: string
  companyName: string
  [key: string]: unknown
}

/**
 * A demand as stored: the v1 record without `paymentAuthToken`. Fields the
 * caller submitted and the record does not list are kept as sent.
 */
export interface DemandDoc {
  _id: string
  business: string
  orderNumber: number
  type: string
  currency: string
  technique: string
  material: string
  color: string
  priceToClient: number
  priceToManufacturer: number
  priceTotal: number
  platformFee: number
  priceDelivery: number
  taxPaid: number
  taxPercentage: number
  taxName: string
  paymentStatus: string
  archive: boolean
  fabricatedDate: string | null
  createdAt: string
  updatedAt: string
  demandStatusInfo: {status: Stage; substatus: string}
  billingAddress: AddressRecord
  shippingAddress: AddressRecord
  quoteModel: Record<string, unknown>[]
  tracking: TrackingEntry[]
  uniqueItems: number
  total: number
  subtotal: number
  feesTotalAmount: number
  pricePerPiece: number
  startupCost: number
  discount: number
  quantity: number
  leadTime: number
  shippingDuration: number
  isPaid: boolean
  status: string
  draftId?: string
  client: string | null
  jobDetails: Record<string, unknown> & {takenAs: 'QUOTE' | 'ORDER'}
  [key: string]: unknown
}

export interface DemandListFilter {
  businessId: string
  takenAs?: 'QUOTE' | 'ORDER'
  status?: Stage
  draftId?: string
  archived: boolean
  sort: 'asc' | 'desc'
  limit: number
  offset: number
}

interface Row {
  doc: string
}

const FILTERS = {
  takenAs: ' AND taken_as = @takenAs',
  status: ' AND status = @status',
  draftId: ' AND draft_id = @draftId',
} as const

/** Demands, as a JSON document plus the indexed columns the lists filter and sort on. */
export class DemandStore {
  private readonly insertRow: SqlStatement
  private readonly updateRow: SqlStatement
  private readonly selectById: SqlStatement
  private readonly selectByDraft: SqlStatement
  private readonly selectByIds: SqlStatement
  private readonly selectNextOrderNumber: SqlStatement
  private readonly selectCount: SqlStatement
  /** Page and count statements, one per filter combination, prepared on first use. */
  private readonly listStatements = new Map<string, {page: SqlStatement; count: SqlStatement}>()

  constructor(private readonly db: SqlDatabase) {
    this.insertRow =
      db.prepare(`INSERT INTO demands (id, business_id, order_number, taken_as, status, draft_id, archived, created_at, updated_at, doc)
      VALUES (@id, @business_id, @order_number, @taken_as, @status, @draft_id, @archived, @created_at, @updated_at, @doc)`)
    this.updateRow =
      db.prepare(`UPDATE demands SET taken_as = @taken_as, status = @status, draft_id = @draft_id, archived = @archived,
      updated_at = @updated_at, doc = @doc WHERE id = @id AND business_id = @business_id`)
    this.selectById = db.prepare('SELECT doc FROM demands WHERE id = ? AND business_id = ?')
    // Without replay a draftId may repeat: the first demand created with it is the one found.
    this.selectByDraft = db.prepare(
      'SELECT doc FROM demands WHERE business_id = ? AND draft_id = ? ORDER BY created_at, order_number LIMIT 1',
    )
    this.selectByIds = db.prepare(
      'SELECT id, doc FROM demands WHERE business_id = ? AND id IN (SELECT value FROM json_each(?))',
    )
    this.selectNextOrderNumber = db.prepare(
      'SELECT COALESCE(MAX(order_number), 0) + 1 AS next FROM demands WHERE business_id = ?',
    )
    this.selectCount = db.prepare('SELECT COUNT(*) AS n FROM demands WHERE business_id = ?')
  }

  insert(doc: DemandDoc): void {
    this.insertRow.run(columns(doc))
  }

  update(doc: DemandDoc): void {
    // The statement names only what an update changes (node:sqlite refuses unknown names).
    const {order_number: _number, created_at: _created, ...changed} = columns(doc)
    const {changes} = this.updateRow.run(changed)
    if (changes !== 1) throw new Error(`demand ${doc._id} was not stored`)
  }

  /** A demand of this business; another business's id reads as unknown. */
  byId(businessId: string, id: string): DemandDoc | undefined {
    return parse(this.selectById.get(id, businessId) as Row | undefined)
  }

  byDraftId(businessId: string, draftId: string): DemandDoc | undefined {
    return parse(this.selectByDraft.get(businessId, draftId) as Row | undefined)
  }

  /** The demands of this business among `ids`, by id; unknown and other businesses' ids are absent. */
  byIds(businessId: string, ids: readonly string[]): Map<string, DemandDoc> {
    const rows = this.selectByIds.all(businessId, JSON.stringify(ids)) as {id: string; doc: string}[]
    return new Map(rows.map((row) => [row.id, JSON.parse(row.doc) as DemandDoc]))
  }

  nextOrderNumber(businessId: string): number {
    return (this.selectNextOrderNumber.get(businessId) as {next: number}).next
  }

  countByBusiness(businessId: string): number {
    return (this.selectCount.get(businessId) as {n: number}).n
  }

  /** One page of a business's demands, newest or oldest first, and the number of matches. */
  list(filter: DemandListFilter): {data: DemandDoc[]; total: number} {
    const {page, count} = this.listStatementsFor(filter)
    const params: Record<string, SqlValue> = {businessId: filter.businessId, archived: filter.archived ? 1 : 0}
    if (filter.takenAs) params.takenAs = filter.takenAs
    if (filter.status) params.status = filter.status
    if (filter.draftId !== undefined) params.draftId = filter.draftId
    const total = (count.get(params) as {n: number}).n
    const data =
      filter.offset >= total
        ? []
        : (page.all({...params, limit: filter.limit, offset: filter.offset}) as Row[]).map(
            (row) => JSON.parse(row.doc) as DemandDoc,
          )
    return {data, total}
  }

  private listStatementsFor(filter: DemandListFilter): {page: SqlStatement; count: SqlStatement} {
    const used = (Object.keys(FILTERS) as (keyof typeof FILTERS)[]).filter((name) => filter[name] !== undefined)
    const key = `${used.join(',')}|${filter.sort}`
    let statements = this.listStatements.get(key)
    if (!statements) {
      const where =
        'WHERE business_id = @businessId AND archived = @archived' + used.map((name) => FILTERS[name]).join('')
      const direction = filter.sort === 'asc' ? 'ASC' : 'DESC'
      statements = {
        page: this.db.prepare(
          `SELECT doc FROM demands ${where} ORDER BY created_at ${direction}, order_number ${direction} LIMIT @limit OFFSET @offset`,
        ),
        count: this.db.prepare(`SELECT COUNT(*) AS n FROM demands ${where}`),
      }
      this.listStatements.set(key, statements)
    }
    return statements
  }
}

function columns(doc: DemandDoc): Record<string, SqlValue> {
  return {
    id: doc._id,
    business_id: doc.business,
    order_number: doc.orderNumber,
    taken_as: doc.jobDetails.takenAs,
    status: doc.demandStatusInfo.status,
    draft_id: doc.draftId ?? null,
    archived: doc.archive ? 1 : 0,
    created_at: Date.parse(doc.createdAt),
    updated_at: Date.parse(doc.updatedAt),
    doc: JSON.stringify(doc),
  }
}

function parse(row: Row | undefined): DemandDoc | undefined {
  return row && (JSON.parse(row.doc) as DemandDoc)
}
