import {BaseCommand} from '../../cli/base-command.js'
import {listFlags} from '../../cli/flags.js'
// Reading only: the reader, not ProfileStore, whose writes load conf (and its JSON-schema validator).
import {LOCAL_PROFILE, ProfileReader} from '../../profiles/config-file.js'
import {maskSecret} from '../../schemas/secrets.js'
import {given} from '../../util/fields.js'

const COLUMNS = ['current', 'name', 'baseUrl', 'businessId', 'apiKey', 'authToken', 'currency'] as const
/** The columns that go first on a narrow terminal, and what is not cut. */
const LAYOUT = {drop: ['authToken', 'currency', 'apiKey', 'businessId'], keep: ['name']} as const

export interface ProfileRow {
  name: string
  baseUrl: string
  businessId?: string
  apiKey?: string
  authToken?: string
  currency?: string
  current: boolean
}

export default class ProfileList extends BaseCommand {
  static override summary = 'List the stored profiles; keys and tokens masked.'
  static override description = `Shows every stored profile plus the embedded sandbox profile "local", with the current one marked *. Keys and tokens are masked (last 4 characters), also with --json.`
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']
  static override flags = {...listFlags(COLUMNS)}
  static override outputFields = () => COLUMNS

  async run(): Promise<ProfileRow[]> {
    const {flags} = await this.parse(ProfileList)
    const store = new ProfileReader()
    const current = store.current() ?? LOCAL_PROFILE
    const rows: ProfileRow[] = store.list().map((p) => ({
      name: p.name,
      baseUrl: p.baseUrl,
      ...given({
        businessId: p.businessId,
        apiKey: p.apiKey ? maskSecret(p.apiKey) : undefined,
        authToken: p.authToken ? maskSecret(p.authToken) : undefined,
        currency: p.currency,
      }),
      current: p.name === current,
    }))
    rows.push({name: LOCAL_PROFILE, baseUrl: '(embedded sandbox)', current: current === LOCAL_PROFILE})
    const {printList, sortRows} = await import('../../cli/render.js')
    const sorted = sortRows(rows, flags.sort)
    if (!this.jsonEnabled()) {
      printList(
        sorted.map((r) => ({...r, current: r.current ? '*' : ''})),
        flags,
        COLUMNS,
        undefined,
        LAYOUT,
      )
    }
    return sorted
  }
}
