import {Flags} from '@oclif/core'

import {BaseCommand, withoutJq} from '../../cli/base-command.js'
import {UsageError} from '../../cli/errors.js'
import {writeErr} from '../../cli/output.js'
import {announce, farewell, printQuirkCatalogue, quirkCatalogue, readQuirks} from '../../cli/sandbox-serve.js'
import {mfgPaths} from '../../profiles/paths.js'
import {QUIRK_NAMES} from '../../schemas/quirks.js'

export default class SandboxServe extends BaseCommand {
  static override jqOutput = false
  static override baseFlags = withoutJq
  static override summary = 'Run the local implementation of the service until interrupted.'
  static override description = `Starts the sandbox (the same service the embedded "local" profile uses) on --host and --port and keeps it running until SIGINT or SIGTERM, then closes it cleanly and exits 0.

The base URL and the seeded businesses' credentials go to stderr, keys masked unless --show-secrets. With --json, stdout gets exactly one line: {"url": "...", "businesses": [{"id", "name", "apiKey", "authToken", "webhookAccess"}, ...]}, demo business first. That line carries the full keys on purpose: they are this local sandbox's own credentials, for scripts and tests.

--faults RATE (0 to 1) makes that fraction of write requests (POST, PUT, DELETE) misbehave, for testing clients: reset the connection, answer 503, answer 429 with Retry-After: 1, or commit the change and then drop the connection. --fault-seed makes the sequence repeatable. --no-replay turns off draftId replay and Idempotency-Key handling, so the sandbox behaves like a server that offers no idempotency help. Counts of the faults injected are printed on stop.

--quirks LIST makes the sandbox answer the way real services deviate from the interface, so scripts can be tried against a realistic service; what is stored never changes. LIST is comma-separated names, "all" (the create-object, list-bare and error-nested alternatives, and every other quirk), -NAME to leave one out (all,-slow), or "list" to describe each and exit. Quirks: ${QUIRK_NAMES.join(', ')}. The embedded sandbox takes the same list from MFG_SANDBOX_QUIRKS.

Data lives in --data-dir (default: the sandbox directory under MFG_HOME, shared with the embedded profile); --memory keeps it in memory only.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> --port 8787',
    '<%= config.bin %> <%= command.id %> --memory --port 0 --json',
    '<%= config.bin %> <%= command.id %> --host 0.0.0.0 --port 8787 --data-dir ./sandbox-data --show-secrets',
    '<%= config.bin %> <%= command.id %> --memory --faults 0.15 --fault-seed 42 --no-replay',
    '<%= config.bin %> <%= command.id %> --memory --port 0 --json --quirks all,-slow',
    '<%= config.bin %> <%= command.id %> --quirks list',
  ]
  static override flags = {
    port: Flags.integer({description: 'Port to listen on; 0 picks a free one.', default: 8787, min: 0, max: 65_535}),
    host: Flags.string({description: 'Interface to listen on.', default: '127.0.0.1'}),
    'data-dir': Flags.string({description: 'Directory of the SQLite database.', exclusive: ['memory']}),
    memory: Flags.boolean({description: 'Keep all data in memory; nothing is written.', exclusive: ['data-dir']}),
    'show-secrets': Flags.boolean({description: 'Print the full keys and tokens in the human output too.'}),
    faults: Flags.string({
      description: 'Fraction of write requests that misbehave, 0 to 1.',
      helpValue: 'RATE',
      helpGroup: 'TESTING',
    }),
    'fault-seed': Flags.integer({
      description: 'Seed of the fault sequence (default: random, printed).',
      min: 0,
      dependsOn: ['faults'],
      helpGroup: 'TESTING',
    }),
    quirks: Flags.string({
      description: 'Answer as real services deviate: quirk names, "all", or "list" to describe them.',
      helpValue: 'LIST',
      helpGroup: 'TESTING',
    }),
    replay: Flags.boolean({
      description: 'draftId replay and Idempotency-Key handling (--no-replay turns them off).',
      allowNo: true,
      default: true,
      helpGroup: 'TESTING',
    }),
  }

  protected override handlesInterrupt = false

  async run(): Promise<unknown> {
    const {flags} = await this.parse(SandboxServe)
    if (flags.quirks?.trim() === 'list') {
      if (this.jsonEnabled()) return quirkCatalogue()
      printQuirkCatalogue()
      return undefined
    }
    const quirks = readQuirks(flags.quirks, '--quirks')
    const rate = flags.faults === undefined ? undefined : Number(flags.faults)
    if (rate !== undefined && (flags.faults!.trim() === '' || !Number.isFinite(rate) || rate < 0 || rate > 1)) {
      throw new UsageError(`--faults must be a number from 0 to 1, got ${JSON.stringify(flags.faults)}.`)
    }
    const {startSandbox} = await import('../../sandbox/index.js')
    const sandbox = await startSandbox({
      port: flags.port,
      host: flags.host,
      ...(flags.memory ? {memory: true} : {dataDir: flags['data-dir'] ?? mfgPaths().sandboxDir}),
      ...(rate === undefined
        ? {}
        : {faults: {rate, ...(flags['fault-seed'] === undefined ? {} : {seed: flags['fault-seed']})}}),
      ...(flags.replay ? {} : {replay: false}),
      ...(quirks ? {quirks: {names: quirks}} : {}),
    })
    const stopped = new Promise<string>((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'))
      process.once('SIGTERM', () => resolve('SIGTERM'))
    })
    if (this.jsonEnabled()) {
      // Exactly one line, whatever the terminal: scripts read it with `head -1`.
      process.stdout.write(`${JSON.stringify({url: sandbox.url, businesses: sandbox.businesses})}\n`)
    } else {
      const faults = rate === undefined ? undefined : {rate, seed: sandbox.faultStats().seed}
      const shown = {memory: flags.memory, showSecrets: flags['show-secrets'], replay: flags.replay}
      announce(sandbox, {...shown, ...(faults ? {faults} : {})}, quirks)
    }
    const signal = await stopped
    farewell(rate === undefined ? undefined : sandbox.faultStats(), sandbox.quirkStats())
    await sandbox.close()
    if (!this.jsonEnabled()) writeErr(`Sandbox stopped (${signal}).`)
    return undefined
  }
}
