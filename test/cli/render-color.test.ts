import {describe, expect, it} from 'vitest'

import {colorLevel} from '../../src/cli/output.js'

// chalk's own detection (FORCE_COLOR, TERM=dumb, a stdout that is no terminal)
// comes in as `detected`; test/commands/table-terminal.test.ts checks the
// whole rule on a real terminal and on pipes.
describe('colorLevel', () => {
  it("keeps chalk's detected level when nothing says otherwise", () => {
    expect(colorLevel([], {}, 2)).toBe(2)
    expect(colorLevel([], {}, 0)).toBe(0)
    expect(colorLevel(['demand', 'list'], {NO_COLOR: ''}, 1)).toBe(1)
  })

  it('turns colour off for --no-color before --, and for a non-empty NO_COLOR', () => {
    expect(colorLevel(['demand', 'list', '--no-color'], {}, 3)).toBe(0)
    expect(colorLevel(['post', 'list', '--', '--no-color'], {}, 3)).toBe(3)
    expect(colorLevel([], {NO_COLOR: '1'}, 3)).toBe(0)
  })

  it('lets FORCE_COLOR win over NO_COLOR, but not over --no-color', () => {
    expect(colorLevel([], {NO_COLOR: '1', FORCE_COLOR: '2'}, 2)).toBe(2)
    expect(colorLevel(['--no-color'], {FORCE_COLOR: '3'}, 3)).toBe(0)
    // A part's colour (`--color Black`), which supports-color takes for "force colours": off in a pipe.
    expect(colorLevel(['price', 'estimate', '--color', 'Black'], {}, 1, false)).toBe(0)
    expect(colorLevel(['price', 'estimate', '--color', 'Black'], {TERM: 'dumb'}, 1, true)).toBe(0)
    expect(colorLevel(['price', 'estimate', '--color', 'Black'], {}, 2, true)).toBe(2)
    expect(colorLevel(['price', 'estimate', '--color', 'Black'], {FORCE_COLOR: '1'}, 1, false)).toBe(1)
  })
})
