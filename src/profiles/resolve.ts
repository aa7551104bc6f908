import {extractApiKey} from '../schemas/secrets.js'
import {
  LOCAL_PROFILE,
  ProfileReader,
  normalizeBaseUrl,
  storedBaseUrl,
  unknownKeyText,
  unknownProfile,
  type Profile,
} from './config-file.js'

export {LOCAL_PROFILE}

/** Environment variables laid over the chosen profile, in this order. */
export const ENV_OVERRIDES = ['MFG_BASE_URL', 'MFG_API_KEY', 'MFG_AUTH_TOKEN', 'MFG_BUSINESS_ID'] as const

export interface ResolvedProfile extends Profile {
  /** True → the CLI must start the embedded sandbox and fill baseUrl/apiKey/authToken/businessId from it. */
  embedded: boolean
  /** Names of the env vars applied. */
  overrides: string[]
  /** Override env vars set but not applied: MFG_BASE_URL on the embedded profile, whose address the sandbox supplies. */
  ignored: string[]
  /** Where the choice came from. */
  source: 'flag' | 'env' | 'current' | 'default'
  /** Something to tell the user: a misspelt "current" that sent the command to the embedded sandbox. */
  warning?: string
}

/**
 * Picks the profile: `--profile`, then MFG_PROFILE, then the stored current
 * profile, then MFG_BASE_URL alone (a profile named `env`), then `local`.
 * MFG_BASE_URL, MFG_API_KEY, MFG_AUTH_TOKEN and MFG_BUSINESS_ID then override
 * the chosen profile's values. `local` is always the embedded sandbox: the
 * key, token and business id overrides apply to it (so the CLI keeps them over
 * the sandbox's demo values), MFG_BASE_URL does not.
 */
export function resolveProfile(
  opts: {flag?: string; env?: NodeJS.ProcessEnv; store?: ProfileReader} = {},
): ResolvedProfile {
  const env = opts.env ?? process.env
  const store = opts.store ?? new ProfileReader(env)
  const set = (name: string): string | undefined => {
    const v = env[name]
    return v !== undefined && v.trim() !== '' ? v.trim() : undefined
  }

  let name: string | undefined
  let source: ResolvedProfile['source']
  let origin: string
  if (opts.flag !== undefined && opts.flag.trim() !== '') {
    name = opts.flag.trim()
    source = 'flag'
    origin = '--profile'
  } else if (set('MFG_PROFILE')) {
    name = set('MFG_PROFILE')
    source = 'env'
    origin = 'MFG_PROFILE'
  } else {
    name = store.current()
    source = 'current'
    origin = 'the current profile (set with mfg profile use)'
  }

  let resolved: ResolvedProfile
  if (name === undefined && !set('MFG_BASE_URL')) {
    resolved = {name: LOCAL_PROFILE, baseUrl: '', embedded: true, overrides: [], ignored: [], source: 'default'}
    const typo = store.unknownKeys().find((u) => u.meant === 'current')
    if (typo) {
      resolved.warning = `${store.path} sets no current profile but has an unknown key ${unknownKeyText(typo)}: using the embedded sandbox (local)`
    }
  } else if (name === undefined) {
    resolved = {name: 'env', baseUrl: '', embedded: false, overrides: [], ignored: [], source: 'env'}
  } else if (name === LOCAL_PROFILE) {
    resolved = {name: LOCAL_PROFILE, baseUrl: '', embedded: true, overrides: [], ignored: [], source}
  } else {
    const found: Profile | undefined = store.get(name)
    if (!found) throw unknownProfile(name, origin, store.list())
    resolved = {...found, embedded: false, overrides: [], ignored: [], source}
    // A key misspelt by hand (`apikey`) is not read: said, rather than "no API key" with the key right there.
    const typos = store.unknownKeys().filter((u) => u.meant !== undefined && u.key.startsWith(`profiles.${name}.`))
    if (typos.length > 0) {
      resolved.warning = `${store.path} has ${typos.length > 1 ? 'unknown keys' : 'an unknown key'} ${typos.map(unknownKeyText).join(', ')} in profile "${name}", which mfg does not read: correct ${typos.length > 1 ? 'them' : 'it'} in the file`
    }
    // MFG_BASE_URL in its place spares the stored one: a wrong value there then does no harm.
    if (!set('MFG_BASE_URL')) resolved.baseUrl = storedBaseUrl(found, store.path)
  }

  const baseUrl = set('MFG_BASE_URL')
  if (baseUrl && resolved.embedded) {
    // `local` always means the embedded sandbox; its address is not configurable.
    resolved.ignored.push('MFG_BASE_URL')
  } else if (baseUrl) {
    resolved.baseUrl = normalizeBaseUrl(baseUrl, 'MFG_BASE_URL')
    resolved.overrides.push('MFG_BASE_URL')
  }
  const apiKey = set('MFG_API_KEY')
  if (apiKey) {
    resolved.apiKey = extractApiKey(apiKey)
    resolved.overrides.push('MFG_API_KEY')
  }
  const authToken = set('MFG_AUTH_TOKEN')
  if (authToken) {
    resolved.authToken = authToken
    resolved.overrides.push('MFG_AUTH_TOKEN')
  }
  const businessId = set('MFG_BUSINESS_ID')
  if (businessId) {
    resolved.businessId = businessId
    resolved.overrides.push('MFG_BUSINESS_ID')
  }
  return resolved
}
