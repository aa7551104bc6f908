// The orders `demand order` places: one from the flags, or a file's rows with the
// flags laid over each; the shipping flags merged into each address.
import {NetworkError, ServerError} from '../api/errors.js'
import {given} from '../util/fields.js'
import {UsageError} from './errors.js'
import {numberOf, shippingAddressFrom} from './flags.js'

export interface OrderFlags {
  file?: string | undefined
  product?: string | undefined
  referral?: string | undefined
  material?: string | undefined
  resolution?: string | undefined
  quantity?: number | undefined
  color?: string | undefined
  filling?: string | undefined
  thickness?: string | undefined
  tolerance?: string | undefined
}

/** The orders to check and send; a usage error when the product or the referral is missing. */
export async function orderItems(flags: OrderFlags & Record<string, unknown>): Promise<Record<string, unknown>[]> {
  const fromFlags: Record<string, unknown> = given({
    productId: flags.product,
    referral: flags.referral,
    material: flags.material,
    resolution: flags.resolution,
    quantity: flags.quantity,
    color: flags.color,
    filling: numberOf(flags.filling, '--filling'),
    thickness: numberOf(flags.thickness, '--thickness'),
    tolerance: numberOf(flags.tolerance, '--tolerance'),
  })
  const shipping = shippingAddressFrom(flags)
  let items: Record<string, unknown>[]
  if (flags.file === undefined) {
    if (!flags.product)
      throw new UsageError('Missing --product: the id of the product to order (or --file with orders).')
    items = [fromFlags]
  } else {
    const {parseRows, readTextInput} = await import('./input.js')
    const {text, source} = await readTextInput(flags.file)
    items = parseRows(text, source).rows.map((r) => ({...(r as Record<string, unknown>), ...fromFlags}))
  }
  if (shipping) {
    items = items.map((i) => ({...i, shippingAddress: {...(i.shippingAddress as object | undefined), ...shipping}}))
  }
  if (items.some((i) => i.referral === undefined)) {
    throw new UsageError('Missing --referral: the fixed referral value of your business (the sandbox uses "api").')
  }
  return items
}

/**
 * An order whose answer was lost (no answer, or a 5xx after sending) may have been placed:
 * the error says how to look before ordering again, since a second run would place it twice.
 */
export function orderOutcomeHint(error: unknown, items: readonly {productId?: unknown}[]): unknown {
  const unknown =
    (error instanceof ServerError && error.mayHaveActed) || (error instanceof NetworkError && error.mayHaveBeenSent)
  if (!unknown) return error
  const products = [...new Set(items.map((i) => String(i.productId)))]
  const filter = products.map((p) => `.productId == ${JSON.stringify(p)}`).join(' or ')
  return error.withHint(
    `The order may have been placed: look for it before ordering again, newest first: mfg demand list --json --jq '.[] | select(${filter})'`,
  )
}
