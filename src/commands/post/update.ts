import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {writeOut} from '../../cli/output.js'
import {postBodyFrom, postWriteFlags} from '../../cli/posts.js'
import type {Confirmation} from '../../cli/written.js'
import type {PostRecord} from '../../schemas/read/types.js'

export default class PostUpdate extends BaseCommand {
  static override summary = 'Change fields of a product.'
  static override description = `Sends PUT /api/v2/ms-post/post/upload?postId=ID with the fields to change. Use flags such as --service, or --file with a JSON object of post fields (- reads stdin); flags override the file's values. price merges key by key, every other field replaces. A post as post list --json prints it may be edited and sent back: the fields the service sets (_id, user, type, views, likes, createdAt, updatedAt) are left out with a note, an _id other than ID or a type other than PRODUCT is refused (exit 2), and an unknown field is refused naming it, with the field probably meant when one is close (exit 2, nothing sent).`
  static override examples = [
    '<%= config.bin %> <%= command.id %> 65f000050000000000000001 --service CNC_MACHINING',
    '<%= config.bin %> <%= command.id %> 65f000050000000000000001 --price-machine 18 --tags bracket,steel',
    'echo \'{"title": "New title"}\' | <%= config.bin %> <%= command.id %> 65f000050000000000000001 --file -',
    '<%= config.bin %> post list --all --json | jq -c \'select(._id == "65f000050000000000000001") | .tags += ["zinc-plated"]\' | <%= config.bin %> <%= command.id %> 65f000050000000000000001 --file -',
  ]
  static override args = {id: Args.string({description: 'Product id (postId).', required: true})}
  static override flags = postWriteFlags('Fields to change as one JSON object; - reads stdin.', 'Category.')

  async run(): Promise<PostRecord | Confirmation> {
    const {args, flags} = await this.parse(PostUpdate)
    const {body, note} = await postBodyFrom(flags, args.id)
    if (note) this.note(note)
    const {updatePost} = await import('../../services/posts/write.js')
    const {client} = await this.context(flags).session()
    const {record: post, status} = await updatePost({client}, args.id, body)
    const changed = Object.keys(body).join(', ')
    if (!post) return this.confirmedWithout(status, `Updated ${changed}`, 'the product', args.id)
    if (!this.jsonEnabled()) {
      const {toKeyValue} = await import('../../cli/render.js')
      writeOut(toKeyValue(post))
      this.note(`Updated ${changed}.`)
    }
    return post
  }
}
