import {BaseCommand} from '../../cli/base-command.js'
import {writeOut} from '../../cli/output.js'
import {authStatusResult, authStatusText, type AuthStatusResult} from '../../cli/profile-view.js'
import {checkCredentials} from '../../services/auth/status.js'

export default class AuthStatus extends BaseCommand {
  static override summary = 'Check the active credentials against the service.'
  static override description = `Resolves the active profile (after --profile, MFG_PROFILE and the MFG_* overrides) and checks it: v1 by reading one demand of the business (401: the key is wrong; 403: the key belongs to another business), and v2, when an auth token is set, by listing the business's webhooks.

Prints the profile, business, base URL and masked key with each result. Exits 3 when the service rejects the credentials.`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --profile shop --json',
  ]

  async run(): Promise<AuthStatusResult> {
    const {flags} = await this.parse(AuthStatus)
    const {profile, client} = await this.context(flags).session()
    const status = await checkCredentials(client, {
      businessId: profile.businessId,
      hasAuthToken: Boolean(profile.authToken),
    })
    const result = authStatusResult(profile, status)
    if (!this.jsonEnabled()) writeOut(await authStatusText(result))
    if (status.rejected) process.exitCode = 3
    else if (!status.v1.ok || (status.v2 && !status.v2.ok)) process.exitCode = 1
    return result
  }
}
