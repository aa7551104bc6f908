import {checkSandboxDatabase, type InspectDatabase} from './database.js'
import {checkSecretFiles, type SecretFiles} from './files.js'
import {checkNodeVersion} from './node.js'
import {checkProfile, type DoctorProfile} from './profiles.js'
import {makeReport, type CheckResult, type DoctorReport} from './types.js'

export {assessClock, CLOCK_FAIL_MS, CLOCK_WARN_MS, formatDuration} from './clock.js'
export type {DatabaseInspection, InspectDatabase} from './database.js'
export type {SecretFiles} from './files.js'
export {profileFix, type DoctorProfile} from './profiles.js'
export {countByStatus, maskReport, type CheckResult, type CheckStatus, type DoctorReport} from './types.js'

export interface DoctorInput {
  node: {version: string; required?: string}
  files: SecretFiles
  platform?: NodeJS.Platform
  /** The remote profiles to check (stored ones, and the MFG_BASE_URL one). */
  profiles: DoctorProfile[]
  /** What went wrong while gathering them (an unreadable config.json, a bad MFG_BASE_URL). */
  profileProblems?: CheckResult[]
  /** The embedded sandbox's database; undefined when the local profile is out of scope. */
  sandboxDb?: string
  /** Limit for each check over the network. */
  timeoutMs: number
  /** `--insecure` / MFG_INSECURE: credentials may go over plain http to another machine. */
  insecure?: boolean
  now?: () => number
}

export interface DoctorDeps {
  /** Reads the sandbox database read-only (the sandbox's store owns the SQL). */
  inspectDatabase: InspectDatabase
}

/**
 * Runs every check: Node.js, file modes, the sandbox database, and each
 * profile's reachability, clock and credentials (all profiles concurrently).
 * Findings come back in a stable order: local checks first, then profiles in
 * the order given.
 */
export async function runDoctor(input: DoctorInput, deps: DoctorDeps): Promise<DoctorReport> {
  const local: CheckResult[] = [
    checkNodeVersion(input.node.version, input.node.required),
    ...checkSecretFiles(input.files, input.platform),
    ...(input.profileProblems ?? []),
  ]
  // SQLite's checks block the event loop; run them before the network checks
  // so they cannot eat into a request's time limit or the clock measurement.
  if (input.sandboxDb !== undefined) local.push(...(await checkSandboxDatabase(input.sandboxDb, deps.inspectDatabase)))
  const perProfile = await Promise.all(
    input.profiles.map((p) =>
      checkProfile(p, {
        timeoutMs: input.timeoutMs,
        insecure: input.insecure === true,
        ...(input.now ? {now: input.now} : {}),
      }),
    ),
  )
  return makeReport([...local, ...perProfile.flat()])
}
