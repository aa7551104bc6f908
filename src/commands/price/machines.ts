import {Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {tableFlags} from '../../cli/flags.js'
import {printMachines} from '../../cli/machines.js'
import {SERVICES} from '../../schemas/common.js'
import {listMachines, type MachinesResult} from '../../services/price/machines.js'
import {given} from '../../util/fields.js'

export default class PriceMachines extends BaseCommand {
  /** The machines as the service lists them: `--json machines.0.name` and the like. */
  static override outputFields = () => ['currency', 'machines'] as const
  static override summary = "List the business's machines, their materials and prices."
  static override description = `One row per material on each machine: the material's price and unit (per kg or per litre), the currency, the startup cost charged once per order (the machine's plus the material's) and the part minimum. --json prints the full list: every machine with its materials nested, as the service sent them.

The interface has no REST catalogue endpoint: the list comes from the MCP endpoint's list_machines tool, with the same API key.`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --service 3D_PRINTING',
    '<%= config.bin %> <%= command.id %> --material "Steel S235"',
    "<%= config.bin %> <%= command.id %> --json | jq '.machines[] | {name, materials: [.materials[].materials]}'",
  ]
  static override flags = {
    service: Flags.string({description: 'Only machines of this service.', options: [...SERVICES]}),
    technology: Flags.string({description: 'Only machines of this technology (FDM, SLA, SLS, CNC, LASER...).'}),
    material: Flags.string({description: 'Only this material (name, any case).'}),
    ...tableFlags(),
  }

  async run(): Promise<MachinesResult> {
    const {flags} = await this.parse(PriceMachines)
    const ctx = await this.context(flags).service()
    const result = await listMachines(
      ctx,
      given({service: flags.service, technology: flags.technology, material: flags.material}),
    )
    if (!this.jsonEnabled()) await printMachines(result, flags)
    return result
  }
}
