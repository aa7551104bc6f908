import {callMcpTool} from '../../api/mcp.js'
import {ApiError} from '../../api/errors.js'
import type {ServiceContext} from '../context.js'

/**
 * `price machines`: the business's machines and materials, from the MCP tool
 * `list_machines` (the interface has no REST catalogue endpoint). The tool's
 * answer shape is not shown by the interface, so it is read tolerantly: a list
 * of machines, or `{machines}`, each with its `materials` nested, or materials
 * listed apart with a `machine` id.
 */

export interface MachinesInput {
  service?: string
  technology?: string
  /** Keep only machines offering this material (name, case-insensitive). */
  material?: string
}

/** A machine as the service sent it, with its materials nested. */
export type CatalogMachine = Record<string, unknown> & {materials: Record<string, unknown>[]}

export interface MachinesResult {
  /** The business currency, when the service said. */
  currency: string | null
  machines: CatalogMachine[]
}

/** One row of the table: one material on one machine. */
export type MachineRow = {
  machine: string
  service: string
  technology: string
  material: string
  price: string
  currency: string
  'startup cost': string
  minimum: string
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)
const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined)
const num = (v: unknown): number | undefined => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined
}
const same = (a: unknown, b: string | undefined) =>
  b === undefined || (typeof a === 'string' && a.trim().toLowerCase() === b.trim().toLowerCase())

/** Reads a list_machines answer into machines with nested materials; undefined when it is not one. */
export function normaliseMachines(value: unknown): MachinesResult | undefined {
  const root = isRecord(value) ? value : {}
  const list = Array.isArray(value) ? value : Array.isArray(root.machines) ? root.machines : undefined
  if (!list) return undefined
  const loose = Array.isArray(root.materials) ? root.materials.filter(isRecord) : []
  const machines = list.filter(isRecord).map((m): CatalogMachine => {
    const own = Array.isArray(m.materials) ? m.materials.filter(isRecord) : []
    const joined = loose.filter((mat) => mat.machine !== undefined && mat.machine === m._id)
    return {...m, materials: [...own, ...joined]}
  })
  return {currency: text(root.currency) ?? null, machines}
}

export function materialName(mat: Record<string, unknown>): string {
  return text(mat.materials) ?? text(mat.name) ?? text(mat.title) ?? text(mat._id) ?? '?'
}

/** Lists the machines and materials through MCP `list_machines`, filtered as asked. */
export async function listMachines(ctx: ServiceContext, input: MachinesInput = {}): Promise<MachinesResult> {
  const args = {
    ...(input.service ? {service: input.service} : {}),
    ...(input.technology ? {technology: input.technology} : {}),
  }
  const {value} = await callMcpTool(ctx.client, 'list_machines', args)
  const result = normaliseMachines(value)
  if (!result)
    throw new ApiError({
      method: 'POST',
      path: 'MCP tools/call list_machines',
      code: 'bad_response',
      serverMessage: `unexpected list_machines answer: expected machines, got ${JSON.stringify(value ?? null).slice(0, 200)}`,
    })
  // Filter here too: a server may ignore the arguments.
  const machines = result.machines
    .filter((m) => same(m.service, input.service) && same(m.technology ?? m.typeMachine, input.technology))
    .map((m) =>
      input.material ? {...m, materials: m.materials.filter((mat) => same(materialName(mat), input.material))} : m,
    )
    .filter((m) => !input.material || m.materials.length > 0)
  return {currency: result.currency, machines}
}

const money = (n: number | undefined) => (n === undefined ? '' : n.toFixed(2))

/** Startup cost of a material on a machine: the machine's plus the material's, once per order (docs/pricing.md). */
function startupCost(machine: Record<string, unknown>, mat: Record<string, unknown>): string {
  const machineCurrency = text(machine.currency)
  const own = num(machine.startupCost) ?? (isRecord(machine.startupCost) ? num(machine.startupCost.price) : undefined)
  const matCost = isRecord(mat.startupCost) ? num(mat.startupCost.price) : num(mat.startupCost)
  const matCurrency = (isRecord(mat.startupCost) ? text(mat.startupCost.currency) : undefined) ?? text(mat.currency)
  if (matCost === undefined || matCost === 0) return money(own)
  if (own === undefined)
    return `${money(matCost)}${matCurrency && matCurrency !== machineCurrency ? ` ${matCurrency}` : ''}`
  if (!matCurrency || matCurrency === machineCurrency) return money(own + matCost)
  return `${money(own)} + ${money(matCost)} ${matCurrency}`
}

/** One row per material per machine (a machine without materials gets one row). */
export function machineRows(result: MachinesResult): MachineRow[] {
  const rows: MachineRow[] = []
  for (const m of result.machines) {
    const base = {
      machine: text(m.name) ?? text(m.typeMachine) ?? text(m._id) ?? '?',
      service: text(m.service) ?? '',
      technology: text(m.technology) ?? text(m.typeMachine) ?? '',
    }
    const minimum = money(num(m.minimumPrice) ?? num(m.price_min) ?? num(m.priceMin))
    const mats = m.materials.length > 0 ? m.materials : [undefined]
    for (const mat of mats) {
      const price = mat ? num(mat.price) : undefined
      const unit = mat ? text(mat.unit) : undefined
      rows.push({
        ...base,
        material: mat ? materialName(mat) : '',
        price: price === undefined ? '' : `${money(price)}${unit ? ` /${unit}` : ''}`,
        currency: (mat && text(mat.currency)) ?? text(m.currency) ?? result.currency ?? '',
        'startup cost': mat ? startupCost(m, mat) : money(num(m.startupCost)),
        minimum,
      })
    }
  }
  return rows
}
