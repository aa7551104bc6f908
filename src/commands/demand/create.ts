import {Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {UsageError} from '../../cli/errors.js'
import {batchRunFlags, fileFlag} from '../../cli/flags.js'
import {singleQuoteFlags} from '../../cli/quote-flags.js'
import {ENCODINGS} from '../../cli/text-decode.js'
import {DEMO_BUSINESS_ID} from '../../schemas/business.js'
import type {CreateResult} from '../../services/demands/create.js'
import {given} from '../../util/fields.js'

export default class DemandCreate extends BaseCommand {
  static override summary = 'Create demands in batch from JSON, NDJSON or CSV, or one quote from flags.'
  static override description = `Reads a JSON array (or one object), NDJSON (one object per line) or CSV from --file PATH, or from stdin with --file -. The format follows the extension (.json, .ndjson/.jsonl, .csv), or --format, or the first character. CSV headers are field paths (shippingAddress.city, jobDetails.takenAs, quoteModel.0.fileName); cells are converted to the types the schema expects (numbers, whole numbers, booleans as true/false/yes/no/1/0, objects and arrays as JSON) and empty cells are left out. Fields are separated by commas, or by semicolons or tabs when the header line has more of those (as a spreadsheet saves CSV where the comma is the decimal mark); --delimiter says which. The input is read as UTF-8, or as its byte-order mark says (UTF-16, as Excel's Unicode text and Windows PowerShell write it); --encoding names another (windows-1252 for a Windows spreadsheet's plain CSV). A byte that is not text in that encoding stops the run with its line: nothing is sent with a name misread. The input is streamed: memory does not grow with the number of rows.

Every row is validated before anything is sent. One invalid row stops the run (exit 2) with every invalid row listed as "row N: field.path: reason" (the first 50, then a count); --skip-invalid sends the valid rows and writes the invalid ones, with reasons, to --errors FILE (NDJSON: row, errors, input). --dry-run only validates. A field the service does not know, at any depth (a CSV column emial, shippingAddress.cty), is not sent: a warning names each such field once, with the rows that have it and the field it probably is ("emial: every row (5000); did you mean email?"; in --json, validation.unknownFields). quoteModel items and the other objects that take fields of their own send theirs as given; one that looks like a misspelt known field (quoteModel.0.fileNam) is named in a warning too (validation.lookalikeFields).

Rows go in chunks of 100, --concurrency at a time, over keep-alive connections. Results are one NDJSON line per row on stdout ({row, id, orderNumber, draftId, status}; {row, draftId, outcome: "confirmed"} for a row the service confirmed without naming its demand; or {row, draftId, error}, with outcome "unknown" or "ambiguous" and ids when that is what it is), or in --out FILE. --json prints one object instead, whatever the path taken: the counts (created, resumed, confirmed, failed, unknown, ambiguous, pending, requests, retries, reconciled, lookups), dryRun, interrupted, stoppedBy, journal, out, validation, and results, every row's outcome in row order (empty with --dry-run, and with --out, whose file holds them). A summary goes to stderr, and a progress bar when stderr is a terminal. The exit code is 1 if any row failed. An error that stops the run part-way (the API key revoked, the journal's disk full) still gets every row's line and the --json object, stoppedBy giving its message and the rows not sent saying so; the error follows on stderr with its own exit code (3 for credentials).

Nothing is lost or created twice, against any server. Each row gets a deterministic draftId unless it has one: mfg- plus a hash of the row's content and of how many identical rows come before it, so a row keeps its draftId when other rows of the file are edited, added, removed or moved; a quote from flags is named by --draft-id, or by its content and the day (UTC), so the same quote run again the same day is the same demand. A journal under MFG_HOME (journals/, mode 0600) records every chunk's state, keyed by the input, the shard and the target (base URL and business). Running the same command again after Ctrl-C, SIGTERM, a crash or a lost connection resumes: rows already created are not sent again and the output still covers every row. So does running an edited file (a row fixed after --skip-invalid, rows added): the journals of the last 30 days of runs to the same target are read, and only new or changed rows are sent. A create is sent again only with proof that the earlier attempt created nothing: a refused connection and 429 are retried with back-off, honouring Retry-After; a 4xx refusal fails the rows it names and sends the others again. Any 2xx means the rows exist: rows its answer does not name are looked up for their ids and never sent again. A chunk whose outcome is unknown (connection lost or time-out after sending, 5xx) is looked up by draftId: rows found are settled, and rows not found are sent again only when the look-up has been proven on this service (a draftId that exists finds its demands and only them, a made-up one finds none; the proof is kept per profile for a day). Otherwise they are reported with "outcome": "unknown", the summary says how to check them, and the next run looks them up first. A draftId that more than one demand carries is reported with every id ("outcome": "ambiguous"), never picked. After two chunks in a row fail because of the service (or 30 s of failures), the rest are reported as not sent. --fresh ignores the journals of earlier runs (rows are then sent again: a server that replays draftIds answers the existing demands, others create new ones).

Two runs of different inputs sharing rows may go on at once (two CI jobs, say): a row one of them has sent is left to it, and the other, once its own rows are sent, waits for it (a note on stderr names its process): a row created there is answered with that demand, and one that run ended without creating is looked up and sent. A run that records nothing for --wait-others seconds is not waited for longer: the rows left to it are reported not sent (a re-run settles them).

--shard I/N takes the rows whose 0-based index modulo N is I−1 (rows I, I+N, I+2N, ... counting from 1), so N jobs given 1/N … N/N cover the input exactly once; each shard has its own journal, and draftIds do not depend on the shard. A run reads the journals of the same input's other slices too: the whole file after some of its shards sends only the rows none of them created, and a run refuses while another slice sharing rows with it is going on.

Ctrl-C stops sending new chunks, waits for those in flight, and exits 130; run the same command again to finish.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> --file examples/quotes.json',
    '<%= config.bin %> <%= command.id %> --file examples/orders.csv --concurrency 8 --out results.ndjson',
    'cat examples/big.ndjson | <%= config.bin %> <%= command.id %> --file - --format ndjson --json',
    '<%= config.bin %> <%= command.id %> --file examples/big.ndjson --dry-run',
    '<%= config.bin %> <%= command.id %> --file examples/rows.csv --skip-invalid --errors rejected.ndjson',
    '<%= config.bin %> <%= command.id %> --file examples/big.ndjson --shard 2/3',
    '<%= config.bin %> <%= command.id %> --file examples/quotes.json --legacy',
    '<%= config.bin %> <%= command.id %> --technique 3D_PRINTING --material PLA --quantity 10 --email buyer@example.com --first-name Ada --last-name Lovelace',
  ]
  static override flags = {
    file: fileFlag('JSON, NDJSON or CSV file of create requests; - reads stdin.'),
    format: Flags.string({
      description: 'Input format (default: from the extension, else the first character).',
      options: ['json', 'ndjson', 'csv'],
      dependsOn: ['file'],
    }),
    encoding: Flags.string({
      description:
        'Encoding of a file without a byte-order mark (default utf-8; one with a mark is read as the mark says).',
      options: [...ENCODINGS],
      dependsOn: ['file'],
    }),
    delimiter: Flags.string({
      description:
        'CSV field delimiter (default: from the header line, a comma unless it has more semicolons or tabs).',
      options: [',', ';', 'tab', '|'],
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
    ...batchRunFlags,
    out: Flags.string({
      description: 'Write the result lines (NDJSON) to this file instead of stdout.',
      helpValue: 'FILE',
    }),
    ...singleQuoteFlags,
  }

  // Ctrl-C must let chunks in flight finish and the journal settle: handled in run().
  protected override handlesInterrupt = false

  async run(): Promise<CreateResult> {
    const {flags} = await this.parse(DemandCreate)
    if (flags.errors !== undefined && flags.errors === flags.out) {
      throw new UsageError('--errors and --out must name different files.')
    }
    const [{createSource, createOptions}, {createDemands, BatchStopped}, {parseShard}, {runBatchCommand}] =
      await Promise.all([
        import('../../cli/demand-create.js'),
        import('../../services/demands/create.js'),
        import('../../services/demands/batch-validate.js'),
        import('../../cli/batch-output.js'),
      ])
    const shard = flags.shard === undefined ? undefined : parseShard(flags.shard)
    const {source, identity} = await createSource(flags)
    // Resolving the profile loads the config store, whose exit hooks must be in
    // place before the graceful stop sets them aside (see cli/interrupt.ts). A dry
    // run resolves it too: rows naming another business than its own are refused.
    const profile = await this.context(flags).profile()
    const options = createOptions(flags, {
      shard,
      identity,
      profile: flags['dry-run'] ? undefined : profile.name,
      businessId: profile.businessId ?? (profile.embedded ? DEMO_BUSINESS_ID : undefined),
    })
    const shown = {json: this.jsonEnabled(), note: (text: string) => this.note(text), shard: flags.shard}
    try {
      return await runBatchCommand({...shown, ...given({out: flags.out})}, (hooks) =>
        createDemands(() => this.context(flags).service(), source, {...hooks, ...options}),
      )
    } catch (error) {
      // Stopped by an error (credentials refused mid-way): the report first, then the error and its exit code.
      if (!(error instanceof BatchStopped)) throw error
      await this.printBeforeError(error.result)
      throw error.reason
    } finally {
      source.close()
    }
  }
}
