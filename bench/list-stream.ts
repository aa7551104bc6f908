// `mfg demand list --all --ndjson` over 100,000 demands: peak RSS and time to the first line,
// against bench/baseline/list-pages.mjs fetching the same pages and printing them.
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {cli, machine, measure, root, serveSandbox, writeSection} from './lib.js'

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000)
const PAGE = 100

const work = mkdtempSync(join(tmpdir(), 'mfg-bench-list-'))
const sb = await serveSandbox()
const demo = sb.businesses[0]!
try {
  // Fill the sandbox through the baseline poster: it is the fastest way in.
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
  const file = join(work, 'chunks.json')
  writeFileSync(file, JSON.stringify(chunks))
  const fill = await measure([
    process.execPath,
    join(root, 'bench/baseline/post-chunks.mjs'),
    file,
    sb.url,
    demo.id,
    demo.apiKey,
    '4',
  ])
  if (fill.code !== 0) throw new Error(`filling the sandbox failed: ${fill.stderr}`)

  const home = mkdtempSync(join(work, 'home-'))
  const mfg = await measure([process.execPath, cli, 'demand', 'list', '--all', '--ndjson'], {
    MFG_HOME: home,
    MFG_BASE_URL: sb.url,
    MFG_API_KEY: demo.apiKey,
    MFG_BUSINESS_ID: demo.id,
  })
  const base = await measure([
    process.execPath,
    join(root, 'bench/baseline/list-pages.mjs'),
    sb.url,
    demo.id,
    demo.apiKey,
    String(PAGE),
  ])
  if (mfg.code !== 0) throw new Error(`list failed (exit ${mfg.code}): ${mfg.stderr.slice(-2000)}`)
  if (mfg.stdoutLines !== base.stdoutLines)
    throw new Error(`the CLI printed ${mfg.stdoutLines} lines, the baseline ${base.stdoutLines}`)

  const table = `## demand list --all --ndjson over ${mfg.stdoutLines.toLocaleString('en')} demands

Baseline: \`bench/baseline/list-pages.mjs\`, node's fetch reading the same pages of ${PAGE} in order and printing each item as a JSON line. Against one standalone \`mfg sandbox serve --memory\`.

| | first line ms | total s | peak RSS MB |
|---|---:|---:|---:|
| \`mfg demand list --all --ndjson\` | ${mfg.firstLineMs?.toFixed(0)} | ${(mfg.ms / 1000).toFixed(1)} | ${(mfg.maxRssKb / 1024).toFixed(1)} |
| baseline | ${base.firstLineMs?.toFixed(0)} | ${(base.ms / 1000).toFixed(1)} | ${(base.maxRssKb / 1024).toFixed(1)} |

Ratios CLI / baseline: first line **${((mfg.firstLineMs ?? NaN) / (base.firstLineMs ?? NaN)).toFixed(2)}**, total time **${(mfg.ms / base.ms).toFixed(2)}**, peak RSS **${(mfg.maxRssKb / base.maxRssKb).toFixed(2)}**. ${machine()}.`
  writeSection('list-stream', table)
  console.log(table)
} finally {
  await sb.stop()
  rmSync(work, {recursive: true, force: true})
}
