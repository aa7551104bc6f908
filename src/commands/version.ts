import {BaseCommand} from '../cli/base-command.js'
import {writeOut} from '../cli/output.js'
import {profileOrConfigError, versionResult, versionText, type VersionResult} from '../cli/profile-view.js'

export default class Version extends BaseCommand {
  static override summary = 'Show the versions and the profile and base URL that commands would use (for bug reports).'
  static override description = `Prints mfg's version, the Node.js version, the platform, and the profile and base URL a command would use here (after --profile, MFG_PROFILE and the MFG_* overrides), without contacting the service. Keys and tokens are shown masked. Paste it into a bug report.`
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<VersionResult> {
    const {flags} = await this.parse(Version)
    const result = versionResult(this.config.version, await profileOrConfigError(this.context(flags)))
    if (!this.jsonEnabled()) writeOut(versionText(result))
    return result
  }
}
