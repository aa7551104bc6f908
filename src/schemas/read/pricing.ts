import type * as z from 'zod'

import {list, num, record, text} from './core.js'

/**
 * Price estimation answers as the CLI reads them: an estimate needs its price
 * (`data.price`); the message and the sandbox's extra fields may be absent.
 */

const BulkRowRead = record({quantity: num(), unitPrice: num(), total: num()})

/** The v1 answer `{message, data: {price, ...}}`. */
export const EstimationAnswerRead = record({
  message: text().default(''),
  data: record({
    price: num(),
    currency: text().optional(),
    quantity: num().optional(),
    unitPrice: num().optional(),
    service: text().optional(),
    technology: text().optional(),
    material: text().optional(),
    /** [ext] A bulk row without its three numbers is left out. */
    bulk: list(BulkRowRead, {dropUnreadable: true}).optional(),
  }),
})
export type EstimationAnswerRead = z.infer<typeof EstimationAnswerRead>

/** The legacy answer: one `{message, data: {price}}` per model, in order. */
export const LegacyEstimationAnswerRead = list(record({message: text().default(''), data: record({price: num()})}))
export type LegacyEstimationAnswerRead = z.infer<typeof LegacyEstimationAnswerRead>
