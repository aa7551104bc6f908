import {ApiError, AuthenticationError, PermissionError} from '../../api/errors.js'
import type {ApiClient} from '../../api/http.js'
import {listDemands} from '../../api/v1/demands.js'
import {listWebhooks} from '../../api/v2/webhooks.js'

export type CheckResult = 'ok' | 'invalid_credentials' | 'wrong_business' | 'not_configured' | 'error'

export interface CredentialCheck {
  result: CheckResult
  ok: boolean
  status?: number
  message: string
}

export interface AuthStatus {
  v1: CredentialCheck
  /** Absent when no auth token is set (v2 not configured). */
  v2?: CredentialCheck
  /** Whether the credentials failed (401/403): the command exits 3. */
  rejected: boolean
}

/**
 * Checks the credentials with the cheapest read of each generation: v1 lists
 * one demand of the business (200 ok, 401 bad key, 403 key of another
 * business); v2, when a token is set, lists the business's webhooks.
 */
export async function checkCredentials(
  client: ApiClient,
  opts: {businessId?: string; hasAuthToken: boolean},
): Promise<AuthStatus> {
  const {businessId} = opts
  if (!businessId) {
    const missing: CredentialCheck = {
      result: 'not_configured',
      ok: false,
      message: 'no business id (set --business-id on the profile or MFG_BUSINESS_ID)',
    }
    return {v1: missing, ...(opts.hasAuthToken ? {v2: missing} : {}), rejected: false}
  }
  const v1 = await check(() => listDemands(client, businessId, 'all', {pageSize: 1}), 'v1')
  const v2 = opts.hasAuthToken ? await check(() => listWebhooks(client, businessId), 'v2') : undefined
  const rejected = [v1, v2].some((c) => c && (c.result === 'invalid_credentials' || c.result === 'wrong_business'))
  return {v1, ...(v2 ? {v2} : {}), rejected}
}

async function check(call: () => Promise<unknown>, generation: 'v1' | 'v2'): Promise<CredentialCheck> {
  try {
    await call()
    return {result: 'ok', ok: true, status: 200, message: 'credentials accepted'}
  } catch (error) {
    const status = error instanceof ApiError ? error.status : undefined
    const server = error instanceof ApiError ? (error.serverMessage ?? error.message) : (error as Error).message
    const base = status === undefined ? {} : {status}
    if (error instanceof AuthenticationError) {
      const what = generation === 'v2' ? 'API key or auth token' : 'API key'
      return {result: 'invalid_credentials', ok: false, ...base, message: `${what} rejected: ${server}`}
    }
    if (error instanceof PermissionError) {
      return {result: 'wrong_business', ok: false, ...base, message: `the key belongs to another business: ${server}`}
    }
    if (error instanceof ApiError) return {result: 'error', ok: false, ...base, message: error.message}
    throw error
  }
}
