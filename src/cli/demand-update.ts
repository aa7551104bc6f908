// `demand update`: which flags belong to which update (v1 or legacy), and the
// number-valued text flags. The updates themselves are in src/services/demands.
import type {Stage} from '../schemas/demand.js'
import type {LegacyUpdateBody} from '../schemas/legacy-demand.js'
import type {UpdateFields} from '../services/demands/update.js'
import {given} from '../util/fields.js'
import {UsageError} from './errors.js'
import {numberOf} from './flags.js'

/** Flags only the legacy update takes. */
const LEGACY_ONLY = ['resolution', 'filling', 'thickness', 'tolerance'] as const

/** Flags only the v1 update takes. */
const V1_ONLY = [
  'status',
  'substatus',
  'price-total',
  'price-delivery',
  'taken-as',
  'payment-status',
  'track-id',
  'shipping-provider',
  'fabricated-date',
  'archive',
] as const

type UpdateFlags = {legacy: boolean} & Partial<Record<(typeof LEGACY_ONLY | typeof V1_ONLY)[number], unknown>>

/**
 * A usage error when a flag of one update is given to the other, or a flag is
 * given an empty value (most often an unset shell variable): sent, it would
 * change nothing, and the update would seem to have happened.
 */
export function checkUpdateFlags(flags: UpdateFlags): void {
  const empty = Object.entries(flags).find(([, value]) => typeof value === 'string' && value.trim() === '')
  if (empty) throw new UsageError(`--${empty[0]} is empty: give it a value, or leave the flag out.`)
  if (flags.legacy) {
    const other = V1_ONLY.find((n) => flags[n] !== undefined)
    if (other)
      throw new UsageError(
        `--${other} is not part of the legacy update (material, resolution, filling, quantity, color, thickness, tolerance, shipping address); drop --legacy to use it.`,
      )
    return
  }
  const legacyOnly = LEGACY_ONLY.find((f) => flags[f] !== undefined)
  if (legacyOnly)
    throw new UsageError(`--${legacyOnly} belongs to the legacy update: add --legacy, or use --file for the v1 body.`)
}

/** The v1 update's fields from its flags and the --shipping-* address. */
export function v1Fields(
  flags: {
    status?: string | undefined
    substatus?: string | undefined
    material?: string | undefined
    quantity?: number | undefined
    color?: string | undefined
    'price-total'?: string | undefined
    'price-delivery'?: string | undefined
    'taken-as'?: string | undefined
    'payment-status'?: string | undefined
    'track-id'?: string | undefined
    'shipping-provider'?: string | undefined
    'fabricated-date'?: string | undefined
    archive?: boolean | undefined
  },
  shipping: Record<string, string> | undefined,
): UpdateFields {
  return given({
    status: flags.status as Stage | undefined,
    substatus: flags.substatus,
    material: flags.material,
    quantity: flags.quantity,
    color: flags.color,
    // A price below 0 is a slip of the keyboard (149.5 typed -149.5), not a price: refused before anything is sent.
    priceTotal: numberOf(flags['price-total'], '--price-total', 0),
    priceDelivery: numberOf(flags['price-delivery'], '--price-delivery', 0),
    takenAs: flags['taken-as'] as 'QUOTE' | 'ORDER' | undefined,
    paymentStatus: flags['payment-status'],
    trackId: flags['track-id'],
    shippingProvider: flags['shipping-provider'],
    fabricatedDate: flags['fabricated-date'],
    archive: flags.archive,
    shippingAddress: shipping,
  })
}

/** The legacy update's fields from its flags. */
export function legacyFields(
  flags: {
    material?: string
    quantity?: number
    color?: string
    resolution?: string
    filling?: string
    thickness?: string
    tolerance?: string
  },
  shipping: Record<string, string> | undefined,
): Partial<LegacyUpdateBody> {
  return given({
    material: flags.material,
    quantity: flags.quantity,
    color: flags.color,
    resolution: flags.resolution,
    filling: numberOf(flags.filling, '--filling'),
    thickness: numberOf(flags.thickness, '--thickness'),
    tolerance: numberOf(flags.tolerance, '--tolerance'),
    shippingAddress: shipping,
  })
}
