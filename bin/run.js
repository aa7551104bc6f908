#!/usr/bin/env node
// The Node.js check (src/engines.ts), imported statically: linked with this file, it
// costs nothing measurable, where a dynamic import cost 0.8 ms of every --version.
import {unsupportedNodeMessage} from '../dist/engines.js'

// Node's modules are taken with process.getBuiltinModule (Node 20.16 and later; older
// ones require them), not imported: see builtinsByRequire in scripts/build.mjs.
const builtin = process.getBuiltinModule
  ? (id) => process.getBuiltinModule(id)
  : (await import('node:module')).createRequire(import.meta.url)
const {readFileSync} = builtin('node:fs')
const {join} = builtin('node:path')
const {fileURLToPath} = builtin('node:url')

const args = process.argv.slice(2)
const root = fileURLToPath(new URL('..', import.meta.url))

// package.json is read once here, for every path below and for oclif.
const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))

// package.json's engines say which Node.js releases mfg runs on; any other one gets
// a single line saying so, before anything that could fail on it is loaded.
const unsupported = unsupportedNodeMessage(process.version, pjson.engines.node)
if (unsupported) {
  process.stderr.write(`${unsupported}\n`)
  process.exit(1)
}

// The fast paths answer without loading oclif: `--version` is what scripts call
// most; help and unknown commands are answered from the manifest the build
// writes; and the direct commands (src/direct: `price measure`) run without
// oclif when their arguments are in plain form.
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  process.stdout.write(`mfg/${pjson.version} ${process.platform}-${process.arch} node-${process.version}\n`)
} else if (!(await answeredWithoutOclif())) {
  // MFG_HOME relocates every file mfg writes, oclif's own cache and data included.
  if (process.env.MFG_HOME) {
    for (const dir of ['CACHE', 'DATA', 'CONFIG']) {
      process.env[`MFG_${dir}_DIR`] ??= join(process.env.MFG_HOME, 'oclif', dir.toLowerCase())
    }
  }
  // oclif is handed the package.json read above rather than reading it again.
  // The completion plugin adds `mfg autocomplete` alone: every other command
  // starts without loading it, and without looking for user-installed plugins
  // (mfg has none to install).
  if (!args[0]?.startsWith('autocomplete')) delete pjson.oclif.plugins
  const {execute} = await import('../dist/main.js')
  await execute({loadOptions: {root, pjson, userPlugins: false, devPlugins: false}})
}

async function answeredWithoutOclif() {
  // Compiled code is cached between runs where Node.js can (22.1 and later): worth it
  // for everything past --version, which it would only slow (measured: 3 ms).
  builtin('node:module').enableCompileCache?.()
  const fast = await import('../dist/help/fast.js')
  const data = fast.loadHelpData(root, pjson)
  if (!data) return false
  if (fast.answerFast(args, data)) return true
  const direct = fast.directCommand(args, data)
  if (!direct) return false
  return (await import('../dist/direct/index.js')).runDirect(direct.id, direct.argv, direct.manifest)
}
