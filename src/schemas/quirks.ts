// The sandbox's quirks: the closed set of ways it can answer as real services do when
// they drift from the interface (issue 16), so that scripts can be tried against a
// realistic service. A leaf without zod: `sandbox serve --help` lists these names, and
// the sandbox (src/sandbox/quirks.ts) applies them.

/** Quirks of one group are alternatives: at most one of them is on. */
export type QuirkGroup = 'create' | 'list' | 'error'

export interface QuirkInfo {
  name: string
  group?: QuirkGroup
  /** One line for `--quirks list` and the docs. */
  about: string
}

/** Under `rate-limit` and `unavailable`: the share of requests refused (seeded, so runs repeat). */
export const QUIRK_FAULT_RATE = 0.1
/** Under `slow`: how long each answer waits before its first byte. */
export const QUIRK_SLOW_MS = 1000

export const QUIRKS = [
  {
    name: 'create-object',
    group: 'create',
    about: 'a demand create that made one demand answers its record alone, not an array',
  },
  {name: 'create-data', group: 'create', about: 'demand creates answer {"data": [records]}'},
  {name: 'create-ids', group: 'create', about: 'demand creates answer only ids: [{"_id": ...}]'},
  {name: 'create-empty', group: 'create', about: 'every create (demands, posts, webhooks) answers 201 with no body'},
  {name: 'create-accepted', group: 'create', about: 'every create answers 202 Accepted with no body'},
  {name: 'create-no-content', group: 'create', about: 'every create answers 204 No Content'},
  {name: 'no-draft-echo', about: 'demand records leave out their draftId'},
  {name: 'draft-filter-ignored', about: 'the v1 demand list ignores ?draftId= and answers every demand'},
  {
    name: 'numeric-strings',
    about: 'amounts and counts as strings ("orderNumber": "41", "priceTotal": "12.50", paging)',
  },
  {name: 'nulls', about: 'null for absent and empty values ("", [], unset dates, an empty address)'},
  {name: 'unknown-fields', about: 'fields the interface does not list, on records and list envelopes'},
  {name: 'unknown-enums', about: 'enum values the interface does not list (paymentStatus, type, typeDelivery, events)'},
  {name: 'date-forms', about: 'other ISO 8601 forms (offsets, no fraction, microseconds; fabricatedDate with a time)'},
  {name: 'list-bare', group: 'list', about: 'lists answer a bare array: no envelope, no paging fields'},
  {name: 'list-data', group: 'list', about: 'lists answer {"data": [...]} without paging fields (posts included)'},
  {name: 'list-no-paging', group: 'list', about: 'lists keep their key (data, posts) without the paging fields'},
  {name: 'error-nested', group: 'error', about: 'errors answer {"error": {"message", "code"}}'},
  {name: 'error-array', group: 'error', about: 'errors answer {"errors": [{"message", "field"}]}'},
  {name: 'error-problem', group: 'error', about: 'errors answer RFC 9457 application/problem+json (title, detail)'},
  {name: 'error-html', group: 'error', about: 'errors answer an HTML page, as a gateway or a web framework does'},
  {name: 'rate-limit', about: 'about 1 request in 10 gets 429 with Retry-After: 1, before any work (seeded)'},
  {name: 'unavailable', about: 'about 1 read (GET) in 10 gets 503, before any work (seeded)'},
  {name: 'slow', about: 'every answer waits 1 s before its first byte'},
] as const satisfies readonly QuirkInfo[]

export type QuirkName = (typeof QUIRKS)[number]['name']

export const QUIRK_NAMES: readonly QuirkName[] = QUIRKS.map((q) => q.name)

/** What `all` turns on: every quirk, and in each group the deviation met most often. */
export const ALL_QUIRKS: readonly QuirkName[] = QUIRK_NAMES.filter((name) => {
  const group = groupOf(name)
  return group === undefined || ['create-object', 'list-bare', 'error-nested'].includes(name)
})

export function groupOf(name: QuirkName): QuirkGroup | undefined {
  const info: QuirkInfo | undefined = QUIRKS.find((q) => q.name === name)
  return info?.group
}

function isQuirkName(name: string): name is QuirkName {
  return (QUIRK_NAMES as readonly string[]).includes(name)
}

/** A quirk list that cannot be used; the message names where it came from and the allowed values. */
export class QuirkListError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'QuirkListError'
  }
}

/**
 * Reads a comma-separated quirk list: names, `all` (ALL_QUIRKS), and `-name` to
 * leave one out (`all,-slow`). A name of a group replaces that group's quirk from
 * `all`; two named quirks of one group are an error. `source` names the flag or
 * variable in messages. Answers the quirks in catalogue order.
 */
export function parseQuirkList(spec: string, source: string): QuirkName[] {
  const tokens = spec
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '')
  if (tokens.length === 0) throw new QuirkListError(`${source} is empty: ${allowed()}.`)
  const named = new Set<QuirkName>()
  const removed = new Set<QuirkName>()
  let all = false
  for (const token of tokens) {
    const name = token.startsWith('-') ? token.slice(1) : token
    if (name === 'all' && token === name) {
      all = true
      continue
    }
    if (!isQuirkName(name)) throw new QuirkListError(`${source}: unknown quirk ${JSON.stringify(token)}; ${allowed()}.`)
    ;(token === name ? named : removed).add(name)
  }
  for (const group of ['create', 'list', 'error'] as const) {
    const members = [...named].filter((n) => groupOf(n) === group)
    if (members.length > 1) {
      throw new QuirkListError(`${source}: ${members.join(' and ')} are alternatives (how ${group}s answer); name one.`)
    }
  }
  const on = new Set<QuirkName>(named)
  if (all) {
    const groupsNamed = new Set([...named].map(groupOf).filter((g) => g !== undefined))
    for (const name of ALL_QUIRKS) {
      const group = groupOf(name)
      if (group === undefined || !groupsNamed.has(group)) on.add(name)
    }
  }
  for (const name of removed) on.delete(name)
  if (on.size === 0) throw new QuirkListError(`${source} leaves no quirk on; ${allowed()}.`)
  return QUIRK_NAMES.filter((name) => on.has(name))
}

function allowed(): string {
  return `allowed: all, ${QUIRK_NAMES.join(', ')} (comma-separated; -NAME leaves one out)`
}
