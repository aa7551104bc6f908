#!/usr/bin/env node
// mfg's entry point: check the Node.js release, answer `--version`, and hand
// everything else (commands, help, unknown commands, plugins, hooks) to oclif.

// The Node.js check (src/engines.ts), imported statically: linked with this file, it
// costs nothing measurable, where a dynamic import cost 0.8 ms of every --version.
import {runOnProjectNode, unsupportedNodeMessage} from '../dist/engines.js'

// Node's modules are taken with process.getBuiltinModule (Node 20.16 and later; older
// ones require them) rather than imported: an ES import of node:fs builds a facade that
// reads every export, and its lazy ReadStream then loads the stream classes.
const builtin = process.getBuiltinModule
  ? (id) => process.getBuiltinModule(id)
  : (await import('node:module')).createRequire(import.meta.url)
const {readFileSync} = builtin('node:fs')
const {join} = builtin('node:path')
const {fileURLToPath} = builtin('node:url')

const root = fileURLToPath(new URL('..', import.meta.url))
// Read once, checked here and handed to oclif, which then need not read it again.
const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))

const unsupported = unsupportedNodeMessage(process.version, pjson.engines.node)

// mfg checks its own engines (above); oclif's check of its own, at load, would only
// load semver to repeat it, so it is turned off through its switch.
process.env.OCLIF_DISABLE_ENGINE_WARNING ??= '1'

const args = process.argv.slice(2)
if (unsupported) {
  // In a clone, the Node.js the repository brings runs the command; elsewhere this says what is needed.
  runOnProjectNode(root, fileURLToPath(import.meta.url), pjson.engines.node, unsupported)
} else if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  // Scripts call `--version` most: it is answered in oclif's format without loading oclif.
  process.stdout.write(`mfg/${pjson.version} ${process.platform}-${process.arch} node-${process.version}\n`)
} else {
  // MFG_HOME relocates every file mfg writes, oclif's own cache, data and config included.
  if (process.env.MFG_HOME) {
    for (const dir of ['CACHE', 'DATA', 'CONFIG'])
      process.env[`MFG_${dir}_DIR`] ??= join(process.env.MFG_HOME, 'oclif', dir.toLowerCase())
  }
  // No colours where no terminal shows them (or TERM=dumb), unless FORCE_COLOR asks: mfg's own
  // output keeps that rule; oclif and its plugins colour through ansis, which takes CI for a terminal.
  const {isatty} = builtin('node:tty')
  const env = process.env
  if (
    env.FORCE_COLOR === undefined &&
    env.NO_COLOR === undefined &&
    (env.TERM === 'dumb' || (!isatty(1) && !isatty(2)))
  )
    env.NO_COLOR = '1'
  // Compiled code is kept between runs (Node 22.1 and later) in oclif's cache directory,
  // made owner-only first whatever the umask: Node would make it (and MFG_HOME above it)
  // writable by everyone under umask 000, and code in it runs.
  // One directory per release: the first run of a release makes its own and removes the others',
  // whose code is gone after an upgrade (a few MB each, never read again).
  const cache = cacheDir()
  const compileRoot = join(cache, 'compile')
  const compileCache = join(compileRoot, pjson.version)
  try {
    const fs = builtin('node:fs')
    if (fs.mkdirSync(compileCache, {recursive: true, mode: 0o700}) !== undefined) {
      for (const entry of fs.readdirSync(compileRoot))
        if (entry !== pjson.version) fs.rmSync(join(compileRoot, entry), {recursive: true, force: true})
    }
  } catch {
    // No cache then (a read-only home): Node leaves it off too.
  }
  builtin('node:module').enableCompileCache?.(compileCache)
  const {execute} = await import('../dist/main.js')
  // oclif reads the plugins a user linked from package.json in its data directory, and
  // warns (a Node.js warning, on every command) when that cannot be read for any reason but
  // its absence: a data directory under a file, or another user's. No plugins then, quietly:
  // what mfg itself keeps there is said where it is written.
  let userPlugins = true
  try {
    builtin('node:fs').accessSync(join(dataDir(), 'package.json'))
  } catch (error) {
    userPlugins = error.code === 'ENOENT'
  }
  // Shell completion, once `mfg autocomplete` has built it: rebuilt after an upgrade (src/cli/completion-cache.ts).
  const completion = join(cache, 'autocomplete')
  await execute({
    loadOptions: {root, pjson, ...(userPlugins ? {} : {userPlugins})},
    ...(args[0] === 'autocomplete' || builtin('node:fs').existsSync(completion)
      ? {completion: {dir: completion, root, version: pjson.version}}
      : {}),
  })
}

/** The user's home directory as oclif's Config finds it. */
function home() {
  const windows = process.platform === 'win32'
  return (
    process.env.HOME ||
    (windows && process.env.HOMEDRIVE && process.env.HOMEPATH && join(process.env.HOMEDRIVE, process.env.HOMEPATH)) ||
    (windows && process.env.USERPROFILE) ||
    builtin('node:os').homedir()
  )
}

/** oclif's cache directory for mfg (Config's cacheDir), without loading oclif to ask it. */
function cacheDir() {
  if (process.env.MFG_CACHE_DIR) return process.env.MFG_CACHE_DIR
  if (process.platform === 'darwin') return join(home(), 'Library', 'Caches', 'mfg')
  const local = process.platform === 'win32' && process.env.LOCALAPPDATA
  return join(process.env.XDG_CACHE_HOME || local || join(home(), '.cache'), 'mfg')
}

/** oclif's data directory for mfg (Config's dataDir), as cacheDir. */
function dataDir() {
  if (process.env.MFG_DATA_DIR) return process.env.MFG_DATA_DIR
  const local = process.platform === 'win32' && process.env.LOCALAPPDATA
  return join(process.env.XDG_DATA_HOME || local || join(home(), '.local', 'share'), 'mfg')
}
