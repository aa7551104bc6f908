// Create 10,000 demands from CSV into a standalone sandbox: `mfg demand create` against
// bench/baseline/post-chunks.mjs posting the same rows in the same chunks (each with an
// Idempotency-Key, as the CLI sends them) over the same number of keep-alive
// connections. Target: CLI time / baseline time at most 1.25.
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {join} from 'node:path'

import {idempotencyKeyFor} from '../src/services/demands/create.js'
import {cli, machine, measure, median, pairedRatios, root, serveSandbox, writeSection} from './lib.js'

const ROWS = Number(process.env.BENCH_ROWS ?? 10_000)
const RUNS = Number(process.env.BENCH_RUNS ?? 7)
const CONCURRENCY = 4
const TARGET = 1.25

const header = [
  'technique',
  'material',
  'quantity',
  'email',
  'firstName',
  'lastName',
  'shippingAddress.city',
  'shippingAddress.country',
  'jobDetails.takenAs',
  'quoteModel.0.fileName',
  'quoteModel.0.service',
  'quoteModel.0.quantity',
]
const MATERIALS = ['PLA', 'PETG', 'ABS', 'Standard Resin', 'PA12']
function row(i: number): (string | number)[] {
  return [
    '3D_PRINTING',
    MATERIALS[i % 5]!,
    (i % 7) + 1,
    `buyer${i}@example.com`,
    'Ada',
    `Client ${i}`,
    'Lyon',
    'FR',
    'QUOTE',
    `part-${i}.stl`,
    '3D_PRINTING',
    (i % 7) + 1,
  ]
}
function asObject(i: number, draftId: string): object {
  const r = row(i)
  return {
    technique: r[0],
    material: r[1],
    quantity: r[2],
    email: r[3],
    firstName: r[4],
    lastName: r[5],
    shippingAddress: {city: r[6], country: r[7]},
    jobDetails: {takenAs: r[8]},
    quoteModel: [{fileName: r[9], service: r[10], quantity: r[11]}],
    draftId,
  }
}

const work = mkdtempSync(join(tmpdir(), 'mfg-bench-create-'))
const csv = join(work, 'rows.csv')
writeFileSync(csv, [header.join(','), ...Array.from({length: ROWS}, (_, i) => row(i).join(','))].join('\n') + '\n')

const cliMs: number[] = []
const baseMs: number[] = []
// The bare baseline: the same chunks without the Idempotency-Key header, for reference.
const bareMs: number[] = []
for (let run = 0; run < RUNS; run++) {
  // Alternate which goes first, each against a fresh sandbox, so neither gains from the order.
  for (const which of run % 2 ? ['baseline', 'bare', 'cli'] : ['cli', 'bare', 'baseline']) {
    const sb = await serveSandbox()
    const demo = sb.businesses[0]!
    try {
      if (which === 'cli') {
        const home = mkdtempSync(join(work, 'home-'))
        const r = await measure(
          [process.execPath, cli, 'demand', 'create', '--file', csv, '--concurrency', String(CONCURRENCY)],
          {
            MFG_HOME: home,
            MFG_BASE_URL: sb.url,
            MFG_API_KEY: demo.apiKey,
            MFG_BUSINESS_ID: demo.id,
          },
        )
        if (r.code !== 0 || r.stdoutLines !== ROWS)
          throw new Error(`CLI run failed (exit ${r.code}, ${r.stdoutLines} lines): ${r.stderr.slice(-2000)}`)
        cliMs.push(r.ms)
      } else {
        // The same requests as the CLI's: the same rows per chunk, each chunk with an
        // Idempotency-Key derived from its draftIds (the sandbox keeps the answer
        // of every keyed create, which costs it as much for either client).
        const chunks: {idempotencyKey: string; items: object[]}[] = []
        for (let i = 0; i < ROWS; i += 100) {
          const draftIds = Array.from({length: Math.min(100, ROWS - i)}, (_, k) => `${which}-${run}-${i + k}`)
          chunks.push({
            idempotencyKey: idempotencyKeyFor(draftIds),
            items: draftIds.map((draftId, k) => asObject(i + k, draftId)),
          })
        }
        const file = join(work, `chunks-${which}-${run}.json`)
        writeFileSync(file, JSON.stringify(which === 'bare' ? chunks.map((c) => c.items) : chunks))
        const r = await measure([
          process.execPath,
          join(root, 'bench/baseline/post-chunks.mjs'),
          file,
          sb.url,
          demo.id,
          demo.apiKey,
          String(CONCURRENCY),
        ])
        if (r.code !== 0) throw new Error(`baseline failed: ${r.stderr}`)
        ;(which === 'bare' ? bareMs : baseMs).push(r.ms)
      }
    } finally {
      await sb.stop()
    }
  }
}
rmSync(work, {recursive: true, force: true})

const ratio = median(cliMs) / median(baseMs)
const verdict = ratio <= TARGET ? 'met' : 'NOT met'
const table = `## demand create: ${ROWS.toLocaleString('en')} rows from CSV

Baseline: \`bench/baseline/post-chunks.mjs\`, the same rows in chunks of 100, each with an Idempotency-Key as the CLI sends them, posted over ${CONCURRENCY} keep-alive connections with nothing else (no parsing of CSV, validation, journal or output). Both against a fresh standalone \`mfg sandbox serve --memory\` per run; ${RUNS} runs each, alternating order; medians.

| | median ms | runs (ms) |
|---|---:|---|
| \`mfg demand create --file rows.csv --concurrency ${CONCURRENCY}\` | ${median(cliMs).toFixed(0)} | ${cliMs.map((x) => x.toFixed(0)).join(', ')} |
| baseline | ${median(baseMs).toFixed(0)} | ${baseMs.map((x) => x.toFixed(0)).join(', ')} |
| bare baseline (the same chunks without Idempotency-Key) | ${median(bareMs).toFixed(0)} | ${bareMs.map((x) => x.toFixed(0)).join(', ')} |

Ratio CLI / baseline: **${ratio.toFixed(2)}** (target ≤ ${TARGET}: ${verdict}). Per round (the CLI and the baseline of a round back to back), median and range: ${pairedRatios(cliMs, baseMs)}. For reference, CLI / bare baseline: ${(median(cliMs) / median(bareMs)).toFixed(2)}; the difference between the two baselines is what the sandbox spends keeping each keyed answer for replay. ${machine()}; load average at the end ${loadavg()
  .map((x) => x.toFixed(1))
  .join(' ')}.`
writeSection('demand-create', table)
console.log(table)
if (ratio > TARGET) process.exitCode = 1
