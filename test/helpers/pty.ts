// The built CLI on a real pseudo-terminal: util-linux `script` opens a pty and makes it
// the CLI's stdin, stdout and stderr, so the CLI sees a terminal as a user's shell would
// give it (raw mode, echo off for hidden input, cursor movement, Ctrl-C as SIGINT). A test
// types keys into the pty and reads what the terminal shows.
import {spawn} from 'node:child_process'
import {join, resolve} from 'node:path'
import {stripVTControlCharacters} from 'node:util'

const root = resolve(import.meta.dirname, '../..')

export interface Terminal {
  /** Everything the terminal has shown so far, escape sequences removed. */
  shown(): string
  /** Resolves once the terminal shows `text` after everything shown before this call; rejects if the CLI exits first. */
  waitFor(text: string): Promise<void>
  /** Types into the terminal, as a user's keystrokes. */
  type(keys: string): void
  /** The CLI's exit code and the whole transcript, once it has exited. */
  exited: Promise<{code: number | null; shown: string}>
}

const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`

/**
 * Starts the built CLI (bin/run.js, this process's Node) on a pseudo-terminal, `columns` wide when given;
 * its stderr to the file `stderrTo` instead when given (to tell what went to stdout from what went to stderr).
 */
export function inTerminal(argv: string[], env: Record<string, string>, columns?: number, stderrTo?: string): Terminal {
  // CI unset unless `env` sets it: the CLI prompts and draws progress only where it is not.
  const childEnv: NodeJS.ProcessEnv = {...process.env, CI: undefined, ...env, TERM: 'xterm'}
  let cli = [process.execPath, join(root, 'bin/run.js'), ...argv].map(quote).join(' ')
  if (stderrTo !== undefined) cli += ` 2>${quote(stderrTo)}`
  // `script` gives the pty its own terminal's size (none under a test runner): stty sets it.
  const command = columns === undefined ? cli : `stty cols ${columns} rows 50 && ${cli}`
  const child = spawn('script', ['--quiet', '--return', '--command', command, '/dev/null'], {
    env: childEnv,
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  let raw = ''
  let from = 0
  let exit: {code: number | null} | undefined
  const watchers = new Set<() => void>()
  const notify = () => {
    for (const w of [...watchers]) w()
  }
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (chunk: string) => {
    raw += chunk
    notify()
  })
  const exited = new Promise<{code: number | null; shown: string}>((resolveExit, rejectExit) => {
    child.on('error', rejectExit)
    child.on('close', (code) => {
      exit = {code}
      notify()
      resolveExit({code, shown: stripVTControlCharacters(raw)})
    })
  })
  const shown = () => stripVTControlCharacters(raw)
  return {
    shown,
    waitFor(text) {
      const start = from
      return new Promise((resolveWait, rejectWait) => {
        const check = () => {
          const at = shown().indexOf(text, start)
          if (at >= 0) {
            from = at + text.length
            watchers.delete(check)
            resolveWait()
          } else if (exit) {
            watchers.delete(check)
            rejectWait(new Error(`the CLI exited (${exit.code}) without showing ${JSON.stringify(text)}:\n${shown()}`))
          }
        }
        watchers.add(check)
        check()
      })
    },
    type(keys) {
      child.stdin.write(keys)
    },
    exited,
  }
}
