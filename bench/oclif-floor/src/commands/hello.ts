import {Command, Flags} from '@oclif/core'

/** The one command: parses a flag and prints a line, nothing else. */
export default class Hello extends Command {
  static override description = 'Print ok.'
  static override flags = {json: Flags.boolean({description: 'Print it as JSON.'})}

  async run(): Promise<void> {
    const {flags} = await this.parse(Hello)
    process.stdout.write(flags.json ? '{"ok":true}\n' : 'ok\n')
  }
}
