import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {yesFlag} from '../../cli/flags.js'
import {confirmOrYes} from '../../cli/prompt.js'
import {ProfileStore, unknownProfile} from '../../profiles/index.js'

export default class ProfileRemove extends BaseCommand {
  static override summary = 'Remove a stored profile.'
  static override description =
    'Deletes the profile and its stored key and token. Asks for confirmation in a terminal; pass --yes otherwise.'
  static override examples = ['<%= config.bin %> <%= command.id %> staging --yes']
  static override args = {name: Args.string({description: 'Profile name.', required: true})}
  static override flags = {yes: yesFlag}

  async run(): Promise<{removed: string} | undefined> {
    const {args, flags} = await this.parse(ProfileRemove)
    const store = new ProfileStore()
    if (!store.get(args.name)) throw unknownProfile(args.name, 'mfg profile remove', store.list())
    if (!(await confirmOrYes({yes: flags.yes, message: `Remove profile "${args.name}"?`}))) {
      this.note('Not removed.')
      return undefined
    }
    store.remove(args.name)
    this.note(`Removed profile "${args.name}".`)
    return {removed: args.name}
  }
}
