import {describe, expect, it} from 'vitest'

import {parseObject, parseRows} from '../../src/cli/input.js'
import {jsonErrorOffset} from '../../src/cli/json-locate.js'
import {askText, confirmOrYes} from '../../src/cli/prompt.js'
import {InputError} from '../../src/services/errors.js'

function failure(fn: () => unknown): InputError {
  try {
    fn()
  } catch (error) {
    if (error instanceof InputError) return error
    throw error
  }
  throw new Error('expected an InputError')
}

describe('input readers', () => {
  it('reads a JSON array, a single object and NDJSON', () => {
    expect(parseRows('[{"a":1},{"a":2}]', 'f.json')).toMatchObject({rows: [{a: 1}, {a: 2}], format: 'array'})
    expect(parseRows('{\n  "a": 1\n}\n', 'f.json')).toMatchObject({rows: [{a: 1}], format: 'object'})
    const nd = parseRows('{"a":1}\n\n{"a":2}\n', 'stdin')
    expect(nd).toMatchObject({rows: [{a: 1}, {a: 2}], format: 'ndjson', lines: [1, 3]})
    expect(parseRows('{"a":1}', 'x.ndjson').format).toBe('ndjson')
  })

  it('gives the same input the same identity, and different input another', () => {
    expect(parseRows('[{"a":1}]', 'a').contentHash).toBe(parseRows('[{"a":1}]', 'b').contentHash)
    expect(parseRows('[{"a":1}]', 'a').contentHash).not.toBe(parseRows('[{"a":2}]', 'a').contentHash)
  })

  it('reports bad JSON with line and column', () => {
    const e = failure(() => parseRows('[\n  {"technique": "CNC_MACHINING",\n   "material": }\n]', 'quotes.json'))
    expect(e.message).toBe('quotes.json: invalid JSON at line 3, column 16: unexpected "}"')
    expect(failure(() => parseRows('[{"a": 1}', 'q.json')).message).toMatch(
      /line 1, column 10: expected ',' or ']' after array element, got end of input/,
    )
    expect(failure(() => parseObject('{"a" 1}', 'body.json')).message).toMatch(/line 1, column 6: expected ':'/)
  })

  it('names the line of a bad NDJSON row', () => {
    const e = failure(() => parseRows('{"a":1}\n{"a":2}\n{"a":,}\n', 'stdin'))
    expect(e.message).toMatch(/^stdin: invalid JSON on line 3 \(column 6/)
    expect(failure(() => parseRows('{"a":1}\n[1]\n', 'x.ndjson')).message).toMatch(/line 2 is not a JSON object/)
  })

  it('refuses empty input and non-object bodies', () => {
    expect(failure(() => parseRows('  \n', 'f.json')).message).toMatch(/empty/)
    expect(failure(() => parseRows('42', 'f.json')).message).toMatch(/expected a JSON array or object/)
    expect(failure(() => parseObject('[{}]', 'b.json')).message).toMatch(/expected one JSON object, got an array/)
  })

  it('locates errors the way JSON.parse fails, and accepts valid JSON', () => {
    for (const ok of ['{}', '[1, 2.5e3, -0, "a\\u00e9\\n", true, null, {"x": [false]}]']) {
      expect(jsonErrorOffset(ok)).toBeUndefined()
      expect(() => JSON.parse(ok)).not.toThrow()
    }
    for (const bad of ['{"a":01}', '[1,]', '{"a":"x\ny"}', '{"a":1} x', "{'a':1}"]) {
      expect(jsonErrorOffset(bad)).toBeDefined()
      expect(() => JSON.parse(bad)).toThrow()
    }
  })
})

describe('prompts without a terminal', () => {
  it('fail naming the flag instead of prompting', async () => {
    await expect(askText({flag: '--base-url', message: 'Base URL:'})).rejects.toThrow(/pass --base-url/)
    await expect(confirmOrYes({yes: false, message: 'Remove profile "x"?'})).rejects.toThrow(/pass --yes/)
    await expect(confirmOrYes({yes: true, message: 'Remove?'})).resolves.toBe(true)
  })
})
