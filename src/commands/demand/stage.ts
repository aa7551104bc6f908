import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {displayRecord, stageLine, stageNotes} from '../../cli/demands.js'
import {writeOut} from '../../cli/output.js'
import type {DemandRecord} from '../../schemas/read/types.js'

export default class DemandStage extends BaseCommand {
  static override summary = 'Move a demand to another stage.'
  static override description = `STAGE is a status id (quote_sent, special_verified, special_accepted, done, in_shipping, delivered, cancelled) or a display name: the v1 one (Quote Sent, In Review, In Production, Ready to Ship, In Shipping, Delivered, Cancelled) or the legacy one (Special Verified, Special Accepted, Done); case, spaces, hyphens and underscores do not matter.

The stage shown is the one the service confirms, from its answer or by reading the demand back when the answer does not say it.

Allowed moves: quote_sent → special_verified or cancelled; special_verified → special_accepted, quote_sent or cancelled; special_accepted → done → in_shipping → delivered. The service refuses any other move with a conflict naming both stages; its message is shown and the exit code is 1. A move resent after its answer was lost (a gateway's 502, a dropped connection) and then refused is read back: a demand already in the stage asked for is the move done. When the service answers (or reads back) the demand in another of these stages than the one asked for, that stage is shown and the exit code is 1 too: the move did not happen; a stage the interface does not list is shown with a warning. Each move adds a tracking entry (see mfg demand track).`
  static override examples = [
    '<%= config.bin %> <%= command.id %> 65f000060000000000000002 special_verified',
    '<%= config.bin %> <%= command.id %> 65f000060000000000000005 "In Production"',
    '<%= config.bin %> <%= command.id %> 65f000060000000000000005 "special accepted" --json',
  ]
  static override args = {
    id: Args.string({description: 'Demand id (_id).', required: true}),
    stage: Args.string({description: 'Target stage: status id or display name.', required: true}),
  }

  async run(): Promise<DemandRecord> {
    const {args, flags} = await this.parse(DemandStage)
    const {moveStage, parseStage, reportedStage, StageNotMovedError} = await import('../../services/demands/stage.js')
    const stage = parseStage(args.stage)
    const {client} = await this.context(flags).session()
    const move = await moveStage({client}, args.id, stage)
    const record = displayRecord(move.record)
    if (!this.jsonEnabled()) writeOut(stageLine(record, move))
    const reported = reportedStage(move)
    for (const note of stageNotes(move, reported)) this.warnNote(note.text, note.warning)
    if (reported === 'other') throw new StageNotMovedError(move)
    return record
  }
}
