// Where mfg keeps its files, when it cannot keep them there: a home it may not write, a
// data directory under a file, MFG_HOME naming a file. What an installed mfg says then is
// one line naming the directory and what chooses it, never Node's own error or warning.
import {chmodSync, mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {runBuiltCli} from '../helpers/cli.js'
import {useTempDirs} from '../helpers/temp.js'

const tempDir = useTempDirs('mfg-homes-')

/** The environment of a user whose home is `home` and who has not set MFG_HOME (XDG paths under it). */
function homeEnv(home: string): Record<string, string> {
  return {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
  }
}

describe('mfg with nowhere to keep its files', () => {
  it('a data directory under a file: help prints no warning from oclif', async () => {
    const home = tempDir()
    writeFileSync(join(home, 'share'), 'not a directory')
    const r = await runBuiltCli(['help'], {env: {...homeEnv(home), XDG_DATA_HOME: join(home, 'share')}})
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stdout).toContain('TOPICS')
    expect(r.stderr).toBe('')
  })
})
