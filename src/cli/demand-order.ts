// The orders `demand order` places: one from the flags, or a file's rows with the
// flags laid over each; the shipping flags merged into each address.
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
