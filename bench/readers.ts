// Our row readers against what would replace them, in the same run on the
// same rows (those of bench/validate-rss.ts), held in memory as 64 KiB pieces so
// that only the reading is timed. Each reader does the same work per row: parse
// it, check its depth, and make the row object the batch validates.
// - NDJSON: src/cli/rows.ts ndjsonBatches against node:readline splitting the lines.
// - A JSON array: jsonBatches (a bracket scan handing each element's text to
//   JSON.parse) against @streamparser/json, a maintained streaming parser that
//   builds each element itself. (stream-json, the other candidate, took about
//   2.5 times @streamparser/json's time in a one-off run, and says it is not
//   meant for untrusted input.)
// - CSV: csv.ts cutting text without quotes itself against csv-parse reading
//   the same text (csvRecords hands csv-parse every piece from the first one
//   holding a quote: the csv-parse side's header has its first field quoted).
//   Also each side's first reading of the demand-create bench's 10,000 rows in
//   a fresh process, as a command reads them: before the JIT has warmed up.
import {spawnSync} from 'node:child_process'
import {createInterface} from 'node:readline'
import {Readable} from 'node:stream'

import {JSONParser} from '@streamparser/json'

import {csvRecords} from '../src/cli/csv.js'
import {jsonBatches, ndjsonBatches} from '../src/cli/rows.js'
import {nestedDeeperThan} from '../src/schemas/depth.js'
import type {InputRow} from '../src/services/demands/batch-validate.js'
import {machine, median, ndjsonRow, pairedRatios, writeSection} from './lib.js'

const ROWS = Number(process.env.BENCH_ROWS ?? 200_000)
const RUNS = Number(process.env.BENCH_RUNS ?? 7)

const lines = Array.from({length: ROWS}, (_, i) => ndjsonRow(i))
const pieces = (text: string): string[] => {
  const out: string[] = []
  for (let i = 0; i < text.length; i += 64 * 1024) out.push(text.slice(i, i + 64 * 1024))
  return out
}
/** CSV rows as bench/demand-create.ts writes them, and the same header with its first field quoted. */
const CSV_HEADER =
  'technique,material,quantity,email,firstName,lastName,shippingAddress.city,shippingAddress.country,jobDetails.takenAs,quoteModel.0.fileName,quoteModel.0.service,quoteModel.0.quantity'
const CSV_MATERIALS = ['PLA', 'PETG', 'ABS', 'Standard Resin', 'PA12']
const csvText = (n: number, header: string) =>
  `${header}\n${Array.from(
    {length: n},
    (_, i) =>
      `3D_PRINTING,${CSV_MATERIALS[i % 5]},${(i % 7) + 1},buyer${i}@example.com,Ada,Client ${i},Lyon,FR,QUOTE,part-${i}.stl,3D_PRINTING,${(i % 7) + 1}`,
  ).join('\n')}\n`
const QUOTED_HEADER = `"${CSV_HEADER.replace(',', '",')}`
async function csvCount(list: string[]): Promise<number> {
  let n = 0
  for await (const batch of csvRecords(from(list))) n += batch.length
  return n - 1
}

// A fresh process reading the 10,000 rows once: `--cold ours|csv-parse` prints its CPU microseconds.
const coldArg = process.argv.indexOf('--cold')
if (coldArg !== -1) {
  const list = pieces(csvText(10_000, process.argv[coldArg + 1] === 'ours' ? CSV_HEADER : QUOTED_HEADER))
  const started = process.cpuUsage()
  if ((await csvCount(list)) !== 10_000) throw new Error('the CSV reader lost rows')
  const used = process.cpuUsage(started)
  console.log(used.user + used.system)
  process.exit(0)
}

const ndjson = pieces(`${lines.join('\n')}\n`)
const array = pieces(`[\n${lines.join(',\n')}\n]\n`)
lines.length = 0
const csvPlain = pieces(csvText(ROWS, CSV_HEADER))
const csvQuoted = pieces(csvText(ROWS, QUOTED_HEADER))

async function* from(list: string[]): AsyncGenerator<string> {
  yield* list
}

/** The row a reader makes of a parsed value, as ours do. */
const rowOf = (row: number, line: number | undefined, value: unknown): InputRow =>
  nestedDeeperThan(value) ? {row, raw: '', problems: [{path: '', reason: 'too deep'}]} : {row, line, value}

type Reader = () => Promise<number>

const readers: Record<string, {ours: Reader; theirs: Reader; theirName: string}> = {
  NDJSON: {
    async ours() {
      let n = 0
      for await (const batch of ndjsonBatches(from(ndjson), 'bench')) n += batch.length
      return n
    },
    theirName: 'node:readline',
    async theirs() {
      let n = 0
      let line = 0
      for await (const text of createInterface({input: Readable.from(ndjson), crlfDelay: Infinity})) {
        line++
        if (text.trim() === '') continue
        if (rowOf(n + 1, line, JSON.parse(text))) n++
      }
      return n
    },
  },
  'JSON array': {
    async ours() {
      let n = 0
      for await (const batch of jsonBatches(from(array), 'array', 'bench')) n += batch.length
      return n
    },
    theirName: '@streamparser/json',
    async theirs() {
      let n = 0
      const parser = new JSONParser({paths: ['$.*'], keepStack: false})
      parser.onValue = ({value}) => {
        if (rowOf(n + 1, undefined, value)) n++
      }
      for await (const piece of from(array)) parser.write(piece)
      return n
    },
  },
  CSV: {
    ours: () => csvCount(csvPlain),
    theirName: 'csv-parse',
    theirs: () => csvCount(csvQuoted),
  },
}

/**
 * CPU microseconds per row of one reading: the process's CPU time, which other
 * work on a shared machine disturbs less than the clock on the wall.
 */
async function time(read: Reader): Promise<number> {
  const started = process.cpuUsage()
  const n = await read()
  if (n !== ROWS) throw new Error(`read ${n} rows of ${ROWS}`)
  const used = process.cpuUsage(started)
  return (used.user + used.system) / ROWS
}

const rows: string[] = []
for (const [format, r] of Object.entries(readers)) {
  await time(r.ours)
  await time(r.theirs)
  const ours: number[] = []
  const theirs: number[] = []
  for (let run = 0; run < RUNS; run++) {
    // Alternating order, so neither side always runs on a warmer machine.
    if (run % 2 === 0) {
      ours.push(await time(r.ours))
      theirs.push(await time(r.theirs))
    } else {
      theirs.push(await time(r.theirs))
      ours.push(await time(r.ours))
    }
  }
  const f = (x: number) => x.toFixed(2)
  rows.push(
    `| ${format} | ${f(median(ours))} | ${r.theirName} | ${f(median(theirs))} | ${pairedRatios(theirs, ours)} |`,
  )
}

/** CPU milliseconds of each side's first reading of 10,000 CSV rows, each in a fresh process. */
const cold: Record<'ours' | 'csv-parse', number[]> = {ours: [], 'csv-parse': []}
for (let run = 0; run < RUNS; run++) {
  for (const side of run % 2 ? (['csv-parse', 'ours'] as const) : (['ours', 'csv-parse'] as const)) {
    const r = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!, '--cold', side], {encoding: 'utf8'})
    if (r.status !== 0) throw new Error(`the cold CSV run failed: ${r.stderr}`)
    cold[side].push(Number(r.stdout.trim()) / 1000)
  }
}
const coldRatio = pairedRatios(cold['csv-parse'], cold.ours)

const table = `## Row readers: ours against node:readline, @streamparser/json and csv-parse

${ROWS.toLocaleString('en')} rows (those of the peak-memory benchmark; for CSV, those of the demand-create benchmark), read from memory in 64 KiB pieces; each reader parses every row, checks its depth and makes the row object. ${RUNS} runs each after one warm-up, alternating order; medians in CPU microseconds per row (the process's CPU time), and the ratio library / ours per round as median (range).

| input | ours µs/row | library | library µs/row | library / ours |
|---|---:|---|---:|---:|
${rows.join('\n')}

Why ours stay. A JSON array: the scanner finds where each element begins and ends and hands its text to JSON.parse, where a streaming parser builds every value in JavaScript (and names no position in its errors, which ours must give as line and column). NDJSON: readline is no faster (the table), and it also ends a line at U+2028 and U+2029, which JSON.stringify leaves raw inside strings, so it would cut such rows in two (test/cli/read-batches.test.ts); ours ends lines at LF only, as NDJSON says, and hands a piece's rows over as one batch. CSV: csv-parse reads every text that holds a quote; text without one is cut at its line breaks and commas by csv.ts, with the engine's own string search, which a property test checks against csv-parse (test/fuzz/readers.test.ts). Warm, csv-parse costs the ratio above; on a command's first 10,000 rows, before the JIT has compiled its byte-by-byte loop, it costs ${median(cold['csv-parse']).toFixed(1)} ms of CPU against ${median(cold.ours).toFixed(1)} ms (each side's first reading in a fresh process, ${RUNS} runs each, alternating; per run ${coldRatio}), and that time is spent before a batch sends its first request. ${machine()}.`
writeSection('readers', table)
console.log(table)
