// `demand create` from its flags: the rows to create (--file, or one quote from the
// flags) and the batch's options (journal, proof file, shard). The batch itself is
// in src/services/demands; its output on the terminal in cli/batch-output.ts.
import {join} from 'node:path'

import {mfgPaths} from '../profiles/paths.js'
import {createSchema, type Shard} from '../services/demands/batch-validate.js'
import {proofFileName, quoteIdentity, quoteItem, type CreateOptions} from '../services/demands/create.js'
import {defined, given} from '../util/fields.js'
import {quoteFields} from './quote-flags.js'
import {memoryRowSource, openRowSource, type ClosableRowSource, type RowFormat} from './rows.js'
import type {Encoding} from './text-decode.js'

type CreateFlags = Parameters<typeof quoteFields>[0] & {
  file?: string | undefined
  format?: string | undefined
  encoding?: string | undefined
  delimiter?: string | undefined
  legacy: boolean
  'skip-invalid': boolean
  errors?: string | undefined
  'dry-run': boolean
  concurrency: number
  fresh: boolean
  'wait-others': number
  out?: string | undefined
}

/**
 * The rows: --file's (validated against the create schema as they stream), or one
 * quote from the flags, named by --draft-id or by its content and the day, so that a
 * re-run the same day is the same demand (`identity`).
 */
export async function createSource(flags: CreateFlags): Promise<{source: ClosableRowSource; identity?: string}> {
  if (flags.file === undefined) {
    const item = quoteItem(await quoteFields(flags))
    const identity = quoteIdentity(item)
    return {source: memoryRowSource([item], 'flags', identity), identity}
  }
  const format = flags.format as RowFormat | undefined
  const encoding = flags.encoding as Encoding | undefined
  const delimiter = flags.delimiter === 'tab' ? '\t' : flags.delimiter
  const schema = await createSchema(flags.legacy)
  return {source: openRowSource(flags.file, {schema, ...given({format, encoding, delimiter})})}
}

/** The batch's options from the flags; the proof file is kept per profile (none for --dry-run). */
export function createOptions(
  flags: CreateFlags,
  run: {
    shard: Shard | undefined
    identity: string | undefined
    profile: string | undefined
    businessId: string | undefined
  },
): CreateOptions {
  const {journalDir} = mfgPaths()
  return {
    legacy: flags.legacy,
    ...defined({shard: run.shard}),
    skipInvalid: flags['skip-invalid'],
    ...given({errorsFile: flags.errors}),
    dryRun: flags['dry-run'],
    concurrency: flags.concurrency,
    journal: {dir: journalDir, fresh: flags.fresh},
    othersQuietMs: flags['wait-others'] * 1000,
    ...defined({proofFile: run.profile === undefined ? undefined : join(journalDir, proofFileName(run.profile))}),
    ...given({identity: run.identity, out: flags.out, businessId: run.businessId}),
  }
}
