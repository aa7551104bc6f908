import {createHash} from 'node:crypto'

import {createQuotes} from '../../api/v1/demands.js'
import {CreateDemandItem, MAX_BATCH, type DemandRecord} from '../../schemas/demand.js'
import type {ServiceContext} from '../context.js'
import {InputError} from '../errors.js'
import {validateRows} from '../validate.js'

export interface QuoteChunk {
  items: CreateDemandItem[]
  /** Derived from the chunk's draftIds: a retried chunk is answered, not created again. */
  idempotencyKey: string
  /** 0-based index of the chunk's first row in the input. */
  offset: number
}

export interface PreparedQuotes {
  items: CreateDemandItem[]
  chunks: QuoteChunk[]
  /** Top-level fields the create schema does not know; they are not sent. */
  ignored: string[]
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/**
 * The deterministic draftId of a row: the input's identity plus the row
 * number. The service answers a known draftId with the existing demand, so
 * running the same file again never creates duplicates.
 */
export function draftIdFor(identity: string, rowIndex: number): string {
  return `mfg-${sha256(`${identity}:${rowIndex + 1}`).slice(0, 24)}`
}

export function idempotencyKeyFor(draftIds: readonly string[]): string {
  return `mfg-${sha256(draftIds.join('\n')).slice(0, 40)}`
}

/**
 * Validates every row before anything is sent (one InputError lists all
 * problems), gives each row a draftId unless it has one, and cuts the rows
 * into chunks of at most 100, the service's batch limit.
 */
export function prepareQuotes(
  rows: readonly unknown[],
  opts: {identity: string; rowLabel?: (index: number) => string; chunkSize?: number},
): PreparedQuotes {
  if (rows.length === 0) throw new InputError('the input holds no rows; nothing to create.')
  const label = opts.rowLabel ?? ((i: number) => `row ${i + 1}`)
  const parsed = validateRows(rows, CreateDemandItem, {what: 'row', rowLabel: label})
  const items = parsed.map((item, i) => ({...item, draftId: item.draftId ?? draftIdFor(opts.identity, i)}))
  const seen = new Map<string, number>()
  const dupes: string[] = []
  items.forEach((item, i) => {
    const first = seen.get(item.draftId)
    if (first === undefined) seen.set(item.draftId, i)
    else dupes.push(`  ${label(i)}: draftId: ${JSON.stringify(item.draftId)} repeats ${label(first)}`)
  })
  if (dupes.length > 0) {
    throw new InputError(
      `draftId must be unique within the input (a repeated one would return the first demand again); nothing was sent:\n${dupes.join('\n')}`,
    )
  }
  const ignored: string[] = []
  rows.forEach((row, i) => {
    const unknown = Object.keys(row as object).filter((k) => !(k in parsed[i]!))
    if (unknown.length > 0) ignored.push(`${label(i)}: ${unknown.join(', ')}`)
  })
  const size = Math.min(opts.chunkSize ?? MAX_BATCH, MAX_BATCH)
  const chunks: QuoteChunk[] = []
  for (let offset = 0; offset < items.length; offset += size) {
    const slice = items.slice(offset, offset + size)
    chunks.push({items: slice, offset, idempotencyKey: idempotencyKeyFor(slice.map((x) => x.draftId))})
  }
  return {items, chunks, ignored}
}

/**
 * Sends the prepared chunks in order. If one fails, the error says how many
 * demands were already created and that running the same input again is safe.
 */
export async function createPreparedQuotes(
  ctx: ServiceContext,
  prepared: PreparedQuotes,
  opts: {onChunk?: (done: number, total: number) => void} = {},
): Promise<DemandRecord[]> {
  const created: DemandRecord[] = []
  for (const chunk of prepared.chunks) {
    try {
      const records = await createQuotes(ctx.client, ctx.businessId, chunk.items, {
        idempotencyKey: chunk.idempotencyKey,
      })
      created.push(...records)
    } catch (error) {
      if (created.length > 0 && error instanceof Error) {
        error.message += `\n${created.length} of ${prepared.items.length} demands were created before this failure; run the same command again to finish (rows already created are answered, not duplicated).`
      }
      throw error
    }
    opts.onChunk?.(created.length, prepared.items.length)
  }
  return created
}

/** The create answer carries a payment token; it is a secret like a key. */
export function maskPaymentToken(record: DemandRecord, mask: (s: string) => string): DemandRecord {
  return record.paymentAuthToken ? {...record, paymentAuthToken: mask(record.paymentAuthToken)} : record
}
