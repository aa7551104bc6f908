import {BaseCommand} from '../cli/base-command.js'
import {writeOut} from '../cli/output.js'
import {maskSecret} from '../schemas/secrets.js'
import {given} from '../util/fields.js'

export interface VersionResult {
  mfg: string
  node: string
  platform: string
  arch: string
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

export default class Version extends BaseCommand {
  static override summary = 'Show the versions and the profile and base URL that commands would use (for bug reports).'
  static override description = `Prints mfg's version, the Node.js version, the platform, and the profile and base URL a command would use here (after --profile, MFG_PROFILE and the MFG_* overrides), without contacting the service. Keys and tokens are shown masked. Paste it into a bug report.`
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<VersionResult> {
    const {flags} = await this.parse(Version)
    const profile = await this.context(flags).profile()
    const result: VersionResult = {
      mfg: this.config.version,
      node: process.version,
      platform: process.platform,
      arch: process.arch,
      profile: profile.name,
      profileSource: sourceOf(profile),
      embedded: profile.embedded,
      ...given({
        baseUrl: profile.embedded ? undefined : profile.baseUrl,
        businessId: profile.businessId,
        apiKey: profile.apiKey ? maskSecret(profile.apiKey) : undefined,
        authToken: profile.authToken ? maskSecret(profile.authToken) : undefined,
      }),
      overrides: profile.overrides,
    }
    if (!this.jsonEnabled()) {
      const lines = [
        `mfg        ${result.mfg}`,
        `node       ${result.node}`,
        `platform   ${result.platform}-${result.arch}`,
        `profile    ${result.profile} (${result.profileSource})`,
        `base URL   ${result.embedded ? 'the embedded sandbox (a loopback port picked at start)' : result.baseUrl}`,
      ]
      if (result.businessId) lines.push(`business   ${result.businessId}`)
      if (result.apiKey) lines.push(`API key    ${result.apiKey}`)
      if (result.authToken) lines.push(`auth token ${result.authToken}`)
      if (result.overrides.length > 0) lines.push(`overrides  ${result.overrides.join(', ')}`)
      writeOut(lines.join('\n'))
    }
    return result
  }
}
