import fs from 'node:fs'

import Conf from 'conf'
import type * as z from 'zod'

import {extractApiKey} from '../schemas/secrets.js'
import {fileReason} from '../util/file-reason.js'
import {
  LOCAL_PROFILE,
  ProfileReader,
  checkCurrency,
  checkName,
  normalizeBaseUrl,
  unknownProfile,
  type ConfigData,
  type Profile,
  type StoredProfile,
} from './config-file.js'
import {ProfileError} from './errors.js'

export * from './config-file.js'

/**
 * Profiles in `<configDir>/config.json` (mode 0600, directory 0700): the reads
 * of ProfileReader plus the writes, which go through conf. The first write
 * creates the file.
 */
export class ProfileStore extends ProfileReader {
  #conf: Conf<ConfigData> | undefined

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
    const data = this.read()
    this.#write({...data, profiles: {...data.profiles, [p.name]: stored}})
  }

  /** Removes a profile; clears the current selection when it pointed there. False when absent. */
  remove(name: string): boolean {
    const data = this.read()
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
    const data = this.read()
    if (name !== LOCAL_PROFILE && !(data.profiles && Object.hasOwn(data.profiles, name))) {
      throw unknownProfile(name, 'mfg profile use', this.list())
    }
    this.#write({...data, current: name})
  }

  #conf_(): Conf<ConfigData> {
    if (!this.#conf) {
      try {
        this.#conf = new Conf<ConfigData>({
          cwd: this.dir,
          configName: 'config',
          fileExtension: 'json',
          configFileMode: 0o600,
          accessPropertiesByDotNotation: false,
          clearInvalidConfig: false,
        })
      } catch (error) {
        throw this.broken(error)
      }
    }
    return this.#conf
  }

  #write(data: ConfigData): void {
    try {
      if (!fs.existsSync(this.dir)) fs.mkdirSync(this.dir, {recursive: true, mode: 0o700})
      this.#conf_().store = data
    } catch (error) {
      // A system error is where the file goes (a read-only MFG_HOME, a full disk), not the file: not "delete it".
      const cause = error instanceof ProfileError ? error.cause : error
      if (typeof (cause as NodeJS.ErrnoException | undefined)?.code !== 'string') throw this.broken(error)
      throw new ProfileError(
        `cannot write the config file ${this.path}: ${fileReason(cause, true)}; nothing was saved (MFG_HOME chooses where mfg keeps its files).`,
        {code: 'config_unwritable', exitCode: 1, cause},
      )
    }
    // atomically writes a new file each time; keep it owner-only whatever the umask or earlier mode.
    if (process.platform !== 'win32') fs.chmodSync(this.path, 0o600)
  }
}
