// The one door from the client side into the embedded sandbox (the `local`
// profile). Everything here loads src/sandbox/index.ts with a dynamic import, so
// a remote profile never loads fastify or SQLite (docs/architecture.md, rule 6).
import type {DatabaseInspection} from '../services/doctor/index.js'

/** What the client side uses of a running embedded sandbox. */
export interface EmbeddedSandbox {
  url: string
  businesses: {id: string; name: string; apiKey: string; authToken: string; webhookAccess: boolean}[]
  close(): Promise<void>
}

/** Starts the embedded sandbox on its data directory, on a free port of 127.0.0.1. */
export async function startEmbeddedSandbox(dataDir: string): Promise<EmbeddedSandbox> {
  const {startSandbox} = await import('../sandbox/index.js')
  return startSandbox({dataDir, port: 0, host: '127.0.0.1'})
}

/** Reads the embedded sandbox's database file read-only, for `mfg doctor`. */
export async function inspectEmbeddedDatabase(file: string): Promise<DatabaseInspection> {
  const {inspectDatabase} = await import('../sandbox/index.js')
  return inspectDatabase(file)
}
