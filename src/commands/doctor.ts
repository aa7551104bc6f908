import {join} from 'node:path'

import {Flags} from '@oclif/core'

import {BaseCommand} from '../cli/base-command.js'
import {insecureFromEnv} from '../cli/context.js'
import {writeOut} from '../cli/output.js'
import {
  LOCAL_PROFILE,
  ProfileStore,
  mfgPaths,
  normalizeBaseUrl,
  unknownProfile,
  type Profile,
} from '../profiles/index.js'
import {extractApiKey, redact} from '../schemas/secrets.js'
import type {CheckResult, DoctorProfile, DoctorReport} from '../services/doctor/index.js'

export default class Doctor extends BaseCommand {
  static override summary = 'Check the setup: Node.js, file modes, profiles, clocks and the sandbox database.'
  static override description = `Checks, and says how to fix what is wrong:
- the Node.js version against the one mfg requires;
- that every file holding a secret (config.json, batch journals, the sandbox database) is owner-only (mode 0600) and that mfg's directories are not world-writable (not on Windows);
- for each stored profile, and for MFG_BASE_URL when set: that the service answers, that its clock agrees with this machine's (signed file links depend on it; a difference over 30 s warns, over 5 min fails), and that the API key (v1 and MCP) and the auth token (legacy v2) are accepted. A profile without an auth token gets a warning, not a failure; a plain-http base URL of another machine fails unless --insecure;
- for the embedded sandbox "local": its database's integrity and schema version. It is not started: it runs in this process with its own keys and clock, so its database is what can break.

Stored profiles are checked with their stored values; MFG_API_KEY, MFG_AUTH_TOKEN and MFG_BUSINESS_ID apply to the MFG_BASE_URL profile ("env"). --profile limits the profile checks to one profile. Network checks run concurrently, each within --timeout seconds, with no retries.

Exit status: 0 when every check is ok or only warns, 1 when any check failed, 2 for a usage error (such as an unknown --profile).`

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --profile shop --timeout 10',
    '<%= config.bin %> <%= command.id %> --json | jq \'.checks[] | select(.status != "ok")\'',
  ]

  static override flags = {
    timeout: Flags.integer({description: 'Seconds each network check may take.', default: 5, min: 1, max: 120}),
  }

  async run(): Promise<DoctorReport> {
    const {flags} = await this.parse(Doctor)
    const paths = mfgPaths()
    const sandboxDb = join(paths.sandboxDir, 'sandbox.db')
    const gathered = gatherProfiles(flags.profile)
    const {countByStatus, runDoctor} = await import('../services/doctor/index.js')
    const report = await runDoctor(
      {
        node: {version: process.versions.node, required: this.config.pjson.engines?.node as string | undefined},
        files: {
          dirs: [paths.configDir, paths.dataDir, paths.sandboxDir, paths.journalDir],
          configFile: gathered.configFile,
          journalDir: paths.journalDir,
          sandboxDb,
        },
        profiles: gathered.profiles,
        profileProblems: gathered.problems,
        ...(gathered.includeLocal ? {sandboxDb} : {}),
        timeoutMs: flags.timeout * 1000,
        insecure: flags.insecure === true || insecureFromEnv(process.env),
      },
      {
        inspectDatabase: async (file) => (await import('../sandbox/store/integrity.js')).inspectDatabase(file),
      },
    )
    const shown = masked(report, gathered.secrets)
    if (!this.jsonEnabled()) await render(shown, new Set(gathered.profiles.map((p) => p.name)))
    const n = countByStatus(shown.checks)
    this.note(
      n.fail + n.warn === 0
        ? `All ${n.ok} checks passed.`
        : `${n.fail} failed, ${n.warn} ${n.warn === 1 ? 'warning' : 'warnings'}, ${n.ok} ok.`,
    )
    if (!shown.ok) process.exitCode = 1
    return shown
  }
}

interface Gathered {
  configFile: string
  profiles: DoctorProfile[]
  problems: CheckResult[]
  includeLocal: boolean
  /** Every key and token seen, to mask in whatever is printed. */
  secrets: string[]
}

/**
 * The profiles in scope: the stored ones plus one built from MFG_BASE_URL (and
 * the other MFG_* variables), limited to `--profile` when given. A config file
 * that cannot be read, or a malformed MFG_BASE_URL, becomes a finding rather
 * than an error, so the other checks still run.
 */
function gatherProfiles(wanted: string | undefined, env: NodeJS.ProcessEnv = process.env): Gathered {
  const store = new ProfileStore(env)
  const problems: CheckResult[] = []
  let stored: Profile[] = []
  try {
    stored = store.list()
  } catch (error) {
    problems.push({
      check: 'config',
      target: store.path,
      status: 'fail',
      message: (error as Error).message,
      fix: `repair ${store.path} by hand, or move it away and add the profiles again with mfg profile add`,
    })
  }
  const profiles: DoctorProfile[] = stored.map((p) => ({...p, source: 'stored'}))
  const value = (name: string): string | undefined => env[name]?.trim() || undefined
  const envName = stored.some((p) => p.name === 'env') ? 'MFG_BASE_URL' : 'env'
  const rawBaseUrl = value('MFG_BASE_URL')
  if (rawBaseUrl) {
    try {
      const apiKey = value('MFG_API_KEY')
      const authToken = value('MFG_AUTH_TOKEN')
      const businessId = value('MFG_BUSINESS_ID')
      profiles.push({
        name: envName,
        source: 'env',
        baseUrl: normalizeBaseUrl(rawBaseUrl, 'MFG_BASE_URL'),
        ...(apiKey ? {apiKey: extractApiKey(apiKey)} : {}),
        ...(authToken ? {authToken} : {}),
        ...(businessId ? {businessId} : {}),
      })
    } catch (error) {
      problems.push({
        check: 'profile',
        target: envName,
        status: 'fail',
        message: (error as Error).message,
        fix: 'set MFG_BASE_URL to the http(s) address of the service, or unset it',
      })
    }
  }
  const secrets = [...profiles.flatMap((p) => [p.apiKey, p.authToken]), env.MFG_API_KEY, env.MFG_AUTH_TOKEN].filter(
    (s): s is string => Boolean(s),
  )
  const name = wanted?.trim()
  if (!name) return {configFile: store.path, profiles, problems, includeLocal: true, secrets}
  if (name === LOCAL_PROFILE) return {configFile: store.path, profiles: [], problems, includeLocal: true, secrets}
  const chosen = profiles.find((p) => p.name === name)
  // With an unreadable config file the finding above says why the name is unknown.
  if (!chosen && problems.length === 0) throw unknownProfile(name, '--profile', stored)
  return {configFile: store.path, profiles: chosen ? [chosen] : [], problems, includeLocal: false, secrets}
}

function masked(report: DoctorReport, secrets: string[]): DoctorReport {
  return {
    ok: report.ok,
    checks: report.checks.map((c) => ({
      ...c,
      message: redact(c.message, secrets),
      ...(c.fix === undefined ? {} : {fix: redact(c.fix, secrets)}),
    })),
  }
}

/** One line per check under "This machine" or its profile, with the fix beneath; symbols only with colour. */
async function render(report: DoctorReport, profileNames: Set<string>): Promise<void> {
  const [{default: chalk}, {colorEnabled}] = await Promise.all([import('chalk'), import('../cli/output.js')])
  const color = colorEnabled()
  const mark = (s: CheckResult['status']): string =>
    color
      ? {ok: chalk.green('✓'), warn: chalk.yellow('!'), fail: chalk.red('✗')}[s]
      : {ok: 'ok  ', warn: 'warn', fail: 'FAIL'}[s]
  const width = Math.max(...report.checks.map((c) => c.check.length))
  const groups = new Map<string, CheckResult[]>()
  for (const c of report.checks) {
    const key = c.target !== undefined && profileNames.has(c.target) ? `Profile ${c.target}` : 'This machine'
    groups.set(key, [...(groups.get(key) ?? []), c])
  }
  const lines: string[] = []
  for (const [title, checks] of groups) {
    if (lines.length > 0) lines.push('')
    lines.push(color ? chalk.bold(title) : title)
    for (const c of checks) {
      const where = c.target && !profileNames.has(c.target) && !c.message.includes(c.target) ? ` (${c.target})` : ''
      lines.push(`  ${mark(c.status)} ${c.check.padEnd(width)}  ${c.message}${where}`)
      if (c.fix) lines.push(`  ${' '.repeat(color ? 1 : 4)} ${' '.repeat(width)}  fix: ${c.fix}`)
    }
  }
  writeOut(lines.join('\n'))
}
