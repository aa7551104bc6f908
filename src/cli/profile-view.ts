// How the profile in use is shown by `version` and `auth status`: keys and tokens
// masked, in --json as in the text. No profile store is read here (version loads
// nothing it does not print).
import type {ResolvedProfile} from '../profiles/resolve.js'
import {maskSecret} from '../schemas/secrets.js'
import type {AuthStatus, CredentialCheck} from '../services/auth/status.js'
import {defined, given} from '../util/fields.js'

interface Credentials {
  businessId?: string | undefined
  apiKey?: string | undefined
  authToken?: string | undefined
}

/** The business id and, masked (`****` and the last 4 characters), the API key and auth token: those that are set. */
export function maskedCredentials(p: Credentials): {businessId?: string; apiKey?: string; authToken?: string} {
  return given({
    businessId: p.businessId,
    apiKey: p.apiKey ? maskSecret(p.apiKey) : undefined,
    authToken: p.authToken ? maskSecret(p.authToken) : undefined,
  })
}

interface VersionFacts {
  mfg: string
  node: string
  platform: string
  arch: string
}

/**
 * `mfg version`'s answer: the versions, and the profile a command would use or,
 * when the config file cannot be read, why (the versions are wanted all the more then).
 */
export type VersionResult = VersionFacts & (VersionProfile | {configError: string})

interface VersionProfile {
  profile: string
  /** How the profile was chosen: --profile, MFG_PROFILE, the current profile, MFG_BASE_URL alone, or the default. */
  profileSource: string
  embedded: boolean
  /** The base URL requests would go to; absent for the embedded sandbox, whose port is picked when it starts. */
  baseUrl?: string
  businessId?: string
  /** Masked: `****` and the last 4 characters. */
  apiKey?: string
  authToken?: string
  overrides: string[]
}

/** Where the profile choice came from, in the words of the flag or variable. */
function sourceOf(p: {name: string; source: string}): string {
  if (p.source === 'env') return p.name === 'env' ? 'MFG_BASE_URL' : 'MFG_PROFILE'
  return {flag: '--profile', current: 'the current profile', default: 'no profile configured'}[p.source] ?? p.source
}

/** The profile a command would use, or why the config file cannot say (other profile errors are thrown). */
export async function profileOrConfigError(ctx: {
  profile(): Promise<ResolvedProfile>
}): Promise<ResolvedProfile | {configError: string}> {
  try {
    return await ctx.profile()
  } catch (error) {
    if ((error as {code?: unknown}).code === 'config_invalid') return {configError: (error as Error).message}
    throw error
  }
}

/** `mfg version`'s answer: this process and the profile a command would use. */
export function versionResult(mfg: string, profile: ResolvedProfile | {configError: string}): VersionResult {
  const facts = {mfg, node: process.version, platform: process.platform, arch: process.arch}
  if ('configError' in profile) return {...facts, configError: profile.configError}
  return {
    ...facts,
    profile: profile.name,
    profileSource: sourceOf(profile),
    embedded: profile.embedded,
    ...given({baseUrl: profile.embedded ? undefined : profile.baseUrl}),
    ...maskedCredentials(profile),
    overrides: profile.overrides,
  }
}

/** `mfg version` as text: one aligned line a fact, the unset ones left out. */
export function versionText(result: VersionResult): string {
  const lines = [
    `mfg        ${result.mfg}`,
    `node       ${result.node}`,
    `platform   ${result.platform}-${result.arch}`,
  ]
  if ('configError' in result) return [...lines, `config     ${result.configError}`].join('\n')
  lines.push(
    `profile    ${result.profile} (${result.profileSource})`,
    `base URL   ${result.embedded ? 'the embedded sandbox (a loopback port picked at start)' : result.baseUrl}`,
  )
  if (result.businessId) lines.push(`business   ${result.businessId}`)
  if (result.apiKey) lines.push(`API key    ${result.apiKey}`)
  if (result.authToken) lines.push(`auth token ${result.authToken}`)
  if (result.overrides.length > 0) lines.push(`overrides  ${result.overrides.join(', ')}`)
  return lines.join('\n')
}

export interface AuthStatusResult {
  profile: string
  embedded: boolean
  baseUrl: string
  businessId?: string
  apiKey?: string
  authToken?: string
  v1: CredentialCheck
  v2?: CredentialCheck
}

/** `mfg auth status`'s answer: the profile, masked, with each check. */
export function authStatusResult(profile: ResolvedProfile, status: AuthStatus): AuthStatusResult {
  return {
    profile: profile.name,
    embedded: profile.embedded,
    baseUrl: profile.baseUrl,
    ...maskedCredentials(profile),
    v1: status.v1,
    ...defined({v2: status.v2 || undefined}),
  }
}

/** `mfg auth status` as text, each check marked ✓ or ✗ (in colour when colour is on). */
export async function authStatusText(result: AuthStatusResult): Promise<string> {
  const {default: chalk} = await import('chalk')
  const mark = (c: CredentialCheck) => (c.ok ? chalk.green('✓ ok') : chalk.red(`✗ ${c.message}`))
  return [
    `Profile:   ${result.profile}${result.embedded ? ' (embedded sandbox)' : ''}`,
    `Base URL:  ${result.baseUrl}`,
    `Business:  ${result.businessId ?? '(not set)'}`,
    `API key:   ${result.apiKey ?? '(not set)'}`,
    `Token:     ${result.authToken ?? '(not set; v2 not checked)'}`,
    `v1:        ${mark(result.v1)}`,
    ...(result.v2 ? [`v2:        ${mark(result.v2)}`] : []),
  ].join('\n')
}
