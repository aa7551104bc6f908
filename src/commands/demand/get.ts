import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {displayRecord} from '../../cli/demands.js'
import {writeOut} from '../../cli/output.js'
import type {DemandRecord} from '../../schemas/demand.js'
import {getDemand} from '../../services/demands/get.js'

export default class DemandGet extends BaseCommand {
  static override summary = 'Show one demand.'
  static override description =
    'Prints the demand as a key/value table (nested fields as dotted paths, lists as counts), or the whole record with --json.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> 665f1c2e9b1d4a0012345678',
    '<%= config.bin %> <%= command.id %> 665f1c2e9b1d4a0012345678 --json | jq .tracking',
  ]
  static override args = {id: Args.string({description: 'Demand id (_id).', required: true})}

  async run(): Promise<DemandRecord> {
    const {args, flags} = await this.parse(DemandGet)
    const {client} = await this.context(flags).session()
    const record = displayRecord(await getDemand({client}, args.id))
    if (!this.jsonEnabled()) {
      const {toKeyValue} = await import('../../cli/render.js')
      writeOut(toKeyValue(record))
    }
    return record
  }
}
