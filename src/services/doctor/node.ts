import type {CheckResult} from './types.js'

type Version = [number, number, number]

function parseVersion(text: string): Version | undefined {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(text.trim())
  if (!m) return undefined
  return [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)]
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number)
  return 0
}

/**
 * Compares the running Node.js with package.json's `engines.node`. Only
 * `>=X[.Y[.Z]]` comparators (space-separated, all must hold) are understood,
 * which is what the package declares; any other range is reported, not guessed at.
 */
export function checkNodeVersion(actual: string, required: string | undefined): CheckResult {
  const current = parseVersion(actual)
  if (!required || !current) {
    return {check: 'node', status: 'ok', message: `Node.js ${actual}${required ? ` (requires ${required})` : ''}`}
  }
  const parts = required.trim().split(/\s+/)
  const minimums: Version[] = []
  for (const part of parts) {
    const m = /^>=\s*(.+)$/.exec(part)
    const v = m ? parseVersion(m[1] as string) : undefined
    if (!v) {
      return {
        check: 'node',
        status: 'warn',
        message: `Node.js ${actual}; the required range "${required}" was not compared`,
      }
    }
    minimums.push(v)
  }
  const unmet = minimums.find((min) => compare(current, min) < 0)
  if (unmet) {
    return {
      check: 'node',
      status: 'fail',
      message: `Node.js ${actual} is older than mfg requires (${required})`,
      fix: `install Node.js ${unmet[0]} or later (https://nodejs.org, or nvm install ${unmet[0]})`,
    }
  }
  return {check: 'node', status: 'ok', message: `Node.js ${actual} satisfies ${required}`}
}
