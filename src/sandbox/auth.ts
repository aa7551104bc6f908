import type {FastifyRequest} from 'fastify'

import {forbidden, unauthorized} from './errors.js'
import type {Business} from './store/businesses.js'
import type {Store} from './store/index.js'

const authenticated = new WeakMap<FastifyRequest, Business>()

function apiKeyBusiness(store: Store, request: FastifyRequest): Business {
  const header = request.headers.authorization
  if (!header) throw unauthorized('Missing Authorization header: send "Authorization: Bearer <API key>".')
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  if (!match) throw unauthorized('The Authorization header must have the form "Bearer <API key>".')
  const business = store.businesses.byApiKey(match[1] as string)
  if (!business) throw unauthorized('The API key in the Authorization header is not valid.')
  return business
}

/** onRequest hook of v1 and MCP routes: a known API key in `Authorization: Bearer`. */
export function v1Auth(store: Store) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    authenticated.set(request, apiKeyBusiness(store, request))
  }
}

/** onRequest hook of legacy v2 routes: the API key and the business's `X-Auth-Token`. */
export function v2Auth(store: Store) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    const business = apiKeyBusiness(store, request)
    const token = request.headers['x-auth-token']
    if (token === undefined || token === '')
      throw unauthorized(
        'Missing X-Auth-Token header: legacy v2 requests need "X-Auth-Token: <auth token>" besides the API key.',
      )
    if (token !== business.authToken)
      throw unauthorized("The X-Auth-Token header is not the API key's business's auth token.")
    authenticated.set(request, business)
  }
}

/** The business whose credentials the request carries (set by the auth hook). */
export function businessOf(request: FastifyRequest): Business {
  const business = authenticated.get(request)
  if (!business) throw unauthorized('This request is not authenticated.')
  return business
}

/** The request's business, which must be the one a path segment or body field names. */
export function ownBusiness(request: FastifyRequest, businessId: string): Business {
  const business = businessOf(request)
  if (businessId !== business.id) {
    throw forbidden(`The API key belongs to business ${business.id}; it gives no access to business ${businessId}.`)
  }
  return business
}
