import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {yesFlag} from '../../cli/flags.js'
import {writeOut} from '../../cli/output.js'
import type {PostRecord} from '../../schemas/read/types.js'

export default class PostDelete extends BaseCommand {
  static override summary = 'Delete a product.'
  static override description = `Sends DELETE /api/v2/ms-post/post/upload?postId=ID and prints the product as it was. The product disappears from lists and can no longer be ordered. When the answer to the delete is lost (a gateway's 502, a dropped connection) and the resend finds no such product (404), the product is reported deleted (exit 0) with a warning, without its record.

Asks for confirmation in a terminal. Without a terminal (scripts, CI) --yes is required: without it nothing is sent and the exit code is 2.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> 65f000050000000000000001',
    '<%= config.bin %> <%= command.id %> 65f000050000000000000001 --yes --json',
  ]
  static override args = {id: Args.string({description: 'Product id (postId).', required: true})}
  static override flags = {yes: yesFlag}

  async run(): Promise<PostRecord | undefined> {
    const {args, flags} = await this.parse(PostDelete)
    const {confirmOrYes} = await import('../../cli/prompt.js')
    if (!(await confirmOrYes({yes: flags.yes, message: `Delete product ${args.id}?`}))) {
      this.note('Nothing was sent.')
      return undefined
    }
    const {client} = await this.context(flags).session()
    const {deletePost} = await import('../../services/posts/write.js')
    const {post, lostAnswer} = await deletePost({client}, args.id)
    if (!this.jsonEnabled()) writeOut(post._id)
    if (lostAnswer !== undefined) {
      this.warnNote(
        `Deleted product ${post._id}: the answer to the attempt that deleted it was lost (${lostAnswer}); the retry found no such product (404), which that attempt's delete explains; a mistyped id would give the same 404, so check the id if in doubt (the product as it was is not shown)`,
        true,
      )
    } else if (!this.jsonEnabled()) this.note(`Deleted product ${post._id}${post.title ? ` (${post.title})` : ''}.`)
    return post
  }
}
