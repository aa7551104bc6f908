// Runs an `mfg` command as a child process from the TypeScript sources (the
// command class under tsx, through run-command.ts: no build, no manifest), for
// the commands that serve or read stdin until it closes: those cannot run in
// the test's own process.
import {spawn, type ChildProcess} from 'node:child_process'
import {resolve} from 'node:path'

const root = resolve(import.meta.dirname, '../..')

export interface Spawned {
  child: ChildProcess
  stdout(): string
  stderr(): string
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>
  /** Waits until stdout + stderr match, or the child exits (then rejects with what it printed). */
  waitFor(pattern: RegExp, what: string): Promise<RegExpExecArray>
}

/** Starts `mfg ARGV` with only the given MFG_* variables (plus PATH, HOME, NO_COLOR, CI). */
export function spawnMfg(argv: string[], env: Record<string, string | undefined>): Spawned {
  const given = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined))
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(root, 'test/security/run-command.ts'), ...argv], {
    cwd: root,
    env: {PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', CI: 'true', ...given},
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  const listeners = new Set<() => void>()
  const changed = () => {
    for (const l of [...listeners]) l()
  }
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString('utf8')
    changed()
  })
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString('utf8')
    changed()
  })
  let gone = false
  // 'close' rather than 'exit': by then everything the child printed has been read.
  const exited = new Promise<number | null>((done) =>
    child.on('close', (code) => {
      gone = true
      done(code)
      changed()
    }),
  )
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern, what) {
      return new Promise((done, fail) => {
        const check = () => {
          const m = pattern.exec(out + err)
          if (m) {
            listeners.delete(check)
            done(m)
          } else if (gone) {
            listeners.delete(check)
            fail(new Error(`mfg ${argv.join(' ')} exited before ${what}.\nstdout: ${out}\nstderr: ${err}`))
          }
        }
        listeners.add(check)
        check()
      })
    },
  }
}
