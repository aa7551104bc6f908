import {Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {writeErr} from '../../cli/output.js'
import {mfgPaths} from '../../profiles/paths.js'
import {maskSecret} from '../../schemas/secrets.js'

export default class SandboxServe extends BaseCommand {
  static override summary = 'Run the local implementation of the service until interrupted.'
  static override description = `Starts the sandbox (the same service the embedded "local" profile uses) on --host and --port and keeps it running until SIGINT or SIGTERM, then closes it cleanly and exits 0.

The base URL and the seeded businesses' credentials go to stderr, keys masked unless --show-secrets. With --json, stdout gets exactly one line: {"url": "...", "businesses": [{"id", "name", "apiKey", "authToken", "webhookAccess"}, ...]}, demo business first. That line carries the full keys on purpose: they are this local sandbox's own credentials, for scripts and tests.

Data lives in --data-dir (default: the sandbox directory under MFG_HOME, shared with the embedded profile); --memory keeps it in memory only.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> --port 8787',
    '<%= config.bin %> <%= command.id %> --memory --port 0 --json',
    '<%= config.bin %> <%= command.id %> --host 0.0.0.0 --port 8787 --data-dir ./sandbox-data --show-secrets',
  ]
  static override flags = {
    port: Flags.integer({description: 'Port to listen on; 0 picks a free one.', default: 8787, min: 0, max: 65_535}),
    host: Flags.string({description: 'Interface to listen on.', default: '127.0.0.1'}),
    'data-dir': Flags.string({description: 'Directory of the SQLite database.', exclusive: ['memory']}),
    memory: Flags.boolean({description: 'Keep all data in memory; nothing is written.', exclusive: ['data-dir']}),
    'show-secrets': Flags.boolean({description: 'Print the full keys and tokens in the human output too.'}),
  }

  protected override handlesInterrupt = false

  async run(): Promise<void> {
    const {flags} = await this.parse(SandboxServe)
    const {startSandbox} = await import('../../sandbox/index.js')
    const sandbox = await startSandbox({
      port: flags.port,
      host: flags.host,
      ...(flags.memory ? {memory: true} : {dataDir: flags['data-dir'] ?? mfgPaths().sandboxDir}),
    })
    const stopped = new Promise<string>((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'))
      process.once('SIGTERM', () => resolve('SIGTERM'))
    })
    if (this.jsonEnabled()) {
      // Exactly one line, whatever the terminal: scripts read it with `head -1`.
      process.stdout.write(`${JSON.stringify({url: sandbox.url, businesses: sandbox.businesses})}\n`)
    } else {
      const show = (s: string) => (flags['show-secrets'] ? s : maskSecret(s))
      writeErr(`Sandbox listening on ${sandbox.url}${flags.memory ? ' (in memory)' : ''}`)
      for (const b of sandbox.businesses) {
        writeErr(
          `  ${b.name}: business id ${b.id}, API key ${show(b.apiKey)}, auth token ${show(b.authToken)}, webhooks ${b.webhookAccess ? 'enabled' : 'not enabled'}`,
        )
      }
      if (!flags['show-secrets']) writeErr('Keys are masked; --show-secrets or --json prints them in full.')
      writeErr('Press Ctrl-C to stop.')
    }
    const signal = await stopped
    await sandbox.close()
    if (!this.jsonEnabled()) writeErr(`Sandbox stopped (${signal}).`)
  }
}
