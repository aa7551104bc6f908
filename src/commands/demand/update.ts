import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {displayRecord} from '../../cli/demands.js'
import {UsageError} from '../../cli/errors.js'
import {fileFlag, shippingAddressFrom, shippingFlags} from '../../cli/flags.js'
import {writeOut} from '../../cli/output.js'
import {STAGES, TAKEN_AS, type DemandRecord, type Stage} from '../../schemas/demand.js'
import {buildUpdateBody, updateDemand} from '../../services/demands/update.js'

export default class DemandUpdate extends BaseCommand {
  static override summary = 'Change a demand: stage, fields, prices.'
  static override description = `Sends the changed fields only. Use the flags for common fields, or --file with an update body (a JSON object; - reads stdin); flags override the file's values. The body is checked before sending: unknown fields or wrong types exit 2.

--legacy sends the legacy update (PUT /api/v2/ms-machine-owner/demand/{id}), which changes only material, resolution, filling, quantity, color, thickness, tolerance and shippingAddress (the --shipping-* flags or the file); it answers the changed fields with _id.

Stages move quote_sent → special_verified → special_accepted (production) → done → in_shipping → delivered, and quote_sent/special_verified → cancelled. The service refuses other moves, and changes to material, quantity, colour and the like once production started, with a conflict (exit 1) naming both stages.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> 665f1c2e9b1d4a0012345678 --status special_verified',
    '<%= config.bin %> <%= command.id %> 665f1c2e9b1d4a0012345678 --material PETG --quantity 20 --price-total 149.5',
    '<%= config.bin %> <%= command.id %> 665f1c2e9b1d4a0012345678 --taken-as ORDER',
    'echo \'{"shippingAddress": {"city": "Lyon"}}\' | <%= config.bin %> <%= command.id %> 665f1c2e9b1d4a0012345678 --file -',
    '<%= config.bin %> <%= command.id %> 665f1c2e9b1d4a0012345678 --legacy --thickness 2 --tolerance 0.05 --shipping-city Lyon',
  ]
  static override args = {id: Args.string({description: 'Demand id (_id).', required: true})}
  static override flags = {
    file: fileFlag('Update body: one JSON object (UpdateDemandRequestData); - reads stdin.'),
    status: Flags.string({description: 'Move to this stage (demandStatusInfo.status).', options: [...STAGES]}),
    substatus: Flags.string({description: 'Substatus text.'}),
    material: Flags.string({description: 'Material.'}),
    quantity: Flags.integer({description: 'Number of parts.', min: 1}),
    color: Flags.string({description: 'Colour.'}),
    'price-total': Flags.string({description: 'Total price (a number).'}),
    'price-delivery': Flags.string({description: 'Delivery price (a number).'}),
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

  async run(): Promise<DemandRecord | Record<string, unknown>> {
    const {args, flags} = await this.parse(DemandUpdate)
    let fromFile: Record<string, unknown> | undefined
    if (flags.file !== undefined) {
      const {parseObject, readTextInput} = await import('../../cli/input.js')
      const {text, source} = await readTextInput(flags.file)
      fromFile = parseObject(text, source)
    }
    const shipping = shippingAddressFrom(flags)
    if (flags.legacy) return this.legacy(args.id, flags, fromFile, shipping)
    const legacyOnly = (['resolution', 'filling', 'thickness', 'tolerance'] as const).filter(
      (f) => flags[f] !== undefined,
    )
    if (legacyOnly.length > 0) {
      throw new UsageError(
        `--${legacyOnly[0]} belongs to the legacy update: add --legacy, or use --file for the v1 body.`,
      )
    }
    const body = buildUpdateBody(fromFile, {
      ...(flags.status ? {status: flags.status as Stage} : {}),
      ...(flags.substatus ? {substatus: flags.substatus} : {}),
      ...(flags.material ? {material: flags.material} : {}),
      ...(flags.quantity === undefined ? {} : {quantity: flags.quantity}),
      ...(flags.color ? {color: flags.color} : {}),
      ...(flags['price-total'] === undefined ? {} : {priceTotal: toNumber(flags['price-total'], '--price-total')}),
      ...(flags['price-delivery'] === undefined
        ? {}
        : {priceDelivery: toNumber(flags['price-delivery'], '--price-delivery')}),
      ...(flags['taken-as'] ? {takenAs: flags['taken-as'] as 'QUOTE' | 'ORDER'} : {}),
      ...(flags['payment-status'] ? {paymentStatus: flags['payment-status']} : {}),
      ...(flags['track-id'] ? {trackId: flags['track-id']} : {}),
      ...(flags['shipping-provider'] ? {shippingProvider: flags['shipping-provider']} : {}),
      ...(flags['fabricated-date'] ? {fabricatedDate: flags['fabricated-date']} : {}),
      ...(flags.archive === undefined ? {} : {archive: flags.archive}),
    })
    if (shipping) body.shippingAddress = {...body.shippingAddress, ...shipping}
    const {client} = await this.context(flags).session()
    const record = displayRecord(await updateDemand({client}, args.id, body))
    if (!this.jsonEnabled()) {
      const status = record.demandStatusInfo?.status
      writeOut(
        `${record._id}  order ${record.orderNumber ?? '-'}  ${record.status ?? ''}${status ? ` (${status})` : ''}`,
      )
      this.note(`Updated ${Object.keys(body).join(', ')}.`)
    }
    return record
  }

  private async legacy(
    id: string,
    flags: LegacyFlags,
    fromFile: Record<string, unknown> | undefined,
    shipping: Record<string, string> | undefined,
  ): Promise<LegacyUpdateResult> {
    const other = v1Only(flags)
    if (other) {
      throw new UsageError(
        `--${other} is not part of the legacy update (material, resolution, filling, quantity, color, thickness, tolerance, shipping address); drop --legacy to use it.`,
      )
    }
    const {buildLegacyUpdate, updateLegacy} = await import('../../services/demands/legacy.js')
    const body = buildLegacyUpdate(fromFile, {
      ...(flags.material ? {material: flags.material} : {}),
      ...(flags.quantity === undefined ? {} : {quantity: flags.quantity}),
      ...(flags.color ? {color: flags.color} : {}),
      ...(flags.resolution ? {resolution: flags.resolution} : {}),
      ...(flags.filling === undefined ? {} : {filling: toNumber(flags.filling, '--filling')}),
      ...(flags.thickness === undefined ? {} : {thickness: toNumber(flags.thickness, '--thickness')}),
      ...(flags.tolerance === undefined ? {} : {tolerance: toNumber(flags.tolerance, '--tolerance')}),
      ...(shipping ? {shippingAddress: shipping} : {}),
    })
    const {client} = await this.context(flags).session()
    const answer = await updateLegacy({client}, id, body)
    if (!this.jsonEnabled()) {
      const {toKeyValue} = await import('../../cli/render.js')
      writeOut(toKeyValue(answer))
      this.note(`Updated ${Object.keys(body).join(', ')} (legacy).`)
    }
    return answer
  }
}

type LegacyFlags = {
  material?: string
  quantity?: number
  color?: string
  resolution?: string
  filling?: string
  thickness?: string
  tolerance?: string
  status?: string
  substatus?: string
  'price-total'?: string
  'price-delivery'?: string
  'taken-as'?: string
  'payment-status'?: string
  'track-id'?: string
  'shipping-provider'?: string
  'fabricated-date'?: string
  archive?: boolean
  profile?: string
  verbose?: boolean
}

function v1Only(flags: LegacyFlags): string | undefined {
  const names = [
    'status',
    'substatus',
    'price-total',
    'price-delivery',
    'taken-as',
    'payment-status',
    'track-id',
    'shipping-provider',
    'fabricated-date',
    'archive',
  ] as const
  return names.find((n) => flags[n] !== undefined)
}

export interface LegacyUpdateResult extends Record<string, unknown> {
  _id: string
}

function toNumber(raw: string, flag: string): number {
  const n = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(n)) {
    throw new UsageError(`${flag} must be a number, got ${JSON.stringify(raw)}.`)
  }
  return n
}
