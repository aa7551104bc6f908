import type {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js'
import * as z from 'zod'

import {TECHNIQUES} from '../../schemas/common.js'
import {MAX_BATCH, STAGES, V1_PAGE_SIZE_DEFAULT, V1_PAGE_SIZE_MAX} from '../../schemas/demand.js'
import {createDemands, getDemand, listDemands, updateDemand, validateCreateBody} from '../demands.js'
import {badRequest, notFound} from '../errors.js'
import {blobExists, demandFiles, grantLink, keyOfLink, LINK_VALIDITY_S, type DemandFile} from '../files.js'
import {paymentAuthToken} from '../ids.js'
import {isPlainObject, v1Record} from '../records.js'
import type {DemandDoc} from '../store/demands.js'
import {given} from '../../util/fields.js'
import {ok, run, type ToolEnv} from './result.js'

/** Quote tools: list_quotes, get_quote, get_quote_file, create_quotes, update_quote. */

const READ = {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false} as const

const QuoteId = z.string().min(1).describe('The quote or order id (_id of list_quotes or create_quotes).')

/** The fields of a quote an assistant usually needs; `detail: "full"` gives the whole record. */
export function quoteSummary(doc: DemandDoc): Record<string, unknown> {
  const name = [doc.firstName, doc.lastName].filter((v) => typeof v === 'string' && v !== '').join(' ')
  return {
    _id: doc._id,
    orderNumber: doc.orderNumber,
    takenAs: doc.jobDetails.takenAs,
    stage: doc.demandStatusInfo.status,
    status: doc.status,
    technique: doc.technique,
    material: doc.material,
    quantity: doc.quantity,
    total: doc.total,
    currency: doc.currency,
    paymentStatus: doc.paymentStatus,
    customer: {
      ...(name ? {name} : {}),
      ...(typeof doc.email === 'string' ? {email: doc.email} : {}),
    },
    files: Array.isArray(doc.quoteModel)
      ? doc.quoteModel.filter((item) => typeof item.fileLink === 'string').length
      : 0,
    ...(doc.draftId !== undefined ? {draftId: doc.draftId} : {}),
    archive: doc.archive,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  }
}

const ListOutput = z.looseObject({
  quotes: z.array(z.looseObject({_id: z.string()})),
  page: z.number(),
  pageSize: z.number(),
  total: z.number(),
  totalPages: z.number(),
})

const QuoteOutput = z.looseObject({_id: z.string(), orderNumber: z.number()})

const FileOutput = z.looseObject({
  quoteId: z.string(),
  fileName: z.string(),
  url: z.string(),
  token: z.string(),
  expiresAt: z.string(),
  files: z.array(z.looseObject({index: z.number(), fileName: z.string()})),
})

const CreateOutput = z.looseObject({
  quotes: z.array(z.looseObject({_id: z.string(), created: z.boolean()})),
})

const UpdateOutput = z.looseObject({
  quote: z.looseObject({_id: z.string()}),
  previousStage: z.string(),
  stage: z.string(),
  becameOrder: z.boolean(),
})

/** One item of create_quotes: the v1 create request's fields; the ones below are the usual ones. */
const NewQuote = z
  .looseObject({
    technique: z.enum(TECHNIQUES).optional().describe('Manufacturing service of the part.'),
    material: z.string().optional().describe('Material name, as list_machines shows it (for example "PLA").'),
    quantity: z.number().int().optional(),
    color: z.string().optional(),
    quoteModel: z
      .array(z.looseObject({}))
      .optional()
      .describe('Parts: fileLink, fileName, service, technology, material, quantity, price fields...'),
    jobDetails: z
      .looseObject({takenAs: z.enum(['QUOTE', 'ORDER']).optional()})
      .optional()
      .describe('takenAs QUOTE (default) or ORDER.'),
    email: z.string().optional().describe('Customer email; the quote is emailed there.'),
    firstName: z.string().optional(),
    lastName: z.string().optional(),
    phone: z.string().optional(),
    currency: z.string().optional().describe('Currency code; default the business currency.'),
    draftId: z
      .string()
      .optional()
      .describe('Your own id for this quote: sending it again returns the existing quote instead of a duplicate.'),
  })
  .describe('One quote, in the fields of the v1 create-quotes request (CreateDemandRequestData).')

export function registerQuoteTools(server: McpServer, env: ToolEnv): void {
  registerQuoteReads(server, env)
  registerQuoteWrites(server, env)
}

/** The file a get_quote_file call names: by fileName, by index, else the first. */
function chooseFile(quoteId: string, files: DemandFile[], fileName?: string, index?: number): DemandFile {
  if (files.length === 0) throw notFound(`Quote ${quoteId} has no files.`)
  if (fileName !== undefined && index !== undefined) throw badRequest('Send fileName or index, not both.')
  if (fileName !== undefined) {
    const found = files.find((f) => f.fileName === fileName)
    if (!found)
      throw notFound(
        `Quote ${quoteId} has no file named ${JSON.stringify(fileName)}; its files are ${files.map((f) => JSON.stringify(f.fileName)).join(', ')}.`,
      )
    return found
  }
  if (index !== undefined) {
    if (index >= files.length)
      throw badRequest(`index must be from 0 to ${files.length - 1} (the quote has ${files.length} file(s)).`)
    return files[index] as DemandFile
  }
  return files[0] as DemandFile
}

function registerQuoteReads(server: McpServer, env: ToolEnv): void {
  const {ctx, business} = env
  const {store} = ctx

  server.registerTool(
    'list_quotes',
    {
      title: 'List quotes and orders',
      description:
        'Lists the business\'s quote requests, confirmed orders, or both, newest first, one page at a time. Reads only. Each item is a summary (id, order number, stage, material, quantity, total, customer); pass detail "full" for whole records, or call get_quote for one.',
      inputSchema: z.strictObject({
        type: z
          .enum(['quotes', 'orders', 'all'])
          .default('quotes')
          .describe('quotes (taken as QUOTE), orders (taken as ORDER) or all.'),
        status: z.enum(STAGES).optional().describe('Only this stage.'),
        archived: z.boolean().default(false).describe('List archived (cancelled and archived) ones instead.'),
        page: z.number().int().min(1).default(1).describe('1-based page.'),
        pageSize: z.number().int().min(1).max(V1_PAGE_SIZE_MAX).default(V1_PAGE_SIZE_DEFAULT),
        draftId: z.string().min(1).optional().describe('Only the one created with this draftId.'),
        sort: z.enum(['createdAt', '-createdAt']).default('-createdAt'),
        detail: z.enum(['summary', 'full']).default('summary'),
      }),
      outputSchema: ListOutput,
      annotations: READ,
    },
    async (args) =>
      run(() => {
        const {data, total} = listDemands(store, business, {
          type: args.type,
          page: args.page,
          pageSize: args.pageSize,
          archived: args.archived,
          sort: args.sort,
          ...given({status: args.status, draftId: args.draftId}),
        })
        return ok({
          quotes: data.map(args.detail === 'full' ? v1Record : quoteSummary),
          page: args.page,
          pageSize: args.pageSize,
          total,
          totalPages: Math.ceil(total / args.pageSize),
        })
      }),
  )

  server.registerTool(
    'get_quote',
    {
      title: 'Get one quote or order',
      description:
        'Reads one quote or order in full: customer and addresses, parts (quoteModel) with their files and prices, totals, stage (demandStatusInfo.status) and tracking history. Reads only.',
      inputSchema: z.strictObject({quoteId: QuoteId}),
      outputSchema: QuoteOutput,
      annotations: READ,
    },
    async ({quoteId}) => run(() => ok(v1Record(getDemand(store, business, quoteId)))),
  )

  server.registerTool(
    'get_quote_file',
    {
      title: 'Get a download link for a quote file',
      description:
        "Gives a signed download link to one of a quote's files (its parts' 3D or 2D files), valid for 30 minutes for anyone holding it; changes nothing. Pick the file by fileName or index (0-based), else the first; the answer lists all of the quote's files. Pass the link to measure_part to measure the part.",
      inputSchema: z.strictObject({
        quoteId: QuoteId,
        fileName: z.string().min(1).optional().describe("The part's fileName."),
        index: z.number().int().min(0).optional().describe("0-based position among the quote's files."),
      }),
      outputSchema: FileOutput,
      annotations: {...READ, idempotentHint: false},
    },
    async ({quoteId, fileName, index}) =>
      run(() => {
        const doc = getDemand(store, business, quoteId)
        const files = demandFiles(doc)
        const chosen = chooseFile(quoteId, files, fileName, index)
        const key = keyOfLink(chosen.fileLink, env.fileHost)
        const file = key === undefined ? undefined : store.files.byKey(key)
        if (!file || file.businessId !== business.id || !blobExists(store, file))
          throw notFound(`The file ${chosen.fileLink} is not in this business's file store.`)
        const now = ctx.clock()
        const grant = grantLink(store, ctx.signingSecret, file.key, env.fileHost, now)
        return ok({
          quoteId: doc._id,
          fileName: chosen.fileName,
          ...grant,
          expiresAt: new Date((Math.floor(now / 1000) + LINK_VALIDITY_S) * 1000).toISOString(),
          files: files.map((f, i) => ({index: i, fileName: f.fileName})),
        })
      }),
  )
}

function registerQuoteWrites(server: McpServer, env: ToolEnv): void {
  const {ctx, business} = env
  const {store} = ctx

  server.registerTool(
    'create_quotes',
    {
      title: 'Create quotes',
      description: `Creates 1 to ${MAX_BATCH} quotes (or orders, with jobDetails.takenAs ORDER) for the business, all or none, and returns them with their ids and payment tokens. This is a real change: the service emails each quote to its customer (unless settings.notification.user is false) and notifies the business's webhooks (quote_request_received or order_placed). Ask the user before running it. A minimal quote has technique and material, or quoteModel parts; an item whose draftId was used before returns the existing quote instead of a new one.`,
      inputSchema: z.strictObject({
        quotes: z.array(NewQuote).min(1).max(MAX_BATCH).describe('The quotes to create, in order.'),
      }),
      outputSchema: CreateOutput,
      annotations: {readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true},
    },
    async ({quotes}) =>
      run(() => {
        const items = validateCreateBody(quotes, business)
        const now = ctx.clock()
        const outcomes = createDemands({store, business, now, replay: ctx.replay}, items)
        return ok({
          quotes: outcomes.map(({doc, created}) => ({
            ...v1Record(doc),
            paymentAuthToken: paymentAuthToken(ctx.signingSecret, business.id, doc._id, doc.orderNumber),
            created,
          })),
        })
      }),
  )

  server.registerTool(
    'update_quote',
    {
      title: 'Update a quote or order',
      description:
        'Changes one quote or order: its stage (status), prices, dates, addresses, notes, payment or tracking, and answers the updated record. This is a real change: the customer may be emailed and the webhooks are notified (quote_request_updated or order_updated). Ask the user before running it. Stage moves follow the service rules: quote_sent → special_verified or cancelled; special_verified → special_accepted, quote_sent or cancelled; special_accepted → done → in_shipping → delivered. From special_accepted on, material, quantity, color, resolution, filling, thickness, tolerance, quoteModel and technique no longer change. A refused change is a 409 error naming both stages.',
      inputSchema: z.strictObject({
        quoteId: QuoteId,
        status: z.enum(STAGES).optional().describe('Move the quote to this stage (demandStatusInfo.status).'),
        changes: z
          .looseObject({})
          .optional()
          .describe(
            'Other fields to change, as in the v1 update request (UpdateDemandRequestData): priceTotal, priceDelivery, fabricatedDate, shippingAddress, paymentStatus, trackId, jobDetails.takenAs...',
          ),
      }),
      outputSchema: UpdateOutput,
      annotations: {readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true},
    },
    async ({quoteId, status, changes}) =>
      run(() => {
        if (status === undefined && (changes === undefined || Object.keys(changes).length === 0))
          throw badRequest('Nothing to change: pass status, changes, or both.')
        const body: Record<string, unknown> = {...changes}
        if (status !== undefined) {
          const info = isPlainObject(body.demandStatusInfo) ? body.demandStatusInfo : {}
          body.demandStatusInfo = {...info, status}
        }
        const outcome = updateDemand({store, business, now: ctx.clock()}, quoteId, body)
        return ok({
          quote: v1Record(outcome.doc),
          previousStage: outcome.previous.demandStatusInfo.status,
          stage: outcome.doc.demandStatusInfo.status,
          becameOrder: outcome.becameOrder,
        })
      }),
  )
}
