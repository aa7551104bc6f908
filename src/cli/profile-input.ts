// The profile `profile add` stores, from its flags and, in a terminal, prompts for
// what they leave out. Without a terminal a missing required value is an error
// naming its flag (cli/prompt.ts).
import {isLoopbackHost} from '../api/request.js'
import {normalizeBaseUrl, ProfileError, type Profile} from '../profiles/index.js'
import {extractApiKey} from '../schemas/secrets.js'
import {given} from '../util/fields.js'
import {UsageError} from './errors.js'
import {askSecret, askText, canPrompt} from './prompt.js'

export interface ProfileFlags {
  'base-url'?: string | undefined
  'api-key'?: string | undefined
  'auth-token'?: string | undefined
  'business-id'?: string | undefined
  currency?: string | undefined
}

/** What a stored profile's fields are called in messages, in the order they are said. */
const KEPT_NAMES: [keyof Omit<Profile, 'name'>, keyof ProfileFlags, string][] = [
  ['baseUrl', 'base-url', 'base URL'],
  ['apiKey', 'api-key', 'API key'],
  ['authToken', 'auth-token', 'auth token'],
  ['businessId', 'business-id', 'business id'],
  ['currency', 'currency', 'currency'],
]

/**
 * The profile `name` from the flags. Replacing a stored profile, what the flags
 * leave out is kept from it (`kept`: those values' names, for saying so); else a
 * missing base URL, API key or business id is asked for, the key and the auth token
 * (optional, asked only in a terminal) with a hidden prompt. A pasted, displayed key
 * is reduced to its pk_business_... part.
 */
export async function profileFromFlags(
  name: string,
  given_: ProfileFlags,
  stored?: Profile,
): Promise<{profile: Profile; kept: string[]}> {
  const kept: string[] = []
  const flags = {...given_}
  for (const [field, flag, words] of KEPT_NAMES) {
    const value = stored?.[field]
    if (flags[flag] === undefined && value !== undefined) {
      flags[flag] = value
      kept.push(words)
    }
  }
  return {profile: await fromFlags(name, flags), kept}
}

/** `Kept its stored auth token and currency (…)`: what re-adding a profile did not replace. */
export function keptNote(kept: string[]): string {
  const words = kept.length > 1 ? `${kept.slice(0, -1).join(', ')} and ${kept.at(-1)}` : kept.join('')
  return `Kept its stored ${words}; give the flag to change one (--auth-token "" or --currency "" removes it).`
}

/**
 * `--api-key -` or `--auth-token -`: the value is read from stdin (`pass show shop | mfg
 * profile add shop --api-key -`), so that it never stands in the command line, which
 * other users of the machine can read (ps) and the shell keeps in its history.
 */
async function secretsFromStdin(flags: ProfileFlags): Promise<void> {
  const dashed = (['api-key', 'auth-token'] as const).filter((flag) => flags[flag] === '-')
  if (dashed.length === 0) return
  if (dashed.length > 1) throw new UsageError('Only one of --api-key and --auth-token can be - (read from stdin).')
  const flag = dashed[0]!
  if ((process.stdin as {isTTY?: boolean}).isTTY)
    throw new UsageError(
      `--${flag} - reads the value from stdin, but stdin is a terminal; pipe it in, or leave --${flag} out to be asked for it.`,
    )
  const {readStdin} = await import('./input.js')
  const lines = (await readStdin()).split(/\r?\n/).filter((line) => line.trim() !== '')
  if (lines.length !== 1)
    throw new UsageError(
      `--${flag} - reads one line from stdin, and ${lines.length === 0 ? 'stdin was empty' : `stdin had ${lines.length} lines`}; nothing was saved.`,
    )
  flags[flag] = lines[0]!.trim()
}

async function fromFlags(name: string, flags: ProfileFlags): Promise<Profile> {
  await secretsFromStdin(flags)
  // `--api-key "$MFG_KEY"` with the variable unset: said, rather than a profile saved without a key.
  for (const flag of ['api-key', 'business-id'] as const) {
    if (flags[flag] !== undefined && flags[flag].trim() === '')
      throw new UsageError(`--${flag} is empty (was it given from a variable that is not set?); nothing was saved.`)
  }
  const interactive = canPrompt()
  // Checked as it is typed, so that a typo is not found after the key has been pasted.
  const baseUrl =
    flags['base-url'] ??
    (await askText({flag: '--base-url', message: 'Base URL:', validate: (v) => urlProblem(v) ?? true}))
  const apiKey = flags['api-key'] ?? (await askSecret({flag: '--api-key', message: 'API key:'}))
  const authToken =
    flags['auth-token'] ??
    (interactive
      ? await askSecret({flag: '--auth-token', message: 'v2 auth token (empty to skip):', required: false})
      : undefined)
  const businessId = flags['business-id'] ?? (await askText({flag: '--business-id', message: 'Business id:'}))
  return {
    name,
    baseUrl,
    apiKey: extractApiKey(apiKey),
    ...given({authToken}),
    businessId,
    ...given({currency: flags.currency}),
  }
}

/** How the service's own paths begin (/api/public/v1/..., /api/v2/...): a base URL ending so doubles them. */
const API_PATH_START = /\/api(?:\/public(?:\/v1)?|\/v2)?$/i

/**
 * A warning for a base URL that ends where the service's paths begin (`https://host/api`):
 * mfg adds `/api/public/v1/...` to it, so every request would go to `/api/api/...` and
 * answer 404. Saved as given (a gateway may mount the service under such a path).
 */
export function baseUrlWarning(name: string, baseUrl: string): string | undefined {
  const url = new URL(baseUrl)
  const end = API_PATH_START.exec(url.pathname)
  if (!end) return undefined
  const root = `${url.origin}${url.pathname.slice(0, end.index)}`
  return `the base URL ends in ${end[0]}, and mfg adds the service's paths to it: requests go to ${url.pathname}/api/public/v1/… instead of ${url.pathname.slice(0, end.index)}/api/public/v1/…; the base URL is where those paths start, probably ${root} (mfg profile add ${name} --base-url ${root})`
}

/**
 * A warning for a plain http:// base URL on another machine: every command would refuse
 * to send the key and token there (exit 2), so it is said when the profile is saved.
 * Undefined for https:// and this machine (a sandbox).
 */
export function cleartextWarning(name: string, baseUrl: string): string | undefined {
  const url = new URL(baseUrl)
  if (url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return undefined
  return `the base URL is plain http:// to ${url.host}, not this machine: commands refuse to send the API key and auth token there in clear. Use the service's https:// address (mfg profile add ${name} --base-url ${baseUrl.replace(/^http:/i, 'https:')}), or pass --insecure (or set MFG_INSECURE=1) on a network you trust`
}

/** What is wrong with a typed base URL, in the words `profile add` would refuse it with; undefined when nothing. */
function urlProblem(typed: string): string | undefined {
  try {
    normalizeBaseUrl(typed, 'The base URL')
    return undefined
  } catch (error) {
    if (error instanceof ProfileError) return error.message
    throw error
  }
}
