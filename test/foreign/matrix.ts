// Prints the foreign-server matrix: variant × command → ok / degraded / failed,
// table and --json, with a one-line reason for each case that is not ok and the
// totals. Needs the built CLI (npm run build).
//
//   npx tsx test/foreign/matrix.ts [--full] [--variant a,b] [--command "demand get,post list"] [--concurrency N] [--json]
//
// --full (or FOREIGN_FULL=1) runs every command against every variant, not only
// the SAMPLE commands for the variants that change every answer.
import {existsSync} from 'node:fs'
import {join, resolve} from 'node:path'
import {parseArgs} from 'node:util'

import {COMMANDS, VARIANTS, allCases, removeInputFiles, runCases, type CaseResult} from './cases.js'

const {values} = parseArgs({
  options: {
    variant: {type: 'string'},
    command: {type: 'string'},
    concurrency: {type: 'string'},
    json: {type: 'boolean'},
    full: {type: 'boolean'},
  },
})

const root = resolve(import.meta.dirname, '../..')
if (!existsSync(join(root, 'dist/commands/demand/list.js'))) {
  process.stderr.write('The built CLI is missing: run npm run build first.\n')
  process.exit(2)
}

const list = (s: string | undefined) => s?.split(',').map((x) => x.trim())
const cases = allCases({
  ...(values.full ? {full: true} : {}),
  ...(values.variant ? {variants: list(values.variant)} : {}),
  ...(values.command ? {commands: list(values.command)} : {}),
})
const started = Date.now()
const results = await runCases(cases, {
  ...(values.concurrency ? {concurrency: Number(values.concurrency)} : {}),
  onResult: (_, done) => {
    if (process.stderr.isTTY) process.stderr.write(`\r${done}/${cases.length} cases`)
  },
})
if (process.stderr.isTTY) process.stderr.write('\r')
removeInputFiles()
const seconds = Math.round((Date.now() - started) / 1000)

if (values.json) {
  const rows = [...results.values()].map((r) => ({
    variant: r.variant,
    command: r.command,
    mode: r.mode,
    verdict: r.verdict,
    exit: r.exit,
    requests: r.stats.served,
    ms: r.ms,
    problems: r.problems,
  }))
  process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`)
  process.exit(0)
}

const mark = (r: CaseResult | undefined) => (r ? {ok: '✓', degraded: '~', failed: '✗'}[r.verdict] : '·')
// Short column heads: the command ids without their topic where that stays unique.
const heads = COMMANDS.map((c, i) => `${String.fromCharCode(65 + i)}`)
const ran = VARIANTS.filter((v) => cases.some((c) => c.variant.name === v.name))
const width = Math.max(...ran.map((v) => v.name.length))

const lines: string[] = []
lines.push(
  'Columns (each cell: table then --json; ✓ ok, ~ degraded, ✗ failed, · not run: the variant does not reach it):',
)
COMMANDS.forEach((c, i) => lines.push(`  ${heads[i]}  ${c.id}`))
lines.push('')
lines.push(`${''.padEnd(width)}  ${heads.map((h) => h.padEnd(3)).join('')}`)
for (const v of ran) {
  const cells = COMMANDS.map((c) => {
    const t = results.get(`${v.name} × ${c.id} (table)`)
    const j = results.get(`${v.name} × ${c.id} (json)`)
    return `${mark(t)}${mark(j)} `
  })
  lines.push(`${v.name.padEnd(width)}  ${cells.join('')}`)
}
lines.push('')

const bad = [...results.values()].filter((r) => r.verdict !== 'ok')
if (bad.length > 0) {
  lines.push('Not ok:')
  for (const v of ran) {
    for (const r of bad.filter((x) => x.variant === v.name)) {
      lines.push(`  ${r.verdict === 'failed' ? '✗' : '~'} ${r.key}: ${r.problems[0]}`)
    }
  }
  lines.push('')
}

const count = (verdict: CaseResult['verdict']) => [...results.values()].filter((r) => r.verdict === verdict).length
lines.push(
  `${results.size} runs over ${ran.length} variants and ${COMMANDS.length} commands: ${count('ok')} ok, ${count('degraded')} degraded, ${count('failed')} failed (${seconds} s).`,
)
const slowest = [...results.values()].sort((a, b) => b.ms - a.ms).slice(0, 3)
lines.push(`Slowest: ${slowest.map((r) => `${r.key} ${(r.ms / 1000).toFixed(1)} s`).join('; ')}`)
process.stdout.write(`${lines.join('\n')}\n`)
