import {Flags} from '@oclif/core'

import {UsageError} from './errors.js'

/**
 * The output flags every list command shares: `--columns`, `--sort`,
 * `--no-header`, `--csv`, `--ndjson`. `--json` comes from BaseCommand.
 */
export function listFlags(defaultColumns: readonly string[], wideColumns: readonly string[] = []) {
  return {
    ...tableFlags(wideColumns),
    columns: Flags.string({
      description: `Comma-separated field paths to show, for example orderNumber,shippingAddress.city [default: ${defaultColumns.join(',')}]`,
      helpGroup: 'OUTPUT',
      parse: notEmpty('--columns', 'name at least one field, for example orderNumber'),
    }),
    sort: Flags.string({
      description: 'Field path to sort by; prefix with - for descending, for example -createdAt.',
      helpGroup: 'OUTPUT',
      parse: notEmpty('--sort', 'name a field, for example -createdAt'),
    }),
    'no-header': Flags.boolean({description: 'Leave out the header row (table and CSV).', helpGroup: 'OUTPUT'}),
    csv: Flags.boolean({
      description: 'Print CSV (RFC 4180 quoting) instead of a table.',
      helpGroup: 'OUTPUT',
      exclusive: ['ndjson', 'json'],
    }),
    ndjson: Flags.boolean({
      description: 'Print one JSON object per line (the selected columns when --columns is given).',
      helpGroup: 'OUTPUT',
      exclusive: ['csv', 'json'],
    }),
  }
}

/** A flag's parse step refusing an empty value (an unset shell variable), which would otherwise mean "not given". */
function notEmpty(flag: string, instead: string): (input: string) => Promise<string> {
  return async (input) => {
    if (input.trim() === '') throw new UsageError(`${flag} is empty: ${instead}, or leave the flag out.`)
    return input
  }
}

// --- Table fitting (issue 19: --wide, --no-truncate) -------------------------

/**
 * `--no-truncate` and, for a command with extra columns, `--wide`: a table on a
 * terminal fits its width (long cells cut with …, the least important columns
 * left out); piped output is never cut.
 */
export function tableFlags(wideColumns: readonly string[] = []) {
  return {
    ...(wideColumns.length > 0
      ? {
          wide: Flags.boolean({
            description: `Show more columns: ${wideColumns.join(', ')} (none left out to fit the terminal; rows shown as records where they cannot be read in a line).`,
            helpGroup: 'OUTPUT',
            exclusive: ['columns'],
          }),
        }
      : {}),
    'no-truncate': Flags.boolean({
      description: 'Show whole cells and every column on a terminal too (piped output is never cut).',
      helpGroup: 'OUTPUT',
    }),
  }
}

/**
 * The paging flags every paged list command shares, one spelling for all:
 * `--limit` (the most items in all), `--page-size` (items a request), `--page`
 * (the page to show or to start from) and `--all` (every page; with `--json`
 * or `--ndjson`, one record a line as the pages arrive).
 */
export function pagingFlags(noun: string, maxPageSize: number, defaultPageSize: number) {
  return {
    limit: Flags.integer({
      description: `The most ${noun} to show; more than a page follows the next pages.`,
      min: 1,
      helpGroup: 'PAGING',
    }),
    'page-size': Flags.integer({
      description: `${noun.charAt(0).toUpperCase()}${noun.slice(1)} a request (1 to ${maxPageSize}; default ${defaultPageSize}, ${maxPageSize} with --all).`,
      min: 1,
      max: maxPageSize,
      helpGroup: 'PAGING',
    }),
    page: Flags.integer({
      description: 'Page to show (1-based), or with --limit where to start.',
      min: 1,
      exclusive: ['all'],
      helpGroup: 'PAGING',
    }),
    all: Flags.boolean({
      description: 'Follow every page. With --json or --ndjson, one record a line (NDJSON) as the pages arrive.',
      helpGroup: 'PAGING',
    }),
  }
}

/** The flags of tableFlags. */
export interface TableFlags {
  wide?: boolean
  'no-truncate'?: boolean
}

// --- end of table fitting ------------------------------------------------------

/** `--sort FIELD` or `--sort -FIELD`, read. */
export function parseSort(spec: string | undefined): {field: string; desc: boolean} | undefined {
  if (spec === undefined || spec.trim() === '') return undefined
  const text = spec.trim()
  return text.startsWith('-') ? {field: text.slice(1), desc: true} : {field: text, desc: false}
}

export interface ListOutputFlags extends TableFlags {
  columns?: string
  sort?: string
  'no-header'?: boolean
  csv?: boolean
  ndjson?: boolean
}

/** `--file PATH|-` for commands that read JSON or NDJSON input. */
export const fileFlag = (description: string) => Flags.string({char: 'f', description, helpValue: 'PATH|-'})

/** The JSON object a `--file` (or `flag`) names, - reading stdin; undefined when the flag was not given. */
export async function objectFromFile(
  file: string | undefined,
  flag = '--file',
): Promise<Record<string, unknown> | undefined> {
  if (file === undefined) return undefined
  const {parseObject, readTextInput} = await import('./input.js')
  const {text, source} = await readTextInput(file, flag)
  return parseObject(text, source)
}

/** `--yes` for destructive commands: required when there is no terminal to confirm in. */
export const yesFlag = Flags.boolean({char: 'y', description: 'Do not ask for confirmation.'})

/** `--shipping-*` flags: the fields of a shipping address. */
export function shippingFlags() {
  const f = (description: string) => Flags.string({description, helpGroup: 'SHIPPING ADDRESS'})
  return {
    'shipping-address': f('Street address.'),
    'shipping-city': f('City.'),
    'shipping-region': f('Region.'),
    'shipping-country': f('Country.'),
    'shipping-zip': f('Postal code.'),
    'shipping-phone': f('Phone.'),
    'shipping-email': f('E-mail.'),
    'shipping-first-name': f('First name.'),
    'shipping-last-name': f('Last name.'),
    'shipping-vat': f('VAT number.'),
  }
}

/** The address the `--shipping-*` flags describe, or undefined when none was given. */
export function shippingAddressFrom(flags: Record<string, unknown>): Record<string, string> | undefined {
  const map: Record<string, string> = {
    'shipping-address': 'address',
    'shipping-city': 'city',
    'shipping-region': 'region',
    'shipping-country': 'country',
    'shipping-zip': 'zip',
    'shipping-phone': 'phone',
    'shipping-email': 'email',
    'shipping-first-name': 'firstName',
    'shipping-last-name': 'lastName',
    'shipping-vat': 'vat',
  }
  const out: Record<string, string> = {}
  for (const [flag, field] of Object.entries(map)) {
    const v = flags[flag]
    if (typeof v === 'string') out[field] = v
  }
  return Object.keys(out).length > 0 ? out : undefined
}

/** A number flag within [min, max]; the message names the flag and the range. */
export const numberFlag = (min: number, max = Infinity) =>
  Flags.custom<number>({
    parse: async (text, _ctx, opts) => {
      const n = Number(text)
      if (text.trim() === '' || !Number.isFinite(n) || n < min || n > max)
        throw new Error(
          `--${opts.name} must be a number from ${min}${max === Infinity ? '' : ` to ${max}`}, got ${text}`,
        )
      return n
    },
  })

/** A flag's text as a number (at least `min` when given); undefined when the flag was not given. */
export function numberOf(raw: string | undefined, flag: string, min?: number): number | undefined {
  if (raw === undefined) return undefined
  const n = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(n) || (min !== undefined && n < min))
    throw new UsageError(
      `${flag} must be a number${min === undefined ? '' : ` of ${min} or more`}, got ${JSON.stringify(raw)}.`,
    )
  return n
}

/** How a batch of creates runs: requests in flight, the slice taken, the journals, other runs sharing rows. */
export const batchRunFlags = {
  concurrency: Flags.integer({description: 'Requests in flight at once.', default: 4, min: 1, max: 32}),
  shard: Flags.string({description: 'Take slice I of N of the rows (see the description).', helpValue: 'I/N'}),
  fresh: Flags.boolean({description: 'Ignore the journal of an earlier run of the same input.'}),
  'wait-others': Flags.integer({
    description:
      'Seconds a run of another input that has sent rows with the same content may record nothing before those rows are reported not sent (0: at once).',
    default: 60,
    min: 0,
    helpValue: 'SECONDS',
  }),
}
