// How `mfg api` prints a raw answer: the status and headers on stderr with
// --include, the body on stdout, a failure on stderr. Secrets are masked unless
// --show-secrets (which shows the body's own in full, never the profile's in headers).
import {STATUS_CODES} from 'node:http'

import {redact, redactJson} from '../schemas/secrets.js'
import type {RawResponse} from '../services/api/raw.js'
import {describeError, JqRunError} from './errors.js'
import {formatJson, writeErr, writeOut} from './output.js'

/**
 * Prints the answer; the exit code when the request failed. With `jq` (--jq, which
 * prints), a JSON body goes through it; a body of text cannot be, and is refused when the
 * request succeeded (when it failed, the error says what came).
 */
export function printRawResponse(
  res: RawResponse,
  opts: {include: boolean; showSecrets: boolean; secrets: readonly string[]; jq?: (value: unknown) => void},
): number | undefined {
  if (opts.include) {
    writeErr(`HTTP ${res.status} ${STATUS_CODES[res.status] ?? ''}`.trimEnd())
    for (const [name, value] of Object.entries(res.headers)) {
      if (value !== undefined)
        writeErr(redact(`${name}: ${Array.isArray(value) ? value.join(', ') : value}`, opts.secrets))
    }
    writeErr('')
  }
  if (res.body !== undefined && res.body !== '') {
    if (typeof res.body !== 'string') {
      const body = opts.showSecrets ? res.body : redactJson(res.body, opts.secrets)
      if (opts.jq) opts.jq(body)
      else writeOut(formatJson(body))
    } else if (!opts.jq) writeOut(opts.showSecrets ? res.body : redact(res.body, opts.secrets))
    else if (res.ok) throw new JqRunError(notJson(res))
  }
  if (!res.ok && res.error) {
    const d = describeError(res.error)
    writeErr(redact(`Error: ${d.message}`, opts.secrets))
    return d.exitCode
  }
  return undefined
}

/** Why --jq cannot run on an answer of text. */
function notJson(res: RawResponse): string {
  const type = res.headers['content-type']
  const what = type === undefined ? 'text' : String(type).split(';')[0]
  return `--jq filters JSON, but the service answered ${what}; leave --jq out to see the answer.`
}
