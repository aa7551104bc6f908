import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {displayRecord} from '../../cli/demands.js'
import {writeOut} from '../../cli/output.js'
import type {DemandRecord, LegacyDemandRecord} from '../../schemas/read/types.js'

export default class DemandGet extends BaseCommand {
  static override summary = 'Show one demand.'
  // The verbs of other CLIs for the same thing (gh's view; mfg's own profile show),
  // hidden so that the topic's list names the command once.
  static override hiddenAliases = ['demand:show', 'demand:view']
  static override description = `Prints the demand as a key/value table (nested fields as dotted paths, lists as counts), or the whole record with --json. mfg demand show and mfg demand view run this command too.

--legacy reads it through the legacy call (GET /api/v2/ms-machine-owner/demand/{id}), in the legacy record shape: prices as strings, display statuses such as "Special Accepted", client as an id. The interface notes that this call is less reliable than the legacy list (mfg demand list --ids) for orders whose manufacturer changed before production.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> 65f000060000000000000002',
    '<%= config.bin %> <%= command.id %> 65f000060000000000000002 --json | jq .tracking',
    '<%= config.bin %> <%= command.id %> 65f000060000000000000002 --json orderNumber,status,shippingAddress.city',
    '<%= config.bin %> <%= command.id %> 65f000060000000000000002 --legacy',
  ]
  static override outputFields = async (argv: readonly string[]) => {
    const {demandFieldsRead, LegacyDemandRecordRead} = await import('../../schemas/read/demand.js')
    return argv.includes('--legacy') ? LegacyDemandRecordRead : demandFieldsRead()
  }
  static override args = {id: Args.string({description: 'Demand id (_id).', required: true})}
  static override flags = {
    legacy: Flags.boolean({description: 'Read through the legacy v2 call, in the legacy record shape.'}),
  }

  async run(): Promise<DemandRecord | LegacyDemandRecord> {
    const {args, flags} = await this.parse(DemandGet)
    const {client} = await this.context(flags).session()
    let record: DemandRecord | LegacyDemandRecord
    if (flags.legacy) {
      const {getLegacy} = await import('../../services/demands/legacy.js')
      record = await getLegacy({client}, args.id)
    } else {
      const {getDemand} = await import('../../services/demands/get.js')
      record = displayRecord(await getDemand({client}, args.id))
    }
    if (!this.jsonEnabled()) {
      const {toKeyValue} = await import('../../cli/render.js')
      writeOut(toKeyValue(record))
    }
    return record
  }
}
