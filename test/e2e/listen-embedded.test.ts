// The embedded sandbox (no profile set up) delivers webhooks only while an mfg command
// runs it. `webhook listen` runs it while it listens, so deliveries that other commands
// queued, and could not make, arrive there.
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {createInterface} from 'node:readline'

import {afterAll, expect, it} from 'vitest'

import {closedPort} from '../api/server.js'
import {json, runBuiltCli} from '../helpers/cli.js'

const home = mkdtempSync(join(tmpdir(), 'mfg-listen-embedded-'))
afterAll(() => rmSync(home, {recursive: true, force: true}))

it('webhook listen on the embedded sandbox receives the deliveries queued while nothing listened', async () => {
  const env = {MFG_HOME: home}
  const port = await closedPort()
  const hook = json<{_id: string}>(
    await runBuiltCli(
      [
        'webhook',
        'create',
        '--url',
        `http://127.0.0.1:${port}`,
        '--events',
        'quote_request_received',
        '--secret',
        'listen-test-secret',
        '--json',
      ],
      {env},
    ),
  )
  expect(hook._id).toMatch(/\w/)
  // Two quotes while nothing listens on the port: their deliveries fail and wait for a retry.
  for (const email of ['one@example.com', 'two@example.com']) {
    const r = await runBuiltCli(
      ['demand', 'create', '--technique', '3D_PRINTING', '--material', 'PLA', '--quantity', '1', '--email', email],
      {env},
    )
    expect(r.exitCode, r.stderr).toBe(0)
  }
  // Nothing else runs: only listen's own sandbox can deliver them now.
  const child = spawn(
    process.execPath,
    [resolve('bin/run.js'), 'webhook', 'listen', '--port', String(port), '--json'],
    {env: {...process.env, ...env, CI: 'true'}, stdio: ['ignore', 'pipe', 'pipe']},
  )
  try {
    const lines = createInterface({input: child.stdout})
    const types: string[] = []
    for await (const line of lines) {
      types.push((JSON.parse(line) as {type: string}).type)
      if (types.length === 2) break
    }
    expect(types).toEqual(['quote_request_received', 'quote_request_received'])
  } finally {
    child.kill('SIGTERM')
  }
})
