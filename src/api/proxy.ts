// Proxies, as a shop's network may require: HTTPS_PROXY for https:// services,
// HTTP_PROXY for http:// ones, NO_PROXY for the hosts reached directly, upper or
// lower case, as gh and curl read them. Node's own agents do the proxying
// (`proxyEnv`: an absolute URL for http, a CONNECT tunnel for https, so TLS still
// ends at the service). This machine's addresses never go through a proxy: the
// embedded sandbox and a `sandbox serve` listen on loopback.
import {isLoopbackHost} from './request.js'

/** What Node's agents take as `proxyEnv`. */
export interface ProxyEnv {
  HTTP_PROXY?: string
  HTTPS_PROXY?: string
  NO_PROXY: string
}

/** A proxy variable that is not a URL: a usage problem (exit 2), named before anything is sent. */
export class ProxySettingError extends Error {
  readonly exitCode = 2
  constructor(message: string) {
    super(message)
    this.name = 'ProxySettingError'
  }
}

const LOOPBACK = ['localhost', '127.0.0.1', '::1']

/** The proxy settings from the environment; undefined when no proxy is set (the agents are then plain). */
export function proxyEnv(env: NodeJS.ProcessEnv = process.env): ProxyEnv | undefined {
  const https = setting(env, 'HTTPS_PROXY')
  const http = setting(env, 'HTTP_PROXY')
  if (https === undefined && http === undefined) return undefined
  const noProxy = setting(env, 'NO_PROXY')
  return {
    ...(https === undefined ? {} : {HTTPS_PROXY: https}),
    ...(http === undefined ? {} : {HTTP_PROXY: http}),
    NO_PROXY: [...(noProxy === undefined ? [] : [noProxy]), ...LOOPBACK].join(','),
  }
}

/**
 * Where a request to `url` goes through, in words for an error or a check
 * (`through the proxy HTTPS_PROXY names, http://***@proxy:3128`); undefined when it goes direct.
 */
export function proxyNote(settings: ProxyEnv | undefined, url: URL): string | undefined {
  if (settings === undefined || isLoopbackHost(url.hostname) || exempt(settings.NO_PROXY, url.hostname))
    return undefined
  const name = url.protocol === 'https:' ? 'HTTPS_PROXY' : 'HTTP_PROXY'
  const value = settings[name]
  return value === undefined ? undefined : `through the proxy ${name} names, ${shownProxy(value)}`
}

/** Whether NO_PROXY names the host: `*`, the host itself, or a domain it is in (`example.com`, `.example.com`). */
function exempt(noProxy: string, hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '')
  return noProxy
    .split(/[\s,]+/)
    .map((entry) => bareHost(entry.toLowerCase()).replace(/^\*?\./, ''))
    .some((entry) => entry === '*' || (entry !== '' && (host === entry || host.endsWith(`.${entry}`))))
}

/** An entry without its port (`host:8080`, `[fe80::1]:8080`); a bare IPv6 address as it is. */
function bareHost(entry: string): string {
  const m = /^(?:\[([^\]]+)\]|([^:]+))(?::\d+)?$/.exec(entry)
  return m ? (m[1] ?? m[2]!) : entry
}

/** A proxy URL with its user and password masked. */
export function shownProxy(value: string): string {
  const url = new URL(value)
  if (url.username === '' && url.password === '') return url.origin
  return `${url.protocol}//***@${url.host}`
}

/** A variable's value (upper case first, then lower), checked to be an http(s) URL when it is set. */
function setting(env: NodeJS.ProcessEnv, name: 'HTTPS_PROXY' | 'HTTP_PROXY' | 'NO_PROXY'): string | undefined {
  const value = (env[name] ?? env[name.toLowerCase()])?.trim()
  if (value === undefined || value === '') return undefined
  if (name === 'NO_PROXY') return value
  let url: URL | undefined
  try {
    url = new URL(value)
  } catch {
    url = undefined
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new ProxySettingError(
      `${env[name] === undefined ? name.toLowerCase() : name} is not a proxy URL (http://host:port or https://host:port): ${JSON.stringify(url ? shownProxy(value) : value.replace(/\/\/[^@/]*@/, '//***@'))}. Unset it or correct it.`,
    )
  return value
}

/** What a proxy's 407 asks for, said after the error. */
export const PROXY_AUTH_HINT =
  'the proxy asks for credentials: give them in the proxy variable, http://user:password@host:port'

/** The proxies' passwords (and users), to mask wherever a message could carry them. */
export function proxySecrets(settings: ProxyEnv | undefined): string[] {
  const secrets: string[] = []
  for (const value of [settings?.HTTPS_PROXY, settings?.HTTP_PROXY]) {
    if (value === undefined) continue
    const url = new URL(value)
    for (const part of [url.password, decodeURIComponent(url.password)]) if (part !== '') secrets.push(part)
  }
  return secrets
}
