import {Flags} from '@oclif/core'

import {listFlags, pagingFlags} from '../../cli/flags.js'
import {ListCommand} from '../../cli/list-command.js'
import {planSort} from '../../cli/list-sort.js'
import {postFilterFlags, postRow, splitList} from '../../cli/posts.js'
import {onStdoutClosed} from '../../cli/stdio.js'
import {POST_SORTS, POSTS_PAGE_SIZE_MAX, type PostSort} from '../../schemas/posts.js'
import {listPostPage, POST_SERVICE_SORTS, streamPosts, type ListPostsInput} from '../../services/posts/list.js'
import {given} from '../../util/fields.js'
import type {PostRecord} from '../../schemas/read/types.js'

const POST_LIST_COLUMNS = ['_id', 'title', 'service', 'price.priceMachine', 'materials', 'models', 'createdAt'] as const
/** What --wide adds, what goes first on a narrow terminal, what is not cut. */
const POST_LIST_LAYOUT = {
  wide: ['type', 'category', 'updatedAt'],
  drop: ['createdAt', 'models', 'materials', 'price.priceMachine', 'service'],
  keep: ['_id'],
} as const

export default class PostList extends ListCommand {
  static override summary = "List the business's products (legacy posts)."
  static override description = `Shows one page of products (5 by default, newest first), or every page with --all. Every filter of the service is a flag: --category, --service, --type, --free/--no-free, --tags and --formats (comma-separated; a product matches any of them).

--sort createdAt, -createdAt, -views and -likes are done by the service (its sortBy; --sort-by createdAtDec and the like still work). Any other field is sorted by the CLI over the whole list: every page is fetched first (said on stderr), and --limit then keeps the first products of the sorted list.

The table shows the materials and models as counts; --json, --ndjson and --columns give the full records. With --all --json (or --ndjson) each product is one JSON line, and with --all --csv one CSV line, printed as its page arrives.`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --service 3D_PRINTING --free --sort -views',
    '<%= config.bin %> <%= command.id %> --tags enclosure,raspberry --formats stl --all --json',
    '<%= config.bin %> <%= command.id %> --page 2 --page-size 20 --columns _id,title,price.priceMachine',
  ]
  static override outputFields = async () => (await import('../../schemas/read/posts.js')).PostRecordRead
  static override flags = {
    ...postFilterFlags(),
    'sort-by': Flags.string({
      description:
        "The service's order by its own name; the older spelling of --sort createdAt, -createdAt, -views, -likes.",
      options: [...POST_SORTS],
      exclusive: ['sort'],
      hidden: true,
    }),
    ...pagingFlags('products', POSTS_PAGE_SIZE_MAX, 5),
    ...listFlags(POST_LIST_COLUMNS, POST_LIST_LAYOUT.wide),
  }

  async run(): Promise<PostRecord[] | undefined> {
    const {flags} = await this.parse(PostList)
    const sort = planSort(flags.sort, POST_SERVICE_SORTS, flags.page, 'createdAt, views and likes')
    const ctx = await this.context(flags).service()
    const signal = onStdoutClosed()
    const input: ListPostsInput = given({
      category: flags.category,
      service: flags.service,
      type: flags.type,
      free: flags.free,
      tags: flags.tags ? splitList(flags.tags) : undefined,
      formats: flags.formats ? splitList(flags.formats) : undefined,
      sortBy: (sort.service ?? flags['sort-by']) as PostSort | undefined,
      currentPage: flags.page,
      pageSize: flags['page-size'],
      limit: sort.client ? undefined : flags.limit,
      signal,
    })
    const filtered = [flags.category, flags.service, flags.type, flags.free, flags.tags, flags.formats].some(
      (f) => f !== undefined,
    )
    const source = {
      page: async () => {
        const page = await listPostPage(ctx, input)
        return {records: page.posts, paging: {...page, page: page.currentPage}}
      },
      stream: () => streamPosts(ctx, input),
    }
    return this.runList(flags, sort, signal, source, {
      columns: POST_LIST_COLUMNS,
      layout: POST_LIST_LAYOUT,
      noun: 'products',
      empty: filtered ? 'No products match.' : 'No products.',
      sortable: 'createdAt, views and likes',
      pageSizeMax: POSTS_PAGE_SIZE_MAX,
      row: postRow,
    })
  }
}
