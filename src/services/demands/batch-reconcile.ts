import {randomUUID} from 'node:crypto'

import {ValidationError} from '../../api/errors.js'
import {listDemands, type ListDemandsQuery} from '../../api/v1/demands.js'
import {STAGE_INFO, V1_PAGE_SIZE_MAX, type Stage} from '../../schemas/demand.js'
import type {DemandPage, DemandRecord} from '../../schemas/read/types.js'
import type {ServiceContext} from '../context.js'
import type {LookupProof} from './batch-proof.js'

/** A demand found on the server by its draftId. */
export interface FoundDemand {
  id: string
  orderNumber?: number
  draftId: string
  status?: string
  /** When the service says it was created (epoch ms), to tell this run's demands from an earlier run's. */
  createdAt?: number
}

/** What a look-up found. */
export interface Lookup {
  /** draftId → every demand found that carries exactly that draftId (more than one: it was created twice). */
  found: Map<string, FoundDemand[]>
  /**
   * Whether a draftId missing from `found` is proven not to exist: the look-up
   * used the service's draftId filter, proven on this service to find what exists.
   */
  proven: boolean
}

/** How far before a chunk's send time a scan of the newest demands still looks (clock skew between client and server). */
export const SCAN_MARGIN_MS = 10 * 60 * 1000
/** Parallel look-ups when the server filters by draftId. */
const LOOKUP_CONCURRENCY = 8
/**
 * Retries of one look-up request. Few: a look-up only settles a create that
 * already failed, and a service that fails it too is given up on quickly (the
 * rows are then reported with their outcome unknown, and a re-run looks again).
 */
const LOOKUP_RETRIES = 2
/** Pages of the newest demands a scan reads at most, when the filter cannot be trusted. */
const SCAN_PAGES = 10

/**
 * Finds which of a set of draftIds exist on the server, so that a chunk whose
 * outcome is unknown is settled before anything is sent again.
 *
 * A demand counts as found only when it carries exactly the draftId asked for.
 * A draftId not found proves nothing unless the look-up has been proven to work
 * on this service (the capability probe, `prove`): a draftId that exists (one the
 * service confirmed to this run, or one on the newest page of demands) must find
 * its demands and only demands with that draftId, and a made-up one must find
 * none. A proof is kept per profile (LookupProof) and dropped as soon as an answer
 * contradicts it. Without a proof, the newest demands are scanned for positives only.
 * Both generations share the business's demands, so this serves legacy batches too.
 */
export class DraftIdFinder {
  private filter: 'untried' | 'proven' | 'refuted' = 'untried'
  /** The probe under way: chunks that lose their answers together share one. */
  private proving: Promise<boolean> | undefined
  /** draftIds the service confirmed to this run with a record: known to exist. */
  private readonly known: string[] = []
  /** Look-ups made, for the summary. */
  requests = 0

  constructor(
    private readonly ctx: ServiceContext,
    private readonly opts: {legacy?: boolean; proof?: LookupProof} = {},
  ) {}

  /** Notes a draftId the service answered a record for: a look-up can be proven with it. */
  remember(draftId: string): void {
    if (this.known.length < 16) this.known.push(draftId)
  }

  async find(draftIds: readonly string[], sentAt: number): Promise<Lookup> {
    const found = new Map<string, FoundDemand[]>()
    if (draftIds.length === 0) return {found, proven: true}
    if (this.filter === 'untried' && this.opts.proof?.proven()) this.filter = 'proven'
    if (this.filter !== 'proven') {
      // The newest demands: rows created moments ago are there, and it names draftIds that exist.
      const newest = await this.page({sort: '-createdAt', pageSize: V1_PAGE_SIZE_MAX})
      const wanted = new Set(draftIds)
      collect(newest.data, wanted, found, this.describe)
      if (draftIds.every((d) => found.has(d))) return {found, proven: true}
      this.proving ??= this.prove(newest.data, wanted).finally(() => {
        this.proving = undefined
      })
      if (!(await this.proving)) {
        await this.scan(newest, wanted, sentAt, found)
        return {found, proven: false}
      }
    }
    const honoured = await this.byFilter(
      draftIds.filter((d) => !found.has(d)),
      found,
    )
    if (!honoured) {
      this.filter = 'refuted'
      this.opts.proof?.forget()
    }
    return {found, proven: honoured}
  }

  /**
   * The capability probe: whether the draftId filter finds exactly the demands
   * that carry a draftId. Needs a draftId known to exist; without one the filter
   * stays unproven for now (a later look-up may have one).
   */
  private async prove(newest: readonly DemandRecord[], suspects: ReadonlySet<string>): Promise<boolean> {
    if (this.filter === 'refuted') return false
    const existing =
      this.known.find((d) => !suspects.has(d)) ??
      newest.find((r) => r.draftId !== undefined && r.draftId !== '' && !suspects.has(r.draftId))?.draftId
    if (existing === undefined) return false
    try {
      const hit = await this.page({draftId: existing, pageSize: V1_PAGE_SIZE_MAX})
      const honoured = hit.data.length > 0 && hit.data.every((r) => r.draftId === existing)
      const miss = honoured ? await this.page({draftId: `mfg-probe-${randomUUID()}`, pageSize: 1}) : undefined
      if (!honoured || miss === undefined || miss.data.length > 0) {
        this.filter = 'refuted'
        return false
      }
    } catch (error) {
      // A server that refuses the unknown parameter does not offer the filter.
      if (error instanceof ValidationError && !error.clientSide) {
        this.filter = 'refuted'
        return false
      }
      throw error
    }
    this.filter = 'proven'
    this.opts.proof?.save()
    return true
  }

  /** False when an answer shows the filter is not honoured after all. */
  private async byFilter(draftIds: readonly string[], found: Map<string, FoundDemand[]>): Promise<boolean> {
    let ignored = false
    let next = 0
    const worker = async (): Promise<void> => {
      while (!ignored && next < draftIds.length) {
        const draftId = draftIds[next++]!
        const page = await this.page({draftId, pageSize: V1_PAGE_SIZE_MAX})
        if (page.data.some((r) => r.draftId !== draftId)) {
          ignored = true
          return
        }
        collect(page.data, new Set([draftId]), found, this.describe)
      }
    }
    await Promise.all(Array.from({length: Math.min(LOOKUP_CONCURRENCY, draftIds.length)}, worker))
    return !ignored
  }

  /**
   * Positives only: the newest demands, page after page, back to shortly before
   * the send. Stops at once on a service whose demands carry no draftId.
   */
  private async scan(
    first: DemandPage,
    wanted: ReadonlySet<string>,
    sentAt: number,
    found: Map<string, FoundDemand[]>,
  ): Promise<void> {
    const oldest = sentAt - SCAN_MARGIN_MS
    let page = first
    for (let n = 1; n < SCAN_PAGES; n++) {
      if (!page.data.some((r) => r.draftId !== undefined)) return
      if (page.data.length < V1_PAGE_SIZE_MAX) return
      const last = page.data.at(-1)?.createdAt
      const created = last === undefined ? Number.NaN : Date.parse(last)
      if (Number.isFinite(created) && created < oldest) return
      const next = await this.page({sort: '-createdAt', pageSize: V1_PAGE_SIZE_MAX, page: n + 1})
      // A service that ignores `page` answers the same page again.
      if (next.data.length === 0 || next.data[0]?._id === page.data[0]?._id) return
      collect(next.data, wanted, found, this.describe)
      page = next
    }
  }

  private async page(q: ListDemandsQuery): Promise<DemandPage> {
    this.requests++
    return listDemands(this.ctx.client, this.ctx.businessId, 'all', q, {
      retries: LOOKUP_RETRIES,
      operation: 'looking up rows that may have been created',
    })
  }

  private readonly describe = (record: DemandRecord, draftId: string): FoundDemand => {
    const stage = record.demandStatusInfo?.status as Stage | undefined
    const status = this.opts.legacy && stage && stage in STAGE_INFO ? STAGE_INFO[stage].legacy : record.status
    const createdAt = record.createdAt === undefined ? Number.NaN : Date.parse(record.createdAt)
    return {
      id: record._id,
      draftId,
      ...(record.orderNumber === undefined ? {} : {orderNumber: record.orderNumber}),
      ...(status === undefined ? {} : {status}),
      ...(Number.isFinite(createdAt) ? {createdAt} : {}),
    }
  }
}

/** Adds every record that carries exactly one of the `wanted` draftIds, each demand once. */
function collect(
  records: readonly DemandRecord[],
  wanted: ReadonlySet<string>,
  found: Map<string, FoundDemand[]>,
  describe: (record: DemandRecord, draftId: string) => FoundDemand,
): void {
  for (const record of records) {
    const draftId = record.draftId
    if (draftId === undefined || !wanted.has(draftId)) continue
    const list = found.get(draftId) ?? []
    if (!list.some((d) => d.id === record._id)) list.push(describe(record, draftId))
    found.set(draftId, list)
  }
}
