import {BaseCommand} from '../../cli/base-command.js'
import {writeOut} from '../../cli/output.js'
import {maskSecret} from '../../schemas/secrets.js'
import {checkCredentials, type CredentialCheck} from '../../services/auth/status.js'
import {defined, given} from '../../util/fields.js'

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
    const result: AuthStatusResult = {
      profile: profile.name,
      embedded: profile.embedded,
      baseUrl: profile.baseUrl,
      ...given({
        businessId: profile.businessId,
        apiKey: profile.apiKey ? maskSecret(profile.apiKey) : undefined,
        authToken: profile.authToken ? maskSecret(profile.authToken) : undefined,
      }),
      v1: status.v1,
      ...defined({v2: status.v2 || undefined}),
    }
    if (!this.jsonEnabled()) {
      const {default: chalk} = await import('chalk')
      const mark = (c: CredentialCheck) => (c.ok ? chalk.green('✓ ok') : chalk.red(`✗ ${c.message}`))
      writeOut(
        [
          `Profile:   ${result.profile}${result.embedded ? ' (embedded sandbox)' : ''}`,
          `Base URL:  ${result.baseUrl}`,
          `Business:  ${result.businessId ?? '(not set)'}`,
          `API key:   ${result.apiKey ?? '(not set)'}`,
          `Token:     ${result.authToken ?? '(not set; v2 not checked)'}`,
          `v1:        ${mark(result.v1)}`,
          ...(result.v2 ? [`v2:        ${mark(result.v2)}`] : []),
        ].join('\n'),
      )
    }
    if (status.rejected) process.exitCode = 3
    else if (!status.v1.ok || (status.v2 && !status.v2.ok)) process.exitCode = 1
    return result
  }
}
