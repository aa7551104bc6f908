import type {ApiClient} from '../api/http.js'
import type {ResolvedProfile} from '../profiles/resolve.js'
import {redact} from '../schemas/secrets.js'
import type {ServiceContext} from '../services/context.js'
import type {EmbeddedSandbox} from './embedded.js'
import {UsageError} from './errors.js'

export interface ContextOptions {
  /** `--profile`. */
  profileFlag?: string
  /** `--verbose`: one line per request, and one per leniency applied to an answer, to stderr, secrets masked. */
  verbose?: boolean
  /** `--insecure`: allow credentials over plain http to another machine (also MFG_INSECURE). */
  insecure?: boolean
  /** `--timeout`, in seconds: each attempt of a request (else MFG_TIMEOUT, else 30). */
  timeoutSeconds?: number
  /** `--total-timeout`, in seconds: the whole command, retries included (else MFG_TOTAL_TIMEOUT, else none). */
  totalTimeoutSeconds?: number
  /** Where notes for a person watching go (a request unanswered for a while, a retry); none when unset. */
  onWait?: (line: string) => void
  env?: NodeJS.ProcessEnv
  /** Where `--verbose` lines go (stderr). */
  log?: (line: string) => void
  /** Where a warning about the configuration goes (a misspelt key in config.json). */
  warn?: (text: string) => void
}

/** The active profile with the credentials actually used (the sandbox's for `local`). */
export interface Session {
  profile: ResolvedProfile
  client: ApiClient
  /** Stable name of the service: the base URL, or the embedded sandbox's data directory. */
  target: string
}

/** The variable that does what `--insecure` does, for scripts. */
export const INSECURE_ENV = 'MFG_INSECURE'

/** The variable that does what `--timeout` does. */
export const TIMEOUT_ENV = 'MFG_TIMEOUT'
/** The variable that does what `--total-timeout` does: the most the whole command may take, retries included, in seconds. */
export const TOTAL_TIMEOUT_ENV = 'MFG_TOTAL_TIMEOUT'
/** Follows the message when a command's time budget runs out. */
export const BUDGET_HINT = `allow more with --total-timeout SECONDS or ${TOTAL_TIMEOUT_ENV}`
/** A day: longer time-outs are surely a mistake. */
const MAX_SECONDS = 86_400

/**
 * A time-out in seconds, as `--timeout` or an environment variable gives it: a
 * positive number (fractions allowed) up to a day. Answers milliseconds.
 */
export function parseSeconds(raw: string, name: string): number {
  const text = raw.trim()
  const value = Number(text)
  if (text === '' || !Number.isFinite(value) || value <= 0 || value > MAX_SECONDS) {
    throw new UsageError(
      `${name} must be a number of seconds greater than 0 and at most ${MAX_SECONDS}, got ${JSON.stringify(raw)}.`,
    )
  }
  return Math.round(value * 1000)
}

/**
 * The client's time limits: each attempt from `--timeout` (seconds), else
 * MFG_TIMEOUT; the whole command, retries included, from `--total-timeout`, else
 * MFG_TOTAL_TIMEOUT. Unset values are left to the client's defaults (30 s per
 * attempt; no limit on the whole command but 30 s spent failing).
 */
export function timeoutsFrom(
  flagSeconds: number | undefined,
  env: NodeJS.ProcessEnv,
  totalFlagSeconds?: number,
): {timeoutMs?: number; totalTimeoutMs?: number} {
  const fromEnv = (name: string) => {
    const raw = env[name]
    return raw === undefined || raw.trim() === '' ? undefined : parseSeconds(raw, name)
  }
  const timeoutMs = flagSeconds === undefined ? fromEnv(TIMEOUT_ENV) : Math.round(flagSeconds * 1000)
  const totalTimeoutMs =
    totalFlagSeconds === undefined ? fromEnv(TOTAL_TIMEOUT_ENV) : Math.round(totalFlagSeconds * 1000)
  return {
    ...(timeoutMs === undefined ? {} : {timeoutMs}),
    ...(totalTimeoutMs === undefined ? {} : {totalTimeoutMs}),
  }
}

/** MFG_INSECURE as a boolean: 1/true/yes or 0/false/no (any case); unset or empty is false. */
export function insecureFromEnv(env: NodeJS.ProcessEnv): boolean {
  const raw = env[INSECURE_ENV]?.trim().toLowerCase()
  if (raw === undefined || raw === '') return false
  if (['1', 'true', 'yes'].includes(raw)) return true
  if (['0', 'false', 'no'].includes(raw)) return false
  throw new UsageError(
    `${INSECURE_ENV} must be 1, true or yes (or 0, false, no to leave it off); got ${JSON.stringify(env[INSECURE_ENV])}.`,
  )
}

/**
 * Lazily builds what commands need from the global flags: the resolved profile,
 * the shared HTTP client and the business id. For the embedded `local` profile
 * it starts the sandbox in this process (loaded by dynamic import, so remote
 * profiles never load fastify or SQLite) and talks to it over real HTTP through
 * the same client as any remote service.
 */
export class CommandContext {
  private readonly env: NodeJS.ProcessEnv
  private resolved?: ResolvedProfile
  private sessionPromise?: Promise<Session>
  private sandbox?: EmbeddedSandbox
  private client?: ApiClient
  private readonly knownSecrets = new Set<string>()

  constructor(private readonly opts: ContextOptions = {}) {
    this.env = opts.env ?? process.env
    for (const k of ['MFG_API_KEY', 'MFG_AUTH_TOKEN']) {
      const v = this.env[k]
      if (v) this.knownSecrets.add(v)
    }
  }

  /** Every secret seen so far, for masking any text that leaves the process. */
  secrets(): string[] {
    return [...this.knownSecrets]
  }

  /** The profile as configured (no network, no sandbox start). */
  async profile(): Promise<ResolvedProfile> {
    if (!this.resolved) {
      const {resolveProfile} = await import('../profiles/resolve.js')
      const p = resolveProfile({flag: this.opts.profileFlag, env: this.env})
      this.remember(p.apiKey, p.authToken)
      if (p.warning) this.opts.warn?.(p.warning)
      this.resolved = p
    }
    return this.resolved
  }

  /** The profile as resolved so far (before the embedded sandbox fills in its credentials); undefined before. */
  resolvedProfile(): ResolvedProfile | undefined {
    return this.resolved
  }

  /** The profile with working credentials, and a client for it; starts the embedded sandbox if needed. */
  session(): Promise<Session> {
    this.sessionPromise ??= this.open()
    return this.sessionPromise
  }

  /** The business id to act for, or a usage error naming how to set it. */
  async businessId(): Promise<string> {
    const {profile} = await this.session()
    if (!profile.businessId) {
      // MFG_BASE_URL alone makes a profile named "env" that is stored nowhere: profile add would not complete it.
      const chosen = Boolean(this.opts.profileFlag?.trim() || this.env.MFG_PROFILE?.trim())
      if (profile.name === 'env' && profile.source === 'env' && !chosen)
        throw new UsageError(
          'No business id: MFG_BASE_URL is set and no profile is chosen, so the business comes from MFG_BUSINESS_ID, which is not set. Set it, or store a profile with mfg profile add NAME --base-url URL --business-id ID and choose it with --profile or MFG_PROFILE.',
        )
      throw new UsageError(
        `No business id for profile "${profile.name}". Set it with \`mfg profile add ${profile.name} --business-id ID\` or the MFG_BUSINESS_ID environment variable.`,
      )
    }
    return profile.businessId
  }

  /** Client plus business id: what every business-scoped service takes. */
  async service(): Promise<ServiceContext> {
    const [{client, target}, businessId] = await Promise.all([this.session(), this.businessId()])
    return {client, businessId, target}
  }

  /** Which of the command's time budgets stopped something, worded with how to allow more; undefined if none did. */
  budgetNote(): string | undefined {
    return this.client?.budget.ranOut()
  }

  /** Stops the embedded sandbox and frees sockets, so the process exits promptly. */
  async close(): Promise<void> {
    this.client?.close?.()
    const sandbox = this.sandbox
    this.sandbox = undefined
    if (sandbox) await sandbox.close()
  }

  private remember(...secrets: (string | undefined)[]): void {
    for (const s of secrets) if (s) this.knownSecrets.add(s)
  }

  private async open(): Promise<Session> {
    let profile = await this.profile()
    let target = profile.baseUrl
    if (profile.embedded) {
      const [{startEmbeddedSandbox}, {mfgPaths}] = await Promise.all([
        import('./embedded.js'),
        import('../profiles/paths.js'),
      ])
      const dataDir = mfgPaths(this.env).sandboxDir
      target = `local:${dataDir}`
      const sandbox = await startEmbeddedSandbox(dataDir)
      this.sandbox = sandbox
      const demo = sandbox.businesses[0]
      if (!demo) throw new Error('the embedded sandbox has no seeded business')
      for (const b of sandbox.businesses) this.remember(b.apiKey, b.authToken)
      // Values set through the environment still win over the demo business's.
      profile = {
        ...profile,
        baseUrl: sandbox.url,
        apiKey: profile.apiKey ?? demo.apiKey,
        authToken: profile.authToken ?? demo.authToken,
        businessId: profile.businessId ?? demo.id,
      }
    }
    const {createClient} = await import('../api/http.js')
    const log = this.opts.log
    const secrets = () => this.secrets()
    this.client = createClient({
      baseUrl: profile.baseUrl,
      apiKey: profile.apiKey,
      authToken: profile.authToken,
      insecure: this.opts.insecure === true || insecureFromEnv(this.env),
      ...timeoutsFrom(this.opts.timeoutSeconds, this.env, this.opts.totalTimeoutSeconds),
      timeoutHint: `allow more with --timeout SECONDS or ${TIMEOUT_ENV}`,
      budgetHint: BUDGET_HINT,
      ...(this.opts.verbose && log ? {log: (line: string) => log(redact(line, secrets()))} : {}),
      ...(this.opts.onWait && !this.opts.verbose
        ? {onWait: (line: string) => this.opts.onWait?.(redact(line, secrets()))}
        : {}),
    })
    if (this.opts.verbose && log) {
      // Each leniency of the tolerant reader, under the request it was read from.
      const {onLenientRead} = await import('../api/parse.js')
      // A listing's pages repeat the same leniencies: each kind is told once per endpoint.
      const told = new Set<string>()
      onLenientRead(this.client, (r) => {
        for (const line of r.lines) {
          const kind = `${r.method} ${r.path} ${line.replace(/ \(×\d+: .*\)$/, '').replace(/\[\d+\]/g, '[*]')}`
          if (told.has(kind)) continue
          told.add(kind)
          log(redact(`↳ read ${r.method} ${r.path}: ${line}`, secrets()))
        }
      })
    }
    return {profile, client: this.client, target}
  }
}
