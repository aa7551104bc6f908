import type {ServiceContext} from '../context.js'
import {BatchStopped, runBatch, type BatchOptions, type BatchSummary, type RowOutcome} from './batch.js'
import type {RowSource, ValidationReport} from './batch-validate.js'

export {BatchStopped} from './batch.js'
export {draftIdFor, idempotencyKeyFor, proofFileName, quoteIdentity} from './batch-ids.js'

/**
 * What `demand create --json` prints, whatever the path taken (a file or one quote
 * from flags, `--dry-run`, `--out`, rows resumed from a journal, failures): the
 * run's counts, and every row's outcome in row order. `results` is empty for a dry
 * run, and with `--out`, whose file holds the outcomes as NDJSON lines instead.
 */
export interface CreateResult extends Omit<BatchSummary, 'validation'> {
  /** The `--out` file; null when the outcomes are in `results`. */
  out: string | null
  /** The first pass: rows read, selected, valid and invalid, chunks, problems, the input's hash. */
  validation: Omit<ValidationReport, 'errorsFile'> & {errorsFile: string | null}
  /**
   * `{row, id, orderNumber, draftId, status}`; `{row, draftId, outcome: "confirmed"}`
   * (created, id unknown); or `{row, draftId, error}`, with `outcome: "unknown"`
   * (maybe created), or `outcome: "ambiguous"` and `ids` (created more than once).
   */
  results: RowOutcome[]
}

export interface CreateOptions extends BatchOptions {
  /** Keep every outcome for `results` (the `--json` result); otherwise they only go to `onResult`. */
  collect?: boolean
  /** The file the caller writes the outcomes to, reported as `out`. */
  out?: string
}

/**
 * Creates demands from rows (a file, or one quote from flags) as one batch, and
 * answers the one CreateResult whatever the path taken; a run an error stopped
 * throws BatchStopped with that CreateResult.
 */
export async function createDemands(
  context: ServiceContext | (() => Promise<ServiceContext>),
  source: RowSource,
  opts: CreateOptions = {},
): Promise<CreateResult> {
  const {collect, out, onResult, ...batch} = opts
  const results: RowOutcome[] = []
  const result = (summary: BatchSummary) =>
    createResult(
      summary,
      results.sort((a, b) => a.row - b.row),
      out,
    )
  try {
    return result(
      await runBatch(context, source, {
        ...batch,
        onResult: (outcome) => {
          if (collect) results.push(outcome)
          onResult?.(outcome)
        },
      }),
    )
  } catch (error) {
    if (error instanceof BatchStopped) throw new BatchStopped(result(error.result as BatchSummary), error.reason)
    throw error
  }
}

function createResult(summary: BatchSummary, results: RowOutcome[], out: string | undefined): CreateResult {
  const {validation, ...counts} = summary
  return {
    ...counts,
    out: out ?? null,
    validation: {...validation, errorsFile: validation.errorsFile ?? null},
    results,
  }
}

/** The flags of a single quote, as the command parsed them. */
export interface QuoteFields {
  technique: string
  material: string
  quantity?: number
  color?: string
  email?: string
  firstName?: string
  lastName?: string
  phone?: string
  currency?: string
  takenAs?: string
  draftId?: string
}

/** One create-quotes item from the fields of a single quote; empty fields are left out. */
export function quoteItem(fields: QuoteFields): Record<string, unknown> {
  const {takenAs, ...rest} = fields
  const item: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(rest)) if (value !== undefined && value !== '') item[key] = value
  if (takenAs) item.jobDetails = {takenAs}
  return item
}
