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
import {readdirSync, rmSync, statSync} from 'node:fs'
import {builtinModules} from 'node:module'
import {join, relative, resolve} from 'node:path'

import {build} from 'esbuild'

const root = resolve(import.meta.dirname, '..')
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
  'fastify',
  '@fastify/multipart',
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
    b.onResolve({filter: /^cacheable-request$/}, () => ({path: join(src, 'api/no-cache.ts')}))
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
      return {path: join(root, 'scripts/stand-ins', `${args.path}.cjs`)}
    })
  },
}

// Node's modules through require() rather than import: an ES import of a
// built-in builds a facade module, reading every export once, and a lazy export
// then loads what it stands for: on Node 22 and later node:http's WebSocket,
// CloseEvent and MessageEvent load Node's fetch implementation (undici) with
// node:assert, about 74 modules and 10 to 20 ms of CPU, for every command that
// imports got or the sandbox's server.
// A bundled import of `node:x` (or a bare `x`) resolves to a small CommonJS
// module that requires `node:x` with the bundle's require (its banner), so a
// module's exports are read where they are used, and a module imported only by
// code in a chunk loaded later (or first run later) is loaded then. `only`
// limits this to the named modules: each such module is shared between commands
// and becomes a chunk of its own.
function builtinsByRequire(only) {
  return {
    name: 'builtins-by-require',
    setup(b) {
      b.onResolve({filter: /^[a-z_]/}, (args) => {
        const name = args.path.replace(/^node:/, '')
        if (name === args.path && !builtinModules.includes(name)) return undefined
        if (args.namespace === 'builtin') return {path: args.path, external: true}
        if (only && !only.includes(name)) return undefined
        return {path: `node:${name}`, namespace: 'builtin'}
      })
      b.onLoad({filter: /.*/, namespace: 'builtin'}, (args) => ({
        contents: `module.exports = require(${JSON.stringify(args.path)})`,
        loader: 'js',
      }))
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
  [join(src, 'main.ts'), join(src, 'help/index.ts'), ...commandEntries(join(src, 'commands'))].map((file) => [
    relative(src, file).replace(/\.ts$/, ''),
    file,
  ]),
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

const result = await build({
  ...common,
  ...minified,
  entryPoints,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  metafile: true,
  // Only node:http in this build: requiring every built-in saved no more (node:fs's
  // stream classes load with got anyway) and made 20 more chunks.
  plugins: [builtinsByRequire(['http']), gotStandIn, standIns, externals].filter(
    (plugin) => !WITHOUT.includes(plugin.name),
  ),
  // Bundled CommonJS modules call require() and read __dirname; give every
  // output file its own.
  banner: {
    js: [
      "import {createRequire as __mfgCreateRequire} from 'node:module'",
      "import {fileURLToPath as __mfgFileURLToPath} from 'node:url'",
      "import {dirname as __mfgDirname} from 'node:path'",
      'const require = __mfgCreateRequire(import.meta.url)',
      'const __filename = __mfgFileURLToPath(import.meta.url)',
      'const __dirname = __mfgDirname(__filename)',
    ].join(';'),
  },
})

// The Node.js check that bin/run.js runs first is a file of its own with no imports,
// in a syntax old releases still parse, so that it can tell their users what to install.
await build({...common, target: 'node14', entryPoints: {engines: join(src, 'engines.ts')}})

const outputs = Object.entries(result.metafile.outputs).filter(([file]) => file.endsWith('.js'))
const bytes = outputs.reduce((sum, [, o]) => sum + o.bytes, 0)
if (process.env.MFG_BUILD_META)
  (await import('node:fs')).writeFileSync(process.env.MFG_BUILD_META, JSON.stringify(result.metafile))
process.stderr.write(`build: ${outputs.length} files, ${(bytes / 1024 / 1024).toFixed(1)} MB in dist/\n`)
