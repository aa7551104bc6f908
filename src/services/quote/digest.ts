import {createHash} from 'node:crypto'
import {existsSync, mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import type {ServiceContext} from '../context.js'

/**
 * The digest of a written quote: the part files' hashes, what they were priced
 * with and the prices. Kept per service, business and demand under the state
 * directory, so a rerun can tell that nothing changed and write nothing.
 */

export function quoteDigest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex')
}

function fileOf(ctx: Pick<ServiceContext, 'businessId' | 'target'>, stateDir: string, demandId: string): string {
  const scope = createHash('sha256')
    .update(`${ctx.target ?? ''}\n${ctx.businessId}`)
    .digest('hex')
    .slice(0, 16)
  return join(stateDir, scope, `${demandId.replace(/[^A-Za-z0-9_-]/g, '_')}.json`)
}

/** What a demand's last written quote left: its digest, and whether this quote was sent to the buyer. */
export interface StoredQuote {
  digest: string
  sent: boolean
}

export function readDigest(
  ctx: Pick<ServiceContext, 'businessId' | 'target'>,
  stateDir: string,
  demandId: string,
): StoredQuote | undefined {
  const file = fileOf(ctx, stateDir, demandId)
  if (!existsSync(file)) return undefined
  try {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as {digest?: unknown; sent?: unknown}
    return typeof stored.digest === 'string' ? {digest: stored.digest, sent: stored.sent === true} : undefined
  } catch {
    // An unreadable digest is no digest: the demand is quoted again.
    return undefined
  }
}

export function writeDigest(
  ctx: Pick<ServiceContext, 'businessId' | 'target'>,
  stateDir: string,
  demandId: string,
  stored: StoredQuote,
): void {
  const file = fileOf(ctx, stateDir, demandId)
  mkdirSync(join(file, '..'), {recursive: true, mode: 0o700})
  writeFileSync(`${file}.tmp`, `${JSON.stringify({demandId, ...stored, at: new Date().toISOString()})}\n`)
  renameSync(`${file}.tmp`, file)
}
