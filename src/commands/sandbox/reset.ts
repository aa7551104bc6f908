import {BaseCommand} from '../../cli/base-command.js'
import {yesFlag} from '../../cli/flags.js'
import {confirmOrYes} from '../../cli/prompt.js'
import {mfgPaths} from '../../profiles/paths.js'

export default class SandboxReset extends BaseCommand {
  static override summary = 'Wipe and reseed the embedded sandbox data.'
  static override description =
    'Deletes every demand, product and webhook of the embedded sandbox (under MFG_HOME) and seeds it afresh; the seeded keys change. Asks for confirmation in a terminal; pass --yes otherwise. Refused (exit 1, nothing changed) while another process has the sandbox open, such as a sandbox serve or a demand watch on the same MFG_HOME: its writes would go to a database that is no longer there.'
  static override examples = ['<%= config.bin %> <%= command.id %> --yes']
  static override flags = {yes: yesFlag}

  async run(): Promise<{reset: boolean; dataDir: string}> {
    const {flags} = await this.parse(SandboxReset)
    const dataDir = mfgPaths().sandboxDir
    if (!(await confirmOrYes({yes: flags.yes, message: `Wipe all sandbox data in ${dataDir}?`}))) {
      this.note('Nothing was changed.')
      return {reset: false, dataDir}
    }
    const {resetSandbox} = await import('../../sandbox/index.js')
    await resetSandbox(dataDir)
    this.note(`Sandbox data in ${dataDir} wiped and reseeded.`)
    return {reset: true, dataDir}
  }
}
