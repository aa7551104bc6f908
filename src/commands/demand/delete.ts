import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {yesFlag} from '../../cli/flags.js'
import {writeOut} from '../../cli/output.js'
import type {LegacyDemandRecord} from '../../schemas/read/types.js'

export default class DemandDelete extends BaseCommand {
  static override summary = 'Cancel a mistaken demand (legacy delete).'
  static override description = `Sends the legacy DELETE /api/v2/ms-machine-owner/demand/{id}. The service never erases a demand: it moves it to Cancelled, archives it, and answers the record, which is printed. It is allowed only before production (quote_sent or special_verified); later stages are refused with a conflict (exit 1). A demand already cancelled and archived (by an earlier run, or by a first attempt whose answer was lost and was sent again) is reported as such, exit 0.

Asks for confirmation in a terminal. Without a terminal (scripts, CI) --yes is required: without it nothing is sent and the exit code is 2.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> 65f000060000000000000002',
    '<%= config.bin %> <%= command.id %> 65f000060000000000000002 --yes --json',
  ]
  static override args = {id: Args.string({description: 'Demand id (_id).', required: true})}
  static override flags = {yes: yesFlag}

  async run(): Promise<LegacyDemandRecord | undefined> {
    const {args, flags} = await this.parse(DemandDelete)
    const {confirmOrYes} = await import('../../cli/prompt.js')
    const sure = await confirmOrYes({yes: flags.yes, message: `Cancel and archive demand ${args.id}?`})
    if (!sure) {
      this.note('Nothing was sent.')
      return undefined
    }
    const {client} = await this.context(flags).session()
    const {deleteLegacy} = await import('../../services/demands/legacy.js')
    const {record, already} = await deleteLegacy({client}, args.id)
    if (!this.jsonEnabled()) {
      const {toKeyValue} = await import('../../cli/render.js')
      writeOut(toKeyValue(record))
      this.note(
        already
          ? `Demand ${record._id} was already cancelled and archived; nothing changed.`
          : `Demand ${record._id} is ${record.status ?? 'cancelled'} and archived.`,
      )
    }
    return record
  }
}
