import {maskSecret} from '../schemas/secrets.js'
import type {DemandRecord} from '../schemas/read/types.js'

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
