// Peak RSS while `mfg demand create --dry-run` validates a 1,000,000-row NDJSON file,
// against bench/baseline/read-lines.mjs reading and parsing the same file. Target: at most 150 MB.
import {createWriteStream, mkdtempSync, rmSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {join} from 'node:path'

import {cli, machine, measure, median, ndjsonRow, pairedRatios, root, writeSection, type RunResult} from './lib.js'

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000)
const TARGET_MB = 150
/** Runs of each, alternating which goes first; medians. */
const RUNS = Number(process.env.BENCH_RUNS ?? 3)

const work = mkdtempSync(join(tmpdir(), 'mfg-bench-validate-'))
const file = join(work, 'rows.ndjson')
const out = createWriteStream(file)
for (let i = 0; i < ROWS; i++) {
  if (!out.write(ndjsonRow(i) + '\n')) await new Promise<void>((ok) => out.once('drain', () => ok()))
}
await new Promise<void>((ok) => out.end(() => ok()))

const home = mkdtempSync(join(work, 'home-'))
const dryRun = () =>
  measure([process.execPath, cli, 'demand', 'create', '--file', file, '--dry-run'], {
    MFG_HOME: home,
    MFG_BASE_URL: 'http://127.0.0.1:9',
    MFG_API_KEY: 'pk_business_benchonly',
    MFG_BUSINESS_ID: 'bench',
  })
const readLines = () => measure([process.execPath, join(root, 'bench/baseline/read-lines.mjs'), file])
const runs = {cli: [] as RunResult[], base: [] as RunResult[]}
for (let run = 0; run < RUNS; run++) {
  for (const which of run % 2 ? (['base', 'cli'] as const) : (['cli', 'base'] as const)) {
    const r = which === 'cli' ? await dryRun() : await readLines()
    if (r.code !== 0) throw new Error(`${which} failed (exit ${r.code}): ${r.stderr.slice(-2000)}`)
    runs[which].push(r)
  }
}
rmSync(work, {recursive: true, force: true})
const rss = (rs: RunResult[]) => rs.map((r) => r.maxRssKb)
const secs = (rs: RunResult[]) => rs.map((r) => r.ms)
const mfg = {maxRssKb: median(rss(runs.cli)), ms: median(secs(runs.cli))}
const base = {maxRssKb: median(rss(runs.base)), ms: median(secs(runs.base))}

const mb = (kb: number) => kb / 1024
const verdict = mb(mfg.maxRssKb) <= TARGET_MB ? 'met' : 'NOT met'
const table = `## demand create --dry-run: peak memory over ${ROWS.toLocaleString('en')} NDJSON rows

Baseline: \`bench/baseline/read-lines.mjs\`, node reading the same file with readline and parsing each line, keeping nothing. ${RUNS} runs each, alternating which goes first; medians.

| | peak RSS MB | time s |
|---|---:|---:|
| \`mfg demand create --file rows.ndjson --dry-run\` | ${mb(mfg.maxRssKb).toFixed(1)} | ${(mfg.ms / 1000).toFixed(1)} |
| baseline | ${mb(base.maxRssKb).toFixed(1)} | ${(base.ms / 1000).toFixed(1)} |

CLI runs (peak RSS MB / s): ${runs.cli.map((r) => `${mb(r.maxRssKb).toFixed(1)} / ${(r.ms / 1000).toFixed(1)}`).join(', ')}; per round, peak RSS ratio ${pairedRatios(rss(runs.cli), rss(runs.base))}, time ratio ${pairedRatios(secs(runs.cli), secs(runs.base))}.

Ratio of peak RSS CLI / baseline: **${(mfg.maxRssKb / base.maxRssKb).toFixed(2)}**; time ratio ${(mfg.ms / base.ms).toFixed(2)}. Target peak RSS ≤ ${TARGET_MB} MB: ${verdict}. ${machine()}; load average at the end ${loadavg()
  .map((x) => x.toFixed(1))
  .join(' ')}.`
writeSection('validate-rss', table)
console.log(table)
if (verdict !== 'met') process.exitCode = 1
