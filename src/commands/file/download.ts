import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {writeOut} from '../../cli/output.js'
import type {DownloadedFile} from '../../services/files/download.js'

export default class FileDownload extends BaseCommand {
  static override summary = "Download a demand's files through signed links."
  static override description = `Reads the demand (v1), then for each quote-model file asks for a signed link and streams the file to --out (default: the current folder) under its fileName, reduced to a plain name (no folders, no ..). Existing files are kept unless --force.

The file host gets only the signed link, never your API key, and links are never printed. When a link expires on the way, a new one is asked for and the transfer resumes where it stopped (or starts over if the host cannot resume). A transfer an interrupted run left (NAME.part, and NAME.part.json naming the file's version) is resumed by the next run when the file host still serves that version (its ETag or Last-Modified, sent as If-Range); a file replaced since is downloaded whole. The bytes written must match the size the host announced. A progress bar is drawn on stderr in a terminal.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> 65f000060000000000000002',
    '<%= config.bin %> <%= command.id %> 65f000060000000000000002 --out ./parts --force --json',
  ]
  static override args = {demandId: Args.string({description: 'Demand id (_id).', required: true})}
  static override flags = {
    out: Flags.string({char: 'o', description: 'Folder to write the files in (created if needed).', default: '.'}),
    force: Flags.boolean({description: 'Overwrite files that already exist.'}),
  }

  async run(): Promise<DownloadedFile[]> {
    const {args, flags} = await this.parse(FileDownload)
    const {client} = await this.context(flags).session()
    const {downloadDemandFiles} = await import('../../services/files/download.js')
    const {ByteProgressBar} = await import('../../cli/progress.js')
    const bar = new ByteProgressBar()
    let files: DownloadedFile[]
    try {
      files = await downloadDemandFiles({client}, args.demandId, {
        outDir: flags.out,
        force: flags.force,
        onProgress: (p) => bar.update(p.fileName, p.transferred, p.total),
        onFileDone: (f) => {
          bar.done()
          if (!this.jsonEnabled())
            writeOut(
              `${f.path}  ${f.bytes} bytes${f.links > 1 ? `  (${f.links} links)` : ''}${f.resumed ? '  (resumed)' : ''}`,
            )
        },
      })
    } finally {
      bar.done()
    }
    this.note(`Downloaded ${files.length} file${files.length === 1 ? '' : 's'} of demand ${args.demandId}.`)
    return files
  }
}
