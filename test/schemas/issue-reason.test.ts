// The one wording of a zod issue for the user's input, on the issues zod words
// least helpfully: a missing choice, and a union ("Invalid input").
import {describe, expect, it} from 'vitest'
import {z} from 'zod'

import {issueProblems} from '../../src/schemas/issue-reason.js'

function problems(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value, {reportInput: true})
  if (result.success) throw new Error('expected a refusal')
  return issueProblems(result.error).map((p) => `${p.path}: ${p.reason}`)
}

const Model = z.strictObject({originalname: z.string(), price: z.number()})
const Body = z.strictObject({
  service: z.enum(['3D_PRINTING', 'CNC_MACHINING']),
  priceMachine: z.union([z.string(), z.number()]),
  amount: z.union([z.number(), z.string().regex(/^\d+$/, 'must be a number')]),
  objects3D: z.union([Model, z.array(Model).min(1)]),
})
const good = {service: '3D_PRINTING', priceMachine: 3, amount: '4', objects3D: {originalname: 'a', price: 1}}

describe('issueReason', () => {
  it('says a missing choice is required, with what is allowed', () => {
    const {service: _, ...rest} = good
    expect(problems(Body, rest)).toEqual(['service: is required (allowed: 3D_PRINTING, CNC_MACHINING)'])
    expect(problems(Body, {...good, service: 'PCB'})).toEqual([
      'service: "PCB" is not allowed (allowed: 3D_PRINTING, CNC_MACHINING)',
    ])
    // A close one is named, as a flag's value is (cli/flag-hints.ts).
    expect(problems(Body, {...good, service: 'CNC_MACHINNG'})).toEqual([
      'service: "CNC_MACHINNG" is not allowed (allowed: 3D_PRINTING, CNC_MACHINING); did you mean CNC_MACHINING?',
    ])
  })

  it('words a union refused for its type by the types it takes', () => {
    const {priceMachine: _, ...rest} = good
    expect(problems(Body, rest)).toEqual(['priceMachine: is required (a string or a number)'])
    expect(problems(Body, {...good, priceMachine: true})).toEqual([
      'priceMachine: expected a string or a number, got true',
    ])
  })

  it("gives the reason of the alternative that took the value's type", () => {
    expect(problems(Body, {...good, amount: 'four'})).toEqual(['amount: must be a number'])
    expect(problems(Body, {...good, objects3D: []})).toEqual(['objects3D: must have at least 1 item'])
  })

  it('opens a union whose one alternative of the type has problems inside, each at its whole path', () => {
    expect(problems(Body, {...good, objects3D: {price: 'x', name: 'a'}})).toEqual([
      'objects3D.originalname: is required (a string)',
      'objects3D.price: expected a number, got "x"',
      'objects3D: unknown field name',
    ])
    expect(
      problems(Body, {
        ...good,
        objects3D: [
          {originalname: 'a', price: 1},
          {originalname: 2, price: 1},
        ],
      }),
    ).toEqual(['objects3D.1.originalname: expected a string, got 2'])
  })

  it('never says "Invalid input"', () => {
    for (const value of [{}, {...good, objects3D: 5}, {...good, amount: null}, {...good, priceMachine: {}}]) {
      for (const line of problems(Body, value)) expect(line).not.toMatch(/Invalid input/)
    }
  })
})
