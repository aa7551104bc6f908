// How `mfg api` prints a raw answer: the status and headers on stderr with
// --include, the body on stdout, a failure on stderr. Secrets are masked unless
// --show-secrets (which shows the body's own in full, never the profile's in headers).
import {STATUS_CODES} from 'node:http'

import {redact, redactJson} from '../schemas/secrets.js'
import type {ApiClient} from '../api/http.js'
import {failedResponse, paginated, rawRequest, type RawRequestInput, type RawResponse} from '../services/api/raw.js'
import {describeError, errorLine, JqRunError} from './errors.js'
import {formatJson, isTty, streamOrCollect, writeErr, writeOut} from './output.js'
import {onStdoutClosed, settleStdout} from './stdio.js'

type Shown = {include: boolean; showSecrets: boolean; secrets: readonly string[]; jq?: (value: unknown) => void}

/**
 * Sends the request and prints its answer (printRawResponse), a `--paginate` list as its
 * pages come unless `--jq` (which runs once on the whole); the exit code when it failed.
 */
export async function sendAndPrint(
  client: ApiClient,
  request: RawRequestInput,
  shown: Shown,
): Promise<{res: RawResponse; exitCode?: number}> {
  let res: RawResponse
  // --include with --paginate: each page's status and headers on stderr as the page comes, as gh prints them.
  const paged = request.paginate && shown.include
  if (paged) request = {...request, onPage: (page) => printHead(page, shown.secrets)}
  const head = paged ? {...shown, include: false} : shown
  if (request.paginate && !shown.jq) {
    const listed = await printPaginated((stream) => paginated(client, {...request, stream}), shown)
    if (listed.failed === undefined) return {res: {status: 200, ok: true, headers: {}, body: undefined}}
    // A refusal of the first page is printed as any answer; one later, after the items, is an error.
    const refused = listed.started ? undefined : failedResponse(listed.failed)
    if (!refused) throw listed.failed
    res = refused
  } else res = await rawRequest(client, request)
  // A refused page's answer is printed whole, its head with it; the pages before it have shown theirs.
  const exitCode = printRawResponse(res, res.ok ? head : shown)
  return exitCode === undefined ? {res} : {res, exitCode}
}

/**
 * Prints the answer; the exit code when the request failed. With `jq` (--jq, which
 * prints), a JSON body goes through it; a body of text cannot be, and is refused when the
 * request succeeded (when it failed, the error says what came).
 */
export function printRawResponse(res: RawResponse, opts: Shown): number | undefined {
  if (opts.include) printHead(res, opts.secrets)
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
    writeErr(redact(errorLine(d, false), opts.secrets))
    return d.exitCode
  }
  return undefined
}

type Head = Pick<RawResponse, 'status' | 'headers'>

/** `--include`: the status line and the headers (masked), then a blank line, on stderr. */
function printHead(res: Head, secrets: readonly string[]): void {
  writeErr(`HTTP ${res.status} ${STATUS_CODES[res.status] ?? ''}`.trimEnd())
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) writeErr(redact(`${name}: ${Array.isArray(value) ? value.join(', ') : value}`, secrets))
  }
  writeErr('')
}

/** Why --jq cannot run on an answer of text. */
function notJson(res: RawResponse): string {
  const type = res.headers['content-type']
  const what = type === undefined ? 'text' : String(type).split(';')[0]
  return `--jq filters JSON, but the service answered ${what}; leave --jq out to see the answer.`
}

/**
 * `--paginate`'s merged array, written as its pages come, so memory stays flat however
 * long the list and `| head` ends the listing: on a terminal the same text as the whole
 * array pretty-printed; piped, one item a line between the brackets. An item is written
 * once the next one (or the end) shows whether a comma follows. A page that fails leaves
 * the array open (no one takes a cut listing for a whole one): `failed`, and whether the
 * array had begun (`started`; a first page refused has written nothing).
 */
export async function printPaginated(
  list: (stream: {signal: AbortSignal; beforePage: () => Promise<void>}) => AsyncIterable<unknown>,
  opts: {showSecrets: boolean; secrets: readonly string[]},
): Promise<{failed?: unknown; started: boolean}> {
  const signal = onStdoutClosed()
  const pretty = isTty(process.stdout)
  const text = (item: unknown) => {
    const shown = formatJson(opts.showSecrets ? item : redactJson(item, opts.secrets), pretty)
    return pretty ? shown.replace(/^/gm, '  ') : shown
  }
  let held: string | undefined
  try {
    await streamOrCollect(
      list({signal, beforePage: settleStdout}),
      (item) => {
        const line = held === undefined ? '[' : `${held},`
        held = text(item)
        return line
      },
      signal,
    )
  } catch (failed) {
    if (held !== undefined) writeOut(held)
    return {failed, started: held !== undefined}
  }
  if (!signal.aborted) writeOut(held === undefined ? '[]' : `${held}\n]`)
  return {started: true}
}
