import fs from 'node:fs'
import path from 'node:path'

import * as z from 'zod'

import {CURRENCIES} from '../schemas/common.js'
import {extractApiKey, maskSecret} from '../schemas/secrets.js'
import {closest} from '../util/closest.js'
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

export const StoredProfile = z.looseObject({
  baseUrl: z.string(),
  apiKey: z.string().optional(),
  authToken: z.string().optional(),
  businessId: z.string().optional(),
  currency: z.string().optional(),
})
/** The keys mfg reads: at the top of the file, and in each profile. */
const CONFIG_KEYS = ['current', 'profiles']
const PROFILE_KEYS = ['baseUrl', 'apiKey', 'authToken', 'businessId', 'currency']

/** A key of the config file mfg does not read, with the known key it is probably a misspelling of. */
export interface UnknownKey {
  key: string
  meant?: string
}

/**
 * The whole config file. Unknown keys are kept when it is written (a later version's),
 * and reported by ProfileReader.unknownKeys (doctor, and a fall back to the sandbox).
 */
export const ConfigData = z.looseObject({
  current: z.string().optional(),
  profiles: z.record(z.string(), StoredProfile).optional(),
})
export type ConfigData = z.infer<typeof ConfigData>

/**
 * Reads profiles from `<configDir>/config.json`, afresh on every call so
 * concurrent commands see each other's changes. Reading goes straight to the
 * file (no conf), so a command that only resolves its profile stays light;
 * ProfileStore adds the writes. Reading never creates files.
 */
export class ProfileReader {
  readonly path: string
  protected readonly dir: string

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.dir = mfgPaths(env).configDir
    this.path = path.join(this.dir, CONFIG_FILE_NAME)
  }

  list(): Profile[] {
    const data = this.read()
    return (
      Object.entries(data.profiles ?? {})
        .map(([name, p]) => toProfile(name, p))
        // Names are ASCII; a plain comparison avoids starting ICU's collator.
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    )
  }

  get(name: string): Profile | undefined {
    const profiles = this.read().profiles ?? {}
    const stored = Object.hasOwn(profiles, name) ? profiles[name] : undefined
    return stored ? toProfile(name, stored) : undefined
  }

  current(): string | undefined {
    return this.read().current
  }

  /** The keys of the file mfg does not read (misspelt, or a later version's), top level first. */
  unknownKeys(): UnknownKey[] {
    const data = this.read()
    const found = unknownOf(Object.keys(data), CONFIG_KEYS, '')
    for (const [name, p] of Object.entries(data.profiles ?? {})) {
      found.push(...unknownOf(Object.keys(p), PROFILE_KEYS, `profiles.${name}.`))
    }
    return found
  }

  protected read(): ConfigData {
    let text: string
    try {
      text = fs.readFileSync(this.path, 'utf8')
    } catch (error) {
      // No file there, or no directory for one (MFG_HOME under a file): no profiles yet.
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOENT' || code === 'ENOTDIR') return {}
      throw this.broken(error)
    }
    let raw: unknown
    try {
      // An empty file is an empty config, as conf treats it; a byte-order mark (Notepad saves
      // one) is skipped, as conf skips it when it writes the file.
      const json = text.replace(/^\uFEFF/, '')
      raw = json.trim() === '' ? {} : JSON.parse(json)
    } catch (error) {
      throw this.broken(error)
    }
    const parsed = ConfigData.safeParse(raw)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      const where = issue ? issue.path.map(String).join('.') : ''
      throw new ProfileError(
        `the config file ${this.path} is not a valid mfg config: ${where ? `${where}: ` : ''}${issue?.message ?? 'wrong shape'}. Fix it or delete it to start over.`,
        {code: 'config_invalid'},
      )
    }
    return parsed.data
  }

  protected broken(error: unknown): ProfileError {
    if (error instanceof ProfileError) return error
    const reason =
      error instanceof SyntaxError
        ? `is not valid JSON (${error.message})`
        : `cannot be used (${error instanceof Error ? error.message : String(error)})`
    // Its content is input (exit 2); a file that cannot be read is the machine's trouble (exit 1).
    return new ProfileError(`the config file ${this.path} ${reason}. Fix it or delete it to start over.`, {
      code: 'config_invalid',
      exitCode: error instanceof SyntaxError ? 2 : 1,
      cause: error,
    })
  }
}

function unknownOf(keys: string[], known: string[], prefix: string): UnknownKey[] {
  return keys
    .filter((key) => !known.includes(key))
    .map((key) => {
      const [meant] = closest(key, known, 1)
      return {key: `${prefix}${key}`, ...(meant === undefined ? {} : {meant: `${prefix}${meant}`})}
    })
}

/** `"curent" (did you mean "current"?)`. */
export function unknownKeyText(u: UnknownKey): string {
  return `"${u.key}"${u.meant === undefined ? '' : ` (did you mean "${u.meant}"?)`}`
}

/**
 * A stored profile as commands use it. The file may have been edited by hand, with a key
 * pasted from a password manager and its line break or spaces along: the values are read
 * as `profile add` and the MFG_* variables take them (trimmed, the key reduced to its
 * pk_business_ part), and a value left empty counts as not set.
 */
export function toProfile(name: string, p: z.infer<typeof StoredProfile>): Profile {
  const out: Profile = {name, baseUrl: p.baseUrl}
  const apiKey = p.apiKey === undefined ? '' : extractApiKey(p.apiKey)
  if (apiKey !== '') out.apiKey = apiKey
  const authToken = p.authToken?.trim()
  if (authToken) out.authToken = authToken
  const businessId = p.businessId?.trim()
  if (businessId) out.businessId = businessId
  if (p.currency !== undefined) out.currency = p.currency
  return out
}

export function checkName(name: string): void {
  if (!PROFILE_NAME_PATTERN.test(name)) {
    throw new ProfileError(
      `invalid profile name ${JSON.stringify(name)}: use 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit`,
      {code: 'invalid_name'},
    )
  }
}

export function checkCurrency(raw: string): string {
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

/**
 * A stored profile's base URL, checked and normalised as `--base-url` is when
 * added: the file may have been edited by hand. Wrong: a ProfileError (exit 2)
 * naming the profile, its baseUrl field and the file.
 */
export function storedBaseUrl(p: Profile, file: string): string {
  try {
    return normalizeBaseUrl(p.baseUrl, `the baseUrl of profile "${p.name}" in ${file}`)
  } catch (error) {
    if (!(error instanceof ProfileError)) throw error
    throw new ProfileError(
      `${error.message}. Correct it in the file, or add the profile again: mfg profile add ${p.name} --base-url URL`,
      {code: error.code},
    )
  }
}

/** The error for a profile name that is not stored, listing the names that are. */
export function unknownProfile(name: string, source: string, existing: Profile[]): ProfileError {
  const names = [...existing.map((p) => p.name), `${LOCAL_PROFILE} (embedded sandbox)`]
  const [meant] = closest(name, [...existing.map((p) => p.name), LOCAL_PROFILE], 1)
  const hint =
    meant !== undefined
      ? ` Did you mean ${meant}?`
      : name === LOCAL_PROFILE
        ? ''
        : ` Add it with mfg profile add ${name} --base-url <url> --api-key <key>`
  return new ProfileError(
    `no profile named ${JSON.stringify(name)} (from ${source}); existing profiles: ${names.join(', ')}.${hint}`,
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
