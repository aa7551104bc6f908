// The foreign-server matrix: which server variants exist, which commands run
// against each, what a good run looks like, and a runner that spawns the built CLI
// (bin/run.js) against a fresh foreign server per case. Shared by foreign.test.ts
// and the matrix.ts script. Nothing here imports from src/: the CLI is a black box.
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

import {MCP_TOOLS, nginxPage, startForeignServer, type ForeignServer, type Quirks, type ServerStats} from './server.js'

const root = resolve(import.meta.dirname, '../..')
const bin = join(root, 'bin/run.js')

/** Issue 16's points ("What must hold when resolved"), for grouping what fails. */
export const POINTS = {
  duplicate: 'Never a duplicate, on any service',
  createAnswers: 'Create understands every common answer',
  reader: 'A tolerant reader for responses',
  paging: 'Pagination without metadata',
  noBody: 'Success without a body',
  errors: 'One error mapper for every status and body',
  budgets: 'Time and retry budgets',
  holds: 'What holds and must keep holding',
} as const
export type Point = (typeof POINTS)[keyof typeof POINTS]

/** The server calls a command can reach; a variant runs only the commands its quirks can reach. */
type Route =
  | 'demand-list'
  | 'demand-get'
  | 'demand-create'
  | 'legacy-create'
  | 'demand-update'
  | 'estimate'
  | 'file'
  | 'post-list'
  | 'post-create'
  | 'webhook-list'
  | 'webhook-create'
  /** A batch of several chunks (BIG_ROWS rows): many create requests in one command. */
  | 'demand-create-chunks'
  /** The assistant (MCP) endpoint: initialize, tools/list, tools/call. */
  | 'mcp'

export type Mode = 'table' | 'json'

export interface CaseContext {
  server: ForeignServer
  files: {rows: string; legacyRows: string; bigRows: string}
}

/** Rows of the batch that takes several chunks (100 rows a chunk). */
export const BIG_ROWS = 450

export interface CommandSpec {
  id: string
  reach: Route[]
  argv(ctx: CaseContext): string[]
  env?: Record<string, string>
  /** What the command creates, and how many. */
  creates?: {what: 'demands' | 'posts' | 'webhooks'; count: number}
  /** Idempotent on the wire (GET, PUT) or safe to repeat (estimation): one transient failure must not fail it. */
  retrySafe: boolean
  /** Requests a faithful server needs; the budget allows retries on top. */
  requests: number
  /** Text a successful run prints on stdout (ids, file names, the price). */
  shows(ctx: CaseContext, stats: ServerStats): string[]
  /** With --json it prints one JSON text a line (NDJSON), as `--all --json` does. */
  jsonLines?: boolean
}

const first = (xs: string[]): string[] => xs.slice(0, 1)

export const COMMANDS: CommandSpec[] = [
  {
    id: 'demand list',
    reach: ['demand-list'],
    argv: () => ['demand', 'list'],
    retrySafe: true,
    requests: 1,
    shows: ({server}) => [...first(server.seed.demandIds), server.seed.material],
  },
  {
    id: 'demand list --all',
    reach: ['demand-list'],
    argv: () => ['demand', 'list', '--all'],
    jsonLines: true,
    retrySafe: true,
    requests: 1,
    shows: ({server}) => first(server.seed.demandIds),
  },
  {
    id: 'demand get',
    reach: ['demand-get'],
    argv: ({server}) => ['demand', 'get', server.seed.demandIds[0]!],
    retrySafe: true,
    requests: 1,
    shows: ({server}) => [server.seed.demandIds[0]!, server.seed.material],
  },
  {
    id: 'demand create --file',
    reach: ['demand-create'],
    argv: ({files}) => ['demand', 'create', '--file', files.rows],
    creates: {what: 'demands', count: 3},
    retrySafe: true,
    requests: 1,
    shows: (_, stats) => stats.createdIds.demands,
  },
  {
    id: 'demand create (chunks)',
    reach: ['demand-create-chunks'],
    argv: ({files}) => ['demand', 'create', '--file', files.bigRows],
    creates: {what: 'demands', count: BIG_ROWS},
    retrySafe: true,
    requests: Math.ceil(BIG_ROWS / 100),
    shows: (_, stats) => stats.createdIds.demands.slice(0, 5),
  },
  {
    id: 'demand create (flags)',
    reach: ['demand-create'],
    argv: () => [
      'demand',
      'create',
      '--technique',
      '3D_PRINTING',
      '--material',
      'PLA',
      '--quantity',
      '2',
      '--email',
      'zoe@example.com',
      '--first-name',
      'Zoë',
      '--last-name',
      'Ølberg',
    ],
    creates: {what: 'demands', count: 1},
    retrySafe: true,
    requests: 1,
    shows: (_, stats) => stats.createdIds.demands,
  },
  {
    id: 'demand create --legacy',
    reach: ['legacy-create'],
    argv: ({files}) => ['demand', 'create', '--legacy', '--file', files.legacyRows],
    creates: {what: 'demands', count: 2},
    retrySafe: true,
    requests: 1,
    shows: (_, stats) => stats.createdIds.demands,
  },
  {
    id: 'demand update',
    reach: ['demand-update'],
    argv: ({server}) => ['demand', 'update', server.seed.demandIds[0]!, '--price-total', '99.5'],
    retrySafe: true,
    requests: 1,
    shows: ({server}) => [server.seed.demandIds[0]!],
  },
  {
    id: 'demand stage',
    reach: ['demand-update'],
    argv: ({server}) => ['demand', 'stage', server.seed.demandIds[0]!, 'special_verified'],
    retrySafe: true,
    requests: 1,
    shows: ({server}) => [server.seed.demandIds[0]!],
  },
  {
    id: 'price estimate',
    reach: ['estimate'],
    argv: () => [
      'price',
      'estimate',
      '--service',
      '3D_PRINTING',
      '--technology',
      'FDM',
      '--material',
      'PLA',
      '--volume',
      '12000',
      '--weight',
      '15',
      '--hours',
      '1.5',
      '--size',
      '40x30x20',
      '--quantity',
      '2',
    ],
    retrySafe: true,
    requests: 1,
    // 30 + 12.5 × 2 (the foreign server's own formula).
    shows: () => ['55'],
  },
  {
    id: 'file link',
    reach: ['file'],
    argv: ({server}) => ['file', 'link', server.seed.demandIds[0]!],
    retrySafe: true,
    requests: 1,
    shows: ({server}) => [server.seed.fileNames[0]!],
  },
  {
    id: 'post list',
    reach: ['post-list'],
    argv: () => ['post', 'list'],
    retrySafe: true,
    requests: 1,
    shows: ({server}) => server.seed.postIds,
  },
  {
    id: 'post create',
    reach: ['post-create'],
    argv: () => [
      'post',
      'create',
      '--service',
      '3D_PRINTING',
      '--price-machine',
      '12.5',
      '--material',
      'PLA:plastic:25:EUR',
      '--title',
      'Gehäuse Ω',
    ],
    creates: {what: 'posts', count: 1},
    retrySafe: false,
    requests: 1,
    shows: (_, stats) => stats.createdIds.posts,
  },
  {
    id: 'webhook list',
    reach: ['webhook-list'],
    argv: () => ['webhook', 'list'],
    retrySafe: true,
    requests: 1,
    shows: ({server}) => server.seed.webhookIds,
  },
  {
    id: 'webhook create',
    reach: ['webhook-create'],
    argv: () => [
      'webhook',
      'create',
      '--url',
      'https://hooks.example.com/new',
      '--events',
      'order_placed,order_updated',
    ],
    env: {MFG_WEBHOOK_SECRET: 'whsec_case_secret_value'},
    creates: {what: 'webhooks', count: 1},
    retrySafe: false,
    requests: 1,
    shows: (_, stats) => stats.createdIds.webhooks,
  },
  {
    id: 'mcp tools',
    reach: ['mcp'],
    argv: () => ['mcp', 'tools'],
    retrySafe: true,
    // initialize, notifications/initialized, tools/list.
    requests: 3,
    shows: () => [...MCP_TOOLS],
  },
  {
    id: 'mcp call',
    reach: ['mcp'],
    argv: () => ['mcp', 'call', 'estimate_price', '--arg', 'quantity=2', '--yes'],
    // The first request of a session is initialize, retried like a read; tools/call itself is not resent.
    retrySafe: true,
    // initialize, notifications/initialized, tools/list (the tool's hints), tools/call.
    requests: 4,
    shows: () => ['55'],
  },
]

/** What a good run of one command against one variant looks like. */
export interface Expectation {
  /** Exit codes that are right (0: the service did the work). */
  exit: number[]
  /** Text the output must contain (the service's own error message). */
  message?: string
  /** The output must not carry an HTML page. */
  noHtml?: boolean
  /** An empty list must say so in a table (--json prints its empty array). */
  saysEmpty?: boolean
  /** The answer carries the created ids (false for answers without a body). */
  idsKnown: boolean
  /** Most requests the command may make (redirect hops not counted). */
  budget: number
}

export interface Variant {
  name: string
  /** What a real service does that the documentation does not say. */
  about: string
  /** The issue-16 point the variant probes. */
  point: Point
  quirks: Quirks
  /** Routes whose answers the quirks change ('all': transport and failures). */
  reach: Route[] | 'all'
  expect?(cmd: CommandSpec): Partial<Expectation>
  /** Takes seconds by design (retry waits, slow answers): started first. */
  slow?: boolean
  /** With reach 'all': run every command by default, not only SAMPLE. */
  everyCommand?: boolean
  /** Environment of every run against the variant (small time-outs). */
  env?: Record<string, string>
  /** Only these commands of those the variant reaches. */
  only?: string[]
}

const DEMAND_CREATES: Route[] = ['demand-create', 'legacy-create']
const CREATES: Route[] = [...DEMAND_CREATES, 'post-create', 'webhook-create']
const DEMAND_READS: Route[] = ['demand-list', 'demand-get', 'demand-update']
const LISTS: Route[] = ['demand-list', 'post-list', 'webhook-list']
const DATA: Route[] = [...DEMAND_READS, ...CREATES, 'estimate', 'file', 'post-list', 'webhook-list']

/** The message the error variants carry: a command that shows the service's message shows this. */
export const ERROR_MARK = 'Material ZX-Ünobtainium is not offered by this business'

/**
 * A service that dies after its first answer: `demand list --all` fails on page 2
 * after its retries (5 requests); the batch's first chunk is created, the other four
 * go out together and fail, and each is looked up (at most 3 tries) and reported
 * unknown, never resent: 1 + 4 + 4 × 3 = 17 requests at most.
 */
const midWay = (cmd: CommandSpec): Partial<Expectation> =>
  cmd.id === 'demand list --all' ? {exit: [1], noHtml: true, budget: 5} : {exit: [1], noHtml: true, budget: 17}

/** A service that never answers in time: small time-outs keep these cases fast. */
const TIMEOUT_ENV = {MFG_TIMEOUT: '0.5'}
/** The command's whole time, for the variants that probe --total-timeout / MFG_TOTAL_TIMEOUT. */
const TOTAL_ENV = {MFG_TOTAL_TIMEOUT: '1.5'}

const failsEverything =
  (extra: Partial<Expectation> = {}) =>
  (): Partial<Expectation> => ({exit: [1], ...extra})
/** A create that is not demand-batch-aware (posts, webhooks) may fail after a transient error, but never duplicate. */
const transientOnce = (cmd: CommandSpec): Partial<Expectation> => (cmd.retrySafe ? {} : {exit: [0, 1]})
/** No proof either way (no draftId echo, no lookup): demand creates must report "unknown", never duplicate. */
const blind = (cmd: CommandSpec): Partial<Expectation> =>
  cmd.creates?.what === 'demands' ? {exit: [1]} : transientOnce(cmd)

export const VARIANTS: Variant[] = [
  {
    name: 'baseline',
    about: 'faithful to the interface and the contract',
    point: POINTS.holds,
    quirks: {},
    reach: 'all',
    everyCommand: true,
  },

  // Create answers.
  {
    name: 'create-object',
    about: 'create answers one object, not an array, for one row',
    point: POINTS.createAnswers,
    quirks: {createAnswer: 'object'},
    reach: DEMAND_CREATES,
  },
  {
    name: 'create-object-no-draft',
    about: 'create answers one object for one row and no record carries draftId',
    point: POINTS.duplicate,
    quirks: {createAnswer: 'object', echoDraftId: false},
    reach: DEMAND_CREATES,
    slow: true,
  },
  {
    name: 'create-data',
    about: 'create answers {data: [...]}',
    point: POINTS.createAnswers,
    quirks: {createAnswer: 'data'},
    reach: DEMAND_CREATES,
  },
  {
    name: 'create-ids',
    about: 'create answers [{_id}] only',
    point: POINTS.createAnswers,
    quirks: {createAnswer: 'ids'},
    reach: DEMAND_CREATES,
  },
  {
    name: 'create-id-strings',
    about: 'create answers an array of id strings',
    point: POINTS.createAnswers,
    quirks: {createAnswer: 'id-strings'},
    reach: DEMAND_CREATES,
  },
  {
    name: 'create-201-empty',
    about: 'create answers 201 with no body',
    point: POINTS.noBody,
    quirks: {createAnswer: 'empty'},
    reach: CREATES,
    expect: () => ({idsKnown: false}),
  },
  {
    name: 'create-202-empty',
    about: 'create answers 202 Accepted with no body',
    point: POINTS.noBody,
    quirks: {createAnswer: 'empty', createStatus: 202},
    reach: CREATES,
    expect: () => ({idsKnown: false}),
  },
  {
    name: 'create-204',
    about: 'create answers 204 No Content',
    point: POINTS.noBody,
    quirks: {createAnswer: 'empty', createStatus: 204},
    reach: CREATES,
    expect: () => ({idsKnown: false}),
  },
  {
    name: 'no-draft-echo',
    about: 'no record carries the draftId it was created with',
    point: POINTS.createAnswers,
    quirks: {echoDraftId: false},
    reach: [...DEMAND_CREATES, 'demand-list', 'demand-get'],
  },
  {
    name: 'update-204',
    about: 'PUT answers 204 No Content',
    point: POINTS.noBody,
    quirks: {updateAnswer: 'empty-204'},
    reach: ['demand-update'],
  },
  {
    name: 'update-partial',
    about: 'PUT answers only _id and the changed fields',
    point: POINTS.noBody,
    quirks: {updateAnswer: 'partial'},
    reach: ['demand-update'],
  },

  // Records.
  {
    name: 'numeric-strings',
    about: 'orderNumber "41", prices and paging fields as strings',
    point: POINTS.reader,
    quirks: {numericStrings: true},
    reach: [...DEMAND_READS, ...DEMAND_CREATES, 'estimate', 'post-list', 'post-create'],
    slow: true,
  },
  {
    name: 'nulls',
    about: 'priceTotal, shippingAddress, tracking, fabricatedDate and more are null',
    point: POINTS.reader,
    quirks: {nulls: true},
    reach: [...DEMAND_READS, ...DEMAND_CREATES, 'estimate', 'post-list', 'post-create', 'webhook-list'],
  },
  {
    name: 'unknown-fields',
    about: 'fields the interface does not list, everywhere',
    point: POINTS.holds,
    quirks: {unknownFields: true},
    reach: DATA,
  },
  {
    name: 'unknown-enums',
    about: 'enum values the interface does not list (type, status, service, events)',
    point: POINTS.reader,
    quirks: {unknownEnums: true},
    reach: [...DEMAND_READS, ...DEMAND_CREATES, 'post-list', 'post-create', 'webhook-list', 'webhook-create'],
  },
  {
    name: 'date-forms',
    about: 'other ISO 8601 forms: +00:00, +02:00, microseconds, no fraction',
    point: POINTS.holds,
    quirks: {dateForms: true},
    reach: [...DEMAND_READS, ...DEMAND_CREATES, 'post-list', 'post-create', 'webhook-list', 'webhook-create'],
  },
  {
    name: 'unicode',
    about: 'Unicode in every string: accents, CJK, RTL, emoji with joiners',
    point: POINTS.holds,
    quirks: {unicode: true},
    reach: DATA,
  },

  // Lists and paging.
  {
    name: 'list-bare',
    about: 'every list is a bare array',
    point: POINTS.reader,
    quirks: {listShape: 'bare'},
    reach: LISTS,
  },
  {
    name: 'list-data',
    about: 'every list is {data: [...]} without paging fields',
    point: POINTS.paging,
    quirks: {listShape: 'data'},
    reach: LISTS,
  },
  {
    name: 'paging-missing',
    about: 'lists keep their documented key but have no paging fields',
    point: POINTS.paging,
    quirks: {listShape: 'no-paging'},
    reach: ['demand-list', 'post-list'],
  },
  {
    name: 'paging-wrong',
    about: 'page is ignored and the paging fields say 40 pages of 120',
    point: POINTS.paging,
    quirks: {pagingWrong: true},
    reach: ['demand-list', 'post-list'],
  },
  {
    name: 'huge-page',
    about: 'pageSize ignored: 3000 demands (about 5 MB) on one page',
    point: POINTS.holds,
    quirks: {seedDemands: 1000, pageSizeIgnored: true},
    reach: ['demand-list'],
  },
  {
    name: 'empty',
    about: 'no demands, products or webhooks',
    point: POINTS.errors,
    quirks: {seedDemands: 0},
    reach: LISTS,
    expect: () => ({saysEmpty: true}),
  },

  // Answers with less than documented.
  {
    name: 'post-sparse',
    about: 'posts without price, materials, models, createdAt',
    point: POINTS.reader,
    quirks: {postSparse: true},
    reach: ['post-list', 'post-create'],
  },
  {
    name: 'webhook-no-message',
    about: 'webhook answers without message',
    point: POINTS.reader,
    quirks: {webhookNoMessage: true},
    reach: ['webhook-list', 'webhook-create'],
  },
  {
    name: 'estimate-no-message',
    about: 'price estimation without message (data.price present)',
    point: POINTS.reader,
    quirks: {estimateNoMessage: true},
    reach: ['estimate'],
  },
  {
    name: 'file-no-token',
    about: 'file link without token (the signed url present)',
    point: POINTS.reader,
    quirks: {fileNoToken: true},
    reach: ['file'],
  },

  // Error bodies.
  {
    name: 'error-nested',
    about: '400 {"error": {"message": ...}}',
    point: POINTS.errors,
    quirks: {always: {kind: 'status', status: 400, body: {error: {message: ERROR_MARK, code: 'E_MATERIAL'}}}},
    reach: 'all',
    expect: failsEverything({message: ERROR_MARK}),
  },
  {
    name: 'error-array',
    about: '422 {"errors": [{"message": ...}]}',
    point: POINTS.errors,
    quirks: {always: {kind: 'status', status: 422, body: {errors: [{message: ERROR_MARK, field: 'material'}]}}},
    reach: 'all',
    expect: failsEverything({message: ERROR_MARK}),
  },
  {
    name: 'error-problem',
    about: 'RFC 9457 application/problem+json with title and detail',
    point: POINTS.errors,
    quirks: {
      always: {
        kind: 'status',
        status: 400,
        body: {type: 'https://errors.example.com/material', title: 'Invalid material', detail: ERROR_MARK, status: 400},
      },
    },
    reach: 'all',
    expect: failsEverything({message: ERROR_MARK}),
  },
  {
    name: 'html-502',
    about: 'every answer is nginx\'s HTML "502 Bad Gateway" page',
    point: POINTS.errors,
    quirks: {always: {kind: 'status', status: 502, html: nginxPage(502)}},
    reach: 'all',
    expect: failsEverything({noHtml: true, budget: 10}),
    slow: true,
  },
  {
    name: 'html-404',
    about: 'every answer is nginx\'s HTML "404 Not Found" page',
    point: POINTS.errors,
    quirks: {always: {kind: 'status', status: 404, html: nginxPage(404)}},
    reach: 'all',
    expect: failsEverything({noHtml: true}),
  },
  {
    name: 'auth-401',
    about: 'every answer is 401 (the key was revoked)',
    point: POINTS.holds,
    quirks: {
      always: {kind: 'status', status: 401, body: {statusCode: 401, error: 'Unauthorized', message: 'Key revoked'}},
    },
    reach: 'all',
    expect: () => ({exit: [3]}),
  },

  // Transient failures.
  {
    name: 'once-503-html',
    about: "the first request gets nginx's 503 page with Retry-After: 1 (nothing done)",
    point: POINTS.budgets,
    quirks: {first: {kind: 'status', status: 503, html: nginxPage(503), headers: {'Retry-After': '1'}}},
    reach: 'all',
    expect: transientOnce,
  },
  {
    name: 'once-500-after-store',
    about: 'the first request is done (stored), then answered 500',
    point: POINTS.duplicate,
    quirks: {
      first: {
        kind: 'status',
        status: 500,
        body: {statusCode: 500, error: 'Internal Server Error', message: 'boom'},
        afterWork: true,
      },
    },
    reach: 'all',
    expect: transientOnce,
  },
  {
    name: 'drop-after-store',
    about: 'the first request is done (stored), then the connection drops',
    point: POINTS.holds,
    quirks: {first: {kind: 'drop', afterWork: true}},
    reach: 'all',
    expect: transientOnce,
  },
  {
    name: 'drop-after-store-blind',
    about: 'as drop-after-store, and no draftId echo or draftId filter',
    point: POINTS.duplicate,
    quirks: {first: {kind: 'drop', afterWork: true}, echoDraftId: false, draftIdFilter: false},
    reach: 'all',
    expect: blind,
    slow: true,
  },
  {
    name: 'once-503-after-store-blind',
    about: 'the first create is stored and answered 503; no draftId echo or filter',
    point: POINTS.duplicate,
    quirks: {
      first: {kind: 'status', status: 503, body: {message: 'upstream timeout'}, afterWork: true},
      echoDraftId: false,
      draftIdFilter: false,
    },
    reach: 'all',
    expect: blind,
    slow: true,
  },
  {
    name: 'early-end-once',
    about: 'the first answer ends half-way (after the work was done)',
    point: POINTS.holds,
    quirks: {first: {kind: 'early-end', afterWork: true}},
    reach: 'all',
    expect: transientOnce,
  },
  {
    name: 'rate-limit-once',
    about: 'the first request gets 429 with Retry-After: 1',
    point: POINTS.budgets,
    quirks: {
      first: {
        kind: 'status',
        status: 429,
        body: {statusCode: 429, error: 'Too Many Requests', message: 'slow down'},
        headers: {'Retry-After': '1'},
      },
    },
    reach: 'all',
    expect: transientOnce,
  },
  {
    name: 'rate-limit-once-bare',
    about: 'the first request gets 429 without Retry-After',
    point: POINTS.budgets,
    quirks: {first: {kind: 'status', status: 429, body: {statusCode: 429, message: 'slow down'}}},
    reach: 'all',
    expect: transientOnce,
  },
  {
    name: 'rate-limit-always',
    about: 'every request gets 429 with Retry-After: 1',
    point: POINTS.budgets,
    quirks: {
      always: {
        kind: 'status',
        status: 429,
        body: {statusCode: 429, error: 'Too Many Requests', message: 'daily quota spent'},
        headers: {'Retry-After': '1'},
      },
    },
    reach: 'all',
    expect: failsEverything(),
    slow: true,
  },

  // Transport.
  {
    name: 'slow-first-byte',
    about: 'every answer starts after 2.5 s',
    point: POINTS.holds,
    quirks: {slowFirstByteMs: 2500},
    reach: 'all',
    slow: true,
  },

  // Time budgets: services slower than the time-outs, and services that die mid-way.
  {
    name: 'slower-than-timeout',
    about: 'every answer starts after 2.5 s, with --timeout 0.5 (MFG_TIMEOUT)',
    point: POINTS.budgets,
    quirks: {slowFirstByteMs: 2500},
    env: TIMEOUT_ENV,
    reach: 'all',
    // Creates are not resent (the work may be done); reads give up after their retries.
    expect: () => ({exit: [1], message: 'timed out after 500 ms'}),
    slow: true,
  },
  {
    name: 'slow-body',
    about: 'every answer sends its status and half its body, then stalls 2.5 s; --timeout 0.5',
    point: POINTS.budgets,
    quirks: {slowBodyMs: 2500},
    env: TIMEOUT_ENV,
    reach: 'all',
    expect: () => ({exit: [1], message: 'timed out after 500 ms'}),
    slow: true,
  },
  {
    name: 'hang-total-timeout',
    about: 'every answer starts after 20 s; MFG_TOTAL_TIMEOUT=1.5 caps each command',
    point: POINTS.budgets,
    quirks: {slowFirstByteMs: 20_000},
    env: TOTAL_ENV,
    reach: 'all',
    // One attempt per request at most fits in 1.5 s: the command says which limit ran out.
    expect: (cmd) => ({exit: [1], message: "the command's time limit of 1.5 s", budget: cmd.requests + 2}),
    slow: true,
  },
  {
    name: 'dies-mid-way',
    about: "250 demands; after the first request every answer is nginx's 502 page",
    point: POINTS.budgets,
    quirks: {seedDemands: 250, from: {after: 1, fault: {kind: 'status', status: 502, html: nginxPage(502)}}},
    reach: ['demand-list', 'demand-create-chunks'],
    only: ['demand list --all', 'demand create (chunks)'],
    expect: midWay,
    slow: true,
  },
  {
    name: 'hangs-mid-way',
    about: 'after the first request the service hangs (no answer for 20 s); --timeout 0.5',
    point: POINTS.budgets,
    quirks: {seedDemands: 250, from: {after: 1, fault: {kind: 'hang', ms: 20_000}}},
    env: TIMEOUT_ENV,
    reach: ['demand-list', 'demand-create-chunks'],
    only: ['demand list --all', 'demand create (chunks)'],
    expect: midWay,
    slow: true,
  },
  {
    name: 'redirect',
    about: 'every request is redirected to the same path under /moved (307 for GET, 308 for writes)',
    point: POINTS.holds,
    quirks: {redirect: true},
    reach: 'all',
    // docs/decisions.md: redirects are refused so that credentials never follow them; said clearly, that is right too.
    expect: () => ({exit: [0, 1], message: 'redirect'}),
  },
  {
    name: 'content-type',
    about: 'JSON answers to GET without Content-Type, to writes labelled text/html',
    point: POINTS.reader,
    quirks: {contentType: 'mixed'},
    reach: 'all',
  },
  {
    name: 'bom',
    about: 'JSON answers start with a UTF-8 byte order mark',
    point: POINTS.reader,
    quirks: {bom: true},
    reach: 'all',
  },
  {
    name: 'unknown-encoding',
    about: 'Content-Encoding: x-acme-pack on plain JSON',
    point: POINTS.reader,
    quirks: {contentEncoding: 'unknown'},
    reach: 'all',
    // Refusing a body in an unknown coding is as right as reading it, if said clearly.
    expect: () => ({exit: [0, 1]}),
  },
  {
    name: 'gzip-chunked',
    about: 'every body gzip-compressed, asked for or not, sent chunked',
    point: POINTS.holds,
    quirks: {contentEncoding: 'gzip', chunked: true},
    reach: 'all',
  },
  {
    name: 'chunked-unicode',
    about: 'Unicode records sent in 7-byte chunks that split UTF-8 sequences',
    point: POINTS.holds,
    quirks: {chunked: true, unicode: true},
    reach: 'all',
  },
]

export interface Case {
  key: string
  variant: Variant
  command: CommandSpec
  mode: Mode
}

export const caseKey = (variant: string, command: string, mode: Mode): string => `${variant} × ${command} (${mode})`

/**
 * The commands a variant that reaches everything (failures, transport) runs by
 * default: one of each way the CLI talks to the service. A GET with paging, the
 * batch create on both generations, a PUT, a POST that is not a batch on each
 * generation, and a legacy GET. FOREIGN_FULL=1 runs every command instead.
 */
export const SAMPLE = [
  'demand list --all',
  'demand create --file',
  'demand create --legacy',
  'demand update',
  'price estimate',
  'post create',
  'webhook list',
  'mcp tools',
  'mcp call',
]

/**
 * Every case: each command a variant can reach, in table and --json mode. A
 * variant that reaches everything runs SAMPLE unless `full` (or it is the baseline),
 * and then each sample command in one mode, the two modes alternating from command
 * to command and from variant to variant: every such variant still meets every
 * sample command and both modes, and every sample command meets each mode under
 * half of these variants (pairs, not the whole product: 234 runs instead of 468,
 * each a CLI process). `full` runs both modes of every command.
 */
export function allCases(filter: {variants?: string[]; commands?: string[]; full?: boolean} = {}): Case[] {
  const full = filter.full ?? process.env.FOREIGN_FULL === '1'
  // FOREIGN_PAIRS=1 (CI's runs on the other Node.js lines): the variants that reach some
  // routes pair their modes too; only the baseline runs every command in both modes.
  const pairsEverywhere = !full && process.env.FOREIGN_PAIRS === '1'
  const cases: Case[] = []
  const modes = ['table', 'json'] as const
  let paired = 0
  for (const variant of VARIANTS) {
    if (filter.variants && !filter.variants.includes(variant.name)) continue
    const pairs =
      (variant.reach === 'all' && !full && !variant.everyCommand) || (pairsEverywhere && !variant.everyCommand)
    let run = pairs ? paired++ : 0
    for (const command of COMMANDS) {
      if (filter.commands && !filter.commands.includes(command.id)) continue
      const reach = variant.reach
      if (reach === 'all') {
        if (!full && !variant.everyCommand && !SAMPLE.includes(command.id)) continue
      } else if (!command.reach.some((r) => reach.includes(r))) continue
      if (variant.only && !variant.only.includes(command.id)) continue
      for (const mode of pairs ? [modes[run++ % 2]!] : modes) {
        cases.push({key: caseKey(variant.name, command.id, mode), variant, command, mode})
      }
    }
  }
  return cases
}

export function expectationFor(variant: Variant, command: CommandSpec): Expectation {
  // A demand batch may look up what an unknown outcome left behind: a probe and a few lookups.
  const budget = command.creates?.what === 'demands' ? Math.max(10, command.requests + 8) : command.requests * 4 + 2
  return {exit: [0], idsKnown: true, budget, ...variant.expect?.(command)}
}

export type Severity = 'failed' | 'degraded'

export interface Check {
  name: string
  severity: Severity
  ok: boolean
  /** Why it failed, in one line. */
  reason?: string
}

export interface CaseResult {
  key: string
  variant: string
  command: string
  mode: Mode
  argv: string[]
  exit: number | null
  signal: string | null
  timedOut: boolean
  ms: number
  stdout: string
  stderr: string
  stats: ServerStats
  checks: Check[]
  verdict: 'ok' | 'degraded' | 'failed'
  /** The failed checks' reasons, worst first. */
  problems: string[]
}

let sharedFiles: {dir: string; rows: string; legacyRows: string; bigRows: string} | undefined

/** The input files every create case reads (written once per process). */
export function inputFiles(): CaseContext['files'] {
  if (sharedFiles) return sharedFiles
  const dir = mkdtempSync(join(tmpdir(), 'mfg-foreign-input-'))
  const rows = join(dir, 'rows.json')
  const legacyRows = join(dir, 'legacy.json')
  writeFileSync(
    rows,
    JSON.stringify([
      {technique: '3D_PRINTING', material: 'PLA', quantity: 2, email: 'ada@example.com', firstName: 'Ada'},
      {technique: 'CNC_MACHINING', material: 'Aluminium 6061', quantity: 1, firstName: 'Zoë', lastName: '山田'},
      {technique: 'SHEET_METAL', material: 'Steel S235', quantity: 5, city: 'Zürich', jobDetails: {takenAs: 'ORDER'}},
    ]),
  )
  writeFileSync(
    legacyRows,
    JSON.stringify([
      {technique: '3D_PRINTING', material: 'PETG', quantity: 3, email: 'bo@example.com', typeDelivery: 'home delivery'},
      {technique: 'CNC_MACHINING', material: 'Brass', quantity: 1, city: 'Köln', status: 'quote sent'},
    ]),
  )
  const bigRows = join(dir, 'big.json')
  writeFileSync(
    bigRows,
    JSON.stringify(
      Array.from({length: BIG_ROWS}, (_, i) => ({
        technique: '3D_PRINTING',
        material: 'PLA',
        quantity: 1 + (i % 5),
        email: `row${i + 1}@example.com`,
        firstName: i % 2 ? 'Zoë' : 'Ada',
      })),
    ),
  )
  sharedFiles = {dir, rows, legacyRows, bigRows}
  return sharedFiles
}

export function removeInputFiles(): void {
  if (sharedFiles) rmSync(sharedFiles.dir, {recursive: true, force: true})
  sharedFiles = undefined
}

/** Longest a case may take before it counts as hung. */
const KILL_AFTER_MS = 150_000

/** Runs the built CLI with `env` only (no inherited environment), killed after KILL_AFTER_MS. */
export function spawnCli(
  argv: string[],
  env: Record<string, string>,
): Promise<{exit: number | null; signal: string | null; timedOut: boolean; stdout: string; stderr: string}> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...argv], {cwd: root, env, stdio: ['ignore', 'pipe', 'pipe']})
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (c: Buffer) => out.push(c))
    child.stderr.on('data', (c: Buffer) => err.push(c))
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, KILL_AFTER_MS)
    child.on('close', (exit, signal) => {
      clearTimeout(timer)
      done({
        exit,
        signal,
        timedOut,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      })
    })
  })
}

const TRACE = /\n\s+at .+:\d+:\d+\)?|\b(TypeError|ReferenceError|RangeError)\b|is not a function|Cannot read propert/
const JUNK = /undefined|NaN|\[object Object\]|\uFFFD/
/**
 * `out` with the paths under the temporary directory (the case's home and input
 * files, which --json prints as the journal's and the source's) shown as <tmp>: their
 * random names (mfg-foreign-DNaNsd) are not something printed by mistake.
 */
function withoutTempPaths(out: string): string {
  const [head, ...rest] = out.split(`${tmpdir()}/`)
  return [head, ...rest.map((after) => after.replace(/^[^\s"',]*/, '<tmp>'))].join('')
}
const HTML = /<\/?(html|head|body|center|h1|hr|title)\b/i

function excerpt(text: string, at: number): string {
  return JSON.stringify(text.slice(Math.max(0, at - 30), at + 50))
}

/** Whether a line is the documented --json error: {"error": {"code", "message"}}. */
function isErrorJson(line: string): boolean {
  try {
    const v = JSON.parse(line) as {error?: {code?: unknown; message?: unknown}}
    return typeof v.error?.code === 'string' && typeof v.error.message === 'string'
  } catch {
    return false
  }
}

/** Whether stdout is one JSON value. */
/** Every non-empty line is one JSON text (NDJSON). */
function parsesAsJsonLines(stdout: string): boolean {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .every((l) => parsesAsJson(l))
}

function parsesAsJson(stdout: string): boolean {
  try {
    JSON.parse(stdout)
    return true
  } catch {
    return false
  }
}

/**
 * Where stdout holds a JSON text as a value: with --json, JSON escaped inside a
 * string; in a table, a line with JSON in it that is not a JSON line of its own
 * (creates print one JSON object a row, which is fine).
 */
function rawAnswer(stdout: string, mode: Mode): string | undefined {
  if (mode === 'json') {
    const at = stdout.indexOf('{\\"')
    return at < 0 ? undefined : excerpt(stdout, at)
  }
  const line = stdout.split('\n').find((l) => l.includes('{"') && !parsesAsJson(l))
  return line === undefined ? undefined : excerpt(line, line.indexOf('{"'))
}

/** The path of the v1 list, which demand creates use internally to look rows up. */
const LOOKUP_PATH = /\/api\/public\/v1\/demand\/[^/\s]+\/all\b/

/** The checks of one run, worst first; failing ones carry a one-line reason. */
export function judge(
  c: Case,
  run: {exit: number | null; signal: string | null; timedOut: boolean; stdout: string; stderr: string},
  stats: ServerStats,
  ctx: CaseContext,
): Check[] {
  const want = expectationFor(c.variant, c.command)
  const out = `${run.stdout}\n${run.stderr}`
  const checks: Check[] = []
  const add = (name: string, severity: Severity, ok: boolean, reason: () => string) =>
    checks.push({name, severity, ok, ...(ok ? {} : {reason: reason()})})

  add('finished', 'failed', !run.timedOut, () => `no answer within ${KILL_AFTER_MS / 1000} s (killed)`)
  const trace = TRACE.exec(out)
  add('no-trace', 'failed', !trace && run.signal === null, () =>
    trace ? `crash: ${excerpt(out, trace.index)}` : `killed by ${run.signal}`,
  )

  // Nothing twice, and a success must mean everything sent is stored.
  const rows = (what: 'demands' | 'posts' | 'webhooks') =>
    c.command.creates?.what === what ? c.command.creates.count : 0
  const kinds = ['demands', 'posts', 'webhooks'] as const
  const extra = kinds.find((what) => stats.created[what] > rows(what))
  add(
    'no-duplicate',
    'failed',
    extra === undefined,
    () => `${stats.created[extra!]} ${extra} stored for ${rows(extra!)} sent`,
  )
  const lost = run.exit === 0 ? kinds.find((what) => stats.created[what] < rows(what)) : undefined
  add(
    'no-loss',
    'failed',
    lost === undefined,
    () => `exit 0 but ${stats.created[lost!]} of ${rows(lost!)} ${lost} stored`,
  )

  add('exit', 'failed', run.exit !== null && want.exit.includes(run.exit), () => {
    const said = firstLine(run.stderr) || firstLine(run.stdout)
    return `exit ${run.exit}, expected ${want.exit.join(' or ')}: ${said}`
  })
  add('bounded', 'failed', stats.served <= want.budget, () => `${stats.served} requests (budget ${want.budget})`)
  const shown = withoutTempPaths(out)
  const junk = JUNK.exec(shown)
  add('clean', 'failed', !junk, () => `prints ${JSON.stringify(junk![0])}: ${excerpt(shown, junk!.index)}`)
  if (c.mode === 'json') {
    // Data as JSON on stdout; on failure the documented {"error": {...}} line on stderr (or a batch's result rows).
    const parses = c.command.jsonLines ? parsesAsJsonLines : parsesAsJson
    const ok =
      run.exit === 0
        ? parses(run.stdout)
        : run.stdout.trim() === ''
          ? run.stderr.split('\n').some(isErrorJson)
          : parses(run.stdout)
    add('json', 'failed', ok, () =>
      run.exit === 0 || run.stdout.trim() !== ''
        ? `--json stdout is not JSON: ${JSON.stringify(run.stdout.slice(0, 80))}`
        : `--json failure without the JSON error line: ${firstLine(run.stderr)}`,
    )
  }
  if (run.exit === 0 && !want.saysEmpty) {
    const shown = want.idsKnown || !c.command.creates ? c.command.shows(ctx, stats) : []
    const missing = shown.filter((text) => !run.stdout.includes(text))
    add('shows', 'failed', missing.length === 0, () => `stdout lacks ${missing.slice(0, 2).join(', ')}`)
  }
  if (run.exit === 0) {
    // An answer left unparsed and passed off as a value (its whole text as an id, say)
    // still contains every id `shows` looks for: catch the text itself.
    const raw = rawAnswer(run.stdout, c.mode)
    add('no-raw-answer', 'failed', raw === undefined, () => `shows an answer's JSON text as a value: ${raw}`)
  }

  // Messages: the user's operation, the service's words, no HTML, no silence.
  if (c.command.creates?.what === 'demands' && run.exit !== 0) {
    const lookup = LOOKUP_PATH.exec(out)
    add(
      'names-operation',
      'degraded',
      !lookup,
      () => `the error names the internal lookup: ${excerpt(out, lookup!.index)}`,
    )
  }
  if (want.message !== undefined) {
    const message = want.message
    add(
      'message',
      'degraded',
      out.includes(message),
      () => `does not show "${message}": ${firstLine(run.stderr) || firstLine(run.stdout)}`,
    )
  }
  if (want.noHtml) {
    const tag = HTML.exec(out)
    add('no-html', 'degraded', !tag, () => `prints the HTML page: ${excerpt(out, tag!.index)}`)
  }
  if (want.saysEmpty && run.exit === 0 && c.mode === 'table') {
    const said = run.stdout.trim() !== '' || run.stderr.trim() !== ''
    add('says-empty', 'degraded', said, () => 'prints nothing for an empty list')
  }
  return checks
}

function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? ''
  return line.length > 140 ? `${line.slice(0, 140)}…` : line
}

/** The environment of a run against `server` with its own MFG_HOME: its profile from MFG_* variables, no colour, CI. */
export function cliEnv(server: ForeignServer, home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: home,
    MFG_HOME: home,
    MFG_BASE_URL: server.url,
    MFG_API_KEY: server.credentials.apiKey,
    MFG_AUTH_TOKEN: server.credentials.authToken,
    MFG_BUSINESS_ID: server.credentials.businessId,
    NO_COLOR: '1',
    CI: 'true',
    // The run's shared compile cache (vitest.config.ts), when there is one.
    ...(process.env.NODE_COMPILE_CACHE ? {NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE} : {}),
  }
}

/** Runs one case: a fresh server, a fresh MFG_HOME, the built CLI. */
export async function runCase(c: Case): Promise<CaseResult> {
  const server = await startForeignServer(c.variant.quirks)
  const home = mkdtempSync(join(tmpdir(), 'mfg-foreign-'))
  const ctx: CaseContext = {server, files: inputFiles()}
  const argv = [...c.command.argv(ctx), ...(c.mode === 'json' ? ['--json'] : [])]
  const env: Record<string, string> = {...cliEnv(server, home), ...c.variant.env, ...c.command.env}
  const started = Date.now()
  try {
    const run = await spawnCli(argv, env)
    const ms = Date.now() - started
    const stats = server.stats()
    const checks = judge(c, run, stats, ctx)
    const failed = checks.filter((x) => !x.ok)
    const verdict = failed.some((x) => x.severity === 'failed') ? 'failed' : failed.length > 0 ? 'degraded' : 'ok'
    const problems = [
      ...failed.filter((x) => x.severity === 'failed'),
      ...failed.filter((x) => x.severity === 'degraded'),
    ].map((x) => `${x.name}: ${x.reason}`)
    return {
      key: c.key,
      variant: c.variant.name,
      command: c.command.id,
      mode: c.mode,
      argv,
      ...run,
      ms,
      stats,
      checks,
      verdict,
      problems,
    }
  } finally {
    await server.close()
    rmSync(home, {recursive: true, force: true})
  }
}

/**
 * Runs cases `concurrency` at a time, slow variants first so their waits overlap
 * the quick ones. Each case has its own server and MFG_HOME, so order does not matter.
 */
export async function runCases(
  cases: Case[],
  opts: {concurrency?: number; onResult?: (r: CaseResult, done: number) => void} = {},
): Promise<Map<string, CaseResult>> {
  const queue = [...cases].sort((a, b) => Number(Boolean(b.variant.slow)) - Number(Boolean(a.variant.slow)))
  const results = new Map<string, CaseResult>()
  const concurrency = opts.concurrency ?? Number(process.env.FOREIGN_CONCURRENCY ?? 10)
  let next = 0
  const worker = async () => {
    while (next < queue.length) {
      const c = queue[next++]!
      const r = await runCase(c)
      results.set(c.key, r)
      opts.onResult?.(r, results.size)
    }
  }
  await Promise.all(Array.from({length: Math.min(concurrency, queue.length)}, worker))
  return results
}
