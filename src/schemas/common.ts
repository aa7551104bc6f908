import * as z from 'zod'

/** The 22 currency codes the service prices in (interface, legacy price estimation). */
export const CURRENCIES = [
  'EUR',
  'USD',
  'CNY',
  'GBP',
  'TND',
  'ZAR',
  'GHS',
  'NGN',
  'XAF',
  'KES',
  'KWD',
  'MAD',
  'AED',
  'EGP',
  'DZD',
  'CAD',
  'AUD',
  'INR',
  'MXN',
  'CZK',
  'SGD',
  'MYR',
] as const
export const Currency = z.enum(CURRENCIES)
export type Currency = z.infer<typeof Currency>

export const SERVICES = ['3D_PRINTING', 'CNC_MACHINING', 'SHEET_METAL'] as const
export const Service = z.enum(SERVICES)
export const TECHNIQUES = [...SERVICES, 'PCB'] as const
export const Technique = z.enum(TECHNIQUES)

/** Error body of every non-2xx answer (contract, Errors). */
export const ErrorDetail = z.object({path: z.string(), message: z.string()})
export const ErrorBody = z.looseObject({
  statusCode: z.number().int(),
  error: z.string(),
  message: z.string(),
  details: z.array(ErrorDetail).optional(),
})
export type ErrorBody = z.infer<typeof ErrorBody>
export type ErrorDetail = z.infer<typeof ErrorDetail>

export {API_KEY_PATTERN} from './secrets.js'

/**
 * Turns zod issues into the contract's `details` entries: dotted paths relative to
 * the body, and messages that say what is allowed.
 */
export function issuesToDetails(error: z.ZodError, prefix: (string | number)[] = []): ErrorDetail[] {
  return error.issues.map((issue) => ({
    path: [...prefix, ...issue.path].map(String).join('.'),
    message: describeIssue(issue),
  }))
}

/** One zod issue as the service words it: what is allowed, in one short phrase. */
export function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`
    case 'invalid_type':
      return issue.input === undefined ? `is required (${issue.expected})` : `must be ${article(issue.expected)}`
    case 'unrecognized_keys':
      return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}`
    case 'too_small':
      return issue.origin === 'array'
        ? `must have at least ${issue.minimum} item${Number(issue.minimum) === 1 ? '' : 's'}`
        : `must be at least ${issue.minimum}`
    case 'too_big':
      return issue.origin === 'array' ? `must have at most ${issue.maximum} items` : `must be at most ${issue.maximum}`
    default:
      return issue.message
  }
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`
}
