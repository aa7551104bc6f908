import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {writeOut} from '../../cli/output.js'
// Reading only: the reader, not ProfileStore, whose writes load conf (and its JSON-schema validator).
import {LOCAL_PROFILE, maskedProfile, ProfileReader, unknownProfile, type Profile} from '../../profiles/config-file.js'
import {resolveProfile} from '../../profiles/resolve.js'
import {given} from '../../util/fields.js'

export interface ShownProfile extends Profile {
  embedded: boolean
  current: boolean
  /** Environment variables laid over the stored values. */
  overrides: string[]
}

export default class ProfileShow extends BaseCommand {
  static override outputFields = () =>
    ['name', 'baseUrl', 'apiKey', 'authToken', 'businessId', 'currency', 'embedded', 'current', 'overrides'] as const
  static override summary = 'Show one profile (default: the active one), secrets masked.'
  static override description = `Without NAME, shows the profile commands would use now, after --profile, MFG_PROFILE and the MFG_* overrides. Keys and tokens are masked everywhere, including --json.`
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> shop --json']
  static override args = {name: Args.string({description: 'Profile name (default: the active profile).'})}

  async run(): Promise<ShownProfile> {
    const {args, flags} = await this.parse(ProfileShow)
    const store = new ProfileReader()
    const current = store.current() ?? LOCAL_PROFILE
    let shown: ShownProfile
    if (args.name && args.name !== LOCAL_PROFILE) {
      const p = store.get(args.name)
      if (!p) throw unknownProfile(args.name, 'mfg profile show', store.list())
      shown = {...maskedProfile(p), embedded: false, current: p.name === current, overrides: []}
    } else {
      const r = resolveProfile({flag: args.name ?? flags.profile, store})
      const m = maskedProfile(r)
      shown = {
        name: m.name,
        baseUrl: r.embedded ? '(embedded sandbox)' : m.baseUrl,
        ...given({apiKey: m.apiKey, authToken: m.authToken, businessId: m.businessId, currency: m.currency}),
        embedded: r.embedded,
        current: r.name === current,
        overrides: r.overrides,
      }
    }
    if (!this.jsonEnabled()) {
      const {toKeyValue} = await import('../../cli/render.js')
      writeOut(toKeyValue({...shown, overrides: shown.overrides.join(', ')}))
    }
    return shown
  }
}
