// `npm run deps:check`: the advisories against what a user installs, by
// `npm audit --omit=dev --audit-level=high`. A high or critical advisory fails it (exit 1,
// one line per package); a registry that cannot answer the audit (offline, a mirror
// without the audit endpoint, an error status) is a warning on stderr and exit 0, since
// nothing was learned either way. Arguments after the script's name go to npm (the test
// points `--registry` at a stand-in registry).
import {spawnSync} from 'node:child_process'

const npm = process.env.npm_execpath
  ? [process.execPath, [process.env.npm_execpath]]
  : [process.platform === 'win32' ? 'npm.cmd' : 'npm', []]
const [command, pre] = npm
const args = [...pre, 'audit', '--omit=dev', '--audit-level=high', '--json', ...process.argv.slice(2)]
const run = spawnSync(command, args, {encoding: 'utf8', maxBuffer: 64 * 1024 * 1024})
if (run.error) {
  process.stderr.write(`deps:check: could not run npm: ${run.error.message}\n`)
  process.exit(1)
}

let report
try {
  report = JSON.parse(run.stdout)
} catch {
  report = undefined
}
const counts = report?.metadata?.vulnerabilities

if (!counts) {
  // No report: npm did not get an answer it could read.
  const why = report?.message || report?.error?.summary || lastLine(run.stderr) || `npm exited ${run.status}`
  process.stderr.write(
    `deps:check: warning: the registry did not answer the audit (${why}); advisories were not checked\n`,
  )
  process.exit(0)
}

const serious = Object.values(report.vulnerabilities ?? {}).filter((v) => ['high', 'critical'].includes(v.severity))
if (serious.length > 0 || run.status !== 0) {
  for (const v of serious) {
    const advisories = (v.via ?? []).filter((via) => typeof via === 'object').map((via) => `${via.title} ${via.url}`)
    const through = (v.via ?? []).filter((via) => typeof via === 'string')
    const what = advisories.length ? advisories.join('; ') : `through ${through.join(', ')}`
    process.stderr.write(`deps:check: ${v.severity}: ${v.name}${v.range ? ` ${v.range}` : ''}: ${what}\n`)
  }
  if (serious.length === 0) process.stderr.write(`deps:check: npm audit exited ${run.status}\n${run.stderr}`)
  process.stderr.write(`deps:check: ${summary(counts)}; fix or explain in docs/dependencies.md\n`)
  process.exit(1)
}
process.stderr.write(`deps:check: no high or critical advisory (${summary(counts)})\n`)

function summary(c) {
  const parts = ['critical', 'high', 'moderate', 'low', 'info'].filter((s) => c[s]).map((s) => `${c[s]} ${s}`)
  return parts.length ? `advisories: ${parts.join(', ')}` : 'no advisories'
}

function lastLine(text) {
  return (text ?? '')
    .trim()
    .split('\n')
    .filter((l) => !/complete log of this run/.test(l))
    .at(-1)
}
