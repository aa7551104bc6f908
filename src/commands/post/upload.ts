import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {writeOut} from '../../cli/output.js'

interface Uploaded {
  url: string
  originalName?: string
}

export default class PostUpload extends BaseCommand {
  static override summary = 'Upload model or image files for products.'
  static override description = `Sends the files as multipart/form-data parts named "files" to POST /api/v2/ms-post/post/upload (up to 20 files, 50 MiB each) and prints the stored URLs, [{url, originalName}], to use in a product's models or gallery (mfg post add-model --file-url URL).

Files are read from disk as they are sent, so memory stays flat. A progress bar is drawn on stderr in a terminal.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> examples/bracket.stl',
    '<%= config.bin %> <%= command.id %> examples/bracket.stl examples/part.stl --json',
  ]
  static override strict = false
  static override args = {files: Args.string({description: 'Files to upload.', required: true})}

  async run(): Promise<Uploaded[]> {
    const {argv, flags} = await this.parse(PostUpload)
    const {checkUploadFiles, uploadFiles} = await import('../../services/posts/write.js')
    const files = checkUploadFiles(argv as string[])
    const {client} = await this.context(flags).session()
    const {ByteProgressBar} = await import('../../cli/progress.js')
    const bar = new ByteProgressBar()
    const label = files.length === 1 ? files[0]!.name : `${files.length} files`
    let uploaded: Uploaded[]
    try {
      uploaded = await uploadFiles({client}, files, (p) => bar.update(label, p.transferred, p.total))
    } finally {
      bar.done()
    }
    if (!this.jsonEnabled()) {
      for (const u of uploaded) writeOut(`${u.originalName ?? '—'}  ${u.url}`)
      this.note(`Uploaded ${uploaded.length} file${uploaded.length === 1 ? '' : 's'}.`)
    }
    return uploaded
  }
}
