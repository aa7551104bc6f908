// `mfg demand list --all --ndjson` over 100,000 demands: peak RSS and time to the first line,
// against bench/baseline/list-pages.mjs fetching the same pages and printing them.
// Then the sandbox's side of that work on each SQLite driver, node:sqlite (the
// product's) against better-sqlite3 (bench/sqlite-drivers.ts): the same fill and
// the baseline's pages from a sandbox on each.
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {join} from 'node:path'

import {cli, keptDrivers, machine, measure, median, pairedRatios, root, serveSandbox, writeSection} from './lib.js'
import type {RunResult} from './lib.js'
import {compare, DRIVERS, ensureBetterSqlite3, percent, serveSandboxOn, type DriverName} from './sqlite-drivers.js'

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000)
const PAGE = 100
const DRIVER_RUNS = Number(process.env.BENCH_DRIVER_RUNS ?? 2)
/** Rounds of the CLI and the baseline, back to back against the same sandbox, alternating which goes first. */
const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const DRIVER_LIMIT = 1.2

// Before anything is timed: better-sqlite3 must load under this Node (it may need a rebuild).
if (DRIVER_RUNS > 0) ensureBetterSqlite3()

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
  const runs = {cli: [] as RunResult[], base: [] as RunResult[]}
  for (let run = 0; run < RUNS; run++) {
    for (const which of run % 2 ? (['base', 'cli'] as const) : (['cli', 'base'] as const)) {
      const r =
        which === 'cli'
          ? await measure([process.execPath, cli, 'demand', 'list', '--all', '--ndjson'], {
              MFG_HOME: home,
              MFG_BASE_URL: sb.url,
              MFG_API_KEY: demo.apiKey,
              MFG_BUSINESS_ID: demo.id,
            })
          : await listPages(sb.url, demo)
      if (r.code !== 0) throw new Error(`${which} list failed (exit ${r.code}): ${r.stderr.slice(-2000)}`)
      runs[which].push(r)
    }
  }
  // demand watch's first catch-up over the same demands, every one told (created since --since).
  const watch = await measure([process.execPath, cli, 'demand', 'watch', '--once', '--since', '1d', '--json'], {
    MFG_HOME: mkdtempSync(join(work, 'home-')),
    MFG_BASE_URL: sb.url,
    MFG_API_KEY: demo.apiKey,
    MFG_BUSINESS_ID: demo.id,
  })
  if (watch.code !== 0) throw new Error(`demand watch failed (exit ${watch.code}): ${watch.stderr.slice(-2000)}`)
  const lines = runs.cli[0]!.stdoutLines
  for (const r of [...runs.cli, ...runs.base]) {
    if (r.stdoutLines !== lines) throw new Error(`a list printed ${r.stdoutLines} lines, the first CLI run ${lines}`)
  }
  const first = (rs: RunResult[]) => rs.map((r) => r.firstLineMs ?? NaN)
  const total = (rs: RunResult[]) => rs.map((r) => r.ms)
  const rss = (rs: RunResult[]) => rs.map((r) => r.maxRssKb)
  const row = (label: string, rs: RunResult[]) =>
    `| ${label} | ${median(first(rs)).toFixed(0)} | ${(median(total(rs)) / 1000).toFixed(1)} | ${(median(rss(rs)) / 1024).toFixed(1)} | ${rs.map((r) => `${r.firstLineMs?.toFixed(0)} / ${(r.ms / 1000).toFixed(1)}`).join(', ')} |`
  const ratio = (f: (rs: RunResult[]) => number[]) => (median(f(runs.cli)) / median(f(runs.base))).toFixed(2)

  table = `## demand list --all --ndjson over ${lines.toLocaleString('en')} demands

Baseline: \`bench/baseline/list-pages.mjs\`, node's fetch reading the same pages of ${PAGE} in order and printing each item as a JSON line. Against one standalone \`mfg sandbox serve --memory\`; ${RUNS} rounds, the CLI and the baseline back to back in each, alternating which goes first; medians.

| | first line ms | total s | peak RSS MB | runs (first line ms / total s) |
|---|---:|---:|---:|---|
${row('`mfg demand list --all --ndjson`', runs.cli)}
${row('baseline', runs.base)}

\`mfg demand watch --once --since 1d --json\` over the same demands, a first catch-up telling each of them (${watch.stdoutLines.toLocaleString('en')} lines; one run): ${(watch.ms / 1000).toFixed(1)} s, peak RSS ${(watch.maxRssKb / 1024).toFixed(1)} MB.

Ratios CLI / baseline (of the medians): first line **${ratio(first)}**, total time **${ratio(total)}**, peak RSS **${ratio(rss)}**. Per round, median (range): first line ${pairedRatios(first(runs.cli), first(runs.base))}, total time ${pairedRatios(total(runs.cli), total(runs.base))}. ${machine()}; load average at the end ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}.`
} finally {
  await sb.stop()
}

// The drivers: a fresh sandbox in memory on each, filled with the same chunks, then
// listed whole by the baseline; alternating which driver goes first.
const perDriver = (): Record<DriverName, number[]> => ({'node:sqlite': [], 'better-sqlite3': []})
const driverRuns = {
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
      driverRuns.fill[driver].push((await fill(server.url, business)).ms)
      const filled = await server.cpu()
      driverRuns.fillCpu[driver].push(filled)
      const list = await listPages(server.url, business)
      if (list.code !== 0) throw new Error(`listing the sandbox on ${driver} failed: ${list.stderr}`)
      driverRuns.list[driver].push(list.ms)
      driverRuns.firstLine[driver].push(list.firstLineMs ?? NaN)
      stopped = true
      driverRuns.listCpu[driver].push((await server.stop()) - filled)
    } finally {
      if (!stopped) await server.stop()
    }
  }
}

const DRIVERS_HEADING = 'The sandbox on node:sqlite and on better-sqlite3'

/** The drivers' table and verdict from this run's driver rounds. */
function driverSection(): {text: string; slowest: number} {
  const figures: [string, Record<DriverName, number[]>, (x: number) => string][] = [
    ['fill: post ms', driverRuns.fill, (x) => x.toFixed(0)],
    ['fill: server CPU ms', driverRuns.fillCpu, (x) => x.toFixed(0)],
    ['list: first line ms', driverRuns.firstLine, (x) => x.toFixed(0)],
    ['list: total s', driverRuns.list, (x) => (x / 1000).toFixed(1)],
    ['list: server CPU s', driverRuns.listCpu, (x) => (x / 1000).toFixed(1)],
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
  const text = `### ${DRIVERS_HEADING}

The same fill and the baseline's pages of ${PAGE}, from a sandbox in memory run from the sources on each SQLite driver (\`bench/sandbox-serve.ts\` under tsx); ${DRIVER_RUNS === 1 ? 'one run each, node:sqlite first' : `${DRIVER_RUNS} runs each, alternating which goes first; medians`}. Server CPU is the sandbox process's CPU time over that part. Percentages are node:sqlite against better-sqlite3, negative where node:sqlite is faster.

| | node:sqlite | better-sqlite3 | node:sqlite / better-sqlite3 |
|---|---:|---:|---:|
${rows.join('\n')}

${verdict}`
  return {text, slowest}
}

// BENCH_DRIVER_RUNS=0 leaves the drivers out and keeps the figures of the last run that compared them.
const drivers = DRIVER_RUNS > 0 ? driverSection() : {text: keptDrivers('list-stream', DRIVERS_HEADING), slowest: 0}
if (drivers.text) table += `\n\n${drivers.text}`
writeSection('list-stream', table)
console.log(table)
if (drivers.slowest > DRIVER_LIMIT) process.exitCode = 1
