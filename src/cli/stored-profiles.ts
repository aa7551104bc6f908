// What `profile list` and `profile show` print of the stored profiles: keys and
// tokens masked, the current one marked. Reading only: the reader, not ProfileStore,
// whose writes load conf (and its JSON-schema validator).
import {LOCAL_PROFILE, maskedProfile, ProfileReader, unknownProfile, type Profile} from '../profiles/config-file.js'
import {resolveProfile} from '../profiles/resolve.js'
import {given} from '../util/fields.js'
import {maskedCredentials} from './profile-view.js'

export interface ProfileRow {
  name: string
  baseUrl: string
  businessId?: string
  apiKey?: string
  authToken?: string
  currency?: string
  current: boolean
}

/** Every stored profile, masked, then the embedded sandbox's "local". */
export function profileRows(): ProfileRow[] {
  const store = new ProfileReader()
  const current = store.current() ?? LOCAL_PROFILE
  const rows: ProfileRow[] = store.list().map((p) => ({
    name: p.name,
    baseUrl: p.baseUrl,
    ...maskedCredentials(p),
    ...given({currency: p.currency}),
    current: p.name === current,
  }))
  rows.push({name: LOCAL_PROFILE, baseUrl: '(embedded sandbox)', current: current === LOCAL_PROFILE})
  return rows
}

export interface ShownProfile extends Profile {
  embedded: boolean
  current: boolean
  /** Environment variables laid over the stored values. */
  overrides: string[]
}

/**
 * The profile `name` as stored, masked; without a name (or "local"), the one
 * commands would use now, after `flagProfile`, MFG_PROFILE and the MFG_* overrides.
 */
export function shownProfile(name: string | undefined, flagProfile: string | undefined): ShownProfile {
  const store = new ProfileReader()
  const current = store.current() ?? LOCAL_PROFILE
  if (name && name !== LOCAL_PROFILE) {
    const p = store.get(name)
    if (!p) throw unknownProfile(name, 'mfg profile show', store.list())
    return {...maskedProfile(p), embedded: false, current: p.name === current, overrides: []}
  }
  const r = resolveProfile({flag: name ?? flagProfile, store})
  const m = maskedProfile(r)
  return {
    name: m.name,
    baseUrl: r.embedded ? '(embedded sandbox)' : m.baseUrl,
    ...given({apiKey: m.apiKey, authToken: m.authToken, businessId: m.businessId, currency: m.currency}),
    embedded: r.embedded,
    current: r.name === current,
    overrides: r.overrides,
  }
}
