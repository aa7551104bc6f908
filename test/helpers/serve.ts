// `mfg sandbox serve --memory` in a process of its own, as another client would use the
// sandbox: the built CLI, port 0, its address and demo keys read from its first line.
import {spawn} from 'node:child_process'
import {join, resolve} from 'node:path'
import {createInterface} from 'node:readline'

const cli = join(resolve(import.meta.dirname, '../..'), 'bin/run.js')

export interface Served {
  url: string
  businesses: {id: string; apiKey: string; authToken: string}[]
  stop(): Promise<void>
}

/** Starts the standalone sandbox with `env` (its MFG_HOME, say) and any `extra` flags of `sandbox serve`. */
export async function serveSandbox(extra: string[] = [], env: NodeJS.ProcessEnv = process.env): Promise<Served> {
  const child = spawn(process.execPath, [cli, 'sandbox', 'serve', '--memory', '--port', '0', '--json', ...extra], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {...env, NODE_EXTRA_CA_CERTS: ''},
  })
  const line = await new Promise<string>((ok, fail) => {
    child.once('exit', (code) => fail(new Error(`sandbox serve exited with ${code}`)))
    createInterface({input: child.stdout!}).once('line', ok)
  })
  const info = JSON.parse(line) as Omit<Served, 'stop'>
  return {
    ...info,
    stop: () =>
      new Promise<void>((ok) => {
        if (child.exitCode !== null) return ok()
        child.once('exit', () => ok())
        child.kill('SIGTERM')
      }),
  }
}
