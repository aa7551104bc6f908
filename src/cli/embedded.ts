// The one door from the client side into the embedded sandbox (the `local`
// profile). Everything here loads src/sandbox/index.ts with a dynamic import, so
// a remote profile never loads fastify or SQLite (docs/architecture.md, rule 6).
import type {DatabaseInspection} from '../services/doctor/index.js'
import {writeErr} from './output.js'
import {QUIRKS_ENV, readQuirks} from './sandbox-serve.js'

/** What the client side uses of a running embedded sandbox. */
export interface EmbeddedSandbox {
  url: string
  businesses: {id: string; name: string; apiKey: string; authToken: string; webhookAccess: boolean}[]
  close(): Promise<void>
}

/**
 * Starts the embedded sandbox on its data directory, on a free port of 127.0.0.1,
 * with the quirks MFG_SANDBOX_QUIRKS names (said on stderr, so nobody forgets them).
 */
export async function startEmbeddedSandbox(
  dataDir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<EmbeddedSandbox> {
  const spec = env[QUIRKS_ENV]
  const quirks = readQuirks(spec === '' ? undefined : spec, QUIRKS_ENV)
  const {startSandbox} = await import('../sandbox/index.js')
  const sandbox = await startSandbox({
    dataDir,
    port: 0,
    host: '127.0.0.1',
    ...(quirks ? {quirks: {names: quirks}} : {}),
  })
  if (quirks) writeErr(`The embedded sandbox answers with quirks (${QUIRKS_ENV}): ${quirks.join(', ')}.`)
  return sandbox
}

/** Reads the embedded sandbox's database file read-only, for `mfg doctor`. */
export async function inspectEmbeddedDatabase(file: string): Promise<DatabaseInspection> {
  const {inspectDatabase} = await import('../sandbox/index.js')
  return inspectDatabase(file)
}
