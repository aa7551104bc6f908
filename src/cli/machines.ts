// `price machines` in a table: one row per material on each machine. The catalogue
// and its rows are read in src/services/price/machines.ts.
import {machineRows, type MachinesResult} from '../services/price/machines.js'
import {writeErr} from './output.js'

const COLUMNS = ['machine', 'service', 'technology', 'material', 'price', 'currency', 'startup cost', 'minimum']
/** The columns that go first on a narrow terminal (the machine and material stay, cut if need be). */
const DROP = ['minimum', 'startup cost', 'currency', 'service', 'technology']

/** Prints the machines' table, or says on stderr that none matched. */
export async function printMachines(result: MachinesResult, flags: {'no-truncate'?: boolean}): Promise<void> {
  const rows = machineRows(result)
  if (rows.length === 0) return writeErr('No machines match.')
  const {printTable} = await import('./render.js')
  printTable(rows, COLUMNS, {drop: DROP, 'no-truncate': flags['no-truncate'], flags: ['no-truncate']})
}
