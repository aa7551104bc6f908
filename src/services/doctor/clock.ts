import {formatDuration} from '../../util/duration.js'
import type {CheckResult} from './types.js'

export {formatDuration}

/** Above this difference the clock check warns. */
export const CLOCK_WARN_MS = 30_000
/** Above this it fails: signed file links last 30 minutes of the server's time (contract, Files). */
export const CLOCK_FAIL_MS = 5 * 60_000

/**
 * Compares the server's `Date` header with this machine's clock. The header
 * has whole seconds and is stamped somewhere between sending and receiving, so
 * the server's time is taken as the header plus half a second, and ours as the
 * midpoint of the request.
 */
export function assessClock(
  target: string,
  dateHeader: string | undefined,
  sentAt: number,
  receivedAt: number,
): CheckResult {
  const base = {check: 'clock', target}
  if (!dateHeader) {
    return {...base, status: 'warn', message: 'the server sent no Date header, so its clock could not be compared'}
  }
  const server = Date.parse(dateHeader)
  if (Number.isNaN(server)) {
    return {...base, status: 'warn', message: `the server's Date header ${JSON.stringify(dateHeader)} is not a date`}
  }
  const skew = server + 500 - (sentAt + receivedAt) / 2
  const size = Math.abs(skew)
  if (size <= CLOCK_WARN_MS) {
    return {...base, status: 'ok', message: `within ${formatDuration(Math.max(size, 1000))} of the server's clock`}
  }
  const ahead =
    skew > 0
      ? `the server's clock is ${formatDuration(skew)} ahead of this machine's`
      : `this machine's clock is ${formatDuration(skew)} ahead of the server's`
  const fail = size > CLOCK_FAIL_MS
  return {
    ...base,
    status: fail ? 'fail' : 'warn',
    message: fail
      ? `${ahead}: signed file links (valid 30 minutes) will look expired or be renewed at the wrong time`
      : `${ahead}`,
    fix: "set this machine's clock from the network (for example: sudo timedatectl set-ntp true); if this clock is right, the service's is wrong",
  }
}
