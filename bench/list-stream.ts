// `mfg demand list --all --ndjson` over 100,000 demands: peak RSS and time to the first line,
// against bench/baseline/list-pages.mjs fetching the same pages and printing them.
// Then the sandbox's side of that work on each SQLite driver, node:sqlite (the
// product's) against better-sqlite3 (bench/sqlite-drivers.ts): the same fill and
// the baseline's pages from a sandbox on each.
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {cli, machine, measure, root, serveSandbox, writeSection} from './lib.js'
import {compare, DRIVERS, ensureBetterSqlite3, percent, serveSandboxOn, type DriverName} from './sqlite-drivers.js'

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000)
const PAGE = 100
const DRIVER_RUNS = Number(process.env.BENCH_DRIVER_RUNS ?? 2)
const DRIVER_LIMIT = 1.2

// Before anything is timed: better-sqlite3 must load under this Node (it may need a rebuild).
ensureBetterSqlite3()

const work = mkdtempSync(join(tmpdir(), 'mfg-bench-list-'))
process.on('exit', () => rmSync(work, {recursive: true, force: true}))
const file = join(work, 'chunks.json')

/** Fills a sandbox through the baseline poster (the fastest way in), with the chunks of `file`. */
async function fill(url: string, business: {id: string; apiKey: string}) {
  const r = await measure([
    process.execPath,
    join(root, 'bench/baseline/post-chunks.mjs'),
    file,
    url,
    business.id,
    business.apiKey,
    '4',
  ])
  if (r.code !== 0) throw new Error(`filling the sandbox failed: ${r.stderr}`)
  return r
}

const listPages = (url: string, business: {id: string; apiKey: string}) =>
  measure([
    process.execPath,
    join(root, 'bench/baseline/list-pages.mjs'),
    url,
    business.id,
    business.apiKey,
    String(PAGE),
  ])

const sb = await serveSandbox()
const demo = sb.businesses[0]!
let table: string
try {
  const chunks: object[][] = []
  for (let i = 0; i < ROWS; i += 100) {
    chunks.push(
      Array.from({length: Math.min(100, ROWS - i)}, (_, k) => ({
        technique: '3D_PRINTING',
        material: 'PETG',
        quantity: 1 + ((i + k) % 4),
        email: `b${i + k}@example.com`,
        quoteModel: [{fileName: `p${i + k}.stl`, service: '3D_PRINTING', quantity: 1}],
      })),
    )
  }
  writeFileSync(file, JSON.stringify(chunks))
  await fill(sb.url, demo)

  const home = mkdtempSync(join(work, 'home-'))
  const mfg = await measure([process.execPath, cli, 'demand', 'list', '--all', '--ndjson'], {
    MFG_HOME: home,
    MFG_BASE_URL: sb.url,
    MFG_API_KEY: demo.apiKey,
    MFG_BUSINESS_ID: demo.id,
  })
  const base = await listPages(sb.url, demo)
  if (mfg.code !== 0) throw new Error(`list failed (exit ${mfg.code}): ${mfg.stderr.slice(-2000)}`)
  if (mfg.stdoutLines !== base.stdoutLines)
    throw new Error(`the CLI printed ${mfg.stdoutLines} lines, the baseline ${base.stdoutLines}`)

  table = `## demand list --all --ndjson over ${mfg.stdoutLines.toLocaleString('en')} demands

Baseline: \`bench/baseline/list-pages.mjs\`, node's fetch reading the same pages of ${PAGE} in order and printing each item as a JSON line. Against one standalone \`mfg sandbox serve --memory\`.

| | first line ms | total s | peak RSS MB |
|---|---:|---:|---:|
| \`mfg demand list --all --ndjson\` | ${mfg.firstLineMs?.toFixed(0)} | ${(mfg.ms / 1000).toFixed(1)} | ${(mfg.maxRssKb / 1024).toFixed(1)} |
| baseline | ${base.firstLineMs?.toFixed(0)} | ${(base.ms / 1000).toFixed(1)} | ${(base.maxRssKb / 1024).toFixed(1)} |

Ratios CLI / baseline: first line **${((mfg.firstLineMs ?? NaN) / (base.firstLineMs ?? NaN)).toFixed(2)}**, total time **${(mfg.ms / base.ms).toFixed(2)}**, peak RSS **${(mfg.maxRssKb / base.maxRssKb).toFixed(2)}**. ${machine()}.`
} finally {
  await sb.stop()
}

// The drivers: a fresh sandbox in memory on each, filled with the same chunks, then
// listed whole by the baseline; alternating which driver goes first.
const perDriver = (): Record<DriverName, number[]> => ({'node:sqlite': [], 'better-sqlite3': []})
const runs = {
  fill: perDriver(),
  fillCpu: perDriver(),
  list: perDriver(),
  firstLine: perDriver(),
  listCpu: perDriver(),
}
for (let run = 0; run < DRIVER_RUNS; run++) {
  for (const driver of run % 2 ? [...DRIVERS].reverse() : DRIVERS) {
    const server = await serveSandboxOn(driver)
    const business = server.businesses[0]!
    let stopped = false
    try {
      runs.fill[driver].push((await fill(server.url, business)).ms)
      const filled = await server.cpu()
      runs.fillCpu[driver].push(filled)
      const list = await listPages(server.url, business)
      if (list.code !== 0) throw new Error(`listing the sandbox on ${driver} failed: ${list.stderr}`)
      runs.list[driver].push(list.ms)
      runs.firstLine[driver].push(list.firstLineMs ?? NaN)
      stopped = true
      runs.listCpu[driver].push((await server.stop()) - filled)
    } finally {
      if (!stopped) await server.stop()
    }
  }
}

const figures: [string, Record<DriverName, number[]>, (x: number) => string][] = [
  ['fill: post ms', runs.fill, (x) => x.toFixed(0)],
  ['fill: server CPU ms', runs.fillCpu, (x) => x.toFixed(0)],
  ['list: first line ms', runs.firstLine, (x) => x.toFixed(0)],
  ['list: total s', runs.list, (x) => (x / 1000).toFixed(1)],
  ['list: server CPU s', runs.listCpu, (x) => (x / 1000).toFixed(1)],
]
let slowest = 0
const rows = figures.map(([label, values, format]) => {
  const c = compare(values)
  // The first line is one request: too short a time to judge a driver by.
  if (!label.includes('first line')) slowest = Math.max(slowest, c.ratio)
  return `| ${label} | ${format(c.node)} | ${format(c.better)} | ${c.ratio.toFixed(2)} (${percent(c.ratio)}) |`
})
const verdict =
  slowest <= DRIVER_LIMIT
    ? `node:sqlite's worst figure against better-sqlite3: ${percent(slowest)}, within the ${percent(DRIVER_LIMIT)} beyond which better-sqlite3 would stay as an optional dependency, so it is a devDependency, for this comparison only.`
    : `node:sqlite's worst figure against better-sqlite3: ${percent(slowest)}, beyond ${percent(DRIVER_LIMIT)}: by the rule of issue 23, better-sqlite3 would stay as an optional dependency.`
table += `

### The sandbox on node:sqlite and on better-sqlite3

The same fill and the baseline's pages of ${PAGE}, from a sandbox in memory run from the sources on each SQLite driver (\`bench/sandbox-serve.ts\` under tsx); ${DRIVER_RUNS === 1 ? 'one run each, node:sqlite first' : `${DRIVER_RUNS} runs each, alternating which goes first; medians`}. Server CPU is the sandbox process's CPU time over that part. Percentages are node:sqlite against better-sqlite3, negative where node:sqlite is faster.

| | node:sqlite | better-sqlite3 | node:sqlite / better-sqlite3 |
|---|---:|---:|---:|
${rows.join('\n')}

${verdict}`
writeSection('list-stream', table)
console.log(table)
if (slowest > DRIVER_LIMIT) process.exitCode = 1
