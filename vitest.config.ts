import {mkdtempSync} from 'node:fs'
import {availableParallelism, tmpdir} from 'node:os'
import {join} from 'node:path'
import {defineConfig} from 'vitest/config'

// No test may touch the user's real configuration or data: every run gets its own MFG_HOME.
const home = mkdtempSync(join(tmpdir(), 'mfg-test-home-'))
// The CLI processes the tests start share one compile cache for the run (Node keeps
// one per release and build inside it). Each test gives the CLI a fresh MFG_HOME, so
// without it every process would compile the bundle from nothing, as on a first run:
// hundreds of processes a run, and a first run is what a user sees once per machine.
const compileCache = mkdtempSync(join(tmpdir(), 'mfg-test-compile-'))

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One test file per core: most of a test's time is spent waiting on the CLI
    // processes it starts, so vitest's default (one core left free, a single worker
    // on a 2-core machine) leaves the machine half idle. On 2 cores the whole suite
    // took 510 s with one worker, 311 s with two and 271 s with three (2026-11-27);
    // one per core leaves headroom for the tests that drive a pseudo-terminal.
    // The two files that listen on fixed ports take turns (test/helpers/fixed-ports.ts).
    maxWorkers: Math.max(2, availableParallelism()),
    env: {NO_COLOR: '1', MFG_HOME: home, CI: 'true', NODE_COMPILE_CACHE: compileCache},
  },
})
