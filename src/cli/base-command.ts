import {Command, Errors, Flags, type Interfaces} from '@oclif/core'
import type {Input, ParserOutput} from '@oclif/core/interfaces'
import chalk from 'chalk'

import {ApiError, AuthenticationError} from '../api/errors.js'
import {redact} from '../schemas/secrets.js'
import {CommandContext, parseSeconds, TIMEOUT_ENV, TOTAL_TIMEOUT_ENV} from './context.js'
import {EXIT_INTERRUPTED, UsageError, describeError, errorLine} from './errors.js'
import {configureColor, isTty, writeErr, writeJson} from './output.js'
import {onStdoutClosed, streamOut, type BatchTransform} from './stdio.js'
import type {FieldSource} from './field-paths.js'
import type {FlagNames} from './flag-hints.js'
import {select, splitPaths, takeJsonFields} from './select.js'
import {confirmation, confirmedAs, type Confirmation} from './written.js'

/** Of a failed answer's body, `--debug` shows at most this much. */
const DEBUG_BODY_LIMIT = 64 * 1024

/** oclif's parsed flags and arguments (its FlagOutput and ArgOutput, which it does not export). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Parsed = Record<string, any>

export type GlobalFlags = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags']>

/**
 * Every `mfg` command extends this. It owns the global flags, `--json`
 * formatting, the error → exit code mapping (0 ok, 1 API or network, 2 usage or
 * invalid input, 3 authentication, 130 interrupted) and closing the context.
 */
export abstract class BaseCommand extends Command {
  static override enableJsonFlag = true

  static override baseFlags = {
    profile: Flags.string({
      description:
        'Profile to use (default: MFG_PROFILE, then the current profile, then the embedded sandbox "local").',
      helpGroup: 'GLOBAL',
    }),
    verbose: Flags.boolean({
      description: 'Log each request (method, path, status, time) to stderr, secrets masked.',
      helpGroup: 'GLOBAL',
    }),
    debug: Flags.boolean({
      description: "Show stack traces on errors, and the service's whole answer when it failed.",
      helpGroup: 'GLOBAL',
    }),
    timeout: Flags.custom<number>({
      description: `Seconds each request may wait for its answer (default 30; also ${TIMEOUT_ENV}).`,
      helpGroup: 'GLOBAL',
      helpValue: 'SECONDS',
      parse: async (input) => parseSeconds(input, '--timeout') / 1000,
    })(),
    'total-timeout': Flags.custom<number>({
      description: `Seconds the whole command may take, retries and waits included (also ${TOTAL_TIMEOUT_ENV}; by default no limit, but at most 30 s spent on failed attempts and waits).`,
      helpGroup: 'GLOBAL',
      helpValue: 'SECONDS',
      parse: async (input) => parseSeconds(input, '--total-timeout') / 1000,
    })(),
    insecure: Flags.boolean({
      description:
        'Send the API key and auth token over plain http to a host other than this machine (refused by default: use https). Also MFG_INSECURE=1.',
      helpGroup: 'GLOBAL',
    }),
    'no-color': Flags.boolean({
      description: 'Disable colours (also off with NO_COLOR or when stdout is not a terminal).',
      helpGroup: 'GLOBAL',
    }),
    jq: Flags.string({
      description:
        'Filter the JSON output with a jq expression (implies --json; strings print raw, like gh). With --all, it runs on each streamed record.',
      helpGroup: 'GLOBAL',
      helpValue: 'EXPR',
    }),
  }

  /**
   * What the command's JSON records hold, for `--json FIELDS`, `--columns` and
   * `--sort`: a read schema or a list of names, loaded only when one of those is
   * given. A command without it takes a bare `--json` only.
   */
  static outputFields?: (argv: readonly string[]) => FieldSource | Promise<FieldSource>

  /**
   * False for commands that print a stream of their own (a server, a listener, a stdio
   * proxy): --jq is refused there, and hidden from their help with `baseFlags = withoutJq`.
   * A command without --json (`mfg api`) that keeps it true runs `jqExpression` itself.
   */
  static jqOutput = true

  /** The fields `--json FIELDS` (or `--columns` with `--json`) asked for. */
  private selectedFields?: string[]
  /** `--jq EXPR`. */
  private jqExpr?: string

  /** Commands that manage signals themselves (a server) turn this off. */
  protected handlesInterrupt = true

  /** Takes what the command drew on the terminal's last line (a progress bar) off, before "Interrupted." is written. */
  protected clearOnInterrupt: () => void = () => undefined

  private ctxInstance?: CommandContext
  /** Set by Ctrl-C: what fails afterwards (a request cut by closing the embedded sandbox) is the interruption, not an error. */
  private interrupted = false
  private readonly onInterrupt = (): void => {
    this.interrupted = true
    this.clearOnInterrupt()
    this.sayInterrupted()
    const closing = this.ctxInstance?.close().catch(() => undefined) ?? Promise.resolve()
    const timer = setTimeout(() => process.exit(EXIT_INTERRUPTED), 2000)
    timer.unref()
    void closing.finally(() => process.exit(EXIT_INTERRUPTED))
  }

  /** Ctrl-C, said on stderr: under --json/--jq as the JSON error every failure is, so a reader of stderr parses it too. */
  private sayInterrupted(): void {
    const json = this.jsonEnabled()
    writeErr(json ? errorLine({code: 'interrupted', message: 'Interrupted.'}, true) : '\nInterrupted.')
  }

  protected override async init(): Promise<void> {
    await super.init()
    configureColor(this.argv)
    if (this.handlesInterrupt) process.once('SIGINT', this.onInterrupt)
    onStdoutClosed()
    await this.takeJsonArgs()
  }

  private get outputSource(): (() => FieldSource | Promise<FieldSource>) | undefined {
    const source = (this.ctor as typeof BaseCommand).outputFields
    return source && (() => source(this.argv))
  }

  /**
   * oclif's `--json` is a switch: `--json a,b` and `--json=a,b` are taken out of
   * the arguments here (the fields kept for output), and `--jq` turns `--json` on.
   */
  private async takeJsonArgs(): Promise<void> {
    if (!this.ctor.enableJsonFlag) return
    const end = this.argv.indexOf('--')
    const before = end === -1 ? this.argv : this.argv.slice(0, end)
    const mayHaveFields = before.some(
      (a, i) => a.startsWith('--json=') || (a === '--json' && before[i + 1]?.startsWith('-') === false),
    )
    if (mayHaveFields) {
      // With positional arguments, a word after --json is a field list only when it names known fields.
      const hasArgs = Object.keys(this.ctor.args ?? {}).length > 0
      const source = hasArgs ? this.outputSource : undefined
      const names = source ? (await import('./field-paths.js')).topFields(await source()) : undefined
      const taken = takeJsonFields(this.argv, names, hasArgs)
      this.argv = taken.argv
      this.selectedFields = taken.fields
    }
    const wantsJq = before.some((a) => a === '--jq' || a.startsWith('--jq='))
    const other = before.find((a) => a === '--ndjson' || a === '--csv')
    if (wantsJq && other)
      throw new UsageError(
        `--jq filters JSON output and cannot be combined with ${other}; leave ${other} out (with --all, --jq runs on each record of the stream).`,
      )
    if (wantsJq && !this.argv.includes('--json'))
      this.argv =
        end === -1 ? [...this.argv, '--json'] : [...this.argv.slice(0, end), '--json', ...this.argv.slice(end)]
    if (this.jsonEnabled()) this.wrapRun()
  }

  /**
   * oclif's parse (a misspelt flag named with the one it probably is), then the checks of what the output flags name: each path of
   * `--json FIELDS`, `--columns` and `--sort` against the command's fields, and
   * the `--jq` expression compiled, before anything is sent.
   */
  protected override async parse<F extends Parsed, B extends Parsed, A extends Parsed>(
    options?: Input<F, B, A>,
    argv?: string[],
  ): Promise<ParserOutput<F, B, A>> {
    let out: ParserOutput<F, B, A>
    try {
      out = await super.parse(options, argv)
    } catch (error) {
      await this.refuseJsonWord(error)
      // A misspelt flag gets the flag it probably is; the hints are loaded for a refusal only.
      const {withFlagHints} = await import('./flag-hints.js')
      const json: Record<string, FlagNames> = this.ctor.enableJsonFlag ? {json: {}} : {}
      throw withFlagHints(error, {...json, ...this.ctor.baseFlags, ...(options?.flags ?? this.ctor.flags)})
    }
    const flags = out.flags as Record<string, unknown>
    await this.checkOutputFlags(flags)
    return out
  }

  /**
   * `demand get ID --json ordrNumber,status`: with positional arguments, the word
   * after --json is taken as fields only when it names known ones, so a misspelt
   * field is left as an argument oclif finds unexpected. When that word is the
   * one refused, the refusal names the field, as `--json` with a known list would.
   */
  private async refuseJsonWord(error: unknown): Promise<void> {
    const unexpected = (error as {args?: unknown}).args
    const source = this.outputSource
    if (!Array.isArray(unexpected) || !source) return
    const at = this.argv.indexOf('--json')
    const word = at === -1 ? undefined : this.argv[at + 1]
    if (word === undefined || !unexpected.includes(word)) return
    const [fields, {checkPaths}] = await Promise.all([source(), import('./field-paths.js')])
    checkPaths(fields, splitPaths(word), '--json')
  }

  private async checkOutputFlags(flags: Record<string, unknown>): Promise<void> {
    const columns = typeof flags.columns === 'string' ? splitPaths(flags.columns) : undefined
    if (this.jsonEnabled() && columns && columns.length > 0) this.selectedFields ??= columns
    const sort = typeof flags.sort === 'string' ? flags.sort.replace(/^-/, '') : undefined
    const named: [string, string[] | undefined][] = [
      ['--json', this.selectedFields],
      ['--columns', columns],
      ['--sort', sort ? [sort] : undefined],
    ]
    if (named.some(([, paths]) => paths !== undefined)) {
      const source = this.outputSource
      if (!source && this.selectedFields)
        throw new UsageError(`${this.commandName()} takes --json without a field list; use --jq to pick fields.`)
      if (source) {
        const [fields, {checkPaths}] = await Promise.all([source(), import('./field-paths.js')])
        for (const [flag, paths] of named) if (paths) checkPaths(fields, paths, flag)
      }
    }
    if (typeof flags.jq === 'string') {
      if (!(this.ctor as typeof BaseCommand).jqOutput)
        throw new UsageError(
          `--jq does not apply to ${this.commandName()}: it prints its output as it comes; pipe it to jq instead.`,
        )
      const {checkJq} = await import('./jq.js')
      await checkJq(flags.jq)
      this.jqExpr = flags.jq
    }
  }

  /** `--jq EXPR`, compiled already, for a command that prints its output itself (`mfg api`). */
  protected get jqExpression(): string | undefined {
    return this.jqExpr
  }

  /** `mfg demand list`, as the user typed it. */
  private commandName(): string {
    return `${this.config.bin} ${(this.id ?? '').replaceAll(':', ' ')}`.trim()
  }

  /**
   * Under --json the command's result is printed here rather than by oclif, which
   * prints it synchronously and so could not run --jq: with the fields asked for
   * (`--json FIELDS`, `--columns`), through the jq expression when given.
   */
  private wrapRun(): void {
    const run = this.run.bind(this)
    this.run = async () => {
      const result = await run()
      if (result === undefined || !this.jsonEnabled()) return result
      await this.printSelected(result)
      return undefined
    }
  }

  /**
   * Under --json, prints what a command did before an error stopped it (a batch
   * whose credentials were refused mid-way), as its result would be printed; the
   * command then throws the error, reported on stderr with its exit code.
   */
  protected async printBeforeError(result: unknown): Promise<void> {
    if (this.jsonEnabled()) await this.printSelected(result)
  }

  private async printSelected(result: unknown): Promise<void> {
    const value = select(result, this.selectedFields)
    if (this.jqExpr === undefined) return writeJson(value)
    const {loadJq, printJq} = await import('./jq.js')
    printJq(await loadJq(), value, this.jqExpr)
  }

  /**
   * For a list streamed under `--json --all` (NDJSON): each record as its line
   * with the selected fields only, and with `--jq` a transform that runs the
   * expression over each batch of lines (jq reads them as a stream of values,
   * one run per batch rather than per record).
   */
  protected async jsonStream(): Promise<{line: (item: unknown) => string; transform?: BatchTransform}> {
    const fields = this.selectedFields
    const line = (item: unknown) => JSON.stringify(select(item, fields))
    const expr = this.jqExpr
    if (expr === undefined) return {line}
    const {loadJq, runJqLines} = await import('./jq.js')
    const jq = await loadJq()
    return {line, transform: (lines) => runJqLines(jq, lines, expr)}
  }

  /**
   * For a command that prints one JSON record a line as its work goes on (`demand quote`,
   * `demand watch`): writes one record at once, its selected fields only, through `--jq`.
   */
  protected async jsonLineWriter(): Promise<(item: unknown) => void> {
    const {line, transform} = await this.jsonStream()
    const out = streamOut(process.stdout, transform)
    return (item) => {
      out.line(line(item))
      out.flush()
    }
  }

  /** `--all --json` of a list that had to be gathered first (a client-side sort): NDJSON all the same. */
  protected async printJsonLines(items: readonly unknown[]): Promise<void> {
    const {line, transform} = await this.jsonStream()
    const out = streamOut(process.stdout, transform)
    for (const item of items) out.line(line(item))
    out.flush()
  }

  /** The lazily built profile/client/business context for the parsed global flags. */
  protected context(flags: {
    profile?: string
    verbose?: boolean
    insecure?: boolean
    timeout?: number
    'total-timeout'?: number
  }): CommandContext {
    this.ctxInstance ??= new CommandContext({
      profileFlag: flags.profile,
      verbose: flags.verbose,
      insecure: flags.insecure,
      ...(flags.timeout === undefined ? {} : {timeoutSeconds: flags.timeout}),
      ...(flags['total-timeout'] === undefined ? {} : {totalTimeoutSeconds: flags['total-timeout']}),
      log: (line) => writeErr(line),
      warn: (text) => this.warnNote(text, true),
      // A long wait or a retry is said on a terminal; scripts and --json get the outcome only.
      ...(isTty(process.stderr) && !this.jsonEnabled() ? {onWait: (line: string) => writeErr(line)} : {}),
    })
    return this.ctxInstance
  }

  /** Whether stderr notes (summaries, hints) should be written: not under --json. */
  protected note(text: string): void {
    if (!this.jsonEnabled()) writeErr(text)
  }

  /**
   * A write the service confirmed without the record (201, 202 or 204 without a body):
   * a success, said on stderr as `<done>: the service confirmed it (201 Created) without
   * <missing>.`; --json prints `{"confirmed": true, "status": N}` (and the id, when known).
   */
  protected confirmedWithout(status: number, done: string, missing: string, id?: string): Confirmation {
    this.note(`${done}: the service ${confirmedAs(status)} without ${missing}.`)
    return confirmation(status, id)
  }

  /**
   * A note about how the result was obtained that the user must see (a sort that
   * fetched every page): plain on stderr, or `{"notice": ...}` under --json.
   */
  protected notice(text: string): void {
    writeErr(this.jsonEnabled() ? JSON.stringify({notice: text}) : text)
  }

  /**
   * A note on how a result was obtained (a record read back after an answer without
   * it): on stderr in a table; under --json only when it is a `warning` (the result
   * may be incomplete), as `{"warning": ...}` so that stderr stays machine-readable.
   */
  protected warnNote(text: string, warning: boolean): void {
    const line = redact(text.charAt(0).toUpperCase() + text.slice(1), this.secrets())
    if (!this.jsonEnabled()) writeErr(warning ? `${chalk.yellow('Warning:')} ${line}.` : `${line}.`)
    else if (warning) writeErr(JSON.stringify({warning: line}))
  }

  protected secrets(): string[] {
    const fromEnv = [process.env.MFG_API_KEY, process.env.MFG_AUTH_TOKEN].filter((s): s is string => Boolean(s))
    return [...(this.ctxInstance?.secrets() ?? []), ...fromEnv, ...this.givenSecrets]
  }

  /** Secrets this run was given beside the profile's (a webhook secret), masked like them. */
  private readonly givenSecrets = new Set<string>()

  /** Masks `value` in every message and error from now on; answers it unchanged. */
  protected keepSecret<T extends string | undefined>(value: T): T {
    if (value) this.givenSecrets.add(value)
    return value
  }

  /** `--json` output: pretty on a terminal, one compact line when piped; always stdout. */
  protected override logJson(json: unknown): void {
    writeJson(json)
  }

  /**
   * Prints one clear, redacted message (a JSON object under --json) on stderr,
   * then leaves with the mapped exit code. oclif prints nothing more: an
   * ExitError is silent in its handler.
   */
  protected override async catch(err: Interfaces.CommandError): Promise<void> {
    // After Ctrl-C, "Interrupted." is said already; a request that fails because the
    // process is closing (the embedded sandbox shut) is no second error, and the exit is 130.
    if (this.interrupted) throw new Errors.ExitError(EXIT_INTERRUPTED)
    if (err instanceof Errors.ExitError) throw err
    if (err.name === 'ExitPromptError') {
      // Ctrl-C at a prompt (the prompt library's raw mode reads it as a key, not a signal).
      this.sayInterrupted()
      throw new Errors.ExitError(EXIT_INTERRUPTED)
    }
    const d = describeError(err)
    const profile = this.ctxInstance?.resolvedProfile()
    if (err instanceof AuthenticationError && err.status === 401 && profile) {
      // Loaded here only: the request module it reads paths with is not every command's.
      const {rejectedCredentialsHint} = await import('./auth-hint.js')
      const hint = rejectedCredentialsHint(profile, err.path)
      if (hint) d.hint = hint
    }
    const secrets = this.secrets()
    const shown = {
      ...d,
      message: redact(d.message, secrets),
      ...(d.hint === undefined ? {} : {hint: redact(d.hint, secrets)}),
      ...(d.details ? {details: d.details.map((x) => ({...x, message: redact(x.message, secrets)}))} : {}),
    }
    writeErr(errorLine(shown, this.jsonEnabled(), chalk.red))
    if (this.argv.includes('--debug') && err instanceof Error && err.stack) {
      writeErr(redact(err.stack, secrets))
      if (err instanceof ApiError && err.body !== undefined) writeErr(redact(answerText(err), secrets))
    }
    throw new Errors.ExitError(d.exitCode)
  }

  protected override async finally(err: Error | undefined): Promise<void> {
    process.removeListener('SIGINT', this.onInterrupt)
    // A command that reported its own outcome (a batch's rows) ends with which time budget cut it short;
    // an error's message says so already.
    const budget = this.ctxInstance?.budgetNote()
    if (budget !== undefined && (err === undefined || err instanceof Errors.ExitError)) {
      this.warnNote(`stopped early: ${budget}`, true)
    }
    try {
      await this.ctxInstance?.close()
    } catch (error) {
      if (!err) writeErr(`Warning: closing the embedded sandbox failed: ${(error as Error).message}`)
    }
    await super.finally(err)
  }
}

/** The global flags of a command that refuses --jq (jqOutput false): --jq is left out of its help. */
export const withoutJq = {...BaseCommand.baseFlags, jq: {...BaseCommand.baseFlags.jq, hidden: true}}

/** A failed answer's body for `--debug`: text as it came, JSON indented, cut at DEBUG_BODY_LIMIT. */
function answerText(err: ApiError): string {
  const body = typeof err.body === 'string' ? err.body : JSON.stringify(err.body, null, 2)
  const cut =
    body.length > DEBUG_BODY_LIMIT
      ? `${body.slice(0, DEBUG_BODY_LIMIT)}\n… (${body.length - DEBUG_BODY_LIMIT} more characters)`
      : body
  return `The service's answer${err.status === undefined ? '' : ` (${err.status})`}:\n${cut}`
}
