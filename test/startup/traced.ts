// Runs the built CLI under trace-loads.mjs, for the tests that say what a
// command loads (startup.test.ts, direct.test.ts). Nothing here is timed.
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'

import {afterAll} from 'vitest'

export const root = resolve(import.meta.dirname, '../..')
const bin = join(root, 'bin/run.js')
const tracer = pathToFileURL(join(import.meta.dirname, 'trace-loads.mjs')).href
/** A scratch directory for the calling test file, removed after it. */
export const scratch = mkdtempSync(join(tmpdir(), 'mfg-startup-'))
afterAll(() => rmSync(scratch, {recursive: true, force: true}))

let n = 0
/**
 * Runs the built CLI and returns what it printed, every module it loaded
 * (Node's own left out) and, apart, the Node modules it loaded.
 */
export function traced(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): {code: number | null; stdout: string; stderr: string; loaded: string[]; builtins: string[]} {
  const out = join(scratch, `trace-${n++}.txt`)
  const r = spawnSync(process.execPath, ['--import', tracer, bin, ...args], {
    env: {...process.env, MFG_HOME: join(scratch, 'home'), MFG_TRACE_LOADS: out, NO_COLOR: '1', ...env},
    encoding: 'utf8',
    input: '',
    timeout: 60_000,
  })
  let lines: string[] = []
  try {
    lines = readFileSync(out, 'utf8').split('\n')
  } catch {
    // Nothing was loaded through a hook.
  }
  const builtins = lines.filter((l) => l.startsWith('builtin:')).map((l) => l.slice('builtin:'.length))
  const loaded = [...new Set(lines.filter((l) => l !== '' && !l.startsWith('node:') && !l.startsWith('builtin:')))]
    .map((l) => (l.startsWith('file:') ? new URL(l).pathname : l))
    .filter((l) => !l.startsWith(import.meta.dirname))
    .map((l) => (l.startsWith(root) ? l.slice(root.length + 1) : l))
  return {code: r.status, stdout: r.stdout, stderr: r.stderr, loaded, builtins}
}
