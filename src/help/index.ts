// mfg's help, registered as oclif's help class (package.json `oclif.helpClass`), so
// `mfg`, `mfg --help`, `mfg help X`, `mfg X --help`, `mfg TOPIC` and `oclif readme`
// (docs/commands.md) all print the pages of render.ts. It is built as an entry of its
// own (scripts/build.mjs) that imports oclif's Help and this folder only: loading it
// loads no command.
import {Errors, Help, type Command, type Config, type Interfaces} from '@oclif/core'

import {
  commandBody,
  commandSummary,
  helpRequest,
  helpWidth,
  renderHelp,
  suggestions,
  unknownCommand,
  type HelpData,
  type HelpRequest,
  type ManifestCommand,
} from './render.js'
import {GUIDES} from './topics.js'

export default class MfgHelp extends Help {
  /** The width pages are wrapped to: the one asked for (oclif readme asks), else the terminal's or COLUMNS. */
  private readonly width: number
  private cached?: HelpData

  constructor(config: Config, opts: Partial<Interfaces.HelpOptions> = {}) {
    super(config, opts)
    this.width = opts.maxWidth ?? helpWidth()
  }

  /**
   * argv is what follows `help`, or the whole argument list with its `--help`: either
   * way a request for a page. A page that does not exist is a usage error naming the
   * closest commands and topics.
   */
  override async showHelp(argv: string[]): Promise<void> {
    const data = this.data()
    const request = helpRequest(['help', ...argv], data)
    if (request) {
      this.page(request)
      return
    }
    const words = unknownCommand(argv, data) ?? argv.filter((a) => !a.startsWith('-'))
    const typed = words.join(' ')
    const near = suggestions(words, data).map((n) => `  ${this.config.bin} ${n.replaceAll(':', ' ')}`)
    const message = [
      `${this.config.bin} has no command or help topic "${typed}".`,
      ...(near.length > 0 ? ['Did you mean:', ...near] : []),
      `Run \`${this.config.bin} help\` for the list.`,
    ].join('\n')
    throw new Errors.CLIError(message, {exit: 2})
  }

  /** The commands and topics closest to an unknown command's words, as they are typed ("mfg demand list"). */
  near(argv: string[]): string[] {
    const data = this.data()
    const words = unknownCommand(argv, data) ?? []
    if (words.length === 0) return []
    // `demnd list`: the topic meant, with the word after it when together they name a command.
    const next = argv[words.length]
    return suggestions(words, data).map((n) => {
      const longer = next === undefined ? undefined : `${n}:${next}`
      const id = longer !== undefined && data.commands[longer] ? longer : n
      return `${this.config.bin} ${id.replaceAll(':', ' ')}`
    })
  }

  override async showRootHelp(): Promise<void> {
    this.page({kind: 'root'})
  }

  override async showTopicHelp(topic: Interfaces.Topic): Promise<void> {
    this.page({kind: 'topic', id: topic.name})
  }

  override async showCommandHelp(command: Command.Loadable): Promise<void> {
    this.page({kind: 'command', id: command.id})
  }

  /** A command's page below its summary line, which oclif readme prints as the command's title. */
  override formatCommand(command: Command.Loadable): string {
    return commandBody(command as ManifestCommand, this.data(), Math.max(40, Math.min(this.width, 120)))
  }

  override summary(command: Command.Loadable): string {
    return commandSummary(command as ManifestCommand, this.config.bin)
  }

  private page(request: HelpRequest): void {
    this.log(renderHelp(request, this.data(), this.width))
  }

  /** The commands of every plugin (mfg's first), topics from their package.json, and the guides. */
  private data(): HelpData {
    if (this.cached) return this.cached
    const commands: Record<string, ManifestCommand> = {}
    for (const c of this.config.commands) commands[c.id] ??= c as ManifestCommand
    const topics: HelpData['topics'] = {}
    for (const plugin of this.config.plugins.values()) Object.assign(topics, plugin.pjson.oclif.topics)
    Object.assign(topics, this.config.pjson.oclif.topics)
    this.cached = {
      bin: this.config.bin,
      version: this.config.version,
      description: this.config.pjson.description ?? '',
      topics,
      commands,
      guides: GUIDES,
    }
    return this.cached
  }
}
