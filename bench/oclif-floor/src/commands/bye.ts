import {Command} from '@oclif/core'

/**
 * A second command: with two, oclif sorts the command ids at every start
 * (localeCompare, whose first call starts ICU's collator), as it does mfg's.
 */
export default class Bye extends Command {
  static override description = 'Print bye.'

  async run(): Promise<void> {
    process.stdout.write('bye\n')
  }
}
