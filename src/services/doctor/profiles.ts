import {ApiError, AuthenticationError, InsecureTransportError, NetworkError, PermissionError} from '../../api/errors.js'
import {createClient, isLoopbackHost, type ApiClient} from '../../api/http.js'
import {withMcpSession} from '../../api/mcp.js'
import {listDemands} from '../../api/v1/demands.js'
import {listWebhooks} from '../../api/v2/webhooks.js'
import {maskSecret} from '../../schemas/secrets.js'
import {assessClock} from './clock.js'
import {hostOf, probe} from './probe.js'
import type {CheckResult} from './types.js'

/** A profile to check, as stored or as the MFG_* variables describe it. */
export interface DoctorProfile {
  name: string
  /** `stored`: in config.json (fixed with `mfg profile add`); `env`: from MFG_BASE_URL and friends. */
  source: 'stored' | 'env'
  baseUrl: string
  apiKey?: string
  authToken?: string
  businessId?: string
  currency?: string
}

export interface ProfileCheckOptions {
  /** Limit for each check over the network (the MCP check is several requests). */
  timeoutMs: number
  /** `--insecure` / MFG_INSECURE: credentials may go over plain http to another machine. */
  insecure?: boolean
  now?: () => number
}

type Field = 'apiKey' | 'authToken' | 'businessId'

const ENV_FIX: Record<Field, string> = {
  apiKey: 'set MFG_API_KEY to a valid key from the developer portal (pk_business_...)',
  authToken: 'set MFG_AUTH_TOKEN to the v2 auth token from the developer portal',
  businessId: 'set MFG_BUSINESS_ID to your business id',
}

/**
 * The command that repairs one value of a profile. `profile add` replaces the
 * whole profile, so the other values are repeated (secrets as placeholders).
 */
export function profileFix(p: DoctorProfile, field: Field): string {
  if (p.source === 'env') return ENV_FIX[field]
  const business = field === 'businessId' || !p.businessId ? '<business id>' : p.businessId
  const token = field === 'authToken' || p.authToken ? ' --auth-token <auth token>' : ''
  const currency = p.currency ? ` --currency ${p.currency}` : ''
  return `mfg profile add ${p.name} --base-url ${p.baseUrl} --business-id ${business} --api-key <API key>${token}${currency}`
}

/**
 * Checks one remote profile: reachability and the clock with one plain GET,
 * then, if something answered, v1, v2 and MCP credentials side by side, each
 * with the cheapest authenticated read of its generation.
 */
export async function checkProfile(p: DoctorProfile, opts: ProfileCheckOptions): Promise<CheckResult[]> {
  const target = p.name
  const host = hostOf(p.baseUrl)
  // Needs no network: the API client refuses to send credentials in clear to another machine.
  const transport = transportCheck(p, host, opts.insecure === true)
  const reached = await probe(p.baseUrl, opts)
  if (!reached.reached) {
    return [
      ...(transport ? [transport] : []),
      {
        check: 'reachability',
        target,
        status: 'fail',
        message: `cannot reach ${host}${reached.via ? ` ${reached.via}` : ''}: ${reached.reason}; credentials not checked`,
        fix:
          p.source === 'env'
            ? `check the network and MFG_BASE_URL (${p.baseUrl})`
            : `check the network and the profile's base URL ${p.baseUrl} (mfg profile show ${p.name})`,
      },
    ]
  }
  const results: CheckResult[] = [
    ...(transport ? [transport] : []),
    {
      check: 'reachability',
      target,
      status: 'ok',
      message: `${host} answered (HTTP ${reached.status})${reached.via ? `, ${reached.via}` : ''}`,
    },
    assessClock(target, reached.date, reached.sentAt, reached.receivedAt),
  ]
  if (transport?.status === 'fail') return results
  if (!p.apiKey) {
    results.push({
      check: 'v1',
      target,
      status: 'fail',
      message: 'no API key: v1, v2 and MCP cannot be used',
      fix: profileFix(p, 'apiKey'),
    })
    return results
  }
  const client = createClient({
    baseUrl: p.baseUrl,
    apiKey: p.apiKey,
    ...(p.authToken ? {authToken: p.authToken} : {}),
    timeoutMs: opts.timeoutMs,
    retries: 0,
    ...(opts.insecure ? {insecure: true} : {}),
  })
  try {
    const checks = await Promise.all([checkV1(client, p, opts), checkV2(client, p, opts), checkMcp(client, p, opts)])
    results.push(...checks.filter((c): c is CheckResult => c !== undefined))
  } finally {
    client.close?.()
  }
  return results
}

/** Plain http to another machine: refused (fail) unless --insecure, then sent in clear (warn). */
function transportCheck(p: DoctorProfile, host: string, insecure: boolean): CheckResult | undefined {
  if (!isCleartext(p.baseUrl)) return undefined
  const base = {check: 'transport', target: p.name}
  if (!insecure) {
    return {
      ...base,
      status: 'fail',
      message: `the base URL is plain http to ${host}: mfg will not send the key or token there, so v1, v2 and MCP were not checked`,
      fix: "use the service's https:// address, or pass --insecure (or set MFG_INSECURE=1) on a network you trust",
    }
  }
  return {
    ...base,
    status: 'warn',
    message: `the key and token travel in clear over plain http to ${host} (--insecure)`,
    fix: "use the service's https:// address",
  }
}

function isCleartext(baseUrl: string): boolean {
  const url = new URL(baseUrl)
  return url.protocol === 'http:' && !isLoopbackHost(url.hostname)
}

async function checkV1(client: ApiClient, p: DoctorProfile, opts: ProfileCheckOptions): Promise<CheckResult> {
  const base = {check: 'v1', target: p.name}
  const businessId = p.businessId
  if (!businessId) {
    return {
      ...base,
      status: 'fail',
      message: 'no business id: v1 and v2 calls cannot be made',
      fix: profileFix(p, 'businessId'),
    }
  }
  return attempt(base, p, opts, 'apiKey', async (signal) => {
    await listDemands(client, businessId, 'all', {pageSize: 1}, {signal})
    return `API key ${maskSecret(p.apiKey)} accepted for business ${businessId}`
  })
}

async function checkV2(
  client: ApiClient,
  p: DoctorProfile,
  opts: ProfileCheckOptions,
): Promise<CheckResult | undefined> {
  const base = {check: 'v2', target: p.name}
  if (!p.authToken) {
    return {
      ...base,
      status: 'warn',
      message: 'not configured: no auth token, so legacy v2 commands (--legacy, post, webhook) will not work',
      fix: profileFix(p, 'authToken'),
    }
  }
  const businessId = p.businessId
  // Without a business id the v1 check already fails and says how to set it.
  if (!businessId) return undefined
  return attempt(base, p, opts, 'authToken', async (signal) => {
    await listWebhooks(client, businessId, {signal})
    return `API key and auth token ${maskSecret(p.authToken)} accepted`
  })
}

async function checkMcp(client: ApiClient, p: DoctorProfile, opts: ProfileCheckOptions): Promise<CheckResult> {
  return attempt({check: 'mcp', target: p.name}, p, opts, 'apiKey', async (signal) => {
    const tools = await withMcpSession(client, (s) => s.tools(), {signal})
    return `initialize and tools/list answered: ${tools.length} ${tools.length === 1 ? 'tool' : 'tools'}`
  })
}

/** Runs one credential check within the time limit and turns its failure into a finding with a fix. */
async function attempt(
  base: {check: string; target: string},
  p: DoctorProfile,
  opts: ProfileCheckOptions,
  credential: 'apiKey' | 'authToken',
  run: (signal: AbortSignal) => Promise<string>,
): Promise<CheckResult> {
  const signal = AbortSignal.timeout(opts.timeoutMs)
  try {
    return {...base, status: 'ok', message: await run(signal)}
  } catch (error) {
    return {...base, status: 'fail', ...describeFailure(error, p, credential, signal.aborted, opts.timeoutMs)}
  }
}

function describeFailure(
  error: unknown,
  p: DoctorProfile,
  credential: 'apiKey' | 'authToken',
  timedOut: boolean,
  timeoutMs: number,
): {message: string; fix?: string} {
  const host = hostOf(p.baseUrl)
  if (timedOut || (error instanceof NetworkError && /timed out/.test(error.message))) {
    return {
      message: `no answer from ${host} within ${timeoutMs / 1000} s`,
      fix: 'check the network, or allow more time with --timeout',
    }
  }
  if (!(error instanceof ApiError)) {
    return {message: `unexpected failure: ${error instanceof Error ? error.message : String(error)}`}
  }
  const server = error.serverMessage ?? error.message
  if (error instanceof InsecureTransportError) {
    return {message: server, fix: "use the service's https:// address, or pass --insecure on a network you trust"}
  }
  const status = error.status === undefined ? '' : ` (HTTP ${error.status})`
  if (error instanceof AuthenticationError) {
    const what =
      credential === 'authToken'
        ? `API key ${maskSecret(p.apiKey)} or auth token ${maskSecret(p.authToken)}`
        : `API key ${maskSecret(p.apiKey)}`
    return {message: `${what} rejected${status}: ${server}`, fix: profileFix(p, credential)}
  }
  if (error instanceof PermissionError) {
    return {
      message: `the key is not allowed for business ${p.businessId ?? '(none)'}${status}: ${server}`,
      fix: profileFix(p, 'businessId'),
    }
  }
  if (error instanceof NetworkError) {
    return {message: `network error talking to ${host}: ${server}`, fix: 'check the network and try again'}
  }
  return {message: `${error.message}`}
}
