// The oclif entry of the bundle: bin/run.js imports it for everything but
// `--version` (commands, help, unknown commands, plugins). Commands are built in
// the same esbuild run, so they and this entry share one copy of @oclif/core.
import {isatty} from 'node:tty'

import {type Interfaces, flush, handle, run, settings} from '@oclif/core'

// The bundle is what runs, whatever NODE_ENV says. With NODE_ENV=development or
// test (vitest sets test for the processes a test starts) oclif would otherwise
// register tsx or ts-node and read tsconfig.json with the TypeScript compiler to
// map dist/ back to src/, which a bundle cannot be (its commands share chunks);
// on Node 26 tsx's module.register() then prints a deprecation warning. bin/dev.js
// imports @oclif/core itself, so its development mode is untouched.
settings.enableAutoTranspile = false

/**
 * What oclif's `execute` does (run the command, wait for stdout to drain, report an
 * error), from its public parts, except that the wait ends when stdout closes. A
 * reader that has gone (`mfg demand list --json | head -1`) closes stdout while it
 * still holds output: it never drains, and @oclif/core 5 awaits that drain with a
 * timer that does not keep the process alive, so the process would end with the
 * top-level await of bin/run.js unsettled (exit 13 and a warning) instead of quietly
 * with exit 0, as the direct commands and oclif 4 end.
 */
export async function execute(options: {
  loadOptions: Interfaces.LoadOptions
  /**
   * oclif's shell completion cache and the mfg it belongs to, given when `mfg autocomplete`
   * has built one or is about to (src/cli/completion-cache.ts).
   */
  completion?: {dir: string; root: string; version: string} | undefined
}): Promise<unknown> {
  const argv = process.argv.slice(2)
  // Every command but help writes under MFG_HOME: one that names a file is said once, here,
  // before oclif and its plugins meet it (ENOTDIR from each, or a doctor of warnings).
  const asksHelp = argv[0] === 'help' || argv.includes('--help') || argv.includes('-h')
  const homeProblem =
    process.env.MFG_HOME && !asksHelp ? (await import('./profiles/paths.js')).mfgHomeProblem() : undefined
  // `mfg autocomplete` where it would print a heading and no instructions (fish): a usage error instead.
  const usageProblem =
    homeProblem ??
    (argv[0] === 'autocomplete' && !asksHelp
      ? (await import('./cli/completion-cache.js')).unsupportedShell(argv.slice(1))
      : undefined)
  if (usageProblem) {
    const asJson = argv.some((a) => /^--(json|jq)(=|$)/.test(a))
    const {errorLine} = await import('./cli/errors.js')
    process.stderr.write(`${errorLine({code: 'usage', message: usageProblem}, asJson)}\n`)
    process.exitCode = 2
    return undefined
  }
  try {
    // An unknown command typed at a terminal whose output is piped (src/cli/not-found.ts,
    // which decides); loaded only when stdin is a terminal, so scripts never load it.
    const loadOptions = isatty(0)
      ? await (await import('./cli/not-found.js')).refuseUnknownCommandAtPipe(argv, options.loadOptions)
      : options.loadOptions
    const {completion} = options
    // `mfg autocomplete [SHELL]` builds the cache; `mfg autocomplete script SHELL` only prints a line,
    // and its help builds nothing (a stale cache stamped after it would never be rebuilt).
    const completing = argv[0] === 'autocomplete' && argv[1] !== 'script' && !asksHelp
    if (completion && !completing) (await import('./cli/completion-cache.js')).refreshIfStale(completion)
    const result = await run(argv, loadOptions)
    // `mfg autocomplete` has built the cache (again), for this version.
    if (completion && completing) (await import('./cli/completion-cache.js')).stamp(completion)
    await Promise.race([flush(), new Promise((resolve) => process.stdout.once('close', resolve))])
    return result
  } catch (thrown) {
    let error = thrown instanceof Error ? thrown : new Error(String(thrown))
    // Off a terminal nobody was asked "Did you mean …?": an unknown command's error names the closest.
    if (!isatty(0)) error = await (await import('./cli/not-found.js')).withSuggestion(error, argv, options.loadOptions)
    return handle(error)
  }
}
