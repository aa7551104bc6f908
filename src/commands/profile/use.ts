import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {ProfileStore} from '../../profiles/index.js'

export default class ProfileUse extends BaseCommand {
  static override summary = 'Make a profile the current one.'
  static override description =
    'Later commands use this profile unless --profile or MFG_PROFILE says otherwise. "local" selects the embedded sandbox.'
  static override examples = ['<%= config.bin %> <%= command.id %> shop', '<%= config.bin %> <%= command.id %> local']
  static override args = {name: Args.string({description: 'Profile name.', required: true})}

  async run(): Promise<{current: string}> {
    const {args} = await this.parse(ProfileUse)
    new ProfileStore().use(args.name)
    this.note(`Current profile: ${args.name}`)
    return {current: args.name}
  }
}
