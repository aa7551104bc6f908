import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {defineConfig} from 'vitest/config'

// No test may touch the user's real configuration or data: every run gets its own MFG_HOME.
const home = mkdtempSync(join(tmpdir(), 'mfg-test-home-'))

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    env: {NO_COLOR: '1', MFG_HOME: home, CI: 'true'},
  },
})
