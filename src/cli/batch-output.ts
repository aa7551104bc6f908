import {BatchStopped, type BatchProgress, type RowOutcome} from '../services/demands/batch.js'
import {lookalikeLines, unknownFieldLines, type ValidationReport} from '../services/demands/batch-validate.js'
import type {CreateResult} from '../services/demands/create.js'
import {UsageError} from './errors.js'
import {stopOnSignals} from './interrupt.js'
import {ProgressBar} from './progress.js'
import {fileReason} from '../util/file-reason.js'

/** What a batch command hands the service to report as it goes. */
export interface BatchHooks {
  collect: boolean
  signal: AbortSignal
  onValidated(report: ValidationReport): void
  onResult(outcome: RowOutcome): void
  onProgress(progress: BatchProgress): void
  onWaiting(waiting: {rows: number; pids: number[]}): void
}

export interface BatchCommandOptions {
  /** `--out FILE` for the result lines. */
  out?: string
  /** `--json`: the outcomes go into the result (unless `out`), notes are not written. */
  json: boolean
  /** `--shard I/N` as given, for the summary. */
  shard?: string
  note(text: string): void
}

/**
 * Runs a batch the way a command shows it: result lines on stdout or in `--out`,
 * a progress bar on a terminal, notes before and after, Ctrl-C and SIGTERM
 * turned into a graceful stop (exit 130 or 143), exit 1 when a row failed. A run
 * an error stopped (BatchStopped) gets its lines and notes too, then is rethrown
 * for the command to report the error.
 */
export async function runBatchCommand(
  opts: BatchCommandOptions,
  run: (hooks: BatchHooks) => Promise<CreateResult>,
): Promise<CreateResult> {
  const bar = new ProgressBar()
  const stop = stopOnSignals(
    'Stopping: no new chunks are sent; waiting for those in flight (Ctrl-C again to quit at once; the journal lets a re-run resume).',
    () => bar.done(),
  )
  const collect = opts.json && opts.out === undefined
  let lines: RowOutput | undefined
  try {
    lines = await RowOutput.open(opts.out)
    const output = lines
    const result = await run({
      collect,
      signal: stop.signal,
      onValidated: (report) => validationNotes(report).forEach((n) => opts.note(n)),
      onResult: (outcome) => {
        if (!collect) output.add(outcome)
      },
      onProgress: (p) => {
        // Result lines and the bar share a terminal: the bar is erased for them and drawn again (progress.ts).
        if (output.forStdout) bar.around(() => output.flush())
        else output.flush()
        bar.update(p)
      },
      onWaiting: ({rows, pids}) => {
        const runs = pids.length === 1 ? `another run (pid ${pids[0]})` : `other runs (pids ${pids.join(', ')})`
        bar.around(
          () =>
            opts.note(
              rows === 0
                ? 'No more rows wait for other runs.'
                : `Waiting for ${runs} of another input to settle ${rows} row(s) with the same content it has sent; Ctrl-C stops waiting (a re-run settles them).`,
            ),
          process.stderr,
        )
      },
    }).catch((error: unknown) => {
      if (!(error instanceof BatchStopped)) throw error
      bar.done()
      output.flush()
      for (const n of summaryNotes(error.result as CreateResult, opts.shard, false)) opts.note(n)
      throw error
    })
    bar.done()
    output.flush()
    for (const n of summaryNotes(result, opts.shard, stop.received() !== undefined)) opts.note(n)
    if (result.interrupted) process.exitCode = stop.exitCode()
    else if (result.failed > 0) process.exitCode = 1
    return result
  } finally {
    lines?.close()
    bar.done()
    stop.dispose()
  }
}

/**
 * Where a batch's row outcomes go as NDJSON lines: stdout, or an `--out` file.
 * Lines are written a chunk at a time (`flush` after each chunk's rows), one
 * write per chunk rather than one per row.
 */
export class RowOutput {
  private lines = ''

  private constructor(
    private readonly fd: number | undefined,
    private readonly fs: typeof import('node:fs') | undefined,
  ) {}

  static async open(out: string | undefined): Promise<RowOutput> {
    if (out === undefined) return new RowOutput(undefined, undefined)
    const fs = await import('node:fs')
    try {
      return new RowOutput(fs.openSync(out, 'w', 0o600), fs)
    } catch (error) {
      throw new UsageError(`cannot write --out ${out}: ${fileReason(error, true)}. Nothing was sent.`)
    }
  }

  add(outcome: RowOutcome): void {
    this.lines += `${JSON.stringify(outcome)}\n`
  }

  /** Whether lines wait to be written to stdout (not to an --out file). */
  get forStdout(): boolean {
    return this.lines !== '' && this.fd === undefined
  }

  flush(): void {
    if (this.lines === '') return
    if (this.fd !== undefined) this.fs!.writeSync(this.fd, this.lines)
    else process.stdout.write(this.lines)
    this.lines = ''
  }

  close(): void {
    this.flush()
    if (this.fd !== undefined) this.fs!.closeSync(this.fd)
  }
}

/** What the first pass found worth saying before anything is sent. */
export function validationNotes(report: ValidationReport): string[] {
  const notes: string[] = []
  if (report.unknownFields.length > 0) {
    notes.push(`Warning: unknown fields are not sent:\n${unknownFieldLines(report).join('\n')}`)
  }
  if (report.lookalikeFields.length > 0) {
    notes.push(
      `Warning: these fields are sent as given but look like misspelt known ones:\n${lookalikeLines(report).join('\n')}`,
    )
  }
  if (report.invalid > 0) {
    const where = report.errorsFile ? `; written with reasons to ${report.errorsFile}` : ' (--errors FILE keeps them)'
    notes.push(`Skipping ${report.invalid} invalid row(s)${where}.`)
  }
  return notes
}

/** The run's summary for stderr, and what to do next. */
export function summaryNotes(s: CreateResult, shard: string | undefined, stopped: boolean): string[] {
  const v = s.validation
  const scope = shard ? ` in shard ${shard} (${v.selected} of ${v.rows} rows)` : ''
  if (s.dryRun) {
    const invalid = v.invalid > 0 ? `, ${v.invalid} invalid` : ''
    return [
      `${v.valid} row(s) valid${invalid}${scope}; would send ${v.chunks} request(s). Nothing was sent (--dry-run).`,
    ]
  }
  const parts = [`Created ${s.created} of ${v.valid} demand(s)${scope}`]
  if (s.resumed > 0) parts.push(`${s.resumed} already created by an earlier run`)
  if (s.confirmed > 0) parts.push(`${s.confirmed} confirmed by the service without an id`)
  parts.push(`${s.requests} request(s)`)
  if (s.retries > 0) parts.push(`${s.retries} resend(s)`)
  if (s.reconciled > 0) parts.push(`${s.reconciled} row(s) found on the server after an unknown outcome`)
  if (s.failed > 0) parts.push(`${s.failed} failed (see the error lines)`)
  if (s.unknown > 0) parts.push(`${s.unknown} of them with an unknown outcome`)
  if (s.ambiguous > 0) parts.push(`${s.ambiguous} of them found more than once`)
  if (v.invalid > 0) parts.push(`${v.invalid} invalid row(s) skipped`)
  const notes = [`${parts.join('; ')}.`]
  if (s.resumedElsewhere > 0) notes.push(elsewhereNote(s))
  if (s.confirmed > 0) {
    notes.push(
      `The service confirmed ${s.confirmed} row(s) without saying which demand it made, and looking them up found none: they are created (outcome "confirmed", no id); \`mfg demand list\` shows the newest demands.`,
    )
  }
  if (s.unknown > 0) notes.push(unknownNote(s.unknown))
  if (s.ambiguous > 0) {
    notes.push(
      'Rows found more than once list every demand that carries their draftId (ids in their error lines): keep one of each and cancel the others.',
    )
  }
  if (s.stoppedBy !== null) {
    notes.push(
      `Stopped by the error below: ${s.pending} row(s) not sent. Once it is fixed, run the same command again; rows already created are not sent again.`,
    )
  } else if (s.interrupted || (stopped && s.pending > 0)) {
    notes.push(
      `Interrupted: ${s.pending} row(s) not sent. Run the same command again to resume; rows already created are not sent again.`,
    )
  } else if (s.failed > s.unknown + s.ambiguous && s.journal) {
    notes.push('Run the same command again to retry the failed rows; rows already created are not sent again.')
  }
  return notes
}

/** Rows answered with demands a run of another input made: which runs, and how to make such rows anew. */
function elsewhereNote(s: CreateResult): string {
  const runs = s.earlierInputs
    .slice(0, 3)
    .map((e) => `${e.source ?? 'an input'} at ${e.at.slice(0, 16).replace('T', ' ')} UTC`)
  const more = s.earlierInputs.length > 3 ? ` and ${s.earlierInputs.length - 3} more` : ''
  return `${s.resumedElsewhere} row(s) have the content of rows that a run of another input created (${runs.join(', ')}${more}), so they are those demands and were not sent again. To create such rows as new demands, give each a draftId of its own (a draftId column).`
}

/** What to do about rows whose outcome is unknown: how to check them, and what a re-run does. */
function unknownNote(count: number): string {
  return [
    `Outcome unknown for ${count} row(s): the service may have created them and nothing proves either way, so they were not sent again.`,
    '  To check, look for their draftIds (in the result lines) among the newest demands, for example:',
    `  mfg demand list --all --json --jq 'select(.draftId == "DRAFT-ID")'`,
    '  (a service that does not show draftIds: look for the rows by their content).',
    '  Running the same command again looks them up first and sends only rows proven missing; --fresh sends them regardless, which may duplicate them.',
  ].join('\n')
}
