import {randomUUID} from 'node:crypto'

import {ValidationError} from '../../api/errors.js'
import {iterateDemands, listDemands} from '../../api/v1/demands.js'
import {STAGE_INFO, V1_PAGE_SIZE_MAX, type Stage} from '../../schemas/demand.js'
import type {ServiceContext} from '../context.js'
import type {DemandRecord} from '../../schemas/read/types.js'

/** A demand found on the server by its draftId. */
export interface FoundDemand {
  id: string
  orderNumber?: number
  draftId: string
  status?: string
}

/** How far before a chunk's send time a scan of the newest demands still looks (clock skew between client and server). */
const SCAN_MARGIN_MS = 10 * 60 * 1000
/** Parallel look-ups when the server filters by draftId. */
const LOOKUP_CONCURRENCY = 8

/**
 * Finds which of a set of draftIds already exist on the server, so a chunk whose
 * outcome is unknown is settled before anything is sent again. Uses the v1 list's
 * `draftId` filter when the server honours it (detected once: a made-up draftId
 * must match nothing, and every answer must carry the asked draftId), otherwise
 * scans the newest demands (`-createdAt`) back to just before the send time.
 * Both generations share the business's demands, so this serves legacy batches too.
 */
export class DraftIdFinder {
  private filter: 'unknown' | 'yes' | 'no' = 'unknown'
  /** Look-ups made, for the summary. */
  requests = 0

  constructor(
    private readonly ctx: ServiceContext,
    private readonly opts: {legacy?: boolean} = {},
  ) {}

  /** Which strategy is in use ("unknown" before the first look-up). */
  get strategy(): 'filter' | 'scan' | 'unknown' {
    return this.filter === 'unknown' ? 'unknown' : this.filter === 'yes' ? 'filter' : 'scan'
  }

  async find(draftIds: readonly string[], sentAt: number): Promise<Map<string, FoundDemand>> {
    const found = new Map<string, FoundDemand>()
    if (draftIds.length === 0) return found
    if (this.filter === 'unknown') this.filter = (await this.probe()) ? 'yes' : 'no'
    if (this.filter === 'yes') {
      const ok = await this.byFilter(draftIds, found)
      if (ok) return found
      this.filter = 'no'
    }
    await this.byScan(draftIds, sentAt, found)
    return found
  }

  private async probe(): Promise<boolean> {
    const probe = `mfg-probe-${randomUUID()}`
    try {
      this.requests++
      const page = await listDemands(this.ctx.client, this.ctx.businessId, 'all', {draftId: probe, pageSize: 1})
      return page.total === 0 && page.data.length === 0
    } catch (error) {
      // A server that refuses the unknown parameter does not offer the filter.
      if (error instanceof ValidationError && !error.clientSide) return false
      throw error
    }
  }

  /** False when an answer shows the filter is ignored after all. */
  private async byFilter(draftIds: readonly string[], found: Map<string, FoundDemand>): Promise<boolean> {
    let ignored = false
    let next = 0
    const worker = async (): Promise<void> => {
      while (!ignored && next < draftIds.length) {
        const draftId = draftIds[next++]!
        this.requests++
        const page = await listDemands(this.ctx.client, this.ctx.businessId, 'all', {
          draftId,
          pageSize: V1_PAGE_SIZE_MAX,
        })
        if (page.data.some((r) => r.draftId !== draftId)) {
          ignored = true
          return
        }
        // The oldest is the one a replaying server would answer; without replay there is only one.
        const record = page.data.at(-1)
        if (record) found.set(draftId, this.describe(record, draftId))
      }
    }
    await Promise.all(Array.from({length: Math.min(LOOKUP_CONCURRENCY, draftIds.length)}, worker))
    return !ignored
  }

  private async byScan(draftIds: readonly string[], sentAt: number, found: Map<string, FoundDemand>): Promise<void> {
    const wanted = new Set(draftIds.filter((d) => !found.has(d)))
    if (wanted.size === 0) return
    const oldest = sentAt - SCAN_MARGIN_MS
    let seen = 0
    for await (const record of iterateDemands(this.ctx.client, this.ctx.businessId, 'all', {
      sort: '-createdAt',
      pageSize: V1_PAGE_SIZE_MAX,
    })) {
      if (seen++ % V1_PAGE_SIZE_MAX === 0) this.requests++
      if (record.draftId !== undefined && wanted.has(record.draftId)) {
        // Newest first: keep overwriting so the oldest match (the first created) wins.
        found.set(record.draftId, this.describe(record, record.draftId))
      }
      if (found.size >= draftIds.length) break
      const created = record.createdAt ? Date.parse(record.createdAt) : Number.NaN
      if (Number.isFinite(created) && created < oldest) break
    }
  }

  private describe(record: DemandRecord, draftId: string): FoundDemand {
    const stage = record.demandStatusInfo?.status as Stage | undefined
    const status = this.opts.legacy && stage && stage in STAGE_INFO ? STAGE_INFO[stage].legacy : record.status
    return {
      id: record._id,
      draftId,
      ...(record.orderNumber === undefined ? {} : {orderNumber: record.orderNumber}),
      ...(status === undefined ? {} : {status}),
    }
  }
}
