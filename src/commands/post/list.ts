import {Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {listFlags} from '../../cli/flags.js'
import {postRow} from '../../cli/posts.js'
import {streamOrCollect} from '../../cli/output.js'
import {SERVICES} from '../../schemas/common.js'
import {POST_CATEGORIES, POST_SORTS, POST_TYPES, POSTS_PAGE_SIZE_MAX, type PostSort} from '../../schemas/posts.js'
import {listPostPage, streamPosts, type ListPostsInput} from '../../services/posts/list.js'
import {given} from '../../util/fields.js'
import type {PostRecord} from '../../schemas/read/types.js'

const POST_LIST_COLUMNS = ['_id', 'service', 'price.priceMachine', 'materials', 'models', 'createdAt'] as const
/** What --wide adds, what goes first on a narrow terminal, what is not cut. */
const POST_LIST_LAYOUT = {
  wide: ['title', 'type', 'category', 'updatedAt'],
  drop: ['createdAt', 'models', 'materials', 'price.priceMachine'],
  keep: ['_id'],
} as const

const splitList = (s: string | undefined) =>
  s
    ?.split(',')
    .map((x) => x.trim())
    .filter(Boolean)

export default class PostList extends BaseCommand {
  static override summary = "List the business's products (legacy posts)."
  static override description = `Shows one page of products (5 by default, newest first), or every page with --all. Every filter of the service is a flag: --category, --service, --type, --free/--no-free, --tags and --formats (comma-separated; a product matches any of them), and --sort-by.

The table shows the materials and models as counts; --json, --ndjson and --columns give the full records.`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --service 3D_PRINTING --free --sort-by viewsDec',
    '<%= config.bin %> <%= command.id %> --tags enclosure,raspberry --formats stl --all --json',
    '<%= config.bin %> <%= command.id %> --page 2 --page-size 20 --columns _id,title,price.priceMachine',
  ]
  static override flags = {
    category: Flags.string({description: 'Only this category.', options: [...POST_CATEGORIES]}),
    service: Flags.string({description: 'Only this service.', options: [...SERVICES]}),
    type: Flags.string({description: 'Only this post type (products are PRODUCT).', options: [...POST_TYPES]}),
    free: Flags.boolean({description: 'Only free products (--no-free: only paid ones).', allowNo: true}),
    tags: Flags.string({description: 'Comma-separated tags; a product matches any.'}),
    formats: Flags.string({description: 'Comma-separated file formats such as stl,step; a product matches any.'}),
    'sort-by': Flags.string({description: 'Order (default createdAtDec).', options: [...POST_SORTS]}),
    page: Flags.integer({description: 'Page to show (1-based).', min: 1, exclusive: ['all']}),
    'page-size': Flags.integer({description: `Products a page (1 to ${POSTS_PAGE_SIZE_MAX}; default 5).`, min: 1}),
    all: Flags.boolean({description: 'Follow every page.'}),
    ...listFlags(POST_LIST_COLUMNS, POST_LIST_LAYOUT.wide),
  }

  async run(): Promise<PostRecord[]> {
    const {flags} = await this.parse(PostList)
    const ctx = await this.context(flags).service()
    const input: ListPostsInput = given({
      category: flags.category,
      service: flags.service,
      type: flags.type,
      free: flags.free,
      tags: flags.tags ? splitList(flags.tags) : undefined,
      formats: flags.formats ? splitList(flags.formats) : undefined,
      sortBy: flags['sort-by'] as PostSort | undefined,
      currentPage: flags.page,
      pageSize: flags['page-size'],
    })
    const render = await import('../../cli/render.js')
    let posts: PostRecord[]
    let more: string | undefined
    const filtered = [flags.category, flags.service, flags.type, flags.free, flags.tags, flags.formats].some(
      (f) => f !== undefined,
    )
    const empty = filtered ? 'No products match.' : 'No products.'
    if (flags.all && !flags.sort && !this.jsonEnabled() && !flags.csv && !flags.ndjson) {
      // A table of --all streams too: widths from the first 1,000 rows, no more held (render.streamTable).
      const toRow = flags.columns ? (p: PostRecord): Record<string, unknown> => ({...p}) : postRow
      const layout = {...POST_LIST_LAYOUT, empty}
      await render.printTableStream(streamPosts(ctx, input), toRow, flags, POST_LIST_COLUMNS, layout)
      return []
    }
    if (flags.all) {
      const streaming = flags.ndjson && !flags.sort
      const line = streaming ? (p: PostRecord) => render.ndjsonLine(p, flags, POST_LIST_COLUMNS) : undefined
      posts = await streamOrCollect(streamPosts(ctx, input), line)
      if (streaming) return posts
    } else {
      const page = await listPostPage(ctx, input)
      posts = page.posts
      more = render.morePagesNote({...page, page: page.currentPage}, 'products')
    }
    posts = render.sortRows(posts, flags.sort)
    if (!this.jsonEnabled()) {
      const rows = flags.columns || flags.ndjson ? posts : posts.map(postRow)
      render.printList(rows, flags, POST_LIST_COLUMNS, empty, POST_LIST_LAYOUT)
    }
    if (more) this.note(more)
    return posts
  }
}
