import * as crypto from 'node:crypto'

/**
 * Hex sha256 of a text. `crypto.hash` (Node 20.12 and later) is about twice as
 * fast as a Hash object for short texts, which counts at one draftId per row;
 * older Node versions use createHash. Both give the same digest.
 */
const sha256: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'hex')
    : (text) => crypto.createHash('sha256').update(text).digest('hex')

/**
 * The deterministic draftId of a row: the input's identity (the sha256 of its
 * bytes) plus the row number. Running the same input again gives every row the
 * same draftId, so the batch runner (and a server that replays draftIds) can
 * tell a row already created from a new one.
 */
export function draftIdFor(identity: string, rowIndex: number): string {
  return `mfg-${sha256(`${identity}:${rowIndex + 1}`).slice(0, 24)}`
}

/** The create operations a batch sends, each with its API generation. */
export type CreateOperation = 'v1 create-quotes' | 'v2 create-demands'

/**
 * The Idempotency-Key of a request: derived from the operation and its rows'
 * draftIds, so a resend of the same rows carries the same key, and the same rows
 * sent through the other generation's create (`--legacy`) never share it: a
 * service refuses a key it saw with another request.
 */
export function idempotencyKeyFor(operation: CreateOperation, draftIds: readonly string[]): string {
  return `mfg-${sha256(`${operation}\n${draftIds.join('\n')}`).slice(0, 40)}`
}

/** JSON with every object's keys in order, so equal content gives equal text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/**
 * The identity of a quote built from flags (its draftId and journal): the
 * draftId the user gave, or else its content and the day (UTC), so that running
 * the same command again the same day names the same demand, while the same
 * quote on another day is a new one.
 */
export function quoteIdentity(item: Record<string, unknown>, now: Date = new Date()): string {
  // Shown as the input's identity (`validation.contentHash`): it says what it is made of.
  if (typeof item.draftId === 'string') return `draft-id-${sha256(item.draftId).slice(0, 32)}`
  const day = now.toISOString().slice(0, 10)
  return `quote-${day}-${sha256(`${day}\n${canonical(item)}`).slice(0, 32)}`
}

/** The name of a profile's look-up proof file (batch-proof.ts), free of the name's characters. */
export function proofFileName(profile: string): string {
  return `lookup-proof-${sha256(profile).slice(0, 24)}.json`
}
