// The profile `profile add` stores, from its flags and, in a terminal, prompts for
// what they leave out. Without a terminal a missing required value is an error
// naming its flag (cli/prompt.ts).
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

/**
 * The profile `name` from the flags; a missing base URL, API key or business id is
 * asked for, the key and the auth token (optional, asked only in a terminal) with a
 * hidden prompt. A pasted, displayed key is reduced to its pk_business_... part.
 */
export async function profileFromFlags(name: string, flags: ProfileFlags): Promise<Profile> {
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
