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

/** Currency codes are accepted in any case; the record carries upper case. */
export function normalizeCurrency(value: string): Currency | undefined {
  const upper = value.trim().toUpperCase()
  return (CURRENCIES as readonly string[]).includes(upper) ? (upper as Currency) : undefined
}

/**
 * A request body as sent: a top-level `currency` given in another case (`usd`) goes out as
 * the interface writes the code (`USD`). The same object when there is nothing to change.
 */
export function withCurrencyCode<T extends Record<string, unknown>>(body: T): T {
  if (typeof body.currency !== 'string') return body
  const code = normalizeCurrency(body.currency)
  return code === undefined || code === body.currency ? body : {...body, currency: code}
}

/** YYYY-MM-DD from YYYY-MM-DD, DD/MM/YYYY or an ISO timestamp; undefined when unreadable. */
export function normalizeDate(value: string): string | undefined {
  let m = /^(\d{4})-(\d{2})-(\d{2})(?:$|T)/.exec(value)
  if (m) return validDate(`${m[1]}-${m[2]}-${m[3]}`)
  m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(value)
  if (m) return validDate(`${m[3]}-${m[2]}-${m[1]}`)
  return undefined
}

function validDate(iso: string): string | undefined {
  const d = new Date(`${iso}T00:00:00Z`)
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === iso ? iso : undefined
}

/**
 * A request's currency field: one of the 22 codes, in any case (the service
 * stores upper case). Answers are read as any string; this is for what is sent.
 */
export const CurrencyCode = z.string().check((payload) => {
  if (normalizeCurrency(payload.value) === undefined) {
    payload.issues.push({code: 'invalid_value', values: [...CURRENCIES], input: payload.value, continue: true})
  }
})

/** A request's http(s) URL field (a file, a webhook's target): one problem when it is not one. */
export const HttpUrl = z.url({protocol: /^https?$/, error: 'must be an http(s) URL'})

/** A request's date field (`fabricatedDate`): YYYY-MM-DD, DD/MM/YYYY or an ISO timestamp. */
export const DateText = z.string().check((payload) => {
  if (normalizeDate(payload.value) === undefined) {
    payload.issues.push({
      code: 'custom',
      message: 'must be a date as YYYY-MM-DD (DD/MM/YYYY accepted)',
      input: payload.value,
      continue: true,
    })
  }
})

export const SERVICES = ['3D_PRINTING', 'CNC_MACHINING', 'SHEET_METAL'] as const
export const Service = z.enum(SERVICES)
export const TECHNIQUES = [...SERVICES, 'PCB'] as const
export const Technique = z.enum(TECHNIQUES)

/** The largest JSON request body the service takes (contract, Limits: 10 MiB). */
export const BODY_LIMIT = 10 * 1024 * 1024

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
