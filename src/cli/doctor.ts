// What `mfg doctor` reads from this machine's configuration (the profiles in
// scope) and how it shows the report. The checks and their verdicts are in
// src/services/doctor.
import {join} from 'node:path'

import chalk from 'chalk'

import {
  LOCAL_PROFILE,
  ProfileStore,
  mfgPaths,
  normalizeBaseUrl,
  storedBaseUrl,
  unknownKeyText,
  unknownProfile,
  type Profile,
} from '../profiles/index.js'
import {extractApiKey} from '../schemas/secrets.js'
import {
  countByStatus,
  type CheckResult,
  type DoctorInput,
  type DoctorProfile,
  type DoctorReport,
} from '../services/doctor/index.js'
import {insecureFromEnv} from './context.js'
import {colorEnabled} from './output.js'

export interface GatheredProfiles {
  configFile: string
  profiles: DoctorProfile[]
  problems: CheckResult[]
  includeLocal: boolean
  /** Every key and token seen, to mask in whatever is printed. */
  secrets: string[]
}

/**
 * What `mfg doctor` checks here: this Node.js against `requiredNode`, mfg's
 * directories and the files holding secrets, the profiles in scope (`wanted`, else
 * all) and, when "local" is among them, the embedded sandbox's database.
 */
export function doctorInput(opts: {
  wanted: string | undefined
  requiredNode: string | undefined
  timeoutSeconds: number
  insecure: boolean | undefined
}): {input: DoctorInput; gathered: GatheredProfiles} {
  const paths = mfgPaths()
  const sandboxDb = join(paths.sandboxDir, 'sandbox.db')
  const gathered = gatherProfiles(opts.wanted)
  const input: DoctorInput = {
    node: {version: process.versions.node, required: opts.requiredNode},
    files: {
      dirs: [paths.configDir, paths.dataDir, paths.sandboxDir, paths.journalDir],
      configFile: gathered.configFile,
      journalDir: paths.journalDir,
      sandboxDb,
    },
    profiles: gathered.profiles,
    profileProblems: gathered.problems,
    ...(gathered.includeLocal ? {sandboxDb} : {}),
    timeoutMs: opts.timeoutSeconds * 1000,
    insecure: opts.insecure === true || insecureFromEnv(process.env),
  }
  return {input, gathered}
}

/**
 * The profiles in scope: the stored ones plus one built from MFG_BASE_URL (and
 * the other MFG_* variables), limited to `--profile` when given. A config file
 * that cannot be read, or a malformed MFG_BASE_URL, becomes a finding rather
 * than an error, so the other checks still run.
 */
export function gatherProfiles(wanted: string | undefined, env: NodeJS.ProcessEnv = process.env): GatheredProfiles {
  const store = new ProfileStore(env)
  const problems: CheckResult[] = []
  let stored: Profile[] = []
  try {
    stored = store.list()
    problems.push(...configContent(store, stored))
  } catch (error) {
    problems.push({
      check: 'config',
      target: store.path,
      status: 'fail',
      message: (error as Error).message,
      fix: `repair ${store.path} by hand, or move it away and add the profiles again with mfg profile add`,
    })
  }
  const profiles: DoctorProfile[] = []
  for (const p of stored) {
    try {
      profiles.push({...p, baseUrl: storedBaseUrl(p, store.path), source: 'stored'})
    } catch (error) {
      problems.push({
        check: 'profile',
        target: p.name,
        status: 'fail',
        message: (error as Error).message,
        fix: `set baseUrl of "${p.name}" in ${store.path} to the http(s) address of the service (mfg profile add ${p.name} --base-url URL)`,
      })
    }
  }
  const envName = stored.some((p) => p.name === 'env') ? 'MFG_BASE_URL' : 'env'
  const fromEnv = envProfile(envName, env)
  if (fromEnv && 'check' in fromEnv) problems.push(fromEnv)
  else if (fromEnv) profiles.push(fromEnv)
  const secrets = [...profiles.flatMap((p) => [p.apiKey, p.authToken]), env.MFG_API_KEY, env.MFG_AUTH_TOKEN].filter(
    (s): s is string => Boolean(s),
  )
  const base = {configFile: store.path, problems, secrets}
  const name = wanted?.trim()
  if (!name) return {...base, profiles, includeLocal: true}
  if (name === LOCAL_PROFILE) return {...base, profiles: [], includeLocal: true}
  const chosen = profiles.find((p) => p.name === name)
  // With an unreadable config file (or that profile's base URL) the finding says why it is not checked.
  if (!chosen && !problems.some((c) => c.check === 'config' || c.target === name)) {
    throw unknownProfile(name, '--profile', stored)
  }
  const own = problems.filter((c) => c.check !== 'profile' || c.target === name)
  return {...base, problems: own, profiles: chosen ? [chosen] : [], includeLocal: false}
}

/**
 * What is wrong inside a readable config file: a current profile that is not
 * stored (every command would fail), and keys mfg does not read. A misspelling
 * of a known key fails (a misspelt "current" sends commands to the embedded
 * sandbox); a key like no known one only warns (a later mfg may have written it).
 */
function configContent(store: ProfileStore, stored: Profile[]): CheckResult[] {
  const found: CheckResult[] = []
  const current = store.current()
  if (current !== undefined && current !== LOCAL_PROFILE && !stored.some((p) => p.name === current)) {
    found.push({
      check: 'config',
      target: store.path,
      status: 'fail',
      message: `"current" names profile "${current}", which is not stored: every command without --profile fails`,
      fix: `choose one with mfg profile use NAME (${[...stored.map((p) => p.name), LOCAL_PROFILE].join(', ')}), or add it with mfg profile add ${current}`,
    })
  }
  const unknown = store.unknownKeys()
  if (unknown.length > 0) {
    found.push({
      check: 'config',
      target: store.path,
      status: unknown.some((u) => u.meant !== undefined) ? 'fail' : 'warn',
      message: `mfg does not read ${unknown.length === 1 ? 'the key' : 'the keys'} ${unknown.map(unknownKeyText).join(', ')}`,
      fix: `rename or remove ${unknown.length === 1 ? 'it' : 'them'} in ${store.path}: mfg reads "current" and "profiles", and in each profile baseUrl, apiKey, authToken, businessId and currency`,
    })
  }
  return found
}

/** The MFG_BASE_URL profile, a finding when the variable is malformed, or undefined when unset. */
function envProfile(name: string, env: NodeJS.ProcessEnv): DoctorProfile | CheckResult | undefined {
  const value = (variable: string): string | undefined => env[variable]?.trim() || undefined
  const rawBaseUrl = value('MFG_BASE_URL')
  if (!rawBaseUrl) return undefined
  try {
    const apiKey = value('MFG_API_KEY')
    const authToken = value('MFG_AUTH_TOKEN')
    const businessId = value('MFG_BUSINESS_ID')
    return {
      name,
      source: 'env',
      baseUrl: normalizeBaseUrl(rawBaseUrl, 'MFG_BASE_URL'),
      ...(apiKey ? {apiKey: extractApiKey(apiKey)} : {}),
      ...(authToken ? {authToken} : {}),
      ...(businessId ? {businessId} : {}),
    }
  } catch (error) {
    return {
      check: 'profile',
      target: name,
      status: 'fail',
      message: (error as Error).message,
      fix: 'set MFG_BASE_URL to the http(s) address of the service, or unset it',
    }
  }
}

/** The profiles the report has a heading for: those checked and those that could not be. */
export function profileNames(gathered: GatheredProfiles): Set<string> {
  const failed = gathered.problems.flatMap((c) => (c.check === 'profile' && c.target ? [c.target] : []))
  return new Set([...gathered.profiles.map((p) => p.name), ...failed])
}

/** One line per check under "This machine" or its profile, with the fix beneath; symbols only with colour. */
export function renderDoctorReport(report: DoctorReport, profileNames: Set<string>): string {
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
  return lines.join('\n')
}

/** The closing line on stderr: how many checks passed, warned and failed. */
export function doctorSummary(report: DoctorReport): string {
  const n = countByStatus(report.checks)
  return n.fail + n.warn === 0
    ? `All ${n.ok} checks passed.`
    : `${n.fail} failed, ${n.warn} ${n.warn === 1 ? 'warning' : 'warnings'}, ${n.ok} ok.`
}
