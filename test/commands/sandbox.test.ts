import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {json, jsonLines, runCli} from '../helpers/cli.js'

const cli = join(resolve(import.meta.dirname, '../..'), 'bin/run.js')
const home = mkdtempSync(join(tmpdir(), 'mfg-reset-'))
afterAll(() => rmSync(home, {recursive: true, force: true}))

describe('mfg sandbox reset', () => {
  it('needs --yes without a terminal, then wipes and reseeds the embedded data', async () => {
    const env = {MFG_HOME: home}
    const created = await runCli(['demand', 'create', '--technique', 'PCB', '--material', 'FR4', '--json'], {env})
    expect(created.exitCode, created.stderr).toBe(0)
    const before = jsonLines(await runCli(['demand', 'list', '--all', '--json'], {env})).length

    const refused = await runCli(['sandbox', 'reset'], {env})
    expect(refused.exitCode).toBe(2)
    expect(refused.stderr).toMatch(/--yes/)

    const reset = await runCli(['sandbox', 'reset', '--yes', '--json'], {env})
    expect(reset.exitCode, reset.stderr).toBe(0)
    expect(json(reset)).toMatchObject({reset: true, dataDir: join(home, 'sandbox')})
    const after = jsonLines(await runCli(['demand', 'list', '--all', '--json'], {env})).length
    expect(after).toBe(before - 1)
  })

  it('refuses while another process has the sandbox open (a sandbox serve), and resets once it has stopped', async () => {
    const env = {...process.env, MFG_HOME: home}
    const serve = spawn(process.execPath, [cli, 'sandbox', 'serve', '--port', '0', '--json'], {
      env,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    const exited = new Promise<number | null>((done) => serve.once('exit', done))
    await new Promise<void>((ok, fail) => {
      serve.stdout.once('data', () => ok())
      serve.once('exit', (code) => fail(new Error(`sandbox serve exited with ${code}`)))
    })
    const refused = await runCli(['sandbox', 'reset', '--yes'], {env: {MFG_HOME: home}})
    expect(refused.exitCode).toBe(1)
    expect(refused.stderr).toContain(`the sandbox is open in process ${serve.pid} (a sandbox serve`)
    expect(refused.stderr).toContain('Nothing was changed.')
    serve.kill('SIGINT')
    await exited
    const reset = await runCli(['sandbox', 'reset', '--yes'], {env: {MFG_HOME: home}})
    expect(reset.exitCode, reset.stderr).toBe(0)
  })

  it('a port another program holds is named with the flag that chooses another, exit 2, no trace', async () => {
    const {createServer} = await import('node:net')
    const holder = createServer()
    await new Promise<void>((ok) => holder.listen(0, '127.0.0.1', ok))
    const port = (holder.address() as {port: number}).port
    try {
      for (const argv of [
        ['sandbox', 'serve', '--memory', '--port', String(port)],
        ['webhook', 'listen', '--port', String(port)],
      ]) {
        const r = await runCli(argv, {env: {MFG_HOME: home}})
        expect(r.exitCode, argv.join(' ')).toBe(2)
        expect(r.stderr).toContain(
          `port ${port} on 127.0.0.1 is in use by another program; choose another with --port, or --port 0`,
        )
        expect(r.stderr).not.toMatch(/EADDRINUSE|\n\s+at /)
      }
    } finally {
      holder.close()
    }
  })
})
