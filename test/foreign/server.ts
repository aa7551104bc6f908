// A "foreign" implementation of the service: written from the interface and the
// contract alone, apart from the sandbox (it imports nothing of src/), on plain
// node:http with a small in-memory store. Its quirks make it answer the way real
// production services do when they drift from the documentation, so the CLI can be
// tried against each. Every instance counts what it was asked and what it stored,
// so a test can prove that nothing was created twice.
import {randomBytes} from 'node:crypto'
import http, {type IncomingMessage, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {gzipSync} from 'node:zlib'

/** One answer the server may give instead of the real one. */
export type Fault =
  | {kind: 'status'; status: number; body?: unknown; html?: string; headers?: Record<string, string>}
  /** The socket is destroyed without a byte of answer. */
  | {kind: 'drop'}
  /** The status line and the full Content-Length go out, then half the body, then the connection ends. */
  | {kind: 'early-end'}
  /** Nothing for `ms` milliseconds (before any work), then the socket is destroyed: a service that hangs. */
  | {kind: 'hang'; ms: number}

export interface Quirks {
  // How create (v1 create-quotes, legacy create-demands, posts, webhooks) answers.
  /** array (documented), object (one record when one row was sent), data ({data: [...]}), ids ([{_id}]), id-strings (["..."]), empty (no body). */
  createAnswer?: 'array' | 'object' | 'data' | 'ids' | 'id-strings' | 'empty'
  /** Status of a successful create (201 by default); 202 and 204 go with createAnswer "empty". */
  createStatus?: number
  /** Records carry the draftId they were created with (default true). */
  echoDraftId?: boolean
  /** The v1 list honours `?draftId=` (default true); otherwise the filter is ignored. */
  draftIdFilter?: boolean

  // How records look.
  /** orderNumber "41", prices "12.50", paging fields as strings. */
  numericStrings?: boolean
  /** priceTotal, shippingAddress, tracking, fabricatedDate... null. */
  nulls?: boolean
  /** Extra fields the interface does not list, on every record and answer. */
  unknownFields?: boolean
  /** Enum values the interface does not list (type, status, service, events...). */
  unknownEnums?: boolean
  /** Other ISO 8601 forms for every date (offsets, no fraction, microseconds). */
  dateForms?: boolean
  /** Tracking entries after the first without `date`. */
  trackingNoDate?: boolean
  /** Unicode in every string the service makes up (names, materials, titles, messages). */
  unicode?: boolean
  /** A post without price, materials, models, createdAt and updatedAt. */
  postSparse?: boolean
  /** Webhook answers without `message`. */
  webhookNoMessage?: boolean
  /** Webhook answers holding one subscription carry it as `data` itself, not a list of one. */
  webhookDataObject?: boolean
  /** Webhook answers hold `secret: null` (a service that does not echo secrets). */
  webhookSecretNull?: boolean
  /** A subscription's events as one string when it has one event (`"events": "order_placed"`). */
  webhookEventsString?: boolean
  /** Price estimation answers without `message`. */
  estimateNoMessage?: boolean
  /** File links without `token`. */
  fileNoToken?: boolean
  /** What v1 PUT answers: the record (documented in the contract), 204 without a body, or only `_id` and the changed fields. */
  updateAnswer?: 'record' | 'empty-204' | 'partial'

  // Lists (v1 demand list, posts, webhooks).
  /** standard (documented), bare (an array), data ({data} without paging), no-paging (the documented key without paging fields). */
  listShape?: 'standard' | 'bare' | 'data' | 'no-paging'
  /** `page` is ignored and the paging fields are wrong: always the first page, totalPages 40. */
  pagingWrong?: boolean
  /** Demands in the store at start (default 3); posts and webhooks follow (2 and 1, none when 0). */
  seedDemands?: number
  /** `pageSize` is ignored: every record on one page. */
  pageSizeIgnored?: boolean

  // Failures.
  /** Every request gets this answer (before any work). */
  always?: Fault
  /** The first request gets this answer; with afterWork, after the work was done (stored). */
  first?: Fault & {afterWork?: boolean}
  /** Every request after the first `after` is answered with `fault` (a service that dies mid-way). */
  from?: {after: number; fault: Fault}

  // Transport.
  /** Every request is first redirected to the same path under /moved: 307 for GET, 308 for the others. */
  redirect?: boolean
  /** Content-Type of JSON answers: default application/json; none leaves it out; mixed: none for GET, text/html for the rest. */
  contentType?: 'none' | 'text/html' | 'text/plain' | 'mixed'
  /** A UTF-8 byte order mark before every JSON body. */
  bom?: boolean
  /** gzip: every body gzip-compressed (asked for or not); unknown: a Content-Encoding nobody knows, body as is. */
  contentEncoding?: 'gzip' | 'unknown'
  /** The file host answers its signed links with a sign-in page (200, text/html) instead of the file. */
  fileLoginPage?: boolean
  /** Bodies sent chunked in 7-byte pieces (splitting UTF-8 sequences), without Content-Length. */
  chunked?: boolean
  /** Milliseconds before the status line of every answer. */
  slowFirstByteMs?: number
  /** Milliseconds between the first half of every body (sent with the status line and Content-Length) and the rest. */
  slowBodyMs?: number
}

/**
 * The assistant (MCP) endpoint: JSON-RPC over HTTP POST, answered with plain JSON
 * (the Streamable HTTP transport allows it), no session id, no event stream.
 */
export const MCP_PATH = '/api/v2/ms-integrations/api/public/v1/mcp/protocol'
/** Its tools: a price estimate (the REST endpoint's formula) and the quotes, both read-only. */
export const MCP_TOOLS = ['estimate_price', 'list_quotes'] as const

export interface Credentials {
  apiKey: string
  authToken: string
  businessId: string
}

/** What points mfg at a foreign server with its credentials, keeping its files in `home`. */
export function foreignEnv(server: {url: string; credentials: Credentials}, home: string): Record<string, string> {
  const {apiKey, authToken, businessId} = server.credentials
  return {
    MFG_HOME: home,
    MFG_BASE_URL: server.url,
    MFG_API_KEY: apiKey,
    MFG_AUTH_TOKEN: authToken,
    MFG_BUSINESS_ID: businessId,
  }
}

export interface RequestRecord {
  method: string
  path: string
  /** Status sent, or "dropped" / "cut" / "hung" for a connection ended on purpose. */
  status: number | 'dropped' | 'cut' | 'hung'
  /** The Accept-Encoding the request sent, if any. */
  acceptEncoding?: string
}

/**
 * The file the file host serves for a signed link of a demand's file
 * (`/files/demands/<fileName>`): a closed ASCII STL, a tetrahedron of 10 mm,
 * named after the file.
 */
export function foreignFile(fileName: string): string {
  const v = [
    [0, 0, 0],
    [10, 0, 0],
    [0, 10, 0],
    [0, 0, 10],
  ]
  const faces = [
    [0, 2, 1],
    [0, 1, 3],
    [0, 3, 2],
    [1, 2, 3],
  ]
  const facet = (f: number[]) =>
    `facet normal 0 0 0\nouter loop\n${f.map((i) => `vertex ${v[i]!.join(' ')}`).join('\n')}\nendloop\nendfacet\n`
  return `solid ${fileName}\n${faces.map(facet).join('')}endsolid ${fileName}\n`
}

export interface ServerStats {
  /** Every request, redirects included. */
  requests: number
  /** Requests that were not redirects. */
  served: number
  log: RequestRecord[]
  /** Created during the run (whatever the answers said). */
  created: {demands: number; posts: number; webhooks: number}
  /** Ids of the records created during the run. */
  createdIds: {demands: string[]; posts: string[]; webhooks: string[]}
}

export interface Seed {
  demandIds: string[]
  fileNames: string[]
  postIds: string[]
  webhookIds: string[]
  /** Text the service puts in records; a reader that shows them should show this. */
  material: string
}

export interface ForeignServer {
  url: string
  credentials: Credentials
  seed: Seed
  stats(): ServerStats
  /** Changes the quirks from now on (two-step scenarios). */
  setQuirks(quirks: Quirks): void
  close(): Promise<void>
}

interface Demand {
  _id: string
  orderNumber: number
  draftId?: string
  takenAs: 'QUOTE' | 'ORDER'
  stage: string
  technique: string
  material: string
  color: string
  quantity: number
  currency: string
  priceTotal: number
  priceDelivery: number
  customer: {firstName: string; lastName: string; email: string; city: string}
  files: {fileName: string; fileLink: string}[]
  tracking: {status: string; date: number}[]
  archive: boolean
  fabricatedDate?: string
  createdAt: number
  updatedAt: number
  extra: Record<string, unknown>
}

interface Post {
  _id: string
  title: string
  service: string
  priceMachine: string
  priceConception: number
  priceExtra: number
  materials: {title: string; type: string; price: number; currency: string}[]
  createdAt: number
  updatedAt: number
}

interface Webhook {
  _id: string
  url: string
  secret: string
  events: string[]
  useSecret: boolean
  createdAt: number
}

/** Stage ids, their legacy/display names and tracking text, and the moves the contract allows. */
const STAGES: Record<string, {display: string; tracking: string; next: string[]}> = {
  quote_sent: {display: 'Quote Sent', tracking: 'quote sent', next: ['special_verified', 'cancelled']},
  special_verified: {
    display: 'In Review',
    tracking: 'special verified',
    next: ['special_accepted', 'quote_sent', 'cancelled'],
  },
  special_accepted: {display: 'In Production', tracking: 'special accepted', next: ['done']},
  done: {display: 'Ready to Ship', tracking: 'done', next: ['in_shipping']},
  in_shipping: {display: 'In Shipping', tracking: 'in shipping', next: ['delivered']},
  delivered: {display: 'Delivered', tracking: 'delivered', next: []},
  cancelled: {display: 'Cancelled', tracking: 'cancelled', next: []},
}

const DAY = 86_400_000
/** Seeded records are old (2024), so a scan by creation time ends on them. */
const SEED_TIME = Date.UTC(2024, 4, 1, 10, 0, 0)

/** What an nginx in front of the service answers on its own. */
export function nginxPage(status: number): string {
  const reason = http.STATUS_CODES[status] ?? 'Error'
  return `<html>\r\n<head><title>${status} ${reason}</title></head>\r\n<body>\r\n<center><h1>${status} ${reason}</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n`
}

/** The contract's error body. */
function errorBody(status: number, message: string, details?: {path: string; message: string}[]) {
  return {statusCode: status, error: http.STATUS_CODES[status] ?? 'Error', message, ...(details ? {details} : {})}
}

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: {path: string; message: string}[],
  ) {
    super(message)
  }
}

/** 24 hex digits: a two-digit kind and a counter. */
const idOf = (kind: string, n: number) => `${kind}${n.toString(16).padStart(22, '0')}`

export async function startForeignServer(initial: Quirks = {}): Promise<ForeignServer> {
  let quirks = initial
  const credentials: Credentials = {
    apiKey: `pk_business_foreign_${randomBytes(6).toString('hex')}`,
    authToken: `tok_foreign_${randomBytes(6).toString('hex')}`,
    businessId: 'b0000000000000000000f001',
  }
  const u = quirks.unicode
  const material = u ? 'PLA — Ünïcødé 🧪 材料' : 'PLA'
  const stats: ServerStats = {
    requests: 0,
    served: 0,
    log: [],
    created: {demands: 0, posts: 0, webhooks: 0},
    createdIds: {demands: [], posts: [], webhooks: []},
  }
  const demands: Demand[] = []
  const posts: Post[] = []
  const webhooks: Webhook[] = []
  let counter = 0
  let orderNumber = 40
  let base = ''

  const newDemand = (item: Record<string, unknown>, at: number): Demand => {
    counter++
    orderNumber++
    const quoteModel = Array.isArray(item.quoteModel) ? (item.quoteModel as Record<string, unknown>[]) : []
    const str = (v: unknown, fallback: string) => (typeof v === 'string' && v !== '' ? v : fallback)
    const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback)
    const fileName = u ? `Halterung-größe-${counter}.stl` : `bracket-${counter}.stl`
    const jobDetails = (item.jobDetails ?? {}) as Record<string, unknown>
    return {
      _id: idOf('dd', counter),
      orderNumber,
      ...(typeof item.draftId === 'string' ? {draftId: item.draftId} : {}),
      takenAs: jobDetails.takenAs === 'ORDER' ? 'ORDER' : 'QUOTE',
      stage: 'quote_sent',
      technique: str(item.technique, str(quoteModel[0]?.service, '3D_PRINTING')),
      material: str(item.material, str(quoteModel[0]?.material, material)),
      color: str(item.color, u ? 'Schwarz / 黑色' : 'Black'),
      quantity: num(item.quantity, num(quoteModel[0]?.quantity, 1)),
      currency: str(item.currency, 'EUR'),
      priceTotal: 12.5 * counter,
      priceDelivery: 4.9,
      customer: {
        firstName: str(item.firstName, u ? 'Zoë 👩‍🔧' : 'Ada'),
        lastName: str(item.lastName, u ? 'Ølberg-山田 שלום' : 'Lovelace'),
        email: str(item.email, 'buyer@example.com'),
        city: str(item.city, u ? 'Zürich' : 'Lyon'),
      },
      files: [{fileName, fileLink: `https://files.example.com/demands/${encodeURIComponent(fileName)}`}],
      tracking: [{status: 'quote sent', date: at}],
      archive: false,
      fabricatedDate: '2024-05-03',
      createdAt: at,
      updatedAt: at,
      extra: {},
    }
  }

  const seedCount = quirks.seedDemands ?? 3
  for (let i = 0; i < seedCount; i++) demands.push(newDemand({draftId: `seed-${i + 1}`}, SEED_TIME + i * DAY))
  if (seedCount > 0) {
    for (let i = 0; i < 2; i++) {
      counter++
      posts.push({
        _id: idOf('cc', counter),
        title: u ? `Gehäuse «Ωmega» ${i + 1} 🔩` : `Enclosure ${i + 1}`,
        service: '3D_PRINTING',
        priceMachine: '12.50',
        priceConception: 5,
        priceExtra: 2,
        materials: [{title: material, type: 'plastic', price: 25, currency: 'EUR'}],
        createdAt: SEED_TIME + i * DAY,
        updatedAt: SEED_TIME + i * DAY,
      })
    }
    counter++
    webhooks.push({
      _id: idOf('ee', counter),
      url: u ? 'https://hooks.exämple.com/ünï/🪝' : 'https://hooks.example.com/mfg',
      secret: 'whsec_seeded_secret_value',
      events: ['order_placed'],
      useSecret: false,
      createdAt: SEED_TIME,
    })
  }
  const seed: Seed = {
    demandIds: demands.map((d) => d._id),
    fileNames: demands.map((d) => d.files[0]!.fileName),
    postIds: posts.map((p) => p._id),
    webhookIds: webhooks.map((w) => w._id),
    material,
  }

  // ---- how dates, numbers and records are written

  const iso = (ms: number, n = 0): string => {
    if (!quirks.dateForms) return new Date(ms).toISOString()
    // Each record gets another ISO 8601 form than its neighbour.
    const d = new Date(ms)
    const forms = [
      () => d.toISOString().replace(/\.\d{3}Z$/, '+00:00'),
      () => d.toISOString().replace(/\.(\d{3})Z$/, '.$1456Z'),
      () => d.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      () => {
        const shifted = new Date(ms + 2 * 3_600_000).toISOString()
        return `${shifted.slice(0, 19)}+02:00`
      },
    ]
    return forms[n % forms.length]!()
  }
  const money = (x: number): number | string => (quirks.numericStrings ? x.toFixed(2) : x)
  const int = (x: number): number | string => (quirks.numericStrings ? String(x) : x)
  const stageView = (d: Demand): string => (quirks.unknownEnums ? 'awaiting_material' : d.stage)

  const demandView = (d: Demand, opts: {created?: boolean} = {}): Record<string, unknown> => {
    const n = Number.parseInt(d._id.slice(2), 16)
    const address = {
      address: u ? 'Bahnhofstraße 7' : '1 Rue de la Paix',
      phone: '+33 1 23 45 67 89',
      city: d.customer.city,
      region: u ? 'Île-de-France' : 'IDF',
      country: 'FR',
      zip: '75002',
      companyName: u ? 'Ünïcorn Fab 株式会社' : 'Unicorn Fab',
    }
    const record: Record<string, unknown> = {
      _id: d._id,
      orderNumber: int(d.orderNumber),
      type: quirks.unknownEnums ? 'RUSH' : 'NORMAL',
      currency: d.currency,
      technique: quirks.unknownEnums ? 'INJECTION_MOLDING' : d.technique,
      material: d.material,
      color: d.color,
      priceToClient: money(Math.round(d.priceTotal * 110) / 100),
      priceToManufacturer: money(d.priceTotal),
      priceTotal: quirks.nulls ? null : money(d.priceTotal),
      platformFee: money(1.25),
      priceDelivery: money(d.priceDelivery),
      taxPaid: money(0),
      taxPercentage: money(20),
      taxName: 'VAT',
      paymentStatus: quirks.unknownEnums ? 'PARTIALLY_REFUNDED' : 'PENDING_PAYMENT',
      archive: d.archive,
      fabricatedDate: quirks.nulls ? null : quirks.dateForms ? `${d.fabricatedDate}T00:00:00Z` : d.fabricatedDate,
      createdAt: iso(d.createdAt, n),
      updatedAt: iso(d.updatedAt, n + 1),
      demandStatusInfo: {status: stageView(d), substatus: ''},
      billingAddress: address,
      shippingAddress: quirks.nulls ? null : address,
      quoteModel: d.files.map((f, i) => ({
        _id: idOf('aa', n * 10 + i),
        fileName: f.fileName,
        fileLink: f.fileLink,
        modelType: 'stl',
        viewerType: '3D',
        service: quirks.unknownEnums ? 'INJECTION_MOLDING' : d.technique,
        technology: 'FDM',
        material: d.material,
        color: d.color,
        quantity: int(d.quantity),
        priceMachine: '3.20',
        pricePerPiece: money(Math.round((d.priceTotal / d.quantity) * 100) / 100),
        ...(quirks.nulls ? {dfmData: null, bendingData: null, note: null} : {}),
      })),
      tracking: quirks.nulls
        ? null
        : d.tracking.map((t, i) => ({status: t.status, ...(quirks.trackingNoDate && i > 0 ? {} : {date: t.date})})),
      uniqueItems: int(1),
      total: money(d.priceTotal + d.priceDelivery),
      subtotal: money(d.priceTotal),
      quantity: int(d.quantity),
      isPaid: false,
      status: quirks.unknownEnums ? 'On Hold' : STAGES[d.stage]!.display,
      jobDetails: {takenAs: d.takenAs},
      ...(d.draftId !== undefined && quirks.echoDraftId !== false ? {draftId: d.draftId} : {}),
      ...(opts.created ? {paymentAuthToken: `<PAYMENT_AUTH_TOKEN-${d._id}>`} : {}),
      ...d.extra,
    }
    if (quirks.nulls) Object.assign(record, {client: null, leadTime: null, discount: null, taxName: null})
    if (quirks.unknownFields) {
      Object.assign(record, {
        __v: 0,
        riskScore: 0.42,
        assignedTo: {team: 'nightshift', since: iso(d.createdAt)},
        labels: ['vip', 'expedite'],
        _links: {self: {href: `${base}/api/public/v1/demand/${d._id}`}},
      })
    }
    return record
  }

  const legacyView = (d: Demand): Record<string, unknown> => ({
    _id: d._id,
    remark: [],
    thickness: null,
    tolerance: null,
    quantity: int(d.quantity),
    typeDelivery: 'home delivery',
    priceDelivery: money(d.priceDelivery),
    client: idOf('c1', 1),
    machineOwner: credentials.businessId,
    technique: d.technique,
    file: d.files[0]?.fileLink,
    email: d.customer.email,
    country: 'FR',
    city: d.customer.city,
    status: quirks.unknownEnums ? 'On Hold' : 'Quote Sent',
    priceToClient: (d.priceTotal * 1.1).toFixed(2),
    priceMachine: '3.20',
    priceConception: 0,
    priceExtra: 0,
    priceToMachnieOwner: d.priceTotal.toFixed(2),
    settings: {notification: {user: true, machineOwner: true}},
    tracking: quirks.nulls ? null : d.tracking,
    paymentStatus: 'PENDING_PAYMENT',
    priceTotal: quirks.nulls ? null : money(d.priceTotal),
    taxPaid: 0,
    platformFee: 1.25,
    processorExtraFees: 0,
    priceSurcharge: 0,
    orderNumber: int(d.orderNumber),
    createdAt: iso(d.createdAt),
    updatedAt: iso(d.updatedAt),
    ...(d.draftId !== undefined && quirks.echoDraftId !== false ? {draftId: d.draftId} : {}),
    ...(quirks.unknownFields ? {__v: 0, legacyFlags: {migrated: true}} : {}),
  })

  const ddmmyyyy = (ms: number) => {
    const d = new Date(ms)
    return `${String(d.getUTCDate()).padStart(2, '0')}/${String(d.getUTCMonth() + 1).padStart(2, '0')}/${d.getUTCFullYear()}`
  }
  const postView = (p: Post): Record<string, unknown> => {
    const record: Record<string, unknown> = {
      _id: p._id,
      user: credentials.businessId,
      type: quirks.unknownEnums ? 'SERVICE' : 'PRODUCT',
      service: quirks.unknownEnums ? 'INJECTION_MOLDING' : p.service,
      title: p.title,
      category: p.service,
      tags: ['enclosure'],
      free: false,
      views: int(3),
      likes: int(1),
      gallery: [{type: 'image', url: 'https://files.example.com/gallery/1.png', _id: idOf('9a', 1)}],
    }
    if (!quirks.postSparse) {
      Object.assign(record, {
        price: {
          priceMachine: p.priceMachine,
          priceConception: money(p.priceConception),
          priceExtra: money(p.priceExtra),
        },
        materials: p.materials.map((m) => ({...m, price: money(m.price)})),
        models: [
          {price: money(10), free: false, originalname: 'model.stl', files: [{originalname: 'model.stl', url: 'x'}]},
        ],
        createdAt: quirks.dateForms ? iso(p.createdAt) : ddmmyyyy(p.createdAt),
        updatedAt: quirks.dateForms ? iso(p.updatedAt) : ddmmyyyy(p.updatedAt),
      })
    }
    if (quirks.nulls) Object.assign(record, {description: null, formats: null, gallery: null})
    if (quirks.unknownFields) Object.assign(record, {__v: 0, seo: {slug: p._id, indexed: true}})
    return record
  }

  const webhookView = (w: Webhook): Record<string, unknown> => ({
    _id: w._id,
    url: w.url,
    secret: quirks.webhookSecretNull ? null : w.secret,
    events:
      quirks.webhookEventsString && w.events.length === 1
        ? w.events[0]
        : quirks.unknownEnums
          ? [...w.events, 'invoice_paid']
          : w.events,
    useSecret: w.useSecret,
    createdAt: iso(w.createdAt),
    ...(quirks.nulls ? {description: null, lastDeliveryAt: null} : {}),
    ...(quirks.unknownFields ? {__v: 0, deliveryStats: {ok: 3, failed: 0}} : {}),
  })

  const webhookAnswer = (records: Record<string, unknown>[], message: string) => {
    const data = quirks.webhookDataObject && records.length === 1 ? records[0] : records
    return quirks.webhookNoMessage ? {data} : {message: u ? `${message} ✓ — ok` : message, data}
  }

  /** A list in the shape the quirks ask for; `key` is the documented list field. */
  const listAnswer = (
    all: Record<string, unknown>[],
    q: URLSearchParams,
    key: 'data' | 'posts',
    pageName: 'page' | 'currentPage',
    defaultSize: number,
  ): unknown => {
    const askedSize = Number(q.get('pageSize') ?? defaultSize)
    const size = quirks.pageSizeIgnored ? Math.max(all.length, 1) : Math.max(1, Math.min(askedSize || defaultSize, 100))
    const askedPage = Math.max(1, Number(q.get(pageName) ?? 1) || 1)
    const page = quirks.pagingWrong ? 1 : askedPage
    const items = all.slice((page - 1) * size, page * size)
    const shape = quirks.listShape ?? 'standard'
    if (shape === 'bare') return items
    if (shape === 'data') return {data: items}
    if (shape === 'no-paging') return {[key]: items}
    const paging = quirks.pagingWrong
      ? {[pageName]: int(1), pageSize: int(20), total: int(120), totalPages: int(40)}
      : {
          [pageName]: int(page),
          pageSize: int(size),
          total: int(all.length),
          totalPages: int(Math.ceil(all.length / size)),
        }
    return {[key]: items, ...paging, ...(quirks.unknownFields ? {links: {next: null}, took: 3} : {})}
  }

  /** A create's answer in the shape the quirks ask for. */
  const createAnswer = (records: Record<string, unknown>[]): {status: number; body: unknown} => {
    const status = quirks.createStatus ?? 201
    switch (quirks.createAnswer ?? 'array') {
      case 'object':
        return {status, body: records.length === 1 ? records[0] : records}
      case 'data':
        return {status, body: {data: records}}
      case 'ids':
        return {status, body: records.map((r) => ({_id: r._id}))}
      case 'id-strings':
        return {status, body: records.map((r) => r._id)}
      case 'empty':
        return {status, body: undefined}
      default:
        return {status, body: records}
    }
  }

  // ---- routes

  const findDemand = (id: string): Demand => {
    const d = demands.find((x) => x._id === id)
    if (!d) throw new HttpFailure(404, `Demand ${id} not found`)
    return d
  }
  const ownBusiness = (id: string) => {
    if (id !== credentials.businessId) throw new HttpFailure(403, `Business ${id} is not the business of this key`)
  }
  const checkItems = (body: unknown, legacy: boolean): Record<string, unknown>[] => {
    if (!Array.isArray(body) || body.length === 0 || body.length > 100) {
      throw new HttpFailure(400, 'The body must be an array of 1 to 100 demands')
    }
    const details: {path: string; message: string}[] = []
    body.forEach((item, i) => {
      if (typeof item !== 'object' || item === null || Array.isArray(item)) {
        details.push({path: String(i), message: 'must be an object'})
        return
      }
      const it = item as Record<string, unknown>
      const hasModel = Array.isArray(it.quoteModel) && it.quoteModel.length > 0
      if (!hasModel && !(typeof it.technique === 'string' && (legacy || typeof it.material === 'string'))) {
        details.push({path: String(i), message: 'needs quoteModel, or technique and material'})
      }
    })
    if (details.length > 0) throw new HttpFailure(400, 'Some demands are invalid; nothing was created', details)
    return body as Record<string, unknown>[]
  }
  const create = (items: Record<string, unknown>[]): Demand[] => {
    const now = Date.now()
    return items.map((item) => {
      const d = newDemand(item, now)
      demands.push(d)
      stats.created.demands++
      stats.createdIds.demands.push(d._id)
      return d
    })
  }
  const sortedDemands = (q: URLSearchParams, type: string): Demand[] => {
    const t = type.toLowerCase()
    let list = demands.filter((d) => (q.get('archived') === 'true' ? d.archive : !d.archive))
    if (t === 'quotes' || t === 'quote') list = list.filter((d) => d.takenAs === 'QUOTE')
    else if (t === 'orders' || t === 'order') list = list.filter((d) => d.takenAs === 'ORDER')
    else if (t !== 'all') throw new HttpFailure(400, `Unknown list type ${type}`)
    const status = q.get('status')
    if (status) list = list.filter((d) => d.stage === status)
    const draftId = q.get('draftId')
    if (draftId !== null && quirks.draftIdFilter !== false) list = list.filter((d) => d.draftId === draftId)
    const asc = q.get('sort') === 'createdAt'
    return [...list].sort((a, b) => (asc ? a.createdAt - b.createdAt : b.createdAt - a.createdAt))
  }
  const applyUpdate = (d: Demand, body: Record<string, unknown>): string[] => {
    const changed: string[] = []
    const info = body.demandStatusInfo as Record<string, unknown> | undefined
    if (info && typeof info.status === 'string') {
      const target = info.status
      if (!STAGES[target]) throw new HttpFailure(400, `Unknown stage ${target}`)
      // The contract allows the listed moves only: a move to the stage the demand is in is refused too.
      if (!STAGES[d.stage]!.next.includes(target)) {
        throw new HttpFailure(409, `A demand cannot move from ${d.stage} to ${target}`)
      }
      d.stage = target
      d.tracking.push({status: STAGES[target]!.tracking, date: Date.now()})
      changed.push('demandStatusInfo')
    }
    for (const key of ['material', 'color', 'currency'] as const) {
      if (typeof body[key] === 'string') {
        d[key] = body[key]
        changed.push(key)
      }
    }
    for (const key of ['priceTotal', 'priceDelivery', 'quantity'] as const) {
      if (typeof body[key] === 'number') {
        d[key] = body[key]
        changed.push(key)
      }
    }
    if (typeof body.archive === 'boolean') {
      d.archive = body.archive
      changed.push('archive')
    }
    for (const [key, value] of Object.entries(body)) {
      if (!changed.includes(key) && key !== 'demandStatusInfo') {
        d.extra[key] = value
        changed.push(key)
      }
    }
    d.updatedAt = Date.now()
    return changed
  }

  /** The real work of a request: its status and JSON body (undefined: no body). */
  /** One JSON-RPC message to the MCP endpoint: initialize, notifications, tools/list, tools/call. */
  const mcp = (method: string, body: unknown): {status: number; body: unknown} => {
    if (method !== 'POST') throw new HttpFailure(405, `${method} is not supported on the MCP endpoint`)
    const msg = (body ?? {}) as {id?: unknown; method?: unknown; params?: Record<string, unknown>}
    if (msg.id === undefined) return {status: 202, body: undefined}
    const answer = (result: unknown) => ({status: 200, body: {jsonrpc: '2.0', id: msg.id, result}})
    const params = msg.params ?? {}
    switch (msg.method) {
      case 'initialize':
        return answer({
          protocolVersion: typeof params.protocolVersion === 'string' ? params.protocolVersion : '2025-06-18',
          capabilities: {tools: {}},
          serverInfo: {name: 'foreign-service', version: '0.0.1'},
        })
      case 'ping':
        return answer({})
      case 'tools/list':
        return answer({
          tools: MCP_TOOLS.map((name) => ({
            name,
            description: name === 'estimate_price' ? 'Price a part' : 'List quote requests',
            inputSchema: {type: 'object', properties: {}},
            annotations: {readOnlyHint: true},
          })),
        })
      case 'tools/call': {
        const args = (params.arguments ?? {}) as Record<string, unknown>
        let value: unknown
        if (params.name === 'estimate_price') {
          const quantity = Number(args.quantity ?? 1)
          value = {price: money(30 + 12.5 * (Number.isFinite(quantity) ? quantity : 1))}
        } else if (params.name === 'list_quotes') {
          value = {data: demands.slice(0, 5).map((d) => demandView(d))}
        } else {
          return {status: 200, body: {jsonrpc: '2.0', id: msg.id, error: {code: -32602, message: 'Unknown tool'}}}
        }
        return answer({content: [{type: 'text', text: JSON.stringify(value)}], structuredContent: value})
      }
      default:
        return {status: 200, body: {jsonrpc: '2.0', id: msg.id, error: {code: -32601, message: 'Method not found'}}}
    }
  }

  const route = (method: string, path: string, q: URLSearchParams, body: unknown): {status: number; body: unknown} => {
    const m = (re: RegExp) => re.exec(path)
    let p: RegExpExecArray | null
    if (method === 'POST' && (p = m(/^\/api\/public\/v1\/demand\/create-quotes\/([^/]+)$/))) {
      ownBusiness(decodeURIComponent(p[1]!))
      const made = create(checkItems(body, false))
      return createAnswer(made.map((d) => demandView(d, {created: true})))
    }
    if (method === 'GET' && (p = m(/^\/api\/public\/v1\/demand\/access\/file\/([^/]+)$/))) {
      const d = findDemand(decodeURIComponent(p[1]!))
      const name = q.get('fileName')
      const index = Number(q.get('index') ?? 0)
      const file = name ? d.files.find((f) => f.fileName === name) : d.files[index]
      if (!file) throw new HttpFailure(404, 'No such file on this demand')
      const expires = Math.floor(Date.now() / 1000) + 1800
      const token = `expires=${expires}&signature=${randomBytes(16).toString('hex')}`
      // The stored file's path under the file host: a link a downloader can check against the stored URL.
      const url = `${base}/files${new URL(file.fileLink).pathname}?${token}`
      return {status: 200, body: quirks.fileNoToken ? {url} : {url, token}}
    }
    if (method === 'GET' && (p = m(/^\/api\/public\/v1\/demand\/([^/]+)\/([^/]+)$/))) {
      ownBusiness(decodeURIComponent(p[1]!))
      const list = sortedDemands(q, decodeURIComponent(p[2]!)).map((d) => demandView(d))
      return {status: 200, body: listAnswer(list, q, 'data', 'page', 20)}
    }
    if (method === 'GET' && (p = m(/^\/api\/public\/v1\/demand\/([^/]+)$/))) {
      return {status: 200, body: demandView(findDemand(decodeURIComponent(p[1]!)))}
    }
    if (method === 'PUT' && (p = m(/^\/api\/public\/v1\/demand\/([^/]+)$/))) {
      const d = findDemand(decodeURIComponent(p[1]!))
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new HttpFailure(400, 'The update body must be an object')
      }
      const changed = applyUpdate(d, body as Record<string, unknown>)
      if (quirks.updateAnswer === 'empty-204') return {status: 204, body: undefined}
      if (quirks.updateAnswer === 'partial') {
        const full = demandView(d)
        return {status: 200, body: Object.fromEntries([['_id', d._id], ...changed.map((k) => [k, full[k]])])}
      }
      return {status: 200, body: demandView(d)}
    }
    if (path === MCP_PATH) return mcp(method, body)
    if (method === 'POST' && (p = m(/^\/api\/public\/v1\/price-estimation\/([^/]+)$/))) {
      ownBusiness(decodeURIComponent(p[1]!))
      const model = (body ?? {}) as Record<string, unknown>
      const quantity = typeof model.quantity === 'number' ? model.quantity : 1
      const price = 30 + 12.5 * quantity
      const data: Record<string, unknown> = {price: money(price)}
      if (quirks.unknownFields) Object.assign(data, {engine: 'v7', breakdown: {machine: 20, material: 10}})
      if (quirks.nulls) Object.assign(data, {currency: null, bulk: null})
      const message = u ? 'Prix estimé — ✓ 估价完成' : 'Price estimated'
      return {status: 200, body: quirks.estimateNoMessage ? {data} : {message, data}}
    }
    if (method === 'POST' && path === '/api/v2/ms-machine-owner/demand/create-demands') {
      const made = create(checkItems(body, true))
      return createAnswer(made.map(legacyView))
    }
    if (method === 'POST' && path === '/api/v2/ms-machine-owner/demand/list') {
      const ids = (body as {demands?: unknown})?.demands
      if (!Array.isArray(ids)) throw new HttpFailure(400, 'demands must be an array of ids')
      return {status: 200, body: demands.filter((d) => ids.includes(d._id)).map(legacyView)}
    }
    if (method === 'GET' && (p = m(/^\/api\/v2\/ms-post\/post\/user-posts\/([^/]+)$/))) {
      ownBusiness(decodeURIComponent(p[1]!))
      const list = [...posts].sort((a, b) => b.createdAt - a.createdAt).map(postView)
      return {status: 200, body: listAnswer(list, q, 'posts', 'currentPage', 5)}
    }
    if (method === 'POST' && (p = m(/^\/api\/v2\/ms-post\/post\/([^/]+)$/)) && p[1] !== 'upload') {
      ownBusiness(decodeURIComponent(p[1]!))
      const b = (body ?? {}) as Record<string, unknown>
      const price = (b.price ?? {}) as Record<string, unknown>
      if (typeof b.service !== 'string' || !Array.isArray(b.materials)) {
        throw new HttpFailure(400, 'A post needs service, price and materials')
      }
      counter++
      const post: Post = {
        _id: idOf('cc', counter),
        title: typeof b.title === 'string' ? b.title : 'Untitled',
        service: b.service,
        priceMachine: String(price.priceMachine ?? '0'),
        priceConception: Number(price.priceConception ?? 0),
        priceExtra: Number(price.priceExtra ?? 0),
        materials: b.materials as Post['materials'],
        createdAt: Date.now(),
        updatedAt: Date.now(),
      }
      posts.push(post)
      stats.created.posts++
      stats.createdIds.posts.push(post._id)
      const answer = createAnswer([postView(post)])
      return {status: answer.status, body: Array.isArray(answer.body) ? answer.body[0] : answer.body}
    }
    if (method === 'DELETE' && path === '/api/v2/ms-post/post/upload') {
      const id = q.get('postId') ?? q.get('productId')
      if (!id) throw new HttpFailure(400, 'postId is required')
      const at = posts.findIndex((x) => x._id === id)
      if (at < 0) throw new HttpFailure(404, `Product ${id} not found`)
      const [gone] = posts.splice(at, 1)
      return {status: 200, body: postView(gone!)}
    }
    if (method === 'GET' && (p = m(/^\/api\/v2\/integrations_ms\/webhooks\/([^/]+)$/))) {
      ownBusiness(decodeURIComponent(p[1]!))
      const list = webhooks.map(webhookView)
      const shape = quirks.listShape ?? 'standard'
      if (shape === 'bare') return {status: 200, body: list}
      return {status: 200, body: webhookAnswer(list, 'Webhooks found')}
    }
    if (method === 'POST' && path === '/api/v2/integrations_ms/webhooks') {
      const b = (body ?? {}) as Record<string, unknown>
      ownBusiness(String(b.businessId))
      if (typeof b.url !== 'string' || !Array.isArray(b.events) || b.events.length === 0) {
        throw new HttpFailure(400, 'A webhook needs url and events')
      }
      counter++
      const hook: Webhook = {
        _id: idOf('ee', counter),
        url: b.url,
        secret: typeof b.secret === 'string' ? b.secret : '',
        events: b.events as string[],
        useSecret: b.useSecret === true,
        createdAt: Date.now(),
      }
      webhooks.push(hook)
      stats.created.webhooks++
      stats.createdIds.webhooks.push(hook._id)
      if ((quirks.createAnswer ?? 'array') === 'empty') return {status: quirks.createStatus ?? 201, body: undefined}
      return {status: 201, body: webhookAnswer([webhookView(hook)], 'Webhook created')}
    }
    throw new HttpFailure(404, `Cannot ${method} ${path}`)
  }

  // ---- transport

  /** Writes an answer the way the quirks say: content type, BOM, encoding, chunks, delay. */
  const send = async (
    res: ServerResponse,
    status: number,
    payload: {json?: unknown; text?: string; type?: string} | undefined,
    headers: Record<string, string> = {},
    cut = false,
  ): Promise<void> => {
    if (quirks.slowFirstByteMs) await new Promise((r) => setTimeout(r, quirks.slowFirstByteMs))
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v)
    if (payload === undefined || (payload.json === undefined && payload.text === undefined)) {
      res.writeHead(status)
      res.end()
      return
    }
    const isJson = payload.json !== undefined
    let text = isJson ? JSON.stringify(payload.json) : payload.text!
    if (isJson && quirks.bom) text = `\uFEFF${text}`
    let bytes = Buffer.from(text, 'utf8')
    const type = isJson ? jsonType(res.req.method ?? 'GET') : payload.type
    if (type) res.setHeader('Content-Type', type)
    if (quirks.contentEncoding === 'gzip') {
      bytes = gzipSync(bytes)
      res.setHeader('Content-Encoding', 'gzip')
    } else if (quirks.contentEncoding === 'unknown') {
      res.setHeader('Content-Encoding', 'x-acme-pack')
    }
    if (cut) {
      res.setHeader('Content-Length', String(bytes.length))
      res.writeHead(status)
      res.write(bytes.subarray(0, Math.floor(bytes.length / 2)))
      await new Promise((r) => setTimeout(r, 20))
      res.socket?.destroy()
      return
    }
    if (quirks.slowBodyMs) {
      res.setHeader('Content-Length', String(bytes.length))
      res.writeHead(status)
      const half = Math.floor(bytes.length / 2)
      res.write(bytes.subarray(0, half))
      await new Promise((r) => setTimeout(r, quirks.slowBodyMs))
      // The client may have given up meanwhile.
      if (!res.destroyed) res.end(bytes.subarray(half))
      return
    }
    if (!quirks.chunked) {
      res.setHeader('Content-Length', String(bytes.length))
      res.writeHead(status)
      res.end(bytes)
      return
    }
    res.writeHead(status)
    for (let i = 0; i < bytes.length; i += 7) {
      if (!res.write(bytes.subarray(i, i + 7))) await new Promise((r) => res.once('drain', r))
      // Big bodies in fewer turns: only the first kilobytes go piece by piece on separate ticks.
      if (i < 4096) await new Promise((r) => setImmediate(r))
    }
    res.end()
  }

  /** The Content-Type JSON answers go with; undefined: none at all. */
  const jsonType = (method: string): string | undefined => {
    const wanted = quirks.contentType === 'mixed' ? (method === 'GET' ? 'none' : 'text/html') : quirks.contentType
    if (wanted === 'none') return undefined
    if (wanted === 'text/html') return 'text/html; charset=utf-8'
    if (wanted === 'text/plain') return 'text/plain'
    return 'application/json; charset=utf-8'
  }

  const readBody = (req: IncomingMessage): Promise<string> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
      req.on('error', reject)
    })

  const authorized = (req: IncomingMessage, path: string): string | undefined => {
    if (req.headers.authorization !== `Bearer ${credentials.apiKey}`) return 'Missing or invalid API key'
    if (path.startsWith('/api/v2/') && path !== MCP_PATH && req.headers['x-auth-token'] !== credentials.authToken) {
      return 'Missing or invalid X-Auth-Token'
    }
    return undefined
  }

  /** Answers with a fault; an early end cuts `answer` (the real one when the work was done). */
  const sendFault = async (
    res: ServerResponse,
    fault: Fault,
    record: RequestRecord,
    answer: {status: number; body: unknown} = {status: 200, body: {message: 'cut before any work'}},
  ): Promise<void> => {
    if (fault.kind === 'drop') {
      record.status = 'dropped'
      res.socket?.destroy()
      return
    }
    if (fault.kind === 'hang') {
      record.status = 'hung'
      await new Promise((r) => setTimeout(r, fault.ms))
      res.socket?.destroy()
      return
    }
    if (fault.kind === 'early-end') {
      record.status = 'cut'
      await send(res, answer.status, {json: answer.body ?? {}}, {}, true)
      return
    }
    record.status = fault.status
    if (fault.html !== undefined) {
      await send(res, fault.status, {text: fault.html, type: 'text/html'}, fault.headers)
    } else if (fault.body !== undefined) {
      const problem = typeof fault.body === 'object' && fault.body !== null && 'detail' in fault.body
      // RFC 9457 bodies go with their own media type, whatever the quirks say of JSON.
      if (problem) {
        const raw = JSON.stringify(fault.body)
        await send(res, fault.status, {text: raw, type: 'application/problem+json'}, fault.headers)
      } else await send(res, fault.status, {json: fault.body}, fault.headers)
    } else await send(res, fault.status, undefined, fault.headers)
  }

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://foreign.invalid')
    const method = req.method ?? 'GET'
    stats.requests++
    const record: RequestRecord = {method, path: url.pathname, status: 0}
    stats.log.push(record)
    const raw = await readBody(req)
    if (quirks.redirect && !url.pathname.startsWith('/moved/')) {
      record.status = method === 'GET' ? 307 : 308
      res.writeHead(record.status, {Location: `/moved${url.pathname}${url.search}`, 'Content-Length': '0'})
      res.end()
      return
    }
    stats.served++
    const path = url.pathname.replace(/^\/moved(?=\/)/, '')
    // The file host: the signed link is the permission (no credentials, no faults of the service's own).
    const file = method === 'GET' ? /^\/files\/demands\/([^/]+)$/.exec(path) : null
    if (file) {
      record.acceptEncoding = req.headers['accept-encoding']
      record.status = 200
      const login = '<!doctype html><html><body><form action="/login">Sign in</form></body></html>'
      const body = quirks.fileLoginPage
        ? {text: login, type: 'text/html'}
        : {text: foreignFile(decodeURIComponent(file[1]!)), type: 'model/stl'}
      await send(res, 200, body)
      return
    }
    const index = stats.served - 1
    const problem = authorized(req, path)
    if (problem) {
      record.status = 401
      await send(res, 401, {json: errorBody(401, problem)})
      return
    }
    if (quirks.always) return sendFault(res, quirks.always, record)
    if (quirks.from && index >= quirks.from.after) return sendFault(res, quirks.from.fault, record)
    const fault = index === 0 ? quirks.first : undefined
    if (fault && !fault.afterWork) return sendFault(res, fault, record)
    let answer: {status: number; body: unknown}
    try {
      let body: unknown
      if (raw !== '') {
        try {
          body = JSON.parse(raw)
        } catch {
          throw new HttpFailure(400, 'The body is not JSON')
        }
      }
      answer = route(method, path, url.searchParams, body)
    } catch (error) {
      if (!(error instanceof HttpFailure)) throw error
      answer = {status: error.status, body: errorBody(error.status, error.message, error.details)}
    }
    // The work is done (stored); the answer is lost or replaced.
    if (fault) return sendFault(res, fault, record, answer)
    record.status = answer.status
    await send(res, answer.status, answer.body === undefined ? undefined : {json: answer.body})
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A bug here is the test's own: say so loudly in the answer rather than hang.
      if (!res.headersSent) res.writeHead(500, {'Content-Type': 'text/plain'})
      res.end(`foreign server bug: ${String(error)}`)
    })
  })
  server.keepAliveTimeout = 5_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  return {
    url: base,
    credentials,
    seed,
    stats: () => structuredClone(stats),
    setQuirks(next) {
      quirks = next
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
