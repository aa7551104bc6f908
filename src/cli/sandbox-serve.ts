// What `mfg sandbox serve` reads and prints besides starting the sandbox: the quirk
// list (--quirks, MFG_SANDBOX_QUIRKS), the quirk catalogue, and the lines on stderr
// when it starts and stops. The sandbox itself is loaded by the command (rule 6).
import {ALL_QUIRKS, QUIRKS, QuirkListError, parseQuirkList, type QuirkName} from '../schemas/quirks.js'
import {maskSecret} from '../schemas/secrets.js'
import {UsageError} from './errors.js'
import {writeErr, writeOut} from './output.js'

/** The variable that turns quirks on for the embedded sandbox (the "local" profile). */
export const QUIRKS_ENV = 'MFG_SANDBOX_QUIRKS'

/** A quirk list from a flag or a variable, or undefined when none is given; a bad one is a usage error. */
export function readQuirks(spec: string | undefined, source: string): QuirkName[] | undefined {
  if (spec === undefined) return undefined
  try {
    return parseQuirkList(spec, source)
  } catch (error) {
    if (error instanceof QuirkListError) throw new UsageError(error.message)
    throw error
  }
}

export interface QuirkEntry {
  name: string
  group: string | null
  /** Whether `all` turns it on. */
  inAll: boolean
  about: string
}

/** The closed set of quirks, as `--quirks list` shows it. */
export function quirkCatalogue(): QuirkEntry[] {
  return QUIRKS.map((q) => ({
    name: q.name,
    group: 'group' in q ? q.group : null,
    inAll: (ALL_QUIRKS as readonly string[]).includes(q.name),
    about: q.about,
  }))
}

/** `--quirks list` without --json: one quirk a line, on stdout (it is the data asked for). */
export function printQuirkCatalogue(): void {
  const entries = quirkCatalogue()
  const width = Math.max(...entries.map((e) => e.name.length))
  for (const e of entries) writeOut(`${e.name.padEnd(width)}  ${e.inAll ? '*' : ' '} ${e.about}`)
  writeErr(
    '* on with "all". create-*, list-* and error-* are alternatives: one of each at most. ' +
      'Combine with commas; -NAME leaves one out (all,-slow).',
  )
}

interface Served {
  url: string
  businesses: {id: string; name: string; apiKey: string; authToken: string; webhookAccess: boolean}[]
}

/** The human lines on stderr once the sandbox listens. */
export function announce(
  sandbox: Served,
  opts: {memory: boolean; showSecrets: boolean; faults?: {rate: number; seed: number | null}; replay: boolean},
  quirks: readonly QuirkName[] | undefined,
): void {
  const show = (s: string) => (opts.showSecrets ? s : maskSecret(s))
  writeErr(`Sandbox listening on ${sandbox.url}${opts.memory ? ' (in memory)' : ''}`)
  for (const b of sandbox.businesses) {
    writeErr(
      `  ${b.name}: business id ${b.id}, API key ${show(b.apiKey)}, auth token ${show(b.authToken)}, webhooks ${b.webhookAccess ? 'enabled' : 'not enabled'}`,
    )
  }
  if (!opts.showSecrets) writeErr('Keys are masked; --show-secrets or --json prints them in full.')
  if (opts.faults) writeErr(`Fault injection: ${opts.faults.rate} of write requests (seed ${opts.faults.seed ?? '-'}).`)
  if (!opts.replay) writeErr('Replay off: repeated draftIds and Idempotency-Keys create new demands.')
  if (quirks) writeErr(`Quirks on: ${quirks.join(', ')}. What is stored is unchanged; answers deviate.`)
  writeErr('Press Ctrl-C to stop.')
}

/** The counts printed on stop. */
export function farewell(
  faults: {total: number; writeRequests: number; injected: Record<string, number>} | undefined,
  quirks: {answers: number; reshaped: number; rateLimited: number; unavailable: number; slowed: number} | undefined,
): void {
  if (faults) {
    const kinds = Object.entries(faults.injected)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')
    writeErr(`Faults injected: ${faults.total} of ${faults.writeRequests} write requests (${kinds}).`)
  }
  if (quirks) {
    writeErr(
      `Quirks: ${quirks.reshaped} of ${quirks.answers} answers reshaped, ${quirks.rateLimited} refused with 429, ` +
        `${quirks.unavailable} with 503, ${quirks.slowed} slowed.`,
    )
  }
}
