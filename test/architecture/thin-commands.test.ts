// Commands are thin (issue 15): a command parses its flags and hands the doing to
// services/ and the printing to cli/. ESLint's max-lines caps one file at a time; the
// median over all of them is what a newcomer meets, and only a look at every file at
// once sees it drift. Lines are counted as `wc -l` counts them: blank lines and
// comments included.
import {readdirSync, readFileSync} from 'node:fs'
import {join, relative, resolve} from 'node:path'

import {describe, expect, it} from 'vitest'

const root = resolve(import.meta.dirname, '../..')
const commandsDir = join(root, 'src/commands')

/** The most lines one command file may have (eslint's max-lines says the same). */
const MOST_LINES = 120
/** The median must stay under this. */
const MEDIAN_UNDER = 50

function commandFiles(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return commandFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** Newline characters, as `wc -l` counts. */
const lineCount = (text: string) => text.split('\n').length - 1

/** The middle value of the sorted counts (the mean of the two middle ones for an even number). */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const sizes = commandFiles(commandsDir).map((path) => ({
  file: relative(root, path),
  lines: lineCount(readFileSync(path, 'utf8')),
}))

describe('commands are thin', () => {
  it('finds the commands', () => {
    // A wrong folder would pass everything below with nothing read.
    expect(sizes.length).toBeGreaterThan(30)
    expect(sizes.map((s) => s.file)).toContain('src/commands/demand/create.ts')
  })

  it(`has a median under ${MEDIAN_UNDER} lines`, () => {
    const m = median(sizes.map((s) => s.lines))
    const largest = [...sizes]
      .sort((a, b) => b.lines - a.lines)
      .slice(0, 10)
      .map((s) => `${s.file} ${s.lines}`)
    expect(
      m,
      `median ${m} lines over ${sizes.length} commands; move the doing into services/ or cli/ (largest: ${largest.join(', ')})`,
    ).toBeLessThan(MEDIAN_UNDER)
  })

  it(`has no command over ${MOST_LINES} lines`, () => {
    const over = sizes.filter((s) => s.lines > MOST_LINES).map((s) => `${s.file} ${s.lines}`)
    expect(over, `commands over ${MOST_LINES} lines`).toEqual([])
  })

  it('counts the median as the middle of the sorted sizes', () => {
    expect(median([3, 1, 2])).toBe(2)
    expect(median([4, 1, 3, 2])).toBe(2.5)
    expect(median([49, 50, 120, 1])).toBe(49.5)
  })
})
