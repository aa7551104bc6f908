// Start-up: whole `mfg` processes against `node -e 0` in the same run.
// Targets (ratios of medians): `mfg --version` ≤ 2.0, `mfg demand list --help`
// ≤ 3.5, `mfg demand list --json` against a standalone sandbox ≤ 6.0.
// The commands run round-robin so that load on the machine hits them alike;
// NODE_EXTRA_CA_CERTS is unset because a CA bundle slows every Node start.
import {mkdtempSync, rmSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {join} from 'node:path'

import {benchEnv, cli, machine, median, serveSandbox, timeSpawn as time, writeSection} from './lib.js'
import {writeTorus} from './mesh-lib.js'

const RUNS = Math.max(10, Number(process.env.BENCH_RUNS ?? 21))

interface Case {
  label: string
  argv: string[]
  target?: number
}

const sandbox = await serveSandbox()
const home = mkdtempSync(join(tmpdir(), 'mfg-bench-startup-'))
try {
  const env = benchEnv(sandbox, home)
  // A small part (a 24 × 12 torus, 576 triangles): the command's start-up, not the mesh work.
  const part = join(home, 'part.stl')
  writeTorus(part, 24, 12)
  const node = process.execPath
  const cases: Case[] = [
    {label: '`node -e 0` (baseline)', argv: [node, '-e', '0']},
    {label: '`mfg --version`', argv: [node, cli, '--version'], target: 2.0},
    {label: '`mfg demand list --help`', argv: [node, cli, 'demand', 'list', '--help'], target: 3.5},
    {
      label: '`mfg demand list --json` (standalone sandbox)',
      argv: [node, cli, 'demand', 'list', '--json'],
      target: 6.0,
    },
    {label: '`mfg --help`', argv: [node, cli, '--help']},
    {
      label: '`mfg price measure part.stl --no-hull --json` (576 triangles)',
      argv: [node, cli, 'price', 'measure', part, '--no-hull', '--json'],
    },
  ]
  // Warm the file cache and the sandbox once; these runs are not counted.
  for (const c of cases) time(c.argv, env)
  const samples = cases.map(() => [] as number[])
  for (let run = 0; run < RUNS; run++) {
    cases.forEach((c, i) => samples[i]!.push(time(c.argv, env)))
  }
  const base = median(samples[0]!)
  const rows = cases.map((c, i) => {
    const m = median(samples[i]!)
    const ratio = m / base
    const verdict = c.target === undefined ? '' : ratio <= c.target ? `≤ ${c.target}: met` : `≤ ${c.target}: NOT met`
    return {c, m, ratio, verdict, min: Math.min(...samples[i]!), max: Math.max(...samples[i]!)}
  })
  const table = [
    '| command | median ms | min–max ms | ratio to `node -e 0` | target |',
    '| --- | ---: | ---: | ---: | --- |',
    ...rows.map(
      (r) =>
        `| ${r.c.label} | ${r.m.toFixed(1)} | ${r.min.toFixed(0)}–${r.max.toFixed(0)} | ${r.ratio.toFixed(2)} | ${r.verdict} |`,
    ),
  ].join('\n')
  const load = loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')
  writeSection(
    'startup',
    `## Start-up

Whole processes, spawned one after another round-robin (${RUNS} runs each after one warm-up run, medians), with \`NODE_EXTRA_CA_CERTS\` unset. Baseline: \`node -e 0\` in the same run. \`demand list --json\` reads the first page of the demo business from a standalone \`mfg sandbox serve --memory\` started by the script.

${table}

What got there:
- \`--version\` is answered by \`bin/run.js\` from package.json without loading oclif.
- Help (\`mfg\`, \`mfg help …\`, \`mfg TOPIC\`, \`… --help\`) is rendered by \`src/help/fast.ts\` from oclif.manifest.json and package.json, with nothing but \`node:fs\` and \`node:path\` loaded.
- Every command is an entry of one esbuild build with code splitting (\`scripts/build.mjs\`): the CLI loads a few larger chunks instead of hundreds of files, and what a command needs only inside \`run()\` (HTTP client, sandbox, mesh, prompts, tables, MCP) sits in chunks loaded when imported.
- zod is imported as a namespace so the bundle leaves out its translated error messages (about 360 KB of locales).
- got's optional response cache (cacheable-request, with keyv and http-cache-semantics), which got loads at start although mfg never passes a cache, is replaced in the build by a stand-in that fails loudly if it were ever asked for.
- Profiles are read straight from config.json; conf (with its JSON-schema validator) is loaded only by the commands that write profiles.
- One oclif plugin fewer: help is ours, so \`@oclif/plugin-help\` is not loaded.
- \`price measure\` in plain form is a direct command (\`src/direct\`): parsed against its manifest entry and run without loading oclif, from a build of its own.
- \`bin/run.js\` turns on Node's compile cache (\`module.enableCompileCache()\`) for everything past \`--version\`, and the commands' bundle requires \`node:http\` rather than importing it (on Node 22 and later its ES facade loads undici).
- \`bin/run.js\`, help and the direct commands take Node's modules from \`process.getBuiltinModule\` rather than importing them, so no ES facade reads every export (\`node:fs\`'s lazy \`ReadStream\` loads the stream classes).

${machine()}; load average at the end ${load}.`,
  )
  for (const r of rows) console.log(`${r.c.label}: ${r.m.toFixed(1)} ms, ratio ${r.ratio.toFixed(2)} ${r.verdict}`)
} finally {
  await sandbox.stop()
  rmSync(home, {recursive: true, force: true})
}
