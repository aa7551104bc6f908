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

/** The Idempotency-Key of a request: derived from its rows' draftIds, so a resend of the same rows carries the same key. */
export function idempotencyKeyFor(draftIds: readonly string[]): string {
  return `mfg-${sha256(draftIds.join('\n')).slice(0, 40)}`
}
