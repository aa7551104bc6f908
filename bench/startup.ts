// Start-up: whole `mfg` processes against `node -e 0` in the same run, every command
// through oclif except `--version` (issue 17's targets, ratios of medians):
// `mfg --version` ≤ 1.5, `mfg demand list --help` ≤ 2.5, `mfg profile list` ≤ 2.5,
// `mfg price measure examples/part.stl` ≤ 3.0, `mfg demand list --json` against a
// standalone sandbox ≤ 3.5. The commands run round-robin so that load on the machine
// hits them alike; NODE_EXTRA_CA_CERTS is unset because a CA bundle slows every Node
// start. The home is the bench's own, so the first (uncounted) run of each command
// fills Node's compile cache there and the counted runs are warm, as a user's are.
import {mkdtempSync, rmSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {join} from 'node:path'

import {
  benchEnv,
  buildOclifFloor,
  cli,
  machine,
  median,
  root,
  serveSandbox,
  timeSpawn as time,
  writeSection,
} from './lib.js'

const RUNS = Math.max(10, Number(process.env.BENCH_RUNS ?? 31))

interface Case {
  label: string
  argv: string[]
  target?: number
}

/** The middle half of a sample, as "low–high". */
function quartiles(xs: number[], digits: number): string {
  const s = [...xs].sort((a, b) => a - b)
  const at = (q: number) => s[Math.min(s.length - 1, Math.round(q * (s.length - 1)))]!
  return `${at(0.25).toFixed(digits)}–${at(0.75).toFixed(digits)}`
}

// Built first: a failed build then leaves no sandbox running behind it.
const floor = buildOclifFloor()
const sandbox = await serveSandbox()
const home = mkdtempSync(join(tmpdir(), 'mfg-bench-startup-'))
try {
  // The floor keeps its compile cache in the bench's home too.
  const env = {...benchEnv(sandbox, home), FLOOR_CACHE_DIR: join(home, 'floor')}
  const part = join(root, 'examples/part.stl')
  const node = process.execPath
  const cases: Case[] = [
    {label: '`node -e 0` (baseline)', argv: [node, '-e', '0']},
    {label: '`mfg --version`', argv: [node, cli, '--version'], target: 1.5},
    {label: '`mfg demand list --help`', argv: [node, cli, 'demand', 'list', '--help'], target: 2.5},
    {label: '`mfg profile list`', argv: [node, cli, 'profile', 'list'], target: 2.5},
    {label: '`mfg price measure examples/part.stl`', argv: [node, cli, 'price', 'measure', part], target: 3.0},
    {
      label: '`mfg demand list --json` (standalone sandbox)',
      argv: [node, cli, 'demand', 'list', '--json'],
      target: 3.5,
    },
    {label: '`mfg --help`', argv: [node, cli, '--help']},
    // Reference, not a target: an oclif CLI with two commands, built and started as mfg is.
    {label: 'floor: `hello` of bench/oclif-floor', argv: [node, floor.bin, 'hello']},
    {label: 'floor: `hello --help`', argv: [node, floor.bin, 'hello', '--help']},
  ]
  // Warm the file cache, the compile cache and the sandbox once; these runs are not counted.
  for (const c of cases) time(c.argv, env)
  const samples = cases.map(() => [] as number[])
  for (let run = 0; run < RUNS; run++) {
    // The order rotates each round, so that no command always follows the same one.
    for (let k = 0; k < cases.length; k++) {
      const i = (k + run) % cases.length
      samples[i]!.push(time(cases[i]!.argv, env))
    }
  }
  const base = median(samples[0]!)
  const rows = cases.map((c, i) => {
    const m = median(samples[i]!)
    const ratio = m / base
    // The same ratio taken round by round: its middle half is the noise of the ratio.
    const perRound = samples[i]!.map((x, r) => x / samples[0]![r]!)
    const verdict = c.target === undefined ? '' : ratio <= c.target ? `≤ ${c.target}: met` : `≤ ${c.target}: NOT met`
    return {c, m, ratio, verdict, spread: quartiles(samples[i]!, 0), ratioSpread: quartiles(perRound, 2)}
  })
  const table = [
    '| command | median ms | middle half ms | ratio to `node -e 0` | ratio per round, middle half | target |',
    '| --- | ---: | ---: | ---: | ---: | --- |',
    ...rows.map(
      (r) =>
        `| ${r.c.label} | ${r.m.toFixed(1)} | ${r.spread} | ${r.ratio.toFixed(2)} | ${r.ratioSpread} | ${r.verdict} |`,
    ),
  ].join('\n')
  const load = loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')
  writeSection(
    'startup',
    `## Start-up

\`bench/startup.ts\`: whole processes, spawned round-robin with the order rotating each round (${RUNS} runs each after one warm-up run, medians), with \`NODE_EXTRA_CA_CERTS\` unset. Baseline: \`node -e 0\` in the same run. Everything but \`--version\` goes through oclif's \`execute\`. The warm-up run fills Node's compile cache in the bench's own \`MFG_HOME\`, so the counted runs are warm. \`demand list --json\` reads the first page of the demo business from a standalone \`mfg sandbox serve --memory\` started by the script. The noise columns give the middle half (25th to 75th percentile) of the times, and of the ratio taken round by round.

${table}

What got there:
- \`--version\` is answered by \`bin/run.js\` from package.json without loading oclif; everything else goes through oclif's \`execute\`, which is handed that package.json.
- Every command is an entry of one esbuild build with code splitting (\`scripts/build.mjs\`): the CLI loads a few larger chunks instead of hundreds of files, and what a command needs only inside \`run()\` (HTTP client, sandbox, mesh, prompts, tables, MCP) sits in chunks loaded when imported.
- oclif's manifest (\`oclif.manifest.json\`, written by the build; the plugins ship theirs): no command module is imported to list, find or show help for a command.
- Node's compile cache (\`module.enableCompileCache\`, Node 22.1 and later) in \`<oclif cache dir>/compile\` (under \`MFG_HOME\` when set).
- Commands import what only some paths need when they need it; \`profile list\` and \`profile show\` read profiles without conf.
- A bundled import of a Node module reads only the exports it names (a small module per importing file over \`require\`), not an ES facade that reads every export: reading them all loads worker_threads (\`node:util\`'s \`TextDecoder\`), the process report, webcrypto and, on Node 22 and later, undici (\`node:http\`'s \`WebSocket\`).
- The two floor rows are the least such a start costs: \`bench/oclif-floor\` is an oclif CLI with two commands (\`hello\` parses a flag and prints a line; with two, oclif sorts the command ids at each start as it sorts mfg's, which starts ICU's collator), with mfg's plugins, built by mfg's \`scripts/build.mjs\` (its stand-ins included) with a manifest, and started as \`bin/run.js\` starts mfg (package.json handed in, the compile cache warm). Whatever a command of mfg does beyond that start shows as its distance from these rows.
- zod is imported as a namespace so the bundle leaves out its translated error messages (about 360 KB of locales); got's response cache and five packages inside oclif that mfg never exercises are replaced by stand-ins (below); no dependency's code is edited.

${machine()}; load average at the end ${load}. The CPU profile and the before and after of each change: "Start-up through oclif" below.`,
  )
  for (const r of rows)
    console.log(`${r.c.label}: ${r.m.toFixed(1)} ms, ratio ${r.ratio.toFixed(2)} (${r.ratioSpread}) ${r.verdict}`)
} finally {
  await sandbox.stop()
  rmSync(home, {recursive: true, force: true})
  rmSync(floor.dir, {recursive: true, force: true})
}
