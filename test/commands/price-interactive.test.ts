import {join} from 'node:path'

import {afterAll, beforeAll, beforeEach, describe, expect, it, vi} from 'vitest'

import {json, runCli, startCliSandbox, type CliSandbox} from '../helpers/cli.js'

// The interactive walk, driven through its prompts: the prompt helpers are replaced by a
// script of answers that records what each prompt offered; everything else is real
// (commands in-process, a real sandbox over HTTP).
interface Asked {
  flag: string
  message: string
  choices?: readonly string[]
}
const asked: Asked[] = []
let answers: Record<string, string | ((choices: readonly string[]) => string)> = {}

vi.mock('../../src/cli/prompt.js', () => ({
  canPrompt: () => true,
  askChoice: async (opts: {flag: string; message: string; choices: readonly string[]}) => {
    asked.push({flag: opts.flag, message: opts.message, choices: opts.choices})
    const a = answers[opts.message] ?? answers[opts.flag]
    if (a === undefined) throw new Error(`no scripted answer for ${opts.message}`)
    return typeof a === 'function' ? a(opts.choices) : a
  },
  askText: async (opts: {flag: string; message: string}) => {
    asked.push({flag: opts.flag, message: opts.message})
    const a = answers[opts.message] ?? answers[opts.flag]
    if (typeof a !== 'string') throw new Error(`no scripted answer for ${opts.message}`)
    return a
  },
}))

const mesh = (name: string) => join('/work/shared/meshes', name)
let sb: CliSandbox

beforeAll(async () => {
  sb = await startCliSandbox()
})
afterAll(() => sb.close())
beforeEach(() => {
  asked.length = 0
  answers = {}
})

describe('mfg price estimate in a terminal', () => {
  it('walks service, technology, material, colour, quantity, options and part with the business choices', async () => {
    answers = {
      'Service:': '3D_PRINTING',
      'Technology:': 'SLA',
      'Material:': 'Standard Resin',
      'Colour:': 'Clear',
      'Quantity:': '3',
      'lead time:': 'Express (3 working days)',
      'infill:': '20 %',
      'finishing:': 'Painting',
      '--part': mesh('logo.stl'),
    }
    const r = await runCli(['price', 'estimate', '--json'], {env: sb.env()})
    expect(r.exitCode, r.stderr).toBe(0)
    const byMessage = Object.fromEntries(asked.map((a) => [a.message, a.choices]))
    expect(byMessage['Technology:']).toEqual(['FDM', 'SLA', 'SLS'])
    expect(byMessage['Material:']).toEqual(['Standard Resin'])
    expect(byMessage['Colour:']).toEqual(['Grey', 'Clear'])
    expect(byMessage['lead time:']).toEqual([
      'Standard (7 working days)',
      'Express (3 working days)',
      'Economy (12 working days)',
    ])
    expect(byMessage['finishing:']).toEqual(['Sanding', 'Painting'])
    expect(Object.keys(byMessage)).not.toContain('precision:') // a metal option, not offered for printing
    const walked = json<{price: number; technology: string; quantity: number; options: string[]}>(r)
    expect(walked).toMatchObject({technology: 'SLA', quantity: 3})

    // The same choices given as flags price the same.
    const flags = await runCli(
      [
        'price',
        'estimate',
        '--part',
        mesh('logo.stl'),
        '--material',
        'Standard Resin',
        '--color',
        'Clear',
        '--quantity',
        '3',
        '--option',
        'lead_time=Express (3 working days)',
        '--option',
        'infill=20 %',
        '--option',
        'finishing=Painting',
        '--json',
      ],
      {env: sb.env()},
    )
    expect(json<{price: number}>(flags).price).toBe(walked.price)
  })

  it('asks which machine when the material is on several, then prices on the chosen one', async () => {
    answers = {'--technology': 'CNC', '--option': (choices) => choices[0] as string}
    const r = await runCli(
      ['price', 'estimate', '--part', mesh('cube20.stl'), '--material', 'Steel S235', '--quantity', '1', '--json'],
      {env: sb.env()},
    )
    expect(r.exitCode, r.stderr).toBe(0)
    const technology = asked.filter((a) => a.flag === '--technology')
    expect(technology.map((a) => a.choices)).toEqual([['CNC', 'LASER']])
    // Then the CNC options only: lead time, precision (three levels on CNC) and finishing.
    expect(asked.filter((a) => a.flag === '--option').map((a) => a.message)).toEqual([
      'lead time:',
      'precision:',
      'finishing:',
    ])
    expect(asked.find((a) => a.message === 'precision:')?.choices).toHaveLength(3)
    expect(json<{service: string; options: string[]}>(r)).toMatchObject({
      service: 'CNC_MACHINING',
      options: ['lead_time=Standard (7 working days)', 'precision=Standard ±0.1 mm', 'finishing=Painting'],
    })
  })
})
