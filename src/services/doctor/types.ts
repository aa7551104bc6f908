import {redact} from '../../schemas/secrets.js'

/** `ok`: nothing to do. `warn`: works, but something is off or not configured. `fail`: broken. */
export type CheckStatus = 'ok' | 'warn' | 'fail'

/** One finding of `mfg doctor`. */
export interface CheckResult {
  /** What was checked: node, permissions, sandbox-db, reachability, clock, v1, v2, mcp, profile. */
  check: string
  /** What it was checked on: a profile name or a file path. */
  target?: string
  status: CheckStatus
  message: string
  /** What to run or change to repair it. */
  fix?: string
}

export interface DoctorReport {
  /** False when any check failed; warnings keep it true. */
  ok: boolean
  checks: CheckResult[]
}

export function makeReport(checks: CheckResult[]): DoctorReport {
  return {ok: checks.every((c) => c.status !== 'fail'), checks}
}

export function countByStatus(checks: readonly CheckResult[]): Record<CheckStatus, number> {
  const counts: Record<CheckStatus, number> = {ok: 0, warn: 0, fail: 0}
  for (const c of checks) counts[c.status]++
  return counts
}

/** The report with every secret masked in its messages and fixes, for printing. */
export function maskReport(report: DoctorReport, secrets: readonly string[]): DoctorReport {
  return {
    ok: report.ok,
    checks: report.checks.map((c) => ({
      ...c,
      message: redact(c.message, secrets),
      ...(c.fix === undefined ? {} : {fix: redact(c.fix, secrets)}),
    })),
  }
}
