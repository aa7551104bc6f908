import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {MACHINES, MATERIALS} from '../../src/sandbox/seed.js'
import {json, runCli, secretsOf, startCliSandbox, type CliResult, type CliSandbox} from '../helpers/cli.js'

interface Listed {
  currency: string | null
  machines: {
    _id: string
    name: string
    service: string
    technology: string
    materials: {materials: string; price: number; unit: string}[]
  }[]
}

let sb: CliSandbox
const outputs: CliResult[] = []
const run = async (argv: string[], business = 0) => {
  const r = await runCli(argv, {env: sb.env(business)})
  outputs.push(r)
  return r
}

beforeAll(async () => {
  sb = await startCliSandbox()
})
afterAll(async () => {
  for (const r of outputs) for (const secret of secretsOf(sb)) expect(r.stdout + r.stderr).not.toContain(secret)
  await sb.close()
})

describe('mfg price machines', () => {
  it('lists one row per material on each machine, with price and unit, currency, startup cost and minimum', async () => {
    const r = await run(['price', 'machines'])
    expect(r.exitCode, r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^machine\s+service\s+technology\s+material\s+price\s+currency\s+startup cost\s+minimum$/)
    expect(lines).toHaveLength(1 + MATERIALS.length)
    expect(r.stdout).toMatch(/^Prusa MK4 farm\s+3D_PRINTING\s+FDM\s+PLA\s+25\.00 \/kg\s+EUR\s+2\.00\s+8\.00$/m)
    expect(r.stdout).toMatch(
      /^Formlabs Form 3\+\s+3D_PRINTING\s+SLA\s+Standard Resin\s+110\.00 \/l\s+EUR\s+8\.00\s+12\.00$/m,
    )
    // The startup cost of a material on a machine is the machine's plus the material's (docs/pricing.md).
    const haas = MACHINES.find((m) => m.technology === 'CNC')!
    const aluminium = MATERIALS.find((m) => m.materials === 'Aluminium 6061')!
    const startup = (haas.startupCost + (aluminium.startupCost.price ?? 0)).toFixed(2)
    expect(r.stdout).toMatch(
      new RegExp(
        `^Haas VF-2\\s+CNC_MACHINING\\s+CNC\\s+Aluminium 6061\\s+8\\.00 /kg\\s+EUR\\s+${startup}\\s+40\\.00$`,
        'm',
      ),
    )
  })

  it('--json gives the full list: every machine with its materials nested', async () => {
    const r = await run(['price', 'machines', '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    const listed = json<Listed>(r)
    expect(listed.currency).toBe('EUR')
    expect(listed.machines.map((m) => m._id)).toEqual(MACHINES.map((m) => m._id))
    for (const machine of listed.machines) {
      const seeded = MACHINES.find((m) => m._id === machine._id)!
      expect(machine).toMatchObject({
        name: seeded.name,
        hourlyRate: seeded.hourlyRate,
        minimumPrice: seeded.minimumPrice,
      })
      expect(machine.materials.map((m) => m.materials)).toEqual(
        MATERIALS.filter((m) => m.machine === machine._id).map((m) => m.materials),
      )
    }
    expect(listed.machines[0]?.materials[0]).toMatchObject({
      materials: 'PLA',
      price: 25,
      unit: 'kg',
      density: {value: 1.24},
    })
  })

  it('filters by service, technology and material', async () => {
    const cnc = json<Listed>(await run(['price', 'machines', '--service', 'CNC_MACHINING', '--json']))
    expect(cnc.machines.map((m) => m.technology)).toEqual(['CNC'])
    const sla = json<Listed>(await run(['price', 'machines', '--technology', 'sla', '--json']))
    expect(sla.machines.map((m) => m.name)).toEqual(['Formlabs Form 3+'])
    const steel = json<Listed>(await run(['price', 'machines', '--material', 'steel s235', '--json']))
    expect(steel.machines.map((m) => [m.technology, m.materials.map((x) => x.materials)])).toEqual([
      ['CNC', ['Steel S235']],
      ['LASER', ['Steel S235']],
    ])
    const none = await run(['price', 'machines', '--material', 'Unobtainium'])
    expect(none.exitCode).toBe(0)
    expect(none.stdout).toBe('')
    expect(none.stderr).toMatch(/No machines match/)
    const bad = await run(['price', 'machines', '--service', 'WELDING'])
    expect(bad.exitCode).toBe(2)
  })

  it("lists only the key's business: the second business has no machines", async () => {
    const r = await run(['price', 'machines', '--json'], 1)
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json<Listed>(r)).toEqual({currency: 'USD', machines: []})
  })

  it('a wrong key is exit 3', async () => {
    const r = await runCli(['price', 'machines'], {env: {...sb.env(), MFG_API_KEY: 'pk_business_wrong'}})
    expect(r.exitCode).toBe(3)
    expect(r.stderr).toMatch(/API key/)
  })
})
