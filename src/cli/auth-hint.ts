// What to do about credentials the service refused (401): which key (and token) was
// sent, masked, where it came from (a stored profile, or the MFG_* variable laid over
// it) and the command that replaces it, as gh and stripe say which token they used.
import {generationOf} from '../api/request.js'
import type {ResolvedProfile} from '../profiles/resolve.js'
import {maskSecret} from '../schemas/secrets.js'

interface Credential {
  what: string
  value: string | undefined
  variable: string
  flag: string
}

/**
 * The line that follows a 401's message: the credentials the request carried and how
 * to replace them. Undefined for the embedded sandbox's own credentials (nothing to
 * replace) and when the request carried none (its message says so already).
 */
export function rejectedCredentialsHint(profile: ResolvedProfile, path: string): string | undefined {
  const all: Credential[] = [{what: 'API key', value: profile.apiKey, variable: 'MFG_API_KEY', flag: '--api-key'}]
  if (generationOf(path) === 'v2')
    all.push({what: 'auth token', value: profile.authToken, variable: 'MFG_AUTH_TOKEN', flag: '--auth-token'})
  const fromEnv = (c: Credential) => profile.overrides.includes(c.variable)
  // The embedded sandbox's own credentials are not the user's to replace: only a variable's are.
  const sent = all.filter((c) => c.value && (!profile.embedded || fromEnv(c)))
  if (sent.length === 0) return undefined
  const over =
    profile.name === 'env'
      ? ''
      : profile.embedded
        ? " (over the embedded sandbox's)"
        : ` (over profile "${profile.name}")`
  const said = sent.map(
    (c) =>
      `${c.what} ${maskSecret(c.value)} ${fromEnv(c) ? `from ${c.variable}${over}` : `of profile "${profile.name}"`}`,
  )
  const fixes: string[] = []
  const variables = sent.filter(fromEnv).map((c) => c.variable)
  if (variables.length > 0) fixes.push(`correct or unset ${variables.join(' and ')}`)
  const stored = sent.filter((c) => !fromEnv(c))
  if (stored.length > 0) {
    const commands = stored.map((c) => `mfg profile add ${profile.name} ${c.flag} -`).join(' or ')
    fixes.push(
      `store the right ${stored.length > 1 ? 'one' : stored[0]!.what} with ${commands} (- reads it from stdin)`,
    )
  }
  return `The service refused the ${said.join(' or the ')}: ${fixes.join('; ')}. mfg auth status checks the credentials in use.`
}
