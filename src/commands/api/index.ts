import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {methodAndPath} from '../../cli/api-args.js'
import {fieldPairs, METHODS, parseFields, parseHeaders, type RawResponse} from '../../services/api/raw.js'

export default class Api extends BaseCommand {
  static override summary = "Send a raw request to either API generation with the profile's credentials."
  static override description = `Sends METHOD PATH to the active profile's service. As with gh api, METHOD may be left out (mfg api PATH): the method is then -X/--method's, or GET, or POST when fields or --input give a body (GET with --paginate). v1 paths get the Bearer key; /api/v2/ paths also get X-Auth-Token. PATH may also be a full URL under the profile's base URL (it is sent as its path); a URL anywhere else is refused (exit 2), so the profile's credentials never leave its service. {businessId} in PATH and in -F/--field values is replaced by the profile's business id (not in -f/--raw-field values, sent as written).

key=value fields become the JSON body for POST, PUT and PATCH, and the query for GET and DELETE, as with gh api: -F/--field values are typed (numbers, true, false and null become JSON values, anything else a string, and so does a number JSON cannot carry as written: a 21-digit tracking number keeps its digits), -f/--raw-field values are strings as written (a zip code 75001, a phone number). As with gh api, dots or brackets nest objects (-f shippingAddress.city=Lyon, -f 'shippingAddress[city]=Lyon'), key[]=value adds an item to a list (repeat it for more: -f 'tags[]=a' -f 'tags[]=b'), key[] alone is an empty list, and 'items[][name]=x' starts an object in a list (the following items[][...] fields fill it until a key repeats). In a query (GET, DELETE) a list is sent as its key repeated (tags[]=a&tags[]=b) and an object's fields as key[field]=value. A field given twice, or given a value and nested fields, is refused (exit 2). --input sends a file (or stdin with -) as the body as is.

Output: the response body on stdout (JSON pretty on a terminal, compact when piped; other bodies as text). --include writes the status line (HTTP 201 Created) and headers to stderr, keeping stdout parseable; with --paginate, each page's as it comes. --paginate follows the pages of a v1 list (GET /api/public/v1/...) and prints one merged array of the items, written as the pages come (memory stays flat; one item a line when piped; a page size among the fields is kept, 100 otherwise; a page that fails after the first leaves the array unclosed and exits non-zero); it is refused (exit 2) for other methods and for v2 paths, whose answers are not v1 pages. --jq EXPR prints a JSON answer through jq (strings raw, like gh api --jq); with --paginate it runs once, on the merged array. An answer that is not JSON cannot be filtered: with --jq that is an error (exit 5).

Like gh api, a non-2xx answer still prints the service's error body on stdout, and the command exits non-zero: 3 for 401, 1 for any other error status.

Secrets in the answer are masked: webhook secrets (every "secret" field), payment tokens (paymentAuthToken) and the signatures of signed file links. --show-secrets prints the body exactly as the service sent it.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> GET /api/public/v1/demand/{businessId}/quotes -f pageSize=5',
    '<%= config.bin %> <%= command.id %> GET /api/public/v1/demand/{businessId}/all --paginate',
    '<%= config.bin %> <%= command.id %> /api/public/v1/demand/{businessId}/quotes --jq ".data[].orderNumber"',
    '<%= config.bin %> <%= command.id %> GET /api/public/v1/demand/{businessId}/all --paginate --jq ".[].orderNumber"',
    '<%= config.bin %> <%= command.id %> POST /api/public/v1/price-estimation/{businessId} --input examples/part.json',
    '<%= config.bin %> <%= command.id %> PUT /api/public/v1/demand/65f000060000000000000002 -f demandStatusInfo.status=special_verified -F quantity=3',
    '<%= config.bin %> <%= command.id %> GET /api/v2/integrations_ms/webhooks/{businessId} --include',
    "<%= config.bin %> <%= command.id %> POST /api/v2/integrations_ms/webhooks -F businessId={businessId} -f url=https://example.com/hook -f secret=change-me -f 'events[]=order_placed' -f 'events[]=order_updated'",
  ]
  static override enableJsonFlag = false
  static override usage = ['<%= command.id %> [METHOD] PATH [FLAGS]']
  static override args = {
    method: Args.string({
      description: `HTTP method: ${METHODS.join(', ')} (any case). Left out, as with gh api: -X/--method, or GET, or POST with a body.`,
      required: true,
    }),
    path: Args.string({
      description:
        "Path starting with /api/ (or a full URL under the profile's base URL), optionally with a query string.",
    }),
  }
  static override flags = {
    method: Flags.string({
      char: 'X',
      description: 'HTTP method, for mfg api PATH (as gh api -X).',
      options: [...METHODS, ...METHODS.map((m) => m.toLowerCase())],
      helpValue: 'METHOD',
    }),
    field: Flags.string({
      char: 'F',
      description:
        'key=value: a typed body field (POST/PUT/PATCH) or query parameter (GET/DELETE); {businessId} in the value is filled in. a.b or a[b] nests, a[]=v adds a list item, a[] alone is an empty list.',
      multiple: true,
    }),
    'raw-field': Flags.string({
      char: 'f',
      description: 'key=value: a string body field or query parameter, sent as written; names as with -F.',
      multiple: true,
    }),
    input: Flags.string({
      description: 'File holding the raw request body; - reads stdin.',
      helpValue: 'PATH|-',
      exclusive: ['field', 'raw-field'],
    }),
    header: Flags.string({char: 'H', description: 'Extra header, "Name: value".', multiple: true}),
    paginate: Flags.boolean({
      description: 'Follow every page of a v1 list (GET /api/public/v1/...) and print one array of the items.',
    }),
    include: Flags.boolean({
      char: 'i',
      description: 'Print the status line (HTTP 200 OK) and response headers to stderr.',
    }),
    'show-secrets': Flags.boolean({
      description:
        'Print webhook secrets, payment tokens and signed file links in the answer in full (masked by default).',
    }),
  }

  async run(): Promise<RawResponse> {
    const {args, flags, raw} = await this.parse(Api)
    let input: string | undefined
    if (flags.input !== undefined) {
      const {readTextInput} = await import('../../cli/input.js')
      input = (await readTextInput(flags.input, '--input')).text
    }
    const {method, path} = methodAndPath(args, flags.method, raw)
    const ctx = this.context(flags)
    const {client, profile} = await ctx.session()
    const request = {
      method,
      path,
      fields: parseFields(fieldPairs(raw), {businessId: profile.businessId}),
      ...(input === undefined ? {} : {input}),
      headers: parseHeaders(flags.header ?? []),
      paginate: flags.paginate,
      ...(profile.businessId ? {businessId: profile.businessId} : {}),
    }
    const {sendAndPrint} = await import('../../cli/api-output.js')
    const jq = await this.jqFilter()
    const shown = {
      include: flags.include,
      showSecrets: flags['show-secrets'],
      secrets: this.secrets(),
      ...(jq ? {jq} : {}),
    }
    const {res, exitCode} = await sendAndPrint(client, request, shown)
    if (exitCode !== undefined) process.exitCode = exitCode
    return res
  }

  /** `--jq EXPR` as what prints the answer's JSON body (jq is loaded only then). */
  private async jqFilter(): Promise<((value: unknown) => void) | undefined> {
    const expr = this.jqExpression
    if (expr === undefined) return undefined
    const {loadJq, printJq} = await import('../../cli/jq.js')
    const jq = await loadJq()
    return (value) => printJq(jq, value, expr)
  }
}
