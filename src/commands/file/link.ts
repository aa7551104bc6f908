import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {UsageError} from '../../cli/errors.js'
import {writeOut} from '../../cli/output.js'
import {defined, given} from '../../util/fields.js'

interface LinkResult {
  url: string
  token: string
  fileName: string
  expiresAt?: string
}

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
    const {demandFileLink, storageFileLink} = await import('../../services/files/link.js')
    const link =
      flags['file-link'] === undefined
        ? await demandFileLink({client}, args.demandId!, defined({fileName: flags['file-name'], index: flags.index}))
        : await storageFileLink({client}, flags['file-link'])
    if (!this.jsonEnabled()) {
      if (flags['show-url']) writeOut(link.url)
      else {
        writeOut(
          `Link issued for ${link.fileName || 'the file'} at ${link.shownUrl}${link.expiresAt ? `, expires ${link.expiresAt}` : ''} (signature hidden; --show-url or --json prints it).`,
        )
      }
    }
    if (profile.embedded) {
      // The link points at this process's own sandbox, whose port closes when the command exits.
      this.warnNote(
        `the embedded sandbox serving this link stops when this command exits, so the link will not open. To save the file now: mfg file download ${args.demandId ?? 'DEMAND_ID'}. For links that open: run mfg sandbox serve --port 4010 in another terminal (the same data, served until Ctrl-C) and point mfg at it with MFG_BASE_URL=http://127.0.0.1:4010 and the MFG_API_KEY and MFG_BUSINESS_ID it prints (--show-secrets)`,
        true,
      )
    }
    return {
      url: link.url,
      token: link.token,
      fileName: link.fileName,
      ...given({expiresAt: link.expiresAt}),
    }
  }
}
