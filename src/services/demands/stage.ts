import {ConflictError} from '../../api/errors.js'
import {getDemand, updateDemand} from '../../api/v1/demands.js'
import {STAGES, STAGE_INFO, STAGE_MOVES, type Stage} from '../../schemas/demand.js'
import {closest} from '../../util/closest.js'
import type {ServiceContext} from '../context.js'
import {InputError} from '../errors.js'
import {settleChange, type ChangedDemand} from './update.js'

const norm = (s: string) =>
  s
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, ' ')

/**
 * A stage from what a user types: a status id (special_verified), the v1 display
 * name (In Review), the legacy one (Special Accepted) or the tracking text
 * (special accepted); case, spaces, hyphens and underscores do not matter.
 */
export function parseStage(text: string): Stage {
  const wanted = norm(text)
  for (const stage of STAGES) {
    const info = STAGE_INFO[stage]
    if ([stage, info.display, info.legacy, info.tracking].some((name) => norm(name) === wanted)) return stage
  }
  const names = STAGES.map((s) => `${s} (${STAGE_INFO[s].display})`).join(', ')
  const meant = closestStage(wanted)
  throw new InputError(
    `unknown stage ${JSON.stringify(text)}; use a status id or display name: ${names}${meant === undefined ? '.' : `; did you mean ${meant}?`}`,
  )
}

/** The stage whose status id or display name is nearest to a normalised name (In Produciton: special_accepted). */
function closestStage(wanted: string): Stage | undefined {
  const byName = new Map(STAGES.flatMap((s) => [s, STAGE_INFO[s].display].map((name) => [norm(name), s] as const)))
  const near = closest(wanted, byName.keys(), 1)[0]
  return near === undefined ? undefined : byName.get(near)
}

/** A stage move the service confirmed, and the stage it says the demand is in. */
export interface StageMove extends ChangedDemand {
  requested: Stage
  /** The stage from the service's answer or from reading the demand back; undefined when neither said it. */
  confirmed?: string
}

/**
 * Moves a demand to a stage with the v1 update; the service refuses moves the
 * stage machine forbids (409). The stage reported is the one the service confirms,
 * from its answer or, when that does not say it, from reading the demand back.
 */
export async function moveStage(ctx: Pick<ServiceContext, 'client'>, id: string, stage: Stage): Promise<StageMove> {
  let changed: ChangedDemand
  try {
    changed = await settleChange(ctx, id, await updateDemand(ctx.client, id, {demandStatusInfo: {status: stage}}))
  } catch (error) {
    changed = await madeBeforeRefusal(ctx, id, stage, error)
  }
  const confirmed = changed.record.demandStatusInfo?.status
  return {...changed, requested: stage, ...(confirmed === undefined ? {} : {confirmed})}
}

/**
 * A move refused (409) in answer to a retry, after an attempt that may have been
 * carried out lost its answer (a proxy's 502, a reset): the service refuses a move to
 * the stage the demand is in, which is what the lost attempt left if it moved it. The
 * demand is read back; in the stage asked for, the move is done. Otherwise, and for
 * any other failure, the error stands.
 */
async function madeBeforeRefusal(
  ctx: Pick<ServiceContext, 'client'>,
  id: string,
  stage: Stage,
  error: unknown,
): Promise<ChangedDemand> {
  if (!(error instanceof ConflictError) || error.lostAnswer === undefined) throw error
  const record = await getDemand(ctx.client, id).catch(() => undefined)
  if (record?.demandStatusInfo?.status !== stage) throw error
  return {
    record,
    source: 'read-back',
    status: error.status ?? 409,
    note: `an earlier attempt (${error.lostAnswer}) moved the demand but its answer was lost; the retry was refused (409) and the demand, read back, is in ${stage}`,
  }
}

/** The service answered the demand in another stage than the one asked for: the move did not happen (exit 1). */
export class StageNotMovedError extends Error {
  readonly exitCode = 1
  readonly code = 'stage_not_moved'
  constructor(move: StageMove) {
    super(`The service reports the stage ${move.confirmed ?? '?'}, not ${move.requested} as asked.`)
    this.name = 'StageNotMovedError'
  }
}

export type ReportedStage = 'same' | 'other' | 'unknown' | 'unsaid'

/**
 * How the stage the service reports compares with the one asked for, read leniently:
 * a display name or another spelling of the same stage is `same`; a stage the
 * interface does not list is `unknown` (maybe the service's own name for it).
 */
export function reportedStage(move: StageMove): ReportedStage {
  if (move.confirmed === undefined) return 'unsaid'
  if (move.confirmed === move.requested) return 'same'
  try {
    return parseStage(move.confirmed) === move.requested ? 'same' : 'other'
  } catch {
    return 'unknown'
  }
}

/** The stages a demand may move to from `stage` (contract, Stages). */
export function nextStages(stage: Stage): readonly Stage[] {
  return STAGE_MOVES[stage]
}

export interface TrackingStep {
  /** Status id, when the tracking text names a known stage. */
  stage?: Stage
  /** Tracking text as stored (lower-case legacy name). */
  status: string
  /** Epoch milliseconds; absent when the service gave no readable date. */
  date?: number
}

export interface Timeline {
  id: string
  orderNumber?: number
  stage?: string
  status?: string
  steps: TrackingStep[]
  /** The epoch fields set on entering production, done, shipping and delivery. */
  dates: {field: 'dateAccepted' | 'producedAt' | 'startedShippingAt' | 'deliveredAt'; date: number}[]
}

const EPOCH_FIELDS = ['dateAccepted', 'producedAt', 'startedShippingAt', 'deliveredAt'] as const

/** A demand's tracking timeline: each move with its date, plus the epoch fields. */
export async function trackDemand(ctx: Pick<ServiceContext, 'client'>, id: string): Promise<Timeline> {
  const record = await getDemand(ctx.client, id)
  const steps = (record.tracking ?? []).map((t) => {
    let stage: Stage | undefined
    try {
      stage = parseStage(t.status)
    } catch {
      stage = undefined
    }
    return {...(stage ? {stage} : {}), status: t.status, ...(t.date === undefined ? {} : {date: t.date})}
  })
  const dates = EPOCH_FIELDS.flatMap((field) => {
    const value = (record as Record<string, unknown>)[field]
    return typeof value === 'number' ? [{field, date: value}] : []
  })
  return {
    id: record._id,
    ...(record.orderNumber === undefined ? {} : {orderNumber: record.orderNumber}),
    ...(record.demandStatusInfo?.status ? {stage: record.demandStatusInfo.status} : {}),
    ...(record.status ? {status: record.status} : {}),
    steps,
    dates,
  }
}
