import {BaseCommand} from '../../cli/base-command.js'
import {writeOut} from '../../cli/output.js'
import {postBodyFrom, postSummary, postWriteFlags} from '../../cli/posts.js'
import type {Confirmation} from '../../cli/written.js'
import type {PostRecord} from '../../schemas/read/types.js'

export default class PostCreate extends BaseCommand {
  static override summary = 'Create a product (legacy post).'
  static override description = `Sends POST /api/v2/ms-post/post/{businessId}. Give the product as JSON with --file (the interface's fields: service, price {priceMachine, priceConception, priceExtra}, materials [{title, type, price, currency}], and optionally title, description, category, tags, formats, free, models, gallery; - reads stdin), or with flags; flags override the file's values.

service, price.priceMachine and at least one material are required. A service that confirms without answering the product (201, 202 or 204 without a body) has still created it: the command says so and, under --json, prints {"confirmed": true, "status": N}. --material takes title:type:price:currency and may be repeated. A post as post list --json prints it may be given as the file, to copy it: the fields the service sets (_id, user, views, likes, createdAt, updatedAt) are left out with a note, and a type other than PRODUCT is refused. The body is checked before sending: problems exit 2 and nothing is sent.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> --service 3D_PRINTING --price-machine 12.5 --material PLA:plastic:25:EUR',
    '<%= config.bin %> <%= command.id %> --service CNC_MACHINING --price-machine 40 --price-conception 15 --material "Aluminium 6061:metal:60:EUR" --material "Brass:metal:90:EUR" --title "Custom bracket" --tags bracket,aluminium',
    '<%= config.bin %> <%= command.id %> --file examples/product.json --json',
  ]
  static override flags = postWriteFlags(
    'The product as one JSON object; - reads stdin.',
    'Category (default: the service).',
  )

  async run(): Promise<PostRecord | Confirmation> {
    const {flags} = await this.parse(PostCreate)
    const {body, note} = await postBodyFrom(flags)
    if (note) this.note(note)
    const {createPost} = await import('../../services/posts/write.js')
    const ctx = await this.context(flags).service()
    const {record: post, status} = await createPost(ctx, body)
    if (!post) return this.confirmedWithout(status, 'Created', "the product's details; find it with mfg post list")
    if (!this.jsonEnabled()) {
      writeOut(post._id)
      this.note(`Created product ${post._id}${postSummary(post)}.`)
    }
    return post
  }
}
