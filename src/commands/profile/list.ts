import {BaseCommand} from '../../cli/base-command.js'
import {listFlags} from '../../cli/flags.js'
import {profileRows, type ProfileRow} from '../../cli/stored-profiles.js'

const COLUMNS = ['current', 'name', 'baseUrl', 'businessId', 'apiKey', 'authToken', 'currency'] as const
/** The columns that go first on a narrow terminal, and what is not cut. */
const LAYOUT = {drop: ['authToken', 'currency', 'apiKey', 'businessId'], keep: ['name']} as const

export default class ProfileList extends BaseCommand {
  static override summary = 'List the stored profiles; keys and tokens masked.'
  static override description = `Shows every stored profile plus the embedded sandbox profile "local", with the current one marked *. Keys and tokens are masked (last 4 characters), also with --json.`
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']
  static override flags = {...listFlags(COLUMNS)}
  static override outputFields = () => COLUMNS

  async run(): Promise<ProfileRow[]> {
    const {flags} = await this.parse(ProfileList)
    const {printList, sortRows} = await import('../../cli/render.js')
    const sorted = sortRows(profileRows(), flags.sort)
    if (!this.jsonEnabled()) {
      const marked = sorted.map((r) => ({...r, current: r.current ? '*' : ''}))
      printList(marked, flags, COLUMNS, undefined, LAYOUT)
    }
    return sorted
  }
}
