// The client checks every body before sending it (checkRequest). A user's mistake
// must read there as it reads where `demand create` checks its rows: the same rows,
// checked as one create-quotes body and row by row, give the same problems, word
// for word, with the row's index in front of each path.
import {describe, expect, it} from 'vitest'

import {checkRequest} from '../../src/api/parse.js'
import {ValidationError} from '../../src/api/errors.js'
import {CreateDemandBody, CreateDemandItem} from '../../src/schemas/demand.js'
import {checkRow} from '../../src/services/demands/batch-validate.js'

const ROWS: unknown[] = [
  {technique: 'LASER_WELDING', material: 'PLA'},
  {technique: 'CNC_MACHINING', material: 'Brass', quantity: 'abc', isCompany: 'maybe'},
  {technique: 'CNC_MACHINING', material: 'Brass', quantity: 2.5},
  {material: 'PLA'},
  {technique: 'PCB', material: 'FR4', jobDetails: {takenAs: 'MAYBE'}},
  {technique: 'SHEET_METAL', material: 'Steel S235', quantity: 0, draftId: 'x'.repeat(201)},
  {technique: 'CNC_MACHINING', material: 'Brass', priceMachine: true},
  {technique: 'CNC_MACHINING', material: 'Brass', quoteModel: [{fileName: 3}]},
]

async function refusal(body: unknown): Promise<ValidationError> {
  try {
    await checkRequest(CreateDemandBody, body, 'POST', '/api/v1/create-quotes', 'the create-quotes body')
  } catch (error) {
    if (error instanceof ValidationError) return error
    throw error
  }
  throw new Error('the body was not refused')
}

describe('checkRequest words a problem as the row check does', () => {
  it('gives each bad row the problems, word for word, that demand create lists for it', async () => {
    const error = await refusal(ROWS)
    expect(error.clientSide).toBe(true)
    const byRows = ROWS.flatMap((value, i) => {
      const checked = checkRow({row: i + 1, value}, CreateDemandItem)
      expect(checked.ok, JSON.stringify(value)).toBe(false)
      return checked.problems.map((p) => ({
        path: [String(i), ...(p.path ? [p.path] : [])].join('.'),
        message: p.reason,
      }))
    })
    expect(byRows.length).toBeGreaterThanOrEqual(ROWS.length)
    expect(error.details).toEqual(byRows)
    expect(error.message).toContain(`the create-quotes body is invalid (${byRows.length} problems); nothing was sent`)
    expect(error.message).toContain('  - 1.quantity: expected a number, got "abc"')
  })

  it('names the field a misspelt one probably is, and a missing one as required', async () => {
    const error = await refusal({servce: '3D_PRINTING'})
    expect(error.details).toContainEqual({path: '', message: 'expected an array, got {"servce":"3D_PRINTING"}'})
    const {UpdatePostBody} = await import('../../src/schemas/posts.js')
    const post = await checkRequest(
      UpdatePostBody,
      {servce: '3D_PRINTING', price: {}},
      'PUT',
      '/p',
      'the update body',
    ).then(
      () => undefined,
      (e: unknown) => e as ValidationError,
    )
    expect(post?.details).toContainEqual({path: '', message: 'unknown field servce (did you mean service?)'})
  })
})
