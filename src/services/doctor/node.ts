import {checkNode, parseVersion} from '../../engines.js'
import type {CheckResult} from './types.js'

/**
 * Compares the running Node.js with package.json's `engines.node`, read by the same
 * code that bin/run.js uses to refuse an unsupported release. A range in a form that
 * code does not read is reported, not guessed at.
 */
export function checkNodeVersion(actual: string, required: string | undefined): CheckResult {
  if (!required || !parseVersion(actual)) {
    return {check: 'node', status: 'ok', message: `Node.js ${actual}${required ? ` (requires ${required})` : ''}`}
  }
  const {satisfied, wanted} = checkNode(actual, required)
  if (satisfied === undefined) {
    return {
      check: 'node',
      status: 'warn',
      message: `Node.js ${actual}; the required range "${required}" was not compared`,
    }
  }
  if (!satisfied) {
    return {
      check: 'node',
      status: 'fail',
      message: `Node.js ${actual} is not supported: mfg needs ${wanted} (${required})`,
      fix: 'install a supported Node.js LTS release (https://nodejs.org, or nvm install --lts)',
    }
  }
  return {check: 'node', status: 'ok', message: `Node.js ${actual} is supported (${wanted})`}
}
