/**
 * A profile problem the user can fix: unknown or reserved name, bad flag value.
 * `exitCode` 2 (usage, and a config file whose content is wrong); one that cannot be read or written uses 1.
 */
export class ProfileError extends Error {
  readonly exitCode: number
  readonly code: string
  constructor(message: string, opts: {code?: string; exitCode?: number; cause?: unknown} = {}) {
    super(message, opts.cause === undefined ? undefined : {cause: opts.cause})
    this.name = 'ProfileError'
    this.code = opts.code ?? 'profile_error'
    this.exitCode = opts.exitCode ?? 2
  }
}
