import http from 'node:http'
import https from 'node:https'

import {proxyEnv, proxyNote, type ProxyEnv} from '../../api/proxy.js'
import {tlsFailure, tlsFailureText} from '../../api/tls-failure.js'

export type ProbeResult = (
  {reached: true; status: number; date?: string; sentAt: number; receivedAt: number} | {reached: false; reason: string}
) & {
  /** Through which proxy, in words, when one is set for the base URL (api/proxy.ts). */
  via?: string
}

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ENETUNREACH: 'network unreachable',
  EHOSTUNREACH: 'host unreachable',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its TLS certificate chain is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate cannot be verified',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate is for another host',
}

/** `host:port` of a base URL, the way a user would look it up. */
export function hostOf(baseUrl: string): string {
  try {
    const url = new URL(baseUrl)
    return url.port ? `${url.hostname}:${url.port}` : url.hostname
  } catch {
    return baseUrl
  }
}

/**
 * One GET of the base URL with no credentials and no retries, on a fresh
 * connection: any HTTP answer (a 404 included) means the service is reachable,
 * and its `Date` header is what the clock check reads. It bypasses the API
 * client on purpose: that client retries, refuses redirects and needs a key,
 * while this only asks whether something answers, and sends nothing secret.
 */
export function probe(baseUrl: string, opts: {timeoutMs: number; now?: () => number}): Promise<ProbeResult> {
  const now = opts.now ?? Date.now
  return new Promise((resolve) => {
    let url: URL
    try {
      url = new URL(baseUrl)
    } catch {
      resolve({reached: false, reason: 'the base URL is not a URL'})
      return
    }
    const transport = url.protocol === 'https:' ? https : http
    // Through the proxy the API client would take, on a connection of its own.
    let proxy: ProxyEnv | undefined
    try {
      proxy = proxyEnv()
    } catch (error) {
      resolve({reached: false, reason: (error as Error).message})
      return
    }
    const via = proxyNote(proxy, url)
    const shown = via === undefined ? {} : {via}
    const sentAt = now()
    const req = transport.request(url, {
      method: 'GET',
      agent: proxy === undefined ? false : new transport.Agent({proxyEnv: proxy} as http.AgentOptions),
      headers: {accept: '*/*', 'user-agent': `mfg-doctor node/${process.versions.node}`},
    })
    const timer = setTimeout(() => {
      req.destroy(Object.assign(new Error('timed out'), {code: 'ETIMEDOUT'}))
    }, opts.timeoutMs)
    req.on('response', (res) => {
      const receivedAt = now()
      clearTimeout(timer)
      // Only the status line and headers matter; drop the body and the connection.
      res.on('error', () => undefined)
      res.destroy()
      const date = res.headers.date
      resolve({reached: true, status: res.statusCode ?? 0, ...(date ? {date} : {}), sentAt, receivedAt, ...shown})
    })
    req.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      const code = error.code ?? ''
      const tls = tlsFailure(error)
      const reason =
        code === 'ETIMEDOUT'
          ? `no answer within ${Math.round(opts.timeoutMs / 100) / 10} s`
          : tls
            ? tlsFailureText(tls)
            : (REASONS[code] ?? error.message)
      resolve({reached: false, reason: code && code !== 'ETIMEDOUT' ? `${reason} (${code})` : reason, ...shown})
    })
    req.end()
  })
}
