import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {yesFlag} from '../../cli/flags.js'
import {confirmOrYes} from '../../cli/prompt.js'
import {LOCAL_PROFILE, ProfileError, ProfileStore, unknownProfile} from '../../profiles/index.js'

export default class ProfileRemove extends BaseCommand {
  static override summary = 'Remove a stored profile.'
  static override description =
    'Deletes the profile and its stored key and token. Asks for confirmation in a terminal; pass --yes otherwise. Removing the current profile says so (--json: "wasCurrent": true): commands then use the embedded sandbox (local) until `mfg profile use` names another.'
  static override examples = ['<%= config.bin %> <%= command.id %> staging --yes']
  static override args = {name: Args.string({description: 'Profile name.', required: true})}
  static override flags = {yes: yesFlag}

  async run(): Promise<{removed: string; wasCurrent: boolean} | undefined> {
    const {args, flags} = await this.parse(ProfileRemove)
    const store = new ProfileStore()
    if (args.name === LOCAL_PROFILE) {
      throw new ProfileError(
        `"${LOCAL_PROFILE}" is the embedded sandbox, not a stored profile: there is nothing to remove (mfg sandbox reset clears its data).`,
        {code: 'reserved_profile'},
      )
    }
    if (!store.get(args.name)) throw unknownProfile(args.name, 'mfg profile remove', store.list())
    const wasCurrent = store.current() === args.name
    if (!(await confirmOrYes({yes: flags.yes, message: `Remove profile "${args.name}"?`}))) {
      this.note('Not removed.')
      return undefined
    }
    store.remove(args.name)
    // Commands that named no profile used this one: say where they go now, before one sends anything there.
    this.note(
      wasCurrent
        ? `Removed profile "${args.name}", the current one: commands now use the embedded sandbox (${LOCAL_PROFILE}) until mfg profile use NAME.`
        : `Removed profile "${args.name}".`,
    )
    return {removed: args.name, wasCurrent}
  }
}
