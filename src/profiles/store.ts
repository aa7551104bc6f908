import fs from 'node:fs'

import Conf from 'conf'
import type * as z from 'zod'

import {extractApiKey} from '../schemas/secrets.js'
import {fileReason} from '../util/file-reason.js'
import {LockBusyError, withFileLock} from '../util/file-lock.js'
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
    this.#update((data) => ({...data, profiles: {...data.profiles, [p.name]: stored}}))
  }

  /** Removes a profile; clears the current selection when it pointed there. False when absent. */
  remove(name: string): boolean {
    let removed = false
    this.#update((data) => {
      if (!data.profiles || !Object.hasOwn(data.profiles, name)) return undefined
      const profiles = {...data.profiles}
      delete profiles[name]
      const next: ConfigData = {...data, profiles}
      if (next.current === name) delete next.current
      removed = true
      return next
    })
    return removed
  }

  /** Makes a stored profile (or `local`) the current one. */
  use(name: string): void {
    this.#update((data) => {
      if (name !== LOCAL_PROFILE && !(data.profiles && Object.hasOwn(data.profiles, name))) {
        throw unknownProfile(name, 'mfg profile use', this.list())
      }
      return {...data, current: name}
    })
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

  /**
   * Reads the file, applies `change` and writes the result (undefined: nothing to
   * write), all under the config's lock file, so that commands run at the same
   * time each see the others' changes instead of overwriting them.
   */
  #update(change: (data: ConfigData) => ConfigData | undefined): void {
    try {
      if (!fs.existsSync(this.dir)) fs.mkdirSync(this.dir, {recursive: true, mode: 0o700})
      withFileLock(`${this.path}.lock`, () => {
        const next = change(this.read())
        if (!next) return
        this.#conf_().store = next
        // conf writes a new file each time; keep it owner-only whatever the umask or earlier mode.
        if (process.platform !== 'win32') fs.chmodSync(this.path, 0o600)
      })
    } catch (error) {
      if (error instanceof ProfileError && error.cause === undefined) throw error
      if (error instanceof LockBusyError) {
        throw new ProfileError(
          `the config file ${this.path} is being changed by another mfg (${error.holder}) for too long: nothing was saved. If no mfg is running, delete ${error.lockPath} and try again.`,
          {code: 'config_busy', exitCode: 1},
        )
      }
      // A system error is where the file goes (a read-only MFG_HOME, a full disk), not the file: not "delete it".
      const cause = error instanceof ProfileError ? error.cause : error
      if (typeof (cause as NodeJS.ErrnoException | undefined)?.code !== 'string') throw this.broken(error)
      throw new ProfileError(
        `cannot write the config file ${this.path}: ${fileReason(cause, true)}; nothing was saved (MFG_HOME chooses where mfg keeps its files).`,
        {code: 'config_unwritable', exitCode: 1, cause},
      )
    }
  }
}
