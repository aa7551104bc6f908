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
 * The deterministic draftId of a row of an input named by `identity` (a quote from
 * flags: its content and the day) and its row number. Running the same input again
 * gives every row the same draftId, so the batch runner (and a server that replays
 * draftIds) can tell a row already created from a new one. A file's rows are named
 * by their content instead (ContentDraftIds).
 */
export function draftIdFor(identity: string, rowIndex: number): string {
  return `mfg-${sha256(`${identity}:${rowIndex + 1}`).slice(0, 24)}`
}

/**
 * The draftIds of a file's rows, from their content: a row's draftId is the hash of
 * the row as read (its JSON) and of how many rows with the same content come before
 * it in the input. Editing, adding, removing or reordering other rows, another line
 * ending or a byte-order mark leaves a row's draftId as it was, so a run of the
 * edited file knows the rows an earlier run created (batch-journal.ts reads the
 * journals of the target's other inputs) and sends only the new or changed ones;
 * two identical rows are still two demands. Every row of the input is counted,
 * whatever the shard, so a row has the same draftId in every slice.
 */
export class ContentDraftIds {
  /** 52 bits of each content hash seen once; a repeat goes to `repeats` with its count. */
  private readonly seen = new Set<number>()
  private readonly repeats = new Map<number, number>()

  /** The draftId of the next row, given its parsed value (rows must come in input order). */
  next(value: unknown): string {
    const hex = sha256(JSON.stringify(value) ?? 'null')
    // A Set of numbers holds a million rows in a few tens of MB. Two contents that share
    // these bits only shift each other's count, and still get draftIds of their own.
    const bits = Number.parseInt(hex.slice(0, 13), 16)
    let before = 0
    if (this.seen.has(bits)) {
      before = this.repeats.get(bits) ?? 1
      this.repeats.set(bits, before + 1)
    } else this.seen.add(bits)
    return `mfg-${(before === 0 ? hex : sha256(`${hex}:${before}`)).slice(0, 24)}`
  }
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
