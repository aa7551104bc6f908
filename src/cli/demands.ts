import {maskSecret} from '../schemas/secrets.js'
import type {DemandRecord} from '../schemas/read/types.js'
import type {ReportedStage, StageMove} from '../services/demands/stage.js'
import {tableCell} from './render.js'

export const DEMAND_LIST_COLUMNS = [
  'orderNumber',
  '_id',
  'type',
  'status',
  'technique',
  'material',
  'priceTotal',
  'currency',
  'createdAt',
] as const

/** The table of `demand list`: what --wide adds, what goes first on a narrow terminal, what is not cut. */
export const DEMAND_LIST_LAYOUT = {
  wide: ['paymentStatus', 'uniqueItems', 'shippingAddress.city', 'shippingAddress.country', 'updatedAt'],
  drop: ['type', 'currency', 'technique', 'createdAt', 'material', 'priceTotal'],
  keep: ['orderNumber', '_id'],
} as const

/** Columns of legacy records (`demand list --ids`). */
export const LEGACY_LIST_COLUMNS = [
  'orderNumber',
  '_id',
  'status',
  'technique',
  'material',
  'quantity',
  'priceToClient',
  'currency',
  'createdAt',
] as const

/** The table of `demand list --ids`: what --wide adds, what goes first on a narrow terminal, what is not cut. */
export const LEGACY_LIST_LAYOUT = {
  wide: ['paymentStatus', 'city', 'country', 'updatedAt'],
  drop: ['currency', 'technique', 'createdAt', 'quantity', 'material', 'priceToClient'],
  keep: ['orderNumber', '_id'],
} as const

/** A record fit for output: the payment token masked like any secret. */
export function displayRecord(record: DemandRecord): DemandRecord {
  return record.paymentAuthToken ? {...record, paymentAuthToken: maskSecret(record.paymentAuthToken)} : record
}

/** The ids the service did not know, the first 20 named. */
export function notFoundLine(missing: readonly string[], asked: number): string {
  const shown = missing.slice(0, 20).join(', ')
  const more = missing.length > 20 ? ` … and ${missing.length - 20} more` : ''
  return `Not found: ${missing.length} of ${asked} id(s): ${shown}${more}`
}

/** A changed demand in one line: id, order number, status and, in brackets, its stage, each as a table cell. */
export function demandLine(record: DemandRecord, stage: string | undefined): string {
  const order = tableCell(record.orderNumber ?? '-')
  return `${tableCell(record._id)}  order ${order}  ${tableCell(record.status)}${stage ? ` (${tableCell(stage)})` : ''}`
}

/** `demand stage`'s line: the stage the service confirmed, never only the one asked for. */
export function stageLine(record: DemandRecord, move: StageMove): string {
  return demandLine(record, move.confirmed ?? `stage not confirmed; asked for ${move.requested}`)
}

/**
 * What `demand stage` warns about: how the record was obtained, and a stage the service
 * did not say or that the interface does not list (another known stage is an error).
 */
export function stageNotes(move: StageMove, reported: ReportedStage): {text: string; warning: boolean}[] {
  const notes = move.note ? [{text: move.note, warning: move.source === 'partial'}] : []
  const check = `check it with mfg demand get ${move.record._id}`
  if (reported === 'unsaid') {
    notes.push({text: `the service accepted the move but did not say the demand's stage; ${check}`, warning: true})
  } else if (reported === 'unknown') {
    const text = `the service reports the stage ${move.confirmed}, which the interface does not list, not ${move.requested} as asked; ${check}`
    notes.push({text, warning: true})
  }
  return notes
}
