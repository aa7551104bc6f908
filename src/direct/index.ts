// Commands that run without oclif. A direct command is read-only and works
// offline, and people run it on big inputs from scripts (`price measure` on a
// million-triangle file), where loading and configuring oclif would be a tenth
// of the run. bin/run.js sends it here once the help paths have passed.
//
// The argument list is parsed against the command's manifest entry (what oclif
// itself reads its flags from) and only in its plain forms: the command's
// arguments, and its flags once each as `--flag`, `--flag value` or
// `--flag=value`, each value one the command accepts. Anything else (an unknown,
// short or repeated flag, `--`, a missing or extra argument, a value the command
// refuses, an environment variable that changes what oclif does) returns false,
// and oclif runs the command as always and gives its usual message. A command
// that fails here (a file that cannot be read) returns false too, so that oclif
// runs it again and reports the error exactly as for any command: direct
// commands change nothing, so running one twice is safe. Only node: modules and
// the commands' own code may be imported: never @oclif/core.
import type {ManifestCommand} from '../help/fast.js'
import type {DirectCommand} from './command.js'
import type {DirectId} from './ids.js'

/** The direct commands by id (one for each of ids.ts). */
export const COMMANDS: Record<DirectId, () => Promise<DirectCommand>> = {
  'price:measure': async () => (await import('./price-measure.js')).command,
}

/** Variables that change how oclif runs any command (--json, tracing, stack traces). */
const OCLIF_VARIABLES = ['MFG_CONTENT_TYPE', 'MFG_DEBUG', 'DEBUG']

export interface Parsed {
  args: Record<string, string>
  flags: Record<string, unknown>
}

/**
 * argv (what follows the command's words) parsed the way oclif would parse it, when it
 * is in the plain forms above; undefined otherwise.
 */
export function parsePlain(
  argv: readonly string[],
  manifest: ManifestCommand,
  values: DirectCommand['values'] = {},
  env: NodeJS.ProcessEnv = process.env,
): Parsed | undefined {
  if (manifest.strict === false) return undefined
  if (OCLIF_VARIABLES.some((name) => env[name] !== undefined)) return undefined
  const defs = manifest.flags ?? {}
  const argDefs = Object.values(manifest.args ?? {})
  const flags: Record<string, unknown> = {}
  const positional: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!
    if (!token.startsWith('-')) {
      if (positional.length === argDefs.length) return undefined
      positional.push(token)
      continue
    }
    if (!token.startsWith('--') || token === '--') return undefined
    const eq = token.indexOf('=')
    const name = token.slice(2, eq === -1 ? undefined : eq)
    const def = Object.hasOwn(defs, name) ? defs[name]! : undefined
    if (!def || Object.hasOwn(flags, name) || def.multiple) return undefined
    if (def.exclusive ?? def.dependsOn ?? def.exactlyOne ?? def.relationships) return undefined
    if (def.type === 'boolean') {
      if (eq !== -1) return undefined
      flags[name] = true
      continue
    }
    let text: string
    if (eq === -1) {
      const next = argv[i + 1]
      if (next === undefined || next.startsWith('-')) return undefined
      text = next
      i++
    } else text = token.slice(eq + 1)
    if (def.options && !def.options.includes(text)) return undefined
    const convert = values[name]
    const value = convert ? convert(text) : text
    if (value === undefined) return undefined
    flags[name] = value
  }
  for (const [name, def] of Object.entries(defs)) {
    if (Object.hasOwn(flags, name)) continue
    if (def.required || (def.env !== undefined && env[def.env] !== undefined)) return undefined
    if (def.default !== undefined) flags[name] = def.default
  }
  const args: Record<string, string> = {}
  for (const [k, def] of argDefs.entries()) {
    const text = positional[k]
    if (text === undefined) {
      if (def.required) return undefined
      if (typeof def.default === 'string') args[def.name] = def.default
      continue
    }
    if (def.options && !def.options.includes(text)) return undefined
    args[def.name] = text
  }
  return {args, flags}
}

/**
 * Runs a direct command; false when it is left to oclif (argv not in the plain forms,
 * or the command failed: oclif then runs it again and reports).
 */
export async function runDirect(id: string, argv: string[], manifest: ManifestCommand): Promise<boolean> {
  const load = Object.hasOwn(COMMANDS, id) ? COMMANDS[id as DirectId] : undefined
  if (!load) return false
  const command = await load()
  const parsed = parsePlain(argv, manifest, command.values)
  if (!parsed) return false
  // As under oclif: a reader that has gone (`| head -c 100`) ends the output quietly.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err
  })
  try {
    await command.run(parsed.args, parsed.flags, argv)
  } catch {
    return false
  }
  return true
}
