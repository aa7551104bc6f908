// The client's public shapes, apart from the pipeline that implements them, so that
// the pieces of the pipeline (request.ts, retry.ts, transports) can share them
// without importing each other in a circle.
import type {Readable} from 'node:stream'

import type {CommandBudget} from './budget.js'
import type {RetryPolicy} from './retry.js'

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH'

/** How a response body is handed back: parsed by its content type (default), as text, or as bytes. */
export type ResponseType = 'json' | 'text' | 'buffer'

export interface ClientOptions {
  baseUrl: string
  apiKey?: string
  authToken?: string
  /** Per attempt, the whole exchange (connecting to the body's last byte). Default 30000. */
  timeoutMs?: number
  /**
   * The most the whole command may take, every request, attempt and wait included
   * (`--total-timeout`): each attempt's time-out is cut to what is left, no retry is
   * scheduled past it and no request starts after it. Also the command's time for
   * failures. Unset by default: no limit but the time for failures.
   */
  totalTimeoutMs?: number
  /**
   * How long the command may spend failing when `totalTimeoutMs` is unset: failed
   * attempts and waits, summed over all its requests (budget.ts). Default 30000.
   */
  failingBudgetMs?: number
  /** Follows the message when the command's budget runs out: how to allow more (`--total-timeout`). */
  budgetHint?: string
  /** Follows the message of a time-out: how to allow more time (`raise it with --timeout`). */
  timeoutHint?: string
  /**
   * Notes for a person watching (a terminal): an attempt unanswered for 5 s, a retry
   * and its wait. Not given under `log` (--verbose logs every attempt already).
   */
  onWait?: (note: string) => void
  /** Retries after the first attempt. Default 3. */
  retries?: number
  /** `--verbose` sink: one line per attempt (`→ GET /path 200 12ms`), secrets masked. */
  log?: (line: string) => void
  userAgent?: string
  /** First back-off step; later steps double, jittered. Default 500. */
  retryBaseMs?: number
  /**
   * Longest single wait. A `Retry-After` beyond it is not waited for: the
   * RateLimitError/ServerError is thrown at once with `retryAfterSeconds`. Default 8000.
   */
  maxRetryWaitMs?: number
  /**
   * Send credentials over plain http to a host that is not this machine. Off by
   * default: such a request is refused (InsecureTransportError) before anything
   * is sent, since the key and token would cross the network in clear.
   */
  insecure?: boolean
}

/** Query parameters; a list is sent as the key repeated, once per item (`ids[]=1&ids[]=2`). */
export type Query = Record<string, string | number | boolean | readonly string[] | undefined>

export interface RequestOptions {
  method: HttpMethod
  /** Starts with /api/...; may carry its own query string. */
  path: string
  query?: Query
  /** Sent as JSON; a string or Buffer is sent as is; a MultipartBody (multipart.ts) as multipart/form-data, streamed. */
  body?: unknown
  /** Called as the request body is sent (multipart uploads), with bytes sent and the total when known. */
  onUploadProgress?: (progress: {transferred: number; total?: number}) => void
  headers?: Record<string, string>
  /**
   * Sets Idempotency-Key and makes a POST (or PATCH) retryable like a GET. A caller
   * that settles unknown outcomes itself sends the key as a plain header instead:
   * the request is then resent only when a failure proves nothing was processed.
   */
  idempotencyKey?: string
  /**
   * `safe`: sending the request twice does no harm although its method is POST (a
   * price estimate, a read sent as POST, MCP's initialize and tools/list), so it is
   * retried like a GET.
   */
  retry?: 'safe'
  /** What the request does, for its errors ("creating quotes"); named from its path when not given. */
  operation?: string
  signal?: AbortSignal
  /** How the body comes back (default `json`: parsed when the content type says JSON, text otherwise). */
  responseType?: ResponseType
  /**
   * One of many like it (a batch's chunks): sent on the lighter node:http transport,
   * which shares everything else (retries, decoding, errors, time-out) with the default
   * one. Ignored for multipart bodies and upload progress, which need the default transport.
   */
  bulk?: boolean
  /**
   * At most this many retries for this request, fewer than the client's own: for
   * look-ups that only help settle something else (a batch's), so that a dead
   * service is given up on quickly.
   */
  retries?: number
}

export interface ApiResponse<T = unknown> {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: T
  durationMs: number
}

/** A GET to a signed link on the file host: an absolute URL that gets no credentials. */
export interface StreamOptions {
  url: string
  headers?: Record<string, string>
  signal?: AbortSignal
}

/** A 2xx answer whose body is read by the caller, as it arrives. */
export interface StreamResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Readable
}

export interface ApiClient {
  readonly baseUrl: string
  request<T = unknown>(opts: RequestOptions): Promise<ApiResponse<T>>
  /**
   * Opens a download from the file host: retried like any GET until an answer
   * comes; a non-2xx answer is thrown as the mapped ApiError. Redirects are followed.
   */
  stream(opts: StreamOptions): Promise<StreamResponse>
  /**
   * An API request whose 2xx answer is read as it arrives (credentials, retries and
   * errors as `request`): the time-out bounds the wait for it to start and each
   * silence within it, not its whole length.
   */
  open(opts: RequestOptions): Promise<StreamResponse>
  /** The retry rules this client applies, for callers that resume work of their own (a download cut off mid-way). */
  readonly retryPolicy: RetryPolicy
  /**
   * The command's time budget (one per client, so one per command): callers that wait
   * or retry on their own (a batch's look-ups, a download resuming) ask and tell it too.
   */
  readonly budget: CommandBudget
  /** Frees the keep-alive sockets. Optional to call: idle sockets do not keep the process alive. */
  close?(): void
}
