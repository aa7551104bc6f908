// Issue 19: a list as a table costs time linear in its rows. 50,000 demand-like
// records rendered as the table `demand list` prints (src/cli/render.ts
// renderTable: piped, and fitted to an 80-column terminal) against the same rows
// as CSV (toCsv), in the same run, round by round; 8,000 and 20,000 rows show
// how the cost grows. The table before issue 19 (one cli-table3 table over all
// rows, bench/baseline/cli-table3-table.ts) is timed at 1,000 to 4,000 rows,
// where it still ends, and cli-table3 in bounded blocks with fixed widths (the
// first way tried) at 50,000.
import {loadavg} from 'node:os'

import {DEMAND_LIST_COLUMNS, DEMAND_LIST_LAYOUT} from '../src/cli/demands.js'
import {renderTable, streamTable, toCsv} from '../src/cli/render.js'
import {blockTables, oneTable} from './baseline/cli-table3-table.js'
import {machine, median, pairedRatios, writeSection} from './lib.js'

const ROUNDS = Number(process.env.BENCH_RUNS ?? 5)
const TARGET = 3
const STAGES = [8_000, 20_000, 50_000]
const OLD_STAGES = [1_000, 2_000, 4_000]
const STATUSES = ['Quote Sent', 'In Production', 'Delivered', 'Cancelled', 'Special Verified']
const MATERIALS = ['PLA', 'PETG', 'Standard Resin', 'Aluminium 6061', 'Brass', 'PA12']

/** Records shaped like `demand list`'s (nested addresses and parts included, as the table reads them by path). */
function demands(n: number): Record<string, unknown>[] {
  return Array.from({length: n}, (_, i) => ({
    _id: (0x65f000060000000000000000n + BigInt(i)).toString(16),
    orderNumber: i + 1,
    type: i % 7 === 0 ? 'FIXED' : 'NORMAL',
    status: STATUSES[i % STATUSES.length],
    technique: i % 3 === 0 ? 'CNC_MACHINING' : '3D_PRINTING',
    material: MATERIALS[i % MATERIALS.length],
    priceTotal: Math.round((5 + ((i * 37) % 997) / 3) * 100) / 100,
    currency: 'EUR',
    createdAt: new Date(Date.UTC(2025, 0, 1) + i * 61_000).toISOString(),
    shippingAddress: {city: i % 2 ? 'Malmö' : 'Berlin', country: i % 2 ? 'SE' : 'DE'},
    quoteModel: [{fileName: `part-${i}.stl`, quantity: 1 + (i % 9)}],
  }))
}

/** The rows through streamTable (what `demand list --all` prints), its lines gathered as stdout would get them. */
function streamed(rows: readonly Record<string, unknown>[]): string {
  const parts: string[] = []
  const table = streamTable(columns, {}, undefined, {line: (t) => parts.push(t), flush: () => undefined})
  for (const row of rows) table.row(row)
  table.end()
  return parts.join('\n')
}

function time(f: () => unknown): number {
  const t = performance.now()
  f()
  return performance.now() - t
}

const columns = [...DEMAND_LIST_COLUMNS]
const drop = DEMAND_LIST_LAYOUT.drop
interface Stage {
  rows: number
  csv: number[]
  table: number[]
  fitted: number[]
  streamed: number[]
}
const stages: Stage[] = []
// One untimed pass of each over a few rows first, so that the first stage does not pay for compiling the code.
const warm = demands(2_000)
for (let i = 0; i < 3; i++) {
  toCsv(warm, columns)
  renderTable(warm, columns)
  renderTable(warm, columns, {width: 80, drop})
  streamed(warm)
}
for (const n of STAGES) {
  const rows = demands(n)
  const s: Stage = {rows: n, csv: [], table: [], fitted: [], streamed: []}
  for (let r = 0; r < ROUNDS; r++) {
    // Alternate which goes first, so that neither always meets a warmer or a busier machine.
    const order = r % 2 ? ['table', 'streamed', 'fitted', 'csv'] : ['csv', 'fitted', 'streamed', 'table']
    for (const which of order) {
      if (which === 'csv') s.csv.push(time(() => toCsv(rows, columns)))
      if (which === 'table') s.table.push(time(() => renderTable(rows, columns)))
      if (which === 'fitted') s.fitted.push(time(() => renderTable(rows, columns, {width: 80, drop})))
      if (which === 'streamed') s.streamed.push(time(() => streamed(rows)))
    }
  }
  stages.push(s)
  console.log(
    `${n}: csv ${median(s.csv).toFixed(0)} ms, table ${median(s.table).toFixed(0)} ms, fitted ${median(s.fitted).toFixed(0)} ms, streamed ${median(s.streamed).toFixed(0)} ms`,
  )
}

const old: {rows: number; ms: number}[] = []
for (const n of OLD_STAGES) {
  const rows = demands(n)
  const runs = Array.from({length: 3}, () => time(() => oneTable(rows, columns)))
  old.push({rows: n, ms: median(runs)})
  console.log(`before, ${n}: ${median(runs).toFixed(0)} ms`)
}
const big = demands(50_000)
const blocks = median(Array.from({length: 2}, () => time(() => blockTables(big, columns))))
const bigCsv = median(Array.from({length: 2}, () => time(() => toCsv(big, columns))))
console.log(`cli-table3 in blocks, 50000: ${blocks.toFixed(0)} ms`)

const last = stages.at(-1)!
const ratio = median(last.table) / median(last.csv)
const fittedRatio = median(last.fitted) / median(last.csv)
const streamedRatio = median(last.streamed) / median(last.csv)
const verdict = Math.max(ratio, fittedRatio, streamedRatio) <= TARGET ? 'met' : 'NOT met'
const perRow = (ms: number, n: number) => ((ms / n) * 1000).toFixed(2)
const f0 = (x: number) => x.toFixed(0)

writeSection(
  'table-render',
  `
## Tables (issue 19)

\`npm run bench:table\` (bench/table-render.ts): ${columns.length} columns of demand-like records (the default columns of \`demand list\`), rendered in memory as the table \`demand list\` prints when piped (nothing cut) and fitted to an 80-column terminal (cells cut with …, columns left out), against the same rows as CSV (\`toCsv\`). ${ROUNDS} rounds per stage, the order alternating; medians.

| rows | CSV | table | table, 80 columns | table, streamed | table / CSV | µs a row (table) |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${stages.map((s) => `| ${s.rows.toLocaleString('en')} | ${f0(median(s.csv))} ms | ${f0(median(s.table))} ms | ${f0(median(s.fitted))} ms | ${f0(median(s.streamed))} ms | ${pairedRatios(s.table, s.csv)} | ${perRow(median(s.table), s.rows)} |`).join('\n')}

Ratio table / CSV at 50,000 rows: **${ratio.toFixed(2)}** piped, **${fittedRatio.toFixed(2)}** fitted, **${streamedRatio.toFixed(2)}** streamed (target ≤ ${TARGET}: ${verdict}). Microseconds a row at ${stages.map((x) => x.rows.toLocaleString('en')).join(', ')} rows: ${stages.map((x) => perRow(median(x.table), x.rows)).join(', ')} (it does not grow with the rows, as the old table's did below). "Streamed" is the table of \`demand list --all\` (render.ts streamTable): the widths come from the first 1,000 rows, then each row is written as it comes, so the list is never held (a later, wider cell is cut on a terminal, written whole and out of line in piped output).

Before (one cli-table3 table over every row, bench/baseline/cli-table3-table.ts), same records, median of 3:

| rows | table | µs a row |
| ---: | ---: | ---: |
${old.map((o) => `| ${o.rows.toLocaleString('en')} | ${f0(o.ms)} ms | ${perRow(o.ms, o.rows)} |`).join('\n')}

Doubling the rows multiplied the old time by ${old
    .slice(1)
    .map((o, i) => (o.ms / old[i]!.ms).toFixed(1))
    .join(
      ' and ',
    )} (quadratic: 4); issue 19 measured 487 s for 50,000 demands through \`demand list --all\`. cli-table3 given the widths up front and fed blocks of 500 rows is linear but still takes ${f0(blocks)} ms for 50,000 rows (${(blocks / bigCsv).toFixed(0)}x the CSV's ${f0(bigCsv)} ms in that run): its cost is per cell (layout objects, string-width, padding and truncation for each), so the table is now written by render.ts itself: widths in one pass over the cells, then each line padded, and cut only when a terminal width is given. ${machine()}; load average at the end ${loadavg()
    .map((x) => x.toFixed(1))
    .join(', ')}.
`,
)
