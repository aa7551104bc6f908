import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {fileFlag} from '../../cli/flags.js'
import {writeOut} from '../../cli/output.js'
import {modelsFrom} from '../../cli/posts.js'

export default class PostAddModel extends BaseCommand {
  static override summary = 'Add a 3D model to a product.'
  static override description = `Sends POST /api/v2/ms-post/post/upload?postId=ID with {"objects3D": ...}. Describe one model with flags (--file-url for each of its files, usually URLs printed by mfg post upload), or give --file with a model object, an array of up to 20, or {"objects3D": ...}; - reads stdin.

Each model has price, free, originalname and files [{originalname, url}]. The product's formats gain the files' extensions.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> 65f000050000000000000001 --name bracket --price 12 --file-url https://files.mfg-sandbox.test/uploads/abc/bracket.stl',
    '<%= config.bin %> <%= command.id %> 65f000050000000000000001 --free --file-url https://files.example.com/a.stl --file-url https://files.example.com/a.step',
    '<%= config.bin %> <%= command.id %> 65f000050000000000000001 --file examples/models.json --json',
  ]
  static override args = {id: Args.string({description: 'Product id (postId).', required: true})}
  static override flags = {
    file: fileFlag('Models as JSON: one object, an array, or {"objects3D": ...}; - reads stdin.'),
    name: Flags.string({
      description: "Model name (originalname); default: the first file's name.",
      exclusive: ['file'],
    }),
    price: Flags.string({description: 'Model price, a number (default 0).', exclusive: ['file']}),
    free: Flags.boolean({description: 'The model is free.', exclusive: ['file']}),
    'file-url': Flags.string({
      description: "URL of one of the model's files (repeatable).",
      multiple: true,
      exclusive: ['file'],
    }),
  }

  async run(): Promise<Record<string, unknown>> {
    const {args, flags} = await this.parse(PostAddModel)
    const objects3D = await modelsFrom(flags)
    const {addModels} = await import('../../services/posts/write.js')
    const {client} = await this.context(flags).session()
    const answer = await addModels({client}, args.id, objects3D)
    if (!this.jsonEnabled()) {
      writeOut(`${answer._id}  ${answer.models?.length ?? 0} model${answer.models?.length === 1 ? '' : 's'}`)
      this.note(`Added to product ${answer._id}.`)
    }
    return answer
  }
}
