import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {writeOut} from '../../cli/output.js'
import type {Timeline} from '../../services/demands/stage.js'

export default class DemandTrack extends BaseCommand {
  static override summary = "Show a demand's tracking timeline."
  static override description = `One line per stage the demand went through, oldest first: the stage (status id), the tracking text as stored, and the date in ISO 8601, UTC (as every table shows dates; blank when the service recorded none). Then the epoch fields set on the way (dateAccepted on entering production, producedAt on done, startedShippingAt, deliveredAt), also in UTC. --json gives the dates as epoch milliseconds.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> 65f000060000000000000002',
    '<%= config.bin %> <%= command.id %> 65f000060000000000000002 --json | jq .steps',
  ]
  static override args = {id: Args.string({description: 'Demand id (_id).', required: true})}

  async run(): Promise<Timeline> {
    const {args, flags} = await this.parse(DemandTrack)
    const {client} = await this.context(flags).session()
    const {trackDemand} = await import('../../services/demands/stage.js')
    const timeline = await trackDemand({client}, args.id)
    if (!this.jsonEnabled()) {
      const {isoLocal, printTable} = await import('../../cli/render.js')
      const rows = timeline.steps.map((s) => ({
        stage: s.stage ?? '',
        tracking: s.status,
        date: s.date === undefined ? '' : isoLocal(s.date),
      }))
      // One note for both tables when they are shown as records.
      const said = new Set<string>()
      if (rows.length > 0) printTable(rows, ['stage', 'tracking', 'date'], {keep: ['date'], said})
      if (timeline.dates.length > 0) {
        writeOut('')
        printTable(
          timeline.dates.map((d) => ({field: d.field, date: isoLocal(d.date), epoch: d.date})),
          ['field', 'date', 'epoch'],
          {keep: ['date', 'epoch'], said},
        )
      }
      this.note(
        `Demand ${timeline.id}${timeline.orderNumber === undefined ? '' : ` (order ${timeline.orderNumber})`} is ${timeline.status ?? timeline.stage ?? 'in an unknown stage'}.`,
      )
    }
    return timeline
  }
}
