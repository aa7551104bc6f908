import {isatty} from 'node:tty'

import {Config, Errors, type Interfaces, loadHelpClass, toConfiguredId} from '@oclif/core'
import {normalizeArgv} from '@oclif/core/help'

import {ciIsSet} from './prompt.js'

/**
 * An unknown command typed at a terminal whose output is not one. @oclif/plugin-not-found
 * answers an unknown command by asking "Did you mean …?" whenever stdin is a terminal,
 * on stdout, and waits up to 10 s: in `mfg demnd list --json | jq` the question goes
 * down the pipe, unseen, and the command hangs; with CI set it asks where mfg never
 * asks. In those cases alone this answers before oclif runs, in the plugin's words when
 * it does not ask: the warning, then an error with exit 127. Everywhere else (a
 * terminal throughout, or stdin not a terminal, as in scripts) oclif runs its hooks
 * for an unknown command as always, the plugin's and any other plugin's. Answers the
 * load options for oclif's run: the Config loaded here when it was needed.
 */
export async function refuseUnknownCommandAtPipe(
  argv: string[],
  loadOptions: Interfaces.LoadOptions,
): Promise<Interfaces.LoadOptions> {
  // Anywhere the plugin would not ask (stdin not a terminal), or would ask where mfg
  // asks too (a terminal throughout, CI not set), nothing is loaded here. File
  // descriptors, not process.stdin, which is a stream made on first touch.
  if (!isatty(0) || (isatty(1) && isatty(2) && !ciIsSet())) return loadOptions
  const config = await Config.load(loadOptions)
  const [id] = normalizeArgv(config, argv)
  if (id === undefined || id === '' || id.startsWith('-')) return config
  if (config.findCommand(id) || config.findTopic(id)) return config
  const topic = id.split(':')[0]!
  const help = config.findTopic(topic) ? `${config.bin} help ${topic}` : `${config.bin} help`
  Errors.warn(`${toConfiguredId(id, config)} is not a ${config.bin} command.`)
  throw await withSuggestion(
    new Errors.CLIError(`Run ${help} for a list of available commands.`, {exit: 127}),
    argv,
    config,
  )
}

/**
 * An unknown command's error (exit 127) with the closest commands put before it,
 * where nobody was asked "Did you mean …?" (scripts, pipes, CI): the plugin only asks
 * at a terminal. Any other error is answered as it is.
 */
export async function withSuggestion(
  error: Error,
  argv: string[],
  config: Interfaces.LoadOptions | Config,
): Promise<Error> {
  if (!(error instanceof Errors.CLIError) || error.oclif.exit !== 127) return error
  try {
    const loaded = config instanceof Config ? config : await Config.load(config)
    const Help = await loadHelpClass(loaded)
    const help = new Help(loaded) as {near?: (argv: string[]) => string[]}
    const near = help.near?.(argv) ?? []
    if (near.length === 0) return error
    return new Errors.CLIError(`Did you mean ${near.join(' or ')}? ${error.message}`, {exit: 127})
  } catch {
    return error
  }
}
