// `npm run deps:check`: the advisories against what a user runs. That is what npm installs
// with mfg (`npm audit --omit=dev`) and the packages esbuild bundled into dist/ (listed by
// the build in dist/bundled-packages.json): those are devDependencies, so the first audit
// does not see them, and an audit of the whole tree is kept to them. A high or critical
// advisory fails it (exit 1, one line per package); a registry that cannot answer the
// audit (offline, a mirror without the audit endpoint, an error status) is a warning on
// stderr and exit 0, since nothing was learned either way. Arguments after the script's
// name go to npm (the test points `--registry` at a stand-in registry).
import {spawnSync} from 'node:child_process'
import {existsSync, readFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const npm = process.env.npm_execpath
  ? [process.execPath, [process.env.npm_execpath]]
  : [process.platform === 'win32' ? 'npm.cmd' : 'npm', []]

/** One `npm audit --json` run: its report, or undefined (and why) when the registry gave none. */
function audit(extra) {
  const [command, pre] = npm
  const args = [...pre, 'audit', ...extra, '--audit-level=high', '--json', ...process.argv.slice(2)]
  const run = spawnSync(command, args, {encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, cwd: root})
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
  if (!report?.metadata?.vulnerabilities) {
    const why = report?.message || report?.error?.summary || lastLine(run.stderr) || `npm exited ${run.status}`
    return {why}
  }
  return {report}
}

const bundledFile = join(root, 'dist/bundled-packages.json')
const bundled = existsSync(bundledFile) ? new Set(JSON.parse(readFileSync(bundledFile, 'utf8'))) : undefined
const installed = audit(['--omit=dev'])
if (!installed.report) {
  // No report: npm did not get an answer it could read.
  process.stderr.write(
    `deps:check: warning: the registry did not answer the audit (${installed.why}); advisories were not checked\n`,
  )
  process.exit(0)
}
const found = Object.values(installed.report.vulnerabilities ?? {})
if (bundled) {
  const whole = audit([])
  if (whole.report) {
    const seen = new Set(found.map((v) => v.name))
    for (const v of Object.values(whole.report.vulnerabilities ?? {}))
      if (bundled.has(v.name) && !seen.has(v.name)) found.push({...v, bundled: true})
  } else process.stderr.write(`deps:check: warning: the bundled packages were not audited (${whole.why})\n`)
} else {
  process.stderr.write(
    'deps:check: warning: no dist/bundled-packages.json (run npm run build); the bundle was not audited\n',
  )
}
const counts = {}
for (const v of found) counts[v.severity] = (counts[v.severity] ?? 0) + 1
const serious = found.filter((v) => ['high', 'critical'].includes(v.severity))
if (serious.length > 0) {
  for (const v of serious) {
    const advisories = (v.via ?? []).filter((via) => typeof via === 'object').map((via) => `${via.title} ${via.url}`)
    const through = (v.via ?? []).filter((via) => typeof via === 'string')
    const what = advisories.length ? advisories.join('; ') : `through ${through.join(', ')}`
    const where = v.bundled ? ' (bundled in dist/)' : ''
    process.stderr.write(`deps:check: ${v.severity}: ${v.name}${v.range ? ` ${v.range}` : ''}${where}: ${what}\n`)
  }
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
