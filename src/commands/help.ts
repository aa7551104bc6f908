import {Args, Command, loadHelpClass} from '@oclif/core'

/**
 * `mfg help …`: the page of a topic, a command or a help topic, from the help class
 * package.json registers (src/help), which also answers `--help` and `mfg TOPIC`.
 */
export default class HelpCommand extends Command {
  static override summary = 'Show help for <%= config.bin %>, a topic or a command.'
  static override description = `With no argument, lists the topics and commands. Besides command topics, \`<%= config.bin %> help environment\` lists the environment variables <%= config.bin %> reads and \`<%= config.bin %> help exit-codes\` what its exit codes mean.`
  static override args = {
    command: Args.string({description: 'The topic, command (words separated by spaces) or help topic.'}),
  }
  static override strict = false
  static override examples = [
    '<%= config.bin %> <%= command.id %> demand',
    '<%= config.bin %> <%= command.id %> demand list',
    '<%= config.bin %> <%= command.id %> environment',
  ]

  /**
   * oclif's error handler follows a parse error (`mfg help --bogus`) with a page of its
   * own built-in Help rather than the registered class: the message alone is enough.
   */
  protected override async catch(error: Error & {showHelp?: boolean}): Promise<unknown> {
    error.showHelp = false
    return super.catch(error)
  }

  async run(): Promise<void> {
    const {argv} = await this.parse(HelpCommand)
    const Help = await loadHelpClass(this.config)
    await new Help(this.config, this.config.pjson.oclif.helpOptions).showHelp(argv as string[])
  }
}
