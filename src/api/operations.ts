// What a request does, in the words of the commands that send it, so that an
// error says "listing demands: ..." rather than leaving the user to read a path.
// A path not listed here (mfg api, a new endpoint) has no name: its error shows
// the method and path alone. MCP's errors are named by the JSON-RPC method that
// failed (`initialize failed: ...`, src/api/mcp.ts), so its path is not listed.

const V1 = '/api/public/v1'
const LEGACY = '/api/v2/ms-machine-owner/demand'
const POSTS = '/api/v2/ms-post/post'
const HOOKS = '/api/v2/integrations_ms/webhooks'

/** Method, a pattern for the path (without its query), and the operation's name. */
const OPERATIONS: readonly [string, RegExp, string][] = [
  ['POST', new RegExp(`^${V1}/demand/create-quotes/`), 'creating quotes'],
  ['GET', new RegExp(`^${V1}/demand/access/file/`), 'getting a file link'],
  ['GET', new RegExp(`^${V1}/demand/[^/]+/[^/]+$`), 'listing demands'],
  ['GET', new RegExp(`^${V1}/demand/[^/]+$`), 'getting the demand'],
  ['PUT', new RegExp(`^${V1}/demand/[^/]+$`), 'updating the demand'],
  ['POST', new RegExp(`^${V1}/price-estimation/`), 'estimating the price'],
  ['POST', new RegExp(`^${LEGACY}/create-demands$`), 'creating demands'],
  ['POST', new RegExp(`^${LEGACY}/products$`), 'ordering products'],
  ['POST', new RegExp(`^${LEGACY}/list$`), 'reading demands by id'],
  ['GET', new RegExp(`^${LEGACY}/access-storage$`), 'getting a file link'],
  ['GET', new RegExp(`^${LEGACY}/[^/]+$`), 'getting the demand'],
  ['PUT', new RegExp(`^${LEGACY}/[^/]+$`), 'updating the demand'],
  ['DELETE', new RegExp(`^${LEGACY}/[^/]+$`), 'cancelling the demand'],
  ['POST', /^\/api\/v2\/ms-machine-learning\/[^?]*modelPriceEstimation\//, 'estimating prices'],
  ['GET', new RegExp(`^${POSTS}/user-posts/`), 'listing products'],
  ['POST', new RegExp(`^${POSTS}/upload\\?(.*&)?postId=`), 'adding models to the product'],
  ['POST', new RegExp(`^${POSTS}/upload$`), 'uploading files'],
  ['PUT', new RegExp(`^${POSTS}/upload\\b`), 'updating the product'],
  ['DELETE', new RegExp(`^${POSTS}/upload\\b`), 'deleting the product'],
  ['POST', new RegExp(`^${POSTS}/[^/]+$`), 'creating the product'],
  ['GET', new RegExp(`^${HOOKS}/[^/]+/[^/]+/deliveries$`), 'listing deliveries'],
  ['GET', new RegExp(`^${HOOKS}/[^/]+$`), 'listing webhooks'],
  ['POST', new RegExp(`^${HOOKS}$`), 'creating the webhook'],
  ['POST', new RegExp(`^${HOOKS}/[^/]+/trigger$`), 'triggering an event'],
  ['POST', new RegExp(`^${HOOKS}/[^/]+/[^/]+$`), 'updating the webhook'],
]

/**
 * The operation a request performs ("listing demands"), from its method and the
 * path as errors show it (relative to the base URL, maybe with a query); a signed
 * file link (an absolute URL) is a download. Undefined for paths not listed.
 */
export function operationOf(method: string, path: string): string | undefined {
  if (/^https?:\/\//.test(path)) return method === 'GET' ? 'downloading the file' : undefined
  const upload = path.startsWith(`${POSTS}/upload`)
  // Only the upload route tells its operations apart by the query.
  const bare = upload ? path : path.split('?')[0]!
  for (const [m, pattern, name] of OPERATIONS) if (m === method && pattern.test(bare)) return name
  return undefined
}
