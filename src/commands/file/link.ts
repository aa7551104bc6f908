import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {UsageError} from '../../cli/errors.js'
import {writeOut} from '../../cli/output.js'
import {embeddedLinkWarning, linkLine, linkResult, type LinkResult} from '../../cli/file-link.js'
import {defined} from '../../util/fields.js'

export default class FileLink extends BaseCommand {
  static override summary = "Get a signed link to a demand's file (valid 30 minutes)."
  static override description = `Asks the service for a temporary signed link: v1 GET /api/public/v1/demand/access/file/{demandId} for a demand's file (the first one, or the one --file-name or --index picks), or with --file-link the legacy GET /api/v2/ms-machine-owner/demand/access-storage for a stored file URL.

Anyone holding the link can fetch the file until it expires, so the link is printed only when asked: --show-url prints it, --json prints {url, token, fileName, expiresAt}. Otherwise only the file name, the host and path, and the expiry are shown. To save the files, use mfg file download.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> 65f000060000000000000002',
    '<%= config.bin %> <%= command.id %> 65f000060000000000000002 --file-name sensor-bracket.stl --show-url',
    '<%= config.bin %> <%= command.id %> --file-link https://files.mfg-sandbox.test/seed/demands/sensor-bracket.stl --json | jq -r .url',
  ]
  static override args = {demandId: Args.string({description: 'Demand id (_id).'})}
  static override flags = {
    'file-link': Flags.string({
      description: "A stored file URL to sign (legacy access-storage) instead of a demand's file.",
      exclusive: ['file-name', 'index'],
    }),
    'file-name': Flags.string({
      description: "Which of the demand's files: its quote-model fileName.",
      exclusive: ['index'],
    }),
    index: Flags.integer({description: "Which of the demand's files: 0-based position.", min: 0}),
    'show-url': Flags.boolean({description: 'Print the signed link (it grants access to the file).'}),
  }

  async run(): Promise<LinkResult> {
    const {args, flags} = await this.parse(FileLink)
    if (flags['file-link'] === undefined && args.demandId === undefined) {
      throw new UsageError('Name a demand (mfg file link DEMAND_ID) or a stored file URL (--file-link URL).')
    }
    if (flags['file-link'] !== undefined && args.demandId !== undefined) {
      throw new UsageError('Give a demand id or --file-link, not both.')
    }
    const {client, profile} = await this.context(flags).session()
    const {namedDemandFileLink, storageFileLink} = await import('../../services/files/link.js')
    const link =
      flags['file-link'] === undefined
        ? await namedDemandFileLink(
            {client},
            args.demandId!,
            defined({fileName: flags['file-name'], index: flags.index}),
          )
        : await storageFileLink({client}, flags['file-link'])
    if (!this.jsonEnabled()) writeOut(flags['show-url'] ? link.url : linkLine(link))
    if (profile.embedded) this.warnNote(embeddedLinkWarning(args.demandId), true)
    return linkResult(link)
  }
}
