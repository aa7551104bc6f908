import {UsageError} from './errors.js'

/** Whether CI is set: to anything but nothing, `false` or `0`. */
export function ciIsSet(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0'
}

/** Prompts only in a real terminal: stdin and stderr are TTYs and CI is not set. */
export function canPrompt(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(
    (process.stdin as {isTTY?: boolean}).isTTY && (process.stderr as {isTTY?: boolean}).isTTY && !ciIsSet(env),
  )
}

// Prompts draw on stderr so stdout stays data only.
const context = () => ({input: process.stdin, output: process.stderr})

/** Missing value without a terminal: a usage error naming the flag. */
function missing(flag: string, what: string): never {
  throw new UsageError(`Missing ${what}: pass ${flag} (no terminal to prompt in).`)
}

export async function askText(opts: {
  flag: string
  message: string
  default?: string
  required?: boolean
  validate?: (v: string) => true | string
}): Promise<string> {
  if (!canPrompt()) {
    if (opts.default !== undefined || opts.required === false) return opts.default ?? ''
    return missing(opts.flag, opts.message.replace(/:$/, '').toLowerCase())
  }
  const {input} = await import('@inquirer/prompts')
  return input(
    {
      message: opts.message,
      ...(opts.default === undefined ? {} : {default: opts.default}),
      required: opts.required ?? true,
      ...(opts.validate ? {validate: opts.validate} : {}),
    },
    context(),
  )
}

/**
 * A file path, completed as a shell does: Tab fills in the file or folder that starts with
 * what was typed (see path-prompt.ts). With `required: false`, an empty answer is ''.
 */
export async function askPath(opts: {
  flag: string
  message: string
  extensions: readonly string[]
  required?: boolean
  validate?: (v: string) => true | string
}): Promise<string> {
  if (!canPrompt()) {
    if (opts.required === false) return ''
    return missing(opts.flag, opts.message.replace(/:$/, '').toLowerCase())
  }
  const {pathPrompt} = await import('./path-prompt.js')
  return pathPrompt(
    {
      message: opts.message,
      extensions: opts.extensions,
      allowEmpty: opts.required === false,
      ...(opts.validate ? {validate: opts.validate} : {}),
    },
    context(),
  )
}

/** Hidden input for keys and tokens. */
export async function askSecret(opts: {flag: string; message: string; required?: boolean}): Promise<string> {
  if (!canPrompt()) {
    if (opts.required === false) return ''
    return missing(opts.flag, opts.message.replace(/:$/, '').toLowerCase())
  }
  const {password} = await import('@inquirer/prompts')
  return password(
    {
      message: opts.message,
      mask: '*',
      ...(opts.required === false ? {} : {validate: (v: string) => (v.trim() === '' ? 'A value is required' : true)}),
    },
    context(),
  )
}

export async function askChoice<T extends string>(opts: {
  flag: string
  message: string
  choices: readonly T[]
}): Promise<T> {
  if (!canPrompt()) return missing(opts.flag, opts.message.replace(/:$/, '').toLowerCase())
  const {select} = await import('@inquirer/prompts')
  return select<T>({message: opts.message, choices: opts.choices.map((value) => ({value, name: value}))}, context())
}

/**
 * Confirms a destructive step. Without a terminal the command needs `--yes`
 * (a usage error says so) rather than guessing.
 */
export async function confirmOrYes(opts: {yes: boolean; message: string}): Promise<boolean> {
  if (opts.yes) return true
  if (!canPrompt())
    throw new UsageError(`${opts.message.replace(/\?$/, '')}: pass --yes to confirm (no terminal to ask in).`)
  const {confirm} = await import('@inquirer/prompts')
  return confirm({message: opts.message, default: false}, context())
}
