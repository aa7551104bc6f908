// The build replaces four packages inside the bundled @oclif/core with small
// stand-ins (scripts/stand-ins); they must do what oclif asks of them there.
import {createRequire} from 'node:module'

import {describe, expect, it} from 'vitest'

const require = createRequire(import.meta.url)
const load = (name: string): Record<string, (...args: unknown[]) => unknown> =>
  require(`../../scripts/stand-ins/${name}.cjs`) as Record<string, (...args: unknown[]) => unknown>

describe('build stand-ins', () => {
  it('minimatch: plugin names exactly, or with * and ? globs that stop at /', () => {
    const {minimatch} = load('minimatch')
    expect(minimatch!('@oclif/plugin-autocomplete', '@oclif/plugin-autocomplete')).toBe(true)
    expect(minimatch!('@oclif/plugin-autocomplete', '@oclif/plugin-*')).toBe(true)
    expect(minimatch!('@oclif/plugin-autocomplete', '@oclif/*')).toBe(true)
    expect(minimatch!('@oclif/plugin-autocomplete', '*')).toBe(false)
    expect(minimatch!('@oclif/core', '@oclif/plugin-*')).toBe(false)
    expect(minimatch!('got', 'go?')).toBe(true)
    expect(minimatch!('got.x', 'got')).toBe(false)
    expect(minimatch!('gotx', 'got.')).toBe(false)
  })

  it('ejs: fills <%= path %> and refuses other template syntax', () => {
    const {render} = load('ejs')
    expect(render!('<%= config.bin %> <%= command.id %>', {config: {bin: 'mfg'}, command: {id: 'demand list'}})).toBe(
      'mfg demand list',
    )
    expect(render!('<%= missing.path %>!', {})).toBe('!')
    expect(() => render!('<% for (;;) {} %>', {})).toThrow(/not built into mfg/)
    expect(() => render!('<%= a + b %>', {a: 1, b: 2})).toThrow(/not built into mfg/)
  })

  it('tinyglobby: a missing manifest is reported, not globbed', async () => {
    const {glob} = load('tinyglobby')
    await expect(glob!(['**/*.js'], {cwd: '.'}) as Promise<unknown>).rejects.toThrow(/oclif\.manifest\.json is missing/)
  })

  it('cli-spinners: the names oclif asks for', () => {
    const spinners = load('cli-spinners') as unknown as Record<string, {interval: number; frames: string[]}>
    for (const name of ['line', 'dots2']) expect(spinners[name]!.frames.length).toBeGreaterThan(1)
  })
})
