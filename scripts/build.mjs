// Builds dist/: one ES module per command plus the entry points, code-split
// by esbuild so that commands share chunks and every module a command only
// needs inside run() (the HTTP client, the sandbox, the mesh readers, prompts,
// tables) stays in a chunk of its own, loaded when it is imported.
//
// Start-up cost of a Node CLI is mostly resolving and compiling many small
// files; a few larger chunks load faster. Packages that cannot be bundled (the
// server framework with its worker-based logger) or that oclif loads by path
// (its plugins) stay in node_modules. The sandbox's SQLite is Node's own
// node:sqlite, loaded on first use (src/sandbox/store/sql.ts).
import {existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {builtinModules} from 'node:module'
import {join, relative, resolve} from 'node:path'

import {build} from 'esbuild'

/** mfg's checkout: the stand-ins below come from here. */
const tools = resolve(import.meta.dirname, '..')
/**
 * The project built: mfg itself, or (`MFG_BUILD_PROJECT=DIR`) another oclif CLI laid out
 * the same way (src/main.ts, src/commands/), built with the same settings into DIR/dist:
 * bench/startup.ts builds bench/oclif-floor so, the least an oclif CLI built like mfg costs.
 */
const root = process.env.MFG_BUILD_PROJECT ? resolve(process.env.MFG_BUILD_PROJECT) : tools
const src = join(root, 'src')
const out = join(root, 'dist')

/**
 * Substitutions left out of this build, by name (`MFG_BUILD_WITHOUT=debug,ejs`): how
 * docs/benchmarks.md measures what each one saves, against a build with all of them.
 */
const WITHOUT = (process.env.MFG_BUILD_WITHOUT ?? '').split(',').filter(Boolean)

/**
 * Source maps only on request (`MFG_BUILD_SOURCEMAPS=1`, for a profiler or
 * `node --enable-source-maps`): the package ships none (package.json's `files`).
 */
const SOURCEMAPS = process.env.MFG_BUILD_SOURCEMAPS === '1'

/** Packages left to node_modules; everything else is bundled. */
const EXTERNAL = [
  '@oclif/plugin-autocomplete',
  // OpenCascade in WebAssembly: its .wasm is read from beside its .js at run time.
  'occt-import-js',
  // DXF's parser: run in a child process of its own, which loads it by path (src/mesh/dxf.ts).
  'dxf-parser',
  // jq compiled to WebAssembly (1.3 MB), loaded only by --jq.
  'jq-wasm',
  // Optional development-time requires inside @oclif/core.
  'typescript',
  'ts-node',
  'tsx',
  'pnpapi',
]

function packageName(spec) {
  const parts = spec.split('/')
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]
}

// got loads its optional response cache (cacheable-request, with keyv and
// http-cache-semantics) when it loads, although only the `cache` option uses it;
// mfg never passes one. It is replaced by a stand-in in src/api that fails loudly
// if it is ever asked for (docs/benchmarks.md has what that saves).
const gotStandIn = {
  name: 'got-stand-in',
  setup(b) {
    b.onResolve({filter: /^cacheable-request$/}, () => ({path: join(tools, 'src/api/no-cache.ts')}))
  },
}

// Packages @oclif/core loads that mfg never exercises, replaced in the build by
// small stand-ins (scripts/stand-ins/*.cjs; each says why). Less to compile at
// every start.
const STAND_INS = ['tinyglobby', 'ejs', 'cli-spinners', 'minimatch', 'debug'].filter((name) => !WITHOUT.includes(name))
const standIns = {
  name: 'oclif-stand-ins',
  setup(b) {
    b.onResolve({filter: new RegExp(`^(${STAND_INS.join('|')})$`)}, (args) => {
      if (!/@oclif[\\/]core[\\/]/.test(args.importer)) return undefined
      return {path: join(tools, 'scripts/stand-ins', `${args.path}.cjs`)}
    })
  },
}

// Node's modules read by name rather than through an ES import: an ES import of a
// built-in builds a facade module that reads every export once, and reading some
// exports loads what they stand for: node:util's TextDecoder loads worker_threads
// and the stream classes (2 to 5 ms), node:fs's ReadStream the stream classes,
// node:process's report and finalization, node:crypto's webcrypto, and on Node 22
// and later node:http's WebSocket, CloseEvent and MessageEvent load Node's fetch
// implementation (undici) with node:assert (about 74 modules, 10 to 20 ms of CPU).
// A bundled `import ... from 'node:x'` (or a bare `x`) resolves to a small ES module
// that requires `node:x` with the bundle's require (its banner) and exports its
// default and one binding per export, each read by a call marked pure, so that
// esbuild keeps only the bindings the importer uses. Each importing file gets a
// module of its own (the importer is part of its path): shared, it would keep the
// union of every importer's names and become a chunk of its own, one more file to
// load; this way it sits in its importer's chunk. A CommonJS require() of a
// built-in is left as written (it reads nothing), and so is a dynamic import().
// (A CommonJS stand-in module instead, as before, is no better: esbuild's interop
// copies every export with Object.getOwnPropertyDescriptor, which reads them all.)
function builtinsByName() {
  const namespace = 'builtin-by-name'
  return {
    name: 'builtins-by-name',
    setup(b) {
      b.onResolve({filter: /^[a-z_]/}, (args) => {
        const name = args.path.replace(/^node:/, '')
        if (name === args.path && !builtinModules.includes(name)) return undefined
        if (args.namespace === namespace || args.kind !== 'import-statement')
          return {path: `node:${name}`, external: true}
        return {path: `node:${name}`, namespace, suffix: `?${relative(root, args.importer)}`}
      })
      b.onLoad({filter: /.*/, namespace}, (args) => {
        const exports = Object.keys(process.getBuiltinModule(args.path)).filter(
          (key) => key !== 'default' && /^[A-Za-z_$][\w$]*$/.test(key),
        )
        return {
          contents: [
            `const m = require(${JSON.stringify(args.path)})`,
            'export default m',
            ...exports.map((key) => `export const ${key} = /* @__PURE__ */ (() => m.${key})()`),
          ].join('\n'),
          loader: 'js',
        }
      })
    },
  }
}

const externals = {
  name: 'mfg-externals',
  setup(b) {
    b.onResolve({filter: /^[^./]/}, (args) => {
      if (args.path.startsWith('node:')) return {path: args.path, external: true}
      if (EXTERNAL.includes(packageName(args.path))) return {path: args.path, external: true}
      return undefined
    })
  },
}

function commandEntries(dir) {
  const entries = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) entries.push(...commandEntries(path))
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) entries.push(path)
  }
  return entries
}

// The help class (src/help/index.ts, package.json's oclif.helpClass) is an entry of
// its own: oclif loads it by path, and it shares oclif's chunk with the commands,
// which the process has loaded by then, and no command's code.
const entryPoints = Object.fromEntries(
  [join(src, 'main.ts'), join(src, 'help/index.ts'), ...commandEntries(join(src, 'commands'))]
    .filter((file) => existsSync(file))
    .map((file) => [relative(src, file).replace(/\.ts$/, ''), file]),
)

rmSync(out, {recursive: true, force: true})
/** What every build below shares: ES modules in dist/, with linked source maps on request. */
const common = {
  outdir: out,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: SOURCEMAPS ? 'linked' : false,
  sourcesContent: false,
  logLevel: 'warning',
}

/** Less source for V8 to parse at each start; names are kept for stack traces. */
const minified = {legalComments: 'none', minifyWhitespace: true, minifySyntax: true}

// Bundled CommonJS modules call require() and read __dirname: an output file
// that names them gets its own, from this first line.
const shims = [
  "import {createRequire as __mfgCreateRequire} from 'node:module'",
  "import {fileURLToPath as __mfgFileURLToPath} from 'node:url'",
  "import {dirname as __mfgDirname} from 'node:path'",
  'const require = __mfgCreateRequire(import.meta.url)',
  'const __filename = __mfgFileURLToPath(import.meta.url)',
  'const __dirname = __mfgDirname(__filename)',
].join(';')

const result = await build({
  ...common,
  ...minified,
  entryPoints,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  metafile: true,
  plugins: [builtinsByName(), gotStandIn, standIns, externals].filter((plugin) => !WITHOUT.includes(plugin.name)),
  banner: {js: shims},
})

// Most files name none of them (a bundled require() becomes a call of esbuild's
// __require, which only the file defining it reads require for): their first line
// is emptied, which spares each its three imports and three calls at every start
// (docs/benchmarks.md). It stays a line, so that source maps still match.
if (!WITHOUT.includes('needed-shims')) {
  for (const file of Object.keys(result.metafile.outputs).filter((f) => f.endsWith('.js'))) {
    const path = resolve(file)
    const text = readFileSync(path, 'utf8')
    if (!text.startsWith(`${shims}\n`)) throw new Error(`build: ${file} does not start with the shims line`)
    const rest = text.slice(shims.length)
    if (!/\b(require|__filename|__dirname)\b/.test(rest)) writeFileSync(path, rest)
  }
}

// The Node.js check that bin/run.js runs first is a file of its own with no imports,
// in a syntax old releases still parse, so that it can tell their users what to install.
if (existsSync(join(src, 'engines.ts')))
  await build({...common, target: 'node14', entryPoints: {engines: join(src, 'engines.ts')}})

// The packages inside the bundle, for `npm run deps:check`: they are devDependencies (npm
// does not install them a second time), so an audit of what users install would miss them.
const bundled = new Set()
for (const input of Object.keys(result.metafile.inputs)) {
  // The innermost package: node_modules/a/node_modules/b/x.js is b's.
  const m = [...input.matchAll(/(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//g)].at(-1)
  if (m) bundled.add(m[1])
}
writeFileSync(join(out, 'bundled-packages.json'), `${JSON.stringify([...bundled].sort(), null, 1)}\n`)

const outputs = Object.entries(result.metafile.outputs).filter(([file]) => file.endsWith('.js'))
const bytes = outputs.reduce((sum, [, o]) => sum + o.bytes, 0)
if (process.env.MFG_BUILD_META)
  (await import('node:fs')).writeFileSync(process.env.MFG_BUILD_META, JSON.stringify(result.metafile))
process.stderr.write(`build: ${outputs.length} files, ${(bytes / 1024 / 1024).toFixed(1)} MB in dist/\n`)
