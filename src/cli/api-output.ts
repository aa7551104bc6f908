// How `mfg api` prints a raw answer: the status and headers on stderr with
// --include, the body on stdout, a failure on stderr. Secrets are masked unless
// --show-secrets (which shows the body's own in full, never the profile's in headers).
import {redact, redactJson} from '../schemas/secrets.js'
import type {RawResponse} from '../services/api/raw.js'
import {describeError} from './errors.js'
import {formatJson, writeErr, writeOut} from './output.js'

/** Prints the answer; the exit code when the request failed. */
export function printRawResponse(
  res: RawResponse,
  opts: {include: boolean; showSecrets: boolean; secrets: readonly string[]},
): number | undefined {
  if (opts.include) {
    writeErr(`HTTP ${res.status}`)
    for (const [name, value] of Object.entries(res.headers)) {
      if (value !== undefined)
        writeErr(redact(`${name}: ${Array.isArray(value) ? value.join(', ') : value}`, opts.secrets))
    }
    writeErr('')
  }
  if (res.body !== undefined && res.body !== '') {
    if (typeof res.body === 'string') writeOut(opts.showSecrets ? res.body : redact(res.body, opts.secrets))
    else writeOut(formatJson(opts.showSecrets ? res.body : redactJson(res.body, opts.secrets)))
  }
  if (!res.ok && res.error) {
    const d = describeError(res.error)
    writeErr(redact(`Error: ${d.message}`, opts.secrets))
    return d.exitCode
  }
  return undefined
}
