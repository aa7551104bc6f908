import {Args, Flags} from '@oclif/core'

import type {LegacyUpdateAnswer} from '../../api/v2/demands.js'
import {BaseCommand} from '../../cli/base-command.js'
import {checkUpdateFlags, legacyFields, v1Fields} from '../../cli/demand-update.js'
import {demandLine, displayRecord} from '../../cli/demands.js'
import {fileFlag, objectFromFile, shippingAddressFrom, shippingFlags} from '../../cli/flags.js'
import {writeOut} from '../../cli/output.js'
import {STAGES, TAKEN_AS} from '../../schemas/demand.js'
import type {LegacyUpdateBody} from '../../schemas/legacy-demand.js'
import {buildUpdateBody, updateDemand} from '../../services/demands/update.js'
import type {DemandRecord} from '../../schemas/read/types.js'

export default class DemandUpdate extends BaseCommand {
  static override summary = 'Change a demand: stage, fields, prices.'
  static override description = `Sends the changed fields only. Use the flags for common fields, or --file with an update body (a JSON object; - reads stdin); flags override the file's values. The body is checked before sending: unknown fields at any depth (each with the field it probably meant) or wrong types exit 2.

--legacy sends the legacy update (PUT /api/v2/ms-machine-owner/demand/{id}), which changes only material, resolution, filling, quantity, color, thickness, tolerance and shippingAddress (the --shipping-* flags or the file); it answers the changed fields with _id.

Stages move quote_sent → special_verified → special_accepted (production) → done → in_shipping → delivered, and quote_sent/special_verified → cancelled. The service refuses other moves, and changes to material, quantity, colour and the like once production started, with a conflict (exit 1) naming both stages.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> 65f000060000000000000002 --status special_verified',
    '<%= config.bin %> <%= command.id %> 65f000060000000000000002 --material PETG --quantity 20 --price-total 149.5',
    '<%= config.bin %> <%= command.id %> 65f000060000000000000002 --taken-as ORDER',
    'echo \'{"shippingAddress": {"city": "Lyon"}}\' | <%= config.bin %> <%= command.id %> 65f000060000000000000002 --file -',
    '<%= config.bin %> <%= command.id %> 65f000060000000000000002 --legacy --thickness 2 --tolerance 0.05 --shipping-city Lyon',
  ]
  static override args = {id: Args.string({description: 'Demand id (_id).', required: true})}
  static override flags = {
    file: fileFlag('Update body: one JSON object (UpdateDemandRequestData); - reads stdin.'),
    status: Flags.string({description: 'Move to this stage (demandStatusInfo.status).', options: [...STAGES]}),
    substatus: Flags.string({description: 'Substatus text.'}),
    material: Flags.string({description: 'Material.'}),
    quantity: Flags.integer({description: 'Number of parts.', min: 1}),
    color: Flags.string({description: 'Colour.'}),
    'price-total': Flags.string({description: 'Total price (a number, 0 or more).'}),
    'price-delivery': Flags.string({description: 'Delivery price (a number, 0 or more).'}),
    'taken-as': Flags.string({
      description: 'QUOTE or ORDER (ORDER turns a quote into an order).',
      options: [...TAKEN_AS],
    }),
    'payment-status': Flags.string({description: 'Payment status, for example PAID.'}),
    'track-id': Flags.string({description: 'Shipment tracking id (trackId).'}),
    'shipping-provider': Flags.string({description: 'Carrier name.'}),
    'fabricated-date': Flags.string({description: 'Fabrication date, YYYY-MM-DD.'}),
    archive: Flags.boolean({description: 'Archive (--no-archive to restore).', allowNo: true}),
    legacy: Flags.boolean({description: 'Send the legacy v2 update (its eight fields only).', helpGroup: 'LEGACY'}),
    resolution: Flags.string({description: 'Resolution (legacy update).', helpGroup: 'LEGACY'}),
    filling: Flags.string({description: 'Filling, a number (legacy update).', helpGroup: 'LEGACY'}),
    thickness: Flags.string({description: 'Thickness in mm, a number (legacy update).', helpGroup: 'LEGACY'}),
    tolerance: Flags.string({description: 'Tolerance, a number (legacy update).', helpGroup: 'LEGACY'}),
    ...shippingFlags(),
  }

  async run(): Promise<DemandRecord | LegacyUpdateAnswer> {
    const {args, flags} = await this.parse(DemandUpdate)
    const fromFile = await objectFromFile(flags.file)
    const shipping = shippingAddressFrom(flags)
    checkUpdateFlags(flags)
    if (flags.legacy) return this.legacy(args.id, legacyFields(flags, shipping), fromFile, flags)
    const body = await buildUpdateBody(fromFile, v1Fields(flags, shipping))
    const {client} = await this.context(flags).session()
    const changed = await updateDemand({client}, args.id, body)
    const record = displayRecord(changed.record)
    if (!this.jsonEnabled()) {
      writeOut(demandLine(record, record.demandStatusInfo?.status))
      this.note(`Updated ${Object.keys(body).join(', ')}.`)
    }
    if (changed.note) this.warnNote(changed.note, changed.source === 'partial')
    return record
  }

  private async legacy(
    id: string,
    fields: Partial<LegacyUpdateBody>,
    fromFile: Record<string, unknown> | undefined,
    flags: {profile?: string; verbose?: boolean; insecure?: boolean},
  ): Promise<LegacyUpdateAnswer> {
    const {buildLegacyUpdate, updateLegacy} = await import('../../services/demands/legacy.js')
    const body = await buildLegacyUpdate(fromFile, fields)
    const {client} = await this.context(flags).session()
    const written = await updateLegacy({client}, id, body)
    // The legacy update answers the changed fields; without them, what was sent is what changed.
    const answer: LegacyUpdateAnswer = written.record ?? {...body, _id: id}
    if (!this.jsonEnabled()) {
      const {toKeyValue} = await import('../../cli/render.js')
      writeOut(toKeyValue(answer))
      this.note(`Updated ${Object.keys(body).join(', ')} (legacy).`)
    }
    if (!written.record) this.warnNote(`the service confirmed the change (${written.status}) without details`, false)
    return answer
  }
}
