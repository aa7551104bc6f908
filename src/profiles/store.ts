import fs from 'node:fs'
import path from 'node:path'

import Conf from 'conf'
import {z} from 'zod'

import {CURRENCIES} from '../schemas/common.js'
import {extractApiKey, maskSecret} from '../schemas/secrets.js'
import {ProfileError} from './errors.js'
import {mfgPaths} from './paths.js'

export interface Profile {
  name: string
  baseUrl: string
  apiKey?: string
  authToken?: string
  businessId?: string
  currency?: string
}

/** The reserved name of the embedded sandbox profile. */
export const LOCAL_PROFILE = 'local'
export const PROFILE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/
export const CONFIG_FILE_NAME = 'config.json'

const StoredProfile = z.looseObject({
  baseUrl: z.string(),
  apiKey: z.string().optional(),
  authToken: z.string().optional(),
  businessId: z.string().optional(),
  currency: z.string().optional(),
})
/** The whole config file. Unknown top-level keys are kept for later versions. */
const ConfigData = z.looseObject({
  current: z.string().optional(),
  profiles: z.record(z.string(), StoredProfile).optional(),
})
type ConfigData = z.infer<typeof ConfigData>

/**
 * Profiles in `<configDir>/config.json` (mode 0600, directory 0700), read
 * afresh on every call so concurrent commands see each other's changes.
 * Reading never creates files; the first write does.
 */
export class ProfileStore {
  readonly path: string
  readonly #dir: string
  #conf: Conf<ConfigData> | undefined

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.#dir = mfgPaths(env).configDir
    this.path = path.join(this.#dir, CONFIG_FILE_NAME)
  }

  list(): Profile[] {
    const data = this.#read()
    return Object.entries(data.profiles ?? {})
      .map(([name, p]) => toProfile(name, p))
      .sort((a, b) => a.name.localeCompare(b.name))
  }

  get(name: string): Profile | undefined {
    const profiles = this.#read().profiles ?? {}
    const stored = Object.hasOwn(profiles, name) ? profiles[name] : undefined
    return stored ? toProfile(name, stored) : undefined
  }

  /** Adds or replaces the profile of that name; the key is reduced to its pk_business_ part. */
  add(p: Profile): void {
    checkName(p.name)
    if (p.name === LOCAL_PROFILE) {
      throw new ProfileError(`"${LOCAL_PROFILE}" is reserved for the embedded sandbox; choose another profile name`, {
        code: 'reserved_name',
      })
    }
    const stored: z.infer<typeof StoredProfile> = {baseUrl: normalizeBaseUrl(p.baseUrl, '--base-url')}
    const apiKey = p.apiKey === undefined ? undefined : extractApiKey(p.apiKey)
    if (apiKey) stored.apiKey = apiKey
    const authToken = p.authToken?.trim()
    if (authToken) stored.authToken = authToken
    const businessId = p.businessId?.trim()
    if (businessId) stored.businessId = businessId
    if (p.currency !== undefined && p.currency.trim() !== '') stored.currency = checkCurrency(p.currency)
    const data = this.#read()
    this.#write({...data, profiles: {...data.profiles, [p.name]: stored}})
  }

  /** Removes a profile; clears the current selection when it pointed there. False when absent. */
  remove(name: string): boolean {
    const data = this.#read()
    if (!data.profiles || !Object.hasOwn(data.profiles, name)) return false
    const profiles = {...data.profiles}
    delete profiles[name]
    const next: ConfigData = {...data, profiles}
    if (next.current === name) delete next.current
    this.#write(next)
    return true
  }

  /** Makes a stored profile (or `local`) the current one. */
  use(name: string): void {
    const data = this.#read()
    if (name !== LOCAL_PROFILE && !(data.profiles && Object.hasOwn(data.profiles, name))) {
      throw unknownProfile(name, 'mfg profile use', this.list())
    }
    this.#write({...data, current: name})
  }

  current(): string | undefined {
    return this.#read().current
  }

  #conf_(): Conf<ConfigData> {
    if (!this.#conf) {
      try {
        this.#conf = new Conf<ConfigData>({
          cwd: this.#dir,
          configName: 'config',
          fileExtension: 'json',
          configFileMode: 0o600,
          accessPropertiesByDotNotation: false,
          clearInvalidConfig: false,
        })
      } catch (error) {
        throw this.#broken(error)
      }
    }
    return this.#conf
  }

  #read(): ConfigData {
    if (!fs.existsSync(this.path)) return {}
    let raw: unknown
    try {
      raw = this.#conf_().store
    } catch (error) {
      throw this.#broken(error)
    }
    const parsed = ConfigData.safeParse(raw)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      const where = issue ? issue.path.map(String).join('.') : ''
      throw new ProfileError(
        `the config file ${this.path} is not a valid mfg config: ${where ? `${where}: ` : ''}${issue?.message ?? 'wrong shape'}. Fix it or delete it to start over.`,
        {code: 'config_invalid', exitCode: 1},
      )
    }
    return parsed.data
  }

  #write(data: ConfigData): void {
    if (!fs.existsSync(this.#dir)) fs.mkdirSync(this.#dir, {recursive: true, mode: 0o700})
    try {
      this.#conf_().store = data
    } catch (error) {
      throw this.#broken(error)
    }
    // atomically writes a new file each time; keep it owner-only whatever the umask or earlier mode.
    if (process.platform !== 'win32') fs.chmodSync(this.path, 0o600)
  }

  #broken(error: unknown): ProfileError {
    if (error instanceof ProfileError) return error
    const reason =
      error instanceof SyntaxError
        ? `is not valid JSON (${error.message})`
        : `cannot be used (${error instanceof Error ? error.message : String(error)})`
    return new ProfileError(`the config file ${this.path} ${reason}. Fix it or delete it to start over.`, {
      code: 'config_invalid',
      exitCode: 1,
      cause: error,
    })
  }
}

function toProfile(name: string, p: z.infer<typeof StoredProfile>): Profile {
  const out: Profile = {name, baseUrl: p.baseUrl}
  if (p.apiKey !== undefined) out.apiKey = p.apiKey
  if (p.authToken !== undefined) out.authToken = p.authToken
  if (p.businessId !== undefined) out.businessId = p.businessId
  if (p.currency !== undefined) out.currency = p.currency
  return out
}

function checkName(name: string): void {
  if (!PROFILE_NAME_PATTERN.test(name)) {
    throw new ProfileError(
      `invalid profile name ${JSON.stringify(name)}: use 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit`,
      {code: 'invalid_name'},
    )
  }
}

function checkCurrency(raw: string): string {
  const code = raw.trim().toUpperCase()
  if (!(CURRENCIES as readonly string[]).includes(code)) {
    throw new ProfileError(`--currency must be one of ${CURRENCIES.join(', ')}; got ${JSON.stringify(raw)}`, {
      code: 'invalid_currency',
    })
  }
  return code
}

/**
 * A base URL without trailing slashes; anything but an http(s) URL is a
 * ProfileError naming where the value came from (`--base-url`, `MFG_BASE_URL`).
 */
export function normalizeBaseUrl(raw: string, source: string): string {
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    throw new ProfileError(
      `${source} must be an http(s) URL such as https://api.example.com; got ${JSON.stringify(raw)}`,
      {code: 'invalid_base_url'},
    )
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ProfileError(
      `${source} must be an http(s) URL such as https://api.example.com; got ${JSON.stringify(raw)}`,
      {code: 'invalid_base_url'},
    )
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new ProfileError(
      `${source} must not carry credentials, a query or a fragment; got ${url.origin}${url.pathname}…`,
      {code: 'invalid_base_url'},
    )
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`
}

/** The error for a profile name that is not stored, listing the names that are. */
export function unknownProfile(name: string, source: string, existing: Profile[]): ProfileError {
  const names = [...existing.map((p) => p.name), `${LOCAL_PROFILE} (embedded sandbox)`]
  return new ProfileError(
    `no profile named ${JSON.stringify(name)} (from ${source}); existing profiles: ${names.join(', ')}. Add it with mfg profile add ${name} --base-url <url> --api-key <key>`,
    {code: 'unknown_profile'},
  )
}

/** A display copy: the API key and auth token masked (last 4 characters kept). */
export function maskedProfile<P extends Profile>(p: P): P {
  const copy = {...p}
  if (copy.apiKey) copy.apiKey = maskSecret(copy.apiKey)
  if (copy.authToken) copy.authToken = maskSecret(copy.authToken)
  return copy
}
