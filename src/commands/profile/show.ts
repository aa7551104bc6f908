import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {writeOut} from '../../cli/output.js'
import {shownProfile, type ShownProfile} from '../../cli/stored-profiles.js'

export default class ProfileShow extends BaseCommand {
  static override outputFields = () =>
    ['name', 'baseUrl', 'apiKey', 'authToken', 'businessId', 'currency', 'embedded', 'current', 'overrides'] as const
  static override summary = 'Show one profile (default: the active one), secrets masked.'
  static override description = `Without NAME, shows the profile commands would use now, after --profile, MFG_PROFILE and the MFG_* overrides. Keys and tokens are masked everywhere, including --json.`
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> shop --json']
  static override args = {name: Args.string({description: 'Profile name (default: the active profile).'})}

  async run(): Promise<ShownProfile> {
    const {args, flags} = await this.parse(ProfileShow)
    const shown = shownProfile(args.name, flags.profile)
    if (!this.jsonEnabled()) {
      const {toKeyValue} = await import('../../cli/render.js')
      writeOut(toKeyValue({...shown, overrides: shown.overrides.join(', ')}))
    }
    return shown
  }
}
