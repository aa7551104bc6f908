#!/usr/bin/env bash
# mfg installed as a user installs it: the package is built and packed (`npm pack`),
# the tarball installed into an empty prefix with no development dependencies
# (`npm install -g --omit=dev`), and the installed `mfg` run from an empty directory with a
# fresh MFG_HOME, on each Node.js given:
#
#   scripts/pack-check.sh [NODE ...]     # NODE: a node executable; default the one on PATH
#
# What it checks, failing with a line that names what went wrong:
# - the tarball: no source maps, no sources or tests, every command of the oclif manifest
#   and the entry points present;
# - the install: no warning from npm about install scripts or engines, and no installed
#   package with an install script (a user's install builds and runs nothing);
# - the installed CLI: `mfg --version`, `mfg help`, both plugins, the main job (`mfg demand create --file
#   quotes.json` on the embedded sandbox, then `mfg demand list` finding what it created),
#   `mfg price measure part.stl` and `plate.dxf` (dxf-parser, a dependency loaded by path in
#   a process of its own), and `mfg sandbox serve` answering one request, then
#   stopped with Ctrl-C (SIGINT).
# It prints the packed size, the installed size and the number of packages
# (docs/benchmarks.md, "Package size").
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
started=$SECONDS

fail() {
  echo "pack-check: FAILED: $*" >&2
  exit 1
}
say() { echo "pack-check: $*" >&2; }

nodes=("$@")
[ ${#nodes[@]} -gt 0 ] || nodes=("$(command -v node)")
for n in "${nodes[@]}"; do [ -x "$n" ] || fail "no node executable at $n"; done

work="$(mktemp -d)"
server=
cleanup() {
  if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then kill "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# 1. The tarball, of a fresh build (what `npm pack` does through the prepare script; run
# here so that the build's output stays apart from npm's JSON answer).
(cd "$root" && npm run build >"$work/build.out" 2>&1) || {
  cat "$work/build.out" >&2
  fail "npm run build"
}
(cd "$root" && npm pack --ignore-scripts --json --pack-destination "$work" >"$work/pack.json" 2>"$work/pack.err") || {
  cat "$work/pack.err" >&2
  fail "npm pack"
}
tarball="$work/$(node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))[0].filename)' "$work/pack.json")"
[ -f "$tarball" ] || fail "npm pack wrote no tarball"

# What the tarball holds, against what the package needs.
node - "$work/pack.json" "$root/oclif.manifest.json" <<'EOF' || fail "the tarball (above)"
const fs = require('fs')
const [pack] = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))
const manifest = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'))
const files = new Set(pack.files.map((f) => f.path))
const problems = []
for (const f of files) {
  if (f.endsWith('.map')) problems.push(`a source map: ${f}`)
  if (/^(src|test|bench|scripts|examples|docs)\//.test(f) || f === 'bin/dev.js') problems.push(`not for users: ${f}`)
}
const needed = ['package.json', 'README.md', 'LICENSE', 'bin/run.js', 'dist/main.js', 'dist/engines.js']
needed.push('dist/help/index.js', 'oclif.manifest.json')
for (const cmd of Object.values(manifest.commands)) needed.push(cmd.relativePath.join('/'))
for (const f of needed) if (!files.has(f)) problems.push(`missing: ${f}`)
for (const p of problems) console.error(`pack-check: ${p}`)
console.error(
  `pack-check: ${pack.filename}: ${pack.entryCount} files, packed ${(pack.size / 1e6).toFixed(2)} MB, ` +
    `unpacked ${(pack.unpackedSize / 1e6).toFixed(2)} MB (as npm counts, 10^6 bytes)`,
)
process.exit(problems.length ? 1 : 0)
EOF

# 2. The install: empty prefix, no development dependencies, no audit or funding noise,
# from an empty directory (no project .npmrc), and with npm 12's rule that an install
# script nobody allowed fails the install (`--strict-allow-scripts`).
# npm lists a file tarball's own `prepare` script as "not yet covered by allowScripts",
# although it never runs it for a tarball; the tarball, by its path, is allowed so that
# any other script npm finds fails the install. (From the registry, `prepare` is not an
# install script and mfg has none: docs/dependencies.md, "Install scripts".) The prefix
# is made first: npm 11.19's strict check fails (ENOENT) on a global folder not yet made.
prefix="$work/prefix"
mkdir -p "$prefix/lib/node_modules"
(cd "$work" && npm install -g --prefix "$prefix" --omit=dev --no-audit --no-fund --strict-allow-scripts \
  --allow-scripts="$tarball" "$tarball" >"$work/install.out" 2>&1) || {
  cat "$work/install.out" >&2
  fail "npm install -g of the tarball"
}
if grep -E 'install-scripts|allowScripts|EBADENGINE|ERESOLVE' "$work/install.out" >&2; then
  fail "npm warned while installing the tarball (above)"
fi
# Other warnings (a deprecated package deep in the tree) are shown, not failed on.
grep -E '^npm warn' "$work/install.out" | sed 's/^/pack-check: /' >&2 || true
packages="$(grep -oE 'added [0-9]+ packages?' "$work/install.out" | grep -oE '[0-9]+' || true)"
installed="$prefix/lib/node_modules/mfg"
[ -x "$prefix/bin/mfg" ] || fail "the install made no mfg command in $prefix/bin"

node - "$installed" <<'EOF' || fail "installed packages with install scripts (above)"
const fs = require('fs')
const path = require('path')
const found = []
function walk(dir) {
  for (const name of fs.readdirSync(dir)) {
    if (name.startsWith('.')) continue
    const at = path.join(dir, name)
    if (name.startsWith('@')) {
      walk(at)
      continue
    }
    const pj = path.join(at, 'package.json')
    if (!fs.existsSync(pj)) continue
    const {scripts = {}} = JSON.parse(fs.readFileSync(pj, 'utf8'))
    for (const s of ['preinstall', 'install', 'postinstall']) if (scripts[s]) found.push(`${at}: ${s}`)
    if (fs.existsSync(path.join(at, 'binding.gyp'))) found.push(`${at}: binding.gyp`)
    if (fs.existsSync(path.join(at, 'node_modules'))) walk(path.join(at, 'node_modules'))
  }
}
walk(path.join(process.argv[2], 'node_modules'))
for (const f of found) console.error(`pack-check: ${f}`)
process.exit(found.length ? 1 : 0)
EOF
say "installed: $(du -sh "$installed" | cut -f1) in $installed, ${packages:-?} packages (npm's count, mfg included)"

# 3. The installed CLI, from an empty directory, on each Node.js.
cp "$root/examples/quotes.json" "$root/examples/part.stl" "$root/examples/plate.dxf" "$work/"
for node in "${nodes[@]}"; do
  version="$("$node" --version)"
  run="$work/run-$version"
  mkdir -p "$run"
  cp "$work/quotes.json" "$work/part.stl" "$work/plate.dxf" "$run/"
  export MFG_HOME="$work/home-$version"
  export CI=true
  # Only the installed mfg and this Node.js: nothing from the checkout's node_modules.
  export PATH="$prefix/bin:$(dirname "$node"):/usr/local/bin:/usr/bin:/bin"
  cd "$run"
  say "Node.js $version: the installed mfg"

  out="$(mfg --version)" || fail "mfg --version ($version)"
  pkgversion="$(node -p 'require(process.argv[1]).version' "$installed/package.json")"
  [[ "$out" == "mfg/$pkgversion "*" node-$version" ]] || fail "mfg --version printed \"$out\" ($version)"

  mfg help >"$run/help.out" 2>"$run/help.err" || {
    cat "$run/help.err" >&2
    fail "mfg help ($version)"
  }
  for topic in demand price sandbox; do
    grep -qE "^  $topic " "$run/help.out" || fail "mfg help lists no \"$topic\" topic ($version)"
  done

  # The two plugins, which oclif loads by path from node_modules (and, if one is missing,
  # leaves out without a word): not-found answers a mistyped command, autocomplete runs.
  status=0
  mfg demnd >"$run/typo.out" 2>"$run/typo.err" || status=$?
  [ "$status" = 127 ] && grep -q 'is not a mfg command' "$run/typo.err" || {
    cat "$run/typo.err" >&2
    fail "mfg demnd: exit $status, not @oclif/plugin-not-found's answer ($version)"
  }
  mfg autocomplete bash >"$run/autocomplete.out" 2>"$run/autocomplete.err" || {
    cat "$run/autocomplete.err" >&2
    fail "mfg autocomplete bash ($version)"
  }
  grep -q 'Autocomplete' "$run/autocomplete.out" || fail "mfg autocomplete bash printed no instructions ($version)"

  # The main job; the embedded sandbox then lists what it had (its seed) and what it took.
  count() {
    mfg demand list --all --json >"$run/list.json" 2>"$run/list.err" || {
      cat "$run/list.err" >&2
      fail "mfg demand list --all ($version)"
    }
    # --all --json is NDJSON: one demand a line.
    node -e 'const t = require("fs").readFileSync(process.argv[1], "utf8"); console.log(t.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l)).length)' "$run/list.json"
  }
  before="$(count)"
  mfg demand create --file quotes.json --json >"$run/create.json" 2>"$run/create.err" || {
    cat "$run/create.err" >&2
    fail "mfg demand create --file quotes.json ($version)"
  }
  rows="$(node -p 'JSON.parse(require("fs").readFileSync("quotes.json", "utf8")).length')"
  created="$(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).created' "$run/create.json")"
  [ "$created" = "$rows" ] || fail "mfg demand create: $created of $rows rows created ($version)"
  after="$(count)"
  [ "$after" = "$((before + rows))" ] ||
    fail "the embedded sandbox lists $after demands after create, $before before, $rows created ($version)"

  mfg price measure part.stl --json >"$run/measure.json" 2>"$run/measure.err" || {
    cat "$run/measure.err" >&2
    fail "mfg price measure part.stl ($version)"
  }
  node -e '
    const m = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))
    if (!(m.volume > 0) || !(m.triangles > 0)) throw new Error(`no volume or triangles: ${JSON.stringify(m).slice(0, 200)}`)
  ' "$run/measure.json" || fail "mfg price measure: no measurement ($version)"

  mfg price measure plate.dxf --json >"$run/dxf.json" 2>"$run/dxf.err" || {
    cat "$run/dxf.err" >&2
    fail "mfg price measure plate.dxf ($version)"
  }
  node -e '
    const m = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))
    if (m.format !== "dxf" || !(m.areaMm2 > 0) || !(m.cutLengthMm > 0)) throw new Error(`no sheet measurement: ${JSON.stringify(m).slice(0, 200)}`)
  ' "$run/dxf.json" || fail "mfg price measure plate.dxf: no sheet measurement ($version)"

  mfg sandbox serve --memory --port 0 --json >"$run/serve.out" 2>"$run/serve.err" &
  server=$!
  for _ in $(seq 1 100); do
    [ -s "$run/serve.out" ] && break
    kill -0 "$server" 2>/dev/null || break
    sleep 0.1
  done
  [ -s "$run/serve.out" ] || {
    cat "$run/serve.err" >&2
    fail "mfg sandbox serve printed nothing in 10 s ($version)"
  }
  node -e '
    const {url, businesses: [b]} = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8").split("\n")[0])
    const headers = {authorization: `Bearer ${b.apiKey}`}
    fetch(`${url}/api/public/v1/demand/${b.id}/quotes`, {headers}).then(async (res) => {
      const body = await res.json()
      if (res.status !== 200 || !Array.isArray(body.data)) throw new Error(`${res.status} ${JSON.stringify(body).slice(0, 200)}`)
    })
  ' "$run/serve.out" || fail "mfg sandbox serve did not answer a request ($version)"
  kill -INT "$server"
  status=0
  wait "$server" || status=$?
  server=
  [ "$status" = 0 ] || [ "$status" = 130 ] || {
    cat "$run/serve.err" >&2
    fail "mfg sandbox serve exited $status after Ctrl-C ($version)"
  }
  cd "$root"
done

say "passed in $((SECONDS - started)) s"
