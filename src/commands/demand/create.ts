import {Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {UsageError} from '../../cli/errors.js'
import {fileFlag} from '../../cli/flags.js'
import {TECHNIQUES} from '../../schemas/common.js'
import {TAKEN_AS} from '../../schemas/demand.js'
import type {BatchSummary, RowOutcome} from '../../services/demands/batch.js'

export default class DemandCreate extends BaseCommand {
  static override summary = 'Create demands in batch from JSON, NDJSON or CSV, or one quote from flags.'
  static override description = `Reads a JSON array (or one object), NDJSON (one object per line) or CSV from --file PATH, or from stdin with --file -. The format follows the extension (.json, .ndjson/.jsonl, .csv), or --format, or the first character. CSV headers are field paths (shippingAddress.city, jobDetails.takenAs, quoteModel.0.fileName); cells are converted to the types the schema expects (numbers, whole numbers, booleans as true/false/yes/no/1/0, objects and arrays as JSON) and empty cells are left out. The input is streamed: memory does not grow with the number of rows.

Every row is validated before anything is sent. One invalid row stops the run (exit 2) with every invalid row listed as "row N: field.path: reason" (the first 50, then a count); --skip-invalid sends the valid rows and writes the invalid ones, with reasons, to --errors FILE (NDJSON: row, errors, input). --dry-run only validates.

Rows go in chunks of 100, --concurrency at a time, over keep-alive connections. Results are one NDJSON line per row on stdout ({row, id, orderNumber, draftId, status}, or {row, draftId, error}), --json prints one array instead, --out FILE writes the lines to a file. A summary goes to stderr, and a progress bar when stderr is a terminal. The exit code is 1 if any row failed.

Nothing is lost or created twice, against any server. Each row gets a deterministic draftId (mfg- plus a hash of the input's bytes and the row number) unless it has one. A journal under MFG_HOME (journals/, mode 0600) records every chunk's state, keyed by the input, the shard and the target (base URL and business). Running the same command again after Ctrl-C, SIGTERM, a crash or a lost connection resumes: rows already created are not sent again and the output still covers every row. A chunk whose outcome is unknown (connection lost or time-out after sending, 5xx) is looked up on the server by draftId before anything is resent, and only the missing rows go again. 429 and failures before sending are retried with back-off, honouring Retry-After. --fresh ignores an existing journal (rows are then sent again: a server that replays draftIds answers the existing demands, others create new ones).

--shard I/N takes the rows whose 0-based index modulo N is I−1 (rows I, I+N, I+2N, ... counting from 1), so N jobs given 1/N … N/N cover the input exactly once; each shard has its own journal, and draftIds do not depend on the shard.

Ctrl-C stops sending new chunks, waits for those in flight, and exits 130; run the same command again to finish.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> --file examples/quotes.json',
    '<%= config.bin %> <%= command.id %> --file orders.csv --concurrency 8 --out results.ndjson',
    'cat quotes.ndjson | <%= config.bin %> <%= command.id %> --file - --format ndjson --json',
    '<%= config.bin %> <%= command.id %> --file big.ndjson --dry-run',
    '<%= config.bin %> <%= command.id %> --file big.csv --skip-invalid --errors rejected.ndjson',
    '<%= config.bin %> <%= command.id %> --file big.ndjson --shard 2/3',
    '<%= config.bin %> <%= command.id %> --file legacy.json --legacy',
    '<%= config.bin %> <%= command.id %> --technique 3D_PRINTING --material PLA --quantity 10 --email buyer@example.com --first-name Ada --last-name Lovelace',
  ]
  static override flags = {
    file: fileFlag('JSON, NDJSON or CSV file of create requests; - reads stdin.'),
    format: Flags.string({
      description: 'Input format (default: from the extension, else the first character).',
      options: ['json', 'ndjson', 'csv'],
      dependsOn: ['file'],
    }),
    legacy: Flags.boolean({
      description: 'Create through the legacy create-demands call (v2) instead of create-quotes.',
    }),
    'dry-run': Flags.boolean({description: 'Validate every row; send nothing.'}),
    'skip-invalid': Flags.boolean({description: 'Send the valid rows; write the invalid ones to --errors.'}),
    errors: Flags.string({
      description: 'With --skip-invalid: NDJSON file for the invalid rows (row, errors, input).',
      dependsOn: ['skip-invalid'],
      helpValue: 'FILE',
    }),
    concurrency: Flags.integer({description: 'Requests in flight at once.', default: 4, min: 1, max: 32}),
    shard: Flags.string({description: 'Take slice I of N of the rows (see the description).', helpValue: 'I/N'}),
    fresh: Flags.boolean({description: 'Ignore the journal of an earlier run of the same input.'}),
    out: Flags.string({
      description: 'Write the result lines (NDJSON) to this file instead of stdout.',
      helpValue: 'FILE',
    }),
    technique: Flags.string({
      description: 'Technique of a single quote.',
      options: [...TECHNIQUES],
      exclusive: ['file'],
      helpGroup: 'SINGLE QUOTE',
    }),
    material: Flags.string({
      description: 'Material, for example PLA or Aluminium 6061.',
      exclusive: ['file'],
      helpGroup: 'SINGLE QUOTE',
    }),
    quantity: Flags.integer({description: 'Number of parts.', min: 1, exclusive: ['file'], helpGroup: 'SINGLE QUOTE'}),
    color: Flags.string({description: 'Colour.', exclusive: ['file'], helpGroup: 'SINGLE QUOTE'}),
    email: Flags.string({description: 'Customer e-mail.', exclusive: ['file'], helpGroup: 'SINGLE QUOTE'}),
    'first-name': Flags.string({description: 'Customer first name.', exclusive: ['file'], helpGroup: 'SINGLE QUOTE'}),
    'last-name': Flags.string({description: 'Customer last name.', exclusive: ['file'], helpGroup: 'SINGLE QUOTE'}),
    phone: Flags.string({description: 'Customer phone.', exclusive: ['file'], helpGroup: 'SINGLE QUOTE'}),
    currency: Flags.string({
      description: 'Currency code (default: the business currency).',
      exclusive: ['file'],
      helpGroup: 'SINGLE QUOTE',
    }),
    'taken-as': Flags.string({
      description: 'QUOTE (default) or ORDER.',
      options: [...TAKEN_AS],
      exclusive: ['file'],
      helpGroup: 'SINGLE QUOTE',
    }),
    'draft-id': Flags.string({
      description: 'Your own draftId for the single quote.',
      exclusive: ['file'],
      helpGroup: 'SINGLE QUOTE',
    }),
  }

  // Ctrl-C must let chunks in flight finish and the journal settle: handled in run().
  protected override handlesInterrupt = false

  async run(): Promise<RowOutcome[] | BatchSummary> {
    const {flags} = await this.parse(DemandCreate)
    const [{openRowSource, memoryRowSource}, {runBatch}, {parseShard, createSchema}] = await Promise.all([
      import('../../cli/rows.js'),
      import('../../services/demands/batch.js'),
      import('../../services/demands/batch-validate.js'),
    ])
    const schema = createSchema(flags.legacy)
    let source
    let identity: string | undefined
    if (flags.file === undefined) {
      const {randomUUID} = await import('node:crypto')
      // One quote from flags is a new demand each run, unless --draft-id names it.
      identity = randomUUID()
      source = memoryRowSource([await this.singleQuote(flags)], 'flags', identity)
    } else {
      source = openRowSource(flags.file, {schema, ...(flags.format ? {format: flags.format as 'json'} : {})})
    }
    const shard = flags.shard === undefined ? undefined : parseShard(flags.shard)
    if (flags.errors !== undefined && flags.out !== undefined && flags.errors === flags.out) {
      throw new UsageError('--errors and --out must name different files.')
    }

    // Resolving the profile loads the config store, whose exit hooks must be in
    // place before stopOnSignals sets them aside (see cli/interrupt.ts).
    if (!flags['dry-run']) await this.context(flags).profile()
    const {ProgressBar} = await import('../../cli/progress.js')
    const {stopOnSignals} = await import('../../cli/interrupt.js')
    const bar = new ProgressBar()
    const stop = stopOnSignals(
      'Stopping: no new chunks are sent; waiting for those in flight (Ctrl-C again to quit at once; the journal lets a re-run resume).',
    )
    const collected: RowOutcome[] = []
    const sink = await this.resultSink(flags.out)
    const json = this.jsonEnabled()
    // Result lines are written a chunk at a time (runBatch reports progress after
    // each chunk's rows): one write per chunk rather than one per row.
    let lines = ''
    const flush = () => {
      if (lines === '') return
      if (sink) sink.write(lines)
      else process.stdout.write(lines)
      lines = ''
    }
    try {
      const {mfgPaths} = await import('../../profiles/paths.js')
      const summary = await runBatch(() => this.context(flags).service(), source, {
        legacy: flags.legacy,
        ...(shard ? {shard} : {}),
        skipInvalid: flags['skip-invalid'],
        ...(flags.errors ? {errorsFile: flags.errors} : {}),
        dryRun: flags['dry-run'],
        concurrency: flags.concurrency,
        journal: flags.file === undefined ? false : {dir: mfgPaths().journalDir, fresh: flags.fresh},
        ...(identity ? {identity} : {}),
        signal: stop.signal,
        onValidated: (report) => {
          if (report.unknownFields.length > 0) {
            const more = report.moreUnknownFields > 0 ? `\n  … and ${report.moreUnknownFields} more rows` : ''
            this.note(
              `Warning: unknown fields are not sent:\n${report.unknownFields.map((l) => `  ${l}`).join('\n')}${more}`,
            )
          }
          if (report.invalid > 0) {
            this.note(
              `Skipping ${report.invalid} invalid row(s)${report.errorsFile ? `; written with reasons to ${report.errorsFile}` : ' (--errors FILE keeps them)'}.`,
            )
          }
        },
        onResult: (outcome) => {
          if (json && !sink) collected.push(outcome)
          else lines += `${JSON.stringify(outcome)}\n`
        },
        onProgress: (p) => {
          flush()
          bar.update(p)
        },
      })
      flush()
      bar.done()
      this.summarize(summary, flags, stop.received() !== undefined)
      if (summary.interrupted) process.exitCode = stop.exitCode()
      else if (summary.failed > 0) process.exitCode = 1
      if (flags['dry-run'] || sink) return summary
      return collected.sort((a, b) => a.row - b.row)
    } finally {
      flush()
      bar.done()
      stop.dispose()
      sink?.close()
      source.close()
    }
  }

  private summarize(s: BatchSummary, flags: {legacy: boolean; shard?: string}, stopped: boolean): void {
    const v = s.validation
    const scope = flags.shard ? ` in shard ${flags.shard} (${v.selected} of ${v.rows} rows)` : ''
    if (s.dryRun) {
      this.note(
        `${v.valid} row(s) valid${v.invalid > 0 ? `, ${v.invalid} invalid` : ''}${scope}; would send ${v.chunks} request(s). Nothing was sent (--dry-run).`,
      )
      return
    }
    const parts = [`Created ${s.created + s.resumed} of ${v.valid} demand(s)${scope}`]
    if (s.resumed > 0) parts.push(`${s.resumed} already created by an earlier run`)
    parts.push(`${s.requests} request(s)`)
    if (s.retries > 0) parts.push(`${s.retries} resend(s)`)
    if (s.reconciled > 0) parts.push(`${s.reconciled} row(s) found on the server after an unknown outcome`)
    if (s.failed > 0) parts.push(`${s.failed} failed (see the error lines)`)
    if (v.invalid > 0) parts.push(`${v.invalid} invalid row(s) skipped`)
    this.note(`${parts.join('; ')}.`)
    if (s.interrupted || (stopped && s.pending > 0)) {
      this.note(
        `Interrupted: ${s.pending} row(s) not sent. Run the same command again to resume; rows already created are not sent again.`,
      )
    } else if (s.failed > 0 && s.journal) {
      this.note('Run the same command again to retry the failed rows; rows already created are not sent again.')
    }
  }

  private async resultSink(out: string | undefined): Promise<{write(lines: string): void; close(): void} | undefined> {
    if (out === undefined) return undefined
    const {closeSync, openSync, writeSync} = await import('node:fs')
    let fd: number
    try {
      fd = openSync(out, 'w', 0o600)
    } catch (error) {
      throw new UsageError(`cannot write --out ${out}: ${(error as Error).message}`)
    }
    return {
      write: (lines) => writeSync(fd, lines),
      close: () => closeSync(fd),
    }
  }

  private async singleQuote(flags: {
    technique?: string
    material?: string
    quantity?: number
    color?: string
    email?: string
    'first-name'?: string
    'last-name'?: string
    phone?: string
    currency?: string
    'taken-as'?: string
    'draft-id'?: string
  }): Promise<Record<string, unknown>> {
    const {askChoice, askText, canPrompt} = await import('../../cli/prompt.js')
    if (!canPrompt() && !flags.technique && !flags.material) {
      throw new UsageError(
        'Nothing to create: pass --file PATH (or --file - for stdin), or --technique and --material for one quote.',
      )
    }
    const technique =
      flags.technique ?? (await askChoice({flag: '--technique', message: 'Technique:', choices: TECHNIQUES}))
    const material = flags.material ?? (await askText({flag: '--material', message: 'Material:'}))
    return {
      technique,
      material,
      ...(flags.quantity === undefined ? {} : {quantity: flags.quantity}),
      ...(flags.color ? {color: flags.color} : {}),
      ...(flags.email ? {email: flags.email} : {}),
      ...(flags['first-name'] ? {firstName: flags['first-name']} : {}),
      ...(flags['last-name'] ? {lastName: flags['last-name']} : {}),
      ...(flags.phone ? {phone: flags.phone} : {}),
      ...(flags.currency ? {currency: flags.currency} : {}),
      ...(flags['taken-as'] ? {jobDetails: {takenAs: flags['taken-as']}} : {}),
      ...(flags['draft-id'] ? {draftId: flags['draft-id']} : {}),
    }
  }
}
