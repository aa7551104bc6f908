// Which Node.js releases mfg runs on. package.json's `engines.node` is the one
// statement of it; bin/run.js refuses other releases with this module before it
// loads anything else, and `mfg doctor` reports from it. It imports nothing and
// is built as an entry of its own, so it loads in a moment even on an old Node.
//
// Only the forms package.json uses are understood: alternatives joined by `||`,
// each a `^X.Y.Z` or `>=X.Y.Z` (a shorter version fills with zeros), or several
// comparators (`>=`, `>`, `<=`, `<`, `=`) separated by spaces that must all hold.

type Version = [number, number, number]

/** `v22.1.0`, `22.1`, `22` → [22, 1, 0]; undefined for anything else. */
export function parseVersion(text: string): Version | undefined {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:[-+].*)?$/.exec(text.trim())
  if (!m) return undefined
  return [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)]
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!
  return 0
}

type Comparator = {op: '^' | '>=' | '>' | '<=' | '<' | '='; version: Version}

function parseAlternative(text: string): Comparator[] | undefined {
  const comparators: Comparator[] = []
  for (const part of text.trim().split(/\s+/)) {
    const m = /^(\^|>=|>|<=|<|=)?\s*(.+)$/.exec(part)
    const version = m ? parseVersion(m[2]!) : undefined
    if (!m || !version) return undefined
    comparators.push({op: (m[1] ?? '=') as Comparator['op'], version})
  }
  return comparators.length > 0 ? comparators : undefined
}

function holds(v: Version, c: Comparator): boolean {
  const d = compare(v, c.version)
  switch (c.op) {
    case '^':
      return v[0] === c.version[0] && d >= 0
    case '>=':
      return d >= 0
    case '>':
      return d > 0
    case '<=':
      return d <= 0
    case '<':
      return d < 0
    default:
      return d === 0
  }
}

function show(v: Version): string {
  return v[1] === 0 && v[2] === 0 ? String(v[0]) : v.join('.')
}

function describeAlternative(cs: Comparator[]): string {
  if (cs.length === 1) {
    const c = cs[0]!
    if (c.op === '^') return `${show(c.version)} or a later ${c.version[0]}.x`
    if (c.op === '>=') return `${show(c.version)} or later`
  }
  return cs.map((c) => `${c.op}${show(c.version)}`).join(' ')
}

export interface NodeSupport {
  /** Whether `version` satisfies the range; undefined when the range is in a form this module does not read. */
  satisfied: boolean | undefined
  /** The range in words: "22.22.2 or a later 22.x, 24.15.0 or a later 24.x, or 26 or later". */
  wanted: string
}

/** Checks a Node.js version (`process.version`) against an engines range. */
export function checkNode(version: string, range: string): NodeSupport {
  const alternatives = range.split('||').map(parseAlternative)
  const current = parseVersion(version)
  if (!current || alternatives.some((a) => a === undefined)) return {satisfied: undefined, wanted: range}
  const parsed = alternatives as Comparator[][]
  const words = parsed.map(describeAlternative)
  const last = words[words.length - 1]!
  const wanted = words.length > 1 ? `${words.slice(0, -1).join(', ')}${words.length > 2 ? ',' : ''} or ${last}` : last
  return {satisfied: parsed.some((cs) => cs.every((c) => holds(current, c))), wanted}
}

/** The one line every command prints on a Node.js that mfg does not support. */
export function unsupportedNodeMessage(version: string, range: string): string | undefined {
  const {satisfied, wanted} = checkNode(version, range)
  if (satisfied !== false) return undefined
  return `Error: mfg needs Node.js ${wanted}; this is ${version}.`
}

/** The few Node.js modules `runOnProjectNode` needs, as process.getBuiltinModule gives them (Node 20.16 and later). */
interface Builtins {
  fs: {existsSync(path: string): boolean; readFileSync(path: string, encoding: 'utf8'): string}
  path: {join(...parts: string[]): string}
  tty: {isatty(fd: number): boolean}
  cp: {
    spawn(
      command: string,
      args: string[],
      options: {stdio: 'inherit'},
    ): {
      kill(signal: string): boolean
      on(event: 'exit', listener: (code: number | null, signal: string | null) => void): void
      on(event: 'error', listener: (error: Error) => void): void
    }
  }
}

function builtins(): Builtins | undefined {
  const get = (process as {getBuiltinModule?: (id: string) => unknown}).getBuiltinModule
  if (!get) return undefined
  return {
    fs: get('node:fs') as Builtins['fs'],
    path: get('node:path') as Builtins['path'],
    tty: get('node:tty') as Builtins['tty'],
    cp: get('node:child_process') as Builtins['cp'],
  }
}

/**
 * On a Node.js mfg does not support. In a clone of the repository, where
 * `npm ci` installed the Node.js it brings for development (its devDependency
 * `node`), the same command runs on that one instead, with the terminal, the
 * exit status and the signals passed through: `./bin/run.js` and `npm link`'s
 * `mfg` then work on a machine whose own `node` is older. Anywhere else (an
 * installed package has no such Node.js) `message` is printed and the exit
 * code is 1.
 */
export function runOnProjectNode(root: string, script: string, range: string, message: string): void {
  const b = builtins()
  const node = b && b.path.join(root, 'node_modules', 'node', 'bin', process.platform === 'win32' ? 'node.exe' : 'node')
  let version: string | undefined
  try {
    if (b && node && b.fs.existsSync(node)) {
      version = (
        JSON.parse(b.fs.readFileSync(b.path.join(root, 'node_modules', 'node', 'package.json'), 'utf8')) as {
          version?: string
        }
      ).version
    }
  } catch {
    version = undefined
  }
  if (!b || !node || version === undefined || checkNode(version, range).satisfied !== true) {
    process.stderr.write(`${message}\n`)
    process.exit(1)
  }
  const child = b.cp.spawn(node, [script, ...process.argv.slice(2)], {stdio: 'inherit'})
  // Ctrl-C at a terminal reaches both processes (the terminal's foreground group): this one
  // leaves it to mfg, for a second Ctrl-C means "stop now" there. A SIGINT sent to this
  // process alone (a supervisor, `kill -INT`, a job in the background) is passed on, as are
  // SIGTERM and SIGHUP.
  process.on('SIGINT', () => {
    if (!inTerminalForeground(b)) child.kill('SIGINT')
  })
  for (const signal of ['SIGTERM', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal))
  child.on('error', (error) => {
    process.stderr.write(`${message} (${node}: ${error.message})\n`)
    process.exit(1)
  })
  child.on('exit', (code, signal) => {
    if (signal === null) process.exit(code ?? 1)
    // Ended by a signal: end the same way, so that the shell sees what it would have.
    process.removeAllListeners(signal)
    process.kill(process.pid, signal)
  })
}

/**
 * Whether this process is in its terminal's foreground process group, where the terminal
 * sends Ctrl-C's SIGINT to every process of the group. Read from /proc (Linux): the
 * fields after the command's name are state, ppid, pgrp, session, tty_nr and tpgid (the
 * terminal's foreground group, -1 without a terminal). Elsewhere, a terminal on stdin.
 */
function inTerminalForeground({fs, tty}: Builtins): boolean {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8')
    const [, , pgrp, , , tpgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return Number(tpgid) > 0 && tpgid === pgrp
  } catch {
    return tty.isatty(0)
  }
}
