import {Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {orderItems, orderOutcomeHint} from '../../cli/demand-order.js'
import {fileFlag, shippingFlags} from '../../cli/flags.js'
import {LANGS, type Lang} from '../../schemas/legacy-demand.js'
import type {LegacyDemandRecord} from '../../schemas/read/types.js'

export default class DemandOrder extends BaseCommand {
  static override summary = 'Place an order for a catalogue product (legacy by-product order).'
  static override description = `Sends POST /api/v2/ms-machine-owner/demand/products?lang=LANG: one order for --product with the options given as flags, or the orders of --file (one JSON object or an array of them; flags given as well override each item's fields). --referral is the fixed value the service gave your business (the sandbox's demo business uses "api"); a wrong one is refused (exit 1). --lang sets the language of the service's messages.

Store the returned demand id: later reads go through mfg demand list --ids.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> --product 65f000050000000000000001 --referral api --quantity 2 --material PLA --color red',
    '<%= config.bin %> <%= command.id %> --product 65f00005000000000000000c --referral api --lang fr --thickness 2 --shipping-city Lyon --shipping-country FR',
    '<%= config.bin %> <%= command.id %> --file examples/by-product.json --referral api --json',
  ]
  static override flags = {
    product: Flags.string({description: 'Product id (a catalogue post of type PRODUCT).'}),
    lang: Flags.string({description: 'Language of the answer.', options: [...LANGS], default: 'en'}),
    referral: Flags.string({description: "The business's referral value, sent exactly."}),
    material: Flags.string({description: 'Material.'}),
    resolution: Flags.string({description: 'Resolution.'}),
    quantity: Flags.integer({description: 'Number of parts.', min: 1}),
    color: Flags.string({description: 'Colour.'}),
    filling: Flags.string({description: 'Filling (a number).'}),
    thickness: Flags.string({description: 'Laser-cutting thickness in mm (a number).'}),
    tolerance: Flags.string({description: 'CNC precision (a number).'}),
    file: fileFlag('One by-product order object, or an array of them; - reads stdin.'),
    ...shippingFlags(),
  }

  async run(): Promise<LegacyDemandRecord[]> {
    const {flags} = await this.parse(DemandOrder)
    const items = await orderItems(flags)
    const {checkProductOrder, placeProductOrders} = await import('../../services/demands/legacy.js')
    const checked = await Promise.all(items.map((i) => checkProductOrder(i)))
    const {client} = await this.context(flags).session()
    const records = await placeProductOrders({client}, checked, flags.lang as Lang).catch((error: unknown) => {
      throw orderOutcomeHint(error, checked)
    })
    if (!this.jsonEnabled()) {
      const {printTable} = await import('../../cli/render.js')
      printTable(records, ['orderNumber', '_id', 'status', 'productId', 'quantity', 'priceToClient', 'currency'], {
        keep: ['orderNumber', '_id'],
      })
      for (const r of records) if (typeof r.message === 'string') this.note(r.message)
      this.note(`Placed ${records.length} order(s); keep the _id to read them later with mfg demand list --ids.`)
    }
    return records
  }
}
