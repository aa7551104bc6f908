// How wide a table cell is on a terminal: render.ts's displayWidth (its own rules for wide
// characters, emoji and zero-width marks, grapheme clusters through Intl.Segmenter only
// where code points join) against string-width, the well-kept library that answers the
// same question. Both must give the same widths for every sample, which are kinds of text
// a demand's cells carry; the time per cell decides which one tables use.
import {loadavg} from 'node:os'

import stringWidth from 'string-width-baseline'

import {displayWidth} from '../src/cli/render.js'
import {machine, median, pairedRatios, writeSection} from './lib.js'

const SAMPLES: Record<string, string[]> = {
  'ASCII (ids, stages, dates, names)': [
    '65f000060000000000000014',
    'Cancelled',
    '3D_PRINTING',
    'PETG',
    '2025-01-18T09:00:00Z',
    'Leeds',
    'Mounting plate for rack',
  ],
  'Latin with accents (cities, names)': [
    'Malmö',
    'São Paulo',
    'Zürich',
    'Kraków',
    'Ærøskøbing',
    'Besançon',
    'e\u0301te\u0301',
  ],
  'CJK and Hangul': ['東京都', '서울특별시', '北京市朝阳区', 'ｆｕｌｌ ｗｉｄｔｈ'],
  'emoji, flags, ZWJ sequences': ['🚀 fast', '✅ ok', '👩‍👩‍👧 family', '🇩🇪 Berlin', '👍🏽 thanks'],
}
const CELLS = 200_000
const ROUNDS = 7

function time(width: (text: string) => number, cells: readonly string[]): number {
  let sum = 0
  const start = process.hrtime.bigint()
  for (let i = 0; i < CELLS; i++) sum += width(cells[i % cells.length]!)
  const ns = Number(process.hrtime.bigint() - start) / CELLS
  if (sum <= 0) throw new Error('no width measured')
  return ns
}

const rows: string[] = []
for (const [kind, cells] of Object.entries(SAMPLES)) {
  for (const cell of cells) {
    if (displayWidth(cell) !== stringWidth(cell)) {
      throw new Error(`${JSON.stringify(cell)}: ours ${displayWidth(cell)}, string-width ${stringWidth(cell)}`)
    }
  }
  // One warm-up round each, then the order alternating.
  time(displayWidth, cells)
  time(stringWidth, cells)
  const ours: number[] = []
  const lib: number[] = []
  for (let r = 0; r < ROUNDS; r++) {
    if (r % 2 === 0) {
      ours.push(time(displayWidth, cells))
      lib.push(time(stringWidth, cells))
    } else {
      lib.push(time(stringWidth, cells))
      ours.push(time(displayWidth, cells))
    }
  }
  const line = `| ${kind} | ${cells.length} | ${median(ours).toFixed(0)} ns | ${median(lib).toFixed(0)} ns | ${pairedRatios(lib, ours)} |`
  console.log(line)
  rows.push(line)
}

writeSection(
  'display-width',
  `
## Cell widths: render.ts's displayWidth against string-width

\`npx tsx bench/display-width.ts\`: the columns a terminal gives a table cell, as \`displayWidth\` (src/cli/render.ts) counts them and as string-width ${'8.3'} (the baseline, a devDependency of the bench only) does, ${CELLS.toLocaleString('en')} cells a round, ${ROUNDS} rounds after a warm-up, the order alternating; medians of the time per cell. Both give the same width for every sample (the script stops if one differs).

| cells | samples | displayWidth | string-width | string-width / ours, per round |
| --- | ---: | ---: | ---: | ---: |
${rows.join('\n')}

Tables keep their own width rules because of this comparison (a ratio above 1 is string-width taking longer): a table of thousands of demands measures every cell, and the text buyers type (accented names, CJK addresses, emoji) is where the two differ most. ${machine()}; load average at the end ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}.
`,
)
