import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {baseUrlWarning, cleartextWarning, keptNote, profileFromFlags} from '../../cli/profile-input.js'
import {maskedProfile, ProfileStore, type Profile} from '../../profiles/index.js'

export default class ProfileAdd extends BaseCommand {
  static override summary = 'Add or replace a connection profile.'
  static override description = `Stores a base URL, API key, v2 auth token, business id and default currency under a name, in the config file (mode 0600; MFG_HOME relocates it).

With all values given as flags nothing is asked. Replacing a stored profile (to rotate its key, say) keeps the stored values whose flags are not given, and says which; --auth-token "" or --currency "" removes one. In a terminal, missing values are prompted for (the key and token with a hidden prompt); otherwise a missing --base-url, --api-key or --business-id is an error. A pasted, displayed key is reduced to its pk_business_... part. --api-key - (or --auth-token -) reads the value from stdin, one line, so that it stands neither in the command line, which other users of the machine can read, nor in the shell's history. Keys and tokens are only ever shown masked.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> shop --base-url https://api.example.com --api-key pk_business_xxxx --auth-token tok_xxxx --business-id 64f0c2 --use',
    '<%= config.bin %> <%= command.id %> staging --base-url https://dev.example.com --api-key "$MFG_KEY" --business-id 64f0c2 --currency EUR',
    'printf "%s\\n" "$MFG_KEY" | <%= config.bin %> <%= command.id %> ci --base-url https://api.example.com --api-key - --business-id 64f0c2',
  ]

  static override args = {
    name: Args.string({description: 'Profile name (letters, digits, ".", "_", "-").', required: true}),
  }

  static override flags = {
    'base-url': Flags.string({description: 'Root address of the service, for example https://api.example.com.'}),
    'api-key': Flags.string({
      description: 'API key (pk_business_...); a pasted display string is reduced to the key; - reads it from stdin.',
    }),
    'auth-token': Flags.string({
      description: 'v2 auth token (X-Auth-Token), needed for legacy v2 calls only; - reads it from stdin.',
    }),
    'business-id': Flags.string({description: 'Your business (manufacturer) id.'}),
    currency: Flags.string({description: 'Default currency code, for example EUR.'}),
    use: Flags.boolean({description: 'Make this the current profile.'}),
  }

  async run(): Promise<Profile & {current: boolean}> {
    const {args, flags} = await this.parse(ProfileAdd)
    const store = new ProfileStore()
    const {profile, kept} = await profileFromFlags(args.name, flags, store.get(args.name))
    store.add(profile)
    if (flags.use) store.use(args.name)
    const saved = store.get(args.name)!
    const current = store.current() === args.name
    this.note(
      `Saved profile "${args.name}" in ${store.path}${current ? ' (current)' : `; use it with --profile ${args.name} or mfg profile use ${args.name}`}.`,
    )
    if (kept.length > 0) this.note(keptNote(kept))
    for (const warning of [baseUrlWarning(args.name, saved.baseUrl), cleartextWarning(args.name, saved.baseUrl)]) {
      if (warning) this.warnNote(warning, true)
    }
    return {...maskedProfile(saved), current}
  }
}
