// `node --import tsx test/security/run-command.ts TOPIC VERB ARGS...`: runs one
// command class from src/commands the way oclif does (its Config, its exit
// codes), without the build or the manifest, for the tests that need a process
// of its own (servers, stdio). See spawn.ts.
import {existsSync} from 'node:fs'
import {join, resolve} from 'node:path'

import {Config, Errors} from '@oclif/core'

const root = resolve(import.meta.dirname, '../..')
const commands = join(root, 'src/commands')

interface CommandClass {
  id?: string
  run(argv: string[], config: Config): Promise<unknown>
}

const argv = process.argv.slice(2)
const [a, b] = argv
let file: string
let id: string
let rest: string[]
if (a && b && existsSync(join(commands, a, `${b}.ts`))) {
  file = join(commands, a, `${b}.ts`)
  id = `${a}:${b}`
  rest = argv.slice(2)
} else if (a && existsSync(join(commands, a, 'index.ts'))) {
  file = join(commands, a, 'index.ts')
  id = a
  rest = argv.slice(1)
} else if (a && existsSync(join(commands, `${a}.ts`))) {
  file = join(commands, `${a}.ts`)
  id = a
  rest = argv.slice(1)
} else {
  process.stderr.write(`no command for ${argv.join(' ')}\n`)
  process.exit(127)
}

const config = await Config.load({root})
const Cmd = ((await import(file)) as {default: CommandClass}).default
Cmd.id = id
try {
  await Cmd.run(rest, config)
} catch (error) {
  if (error instanceof Errors.ExitError) process.exitCode = error.oclif.exit ?? 1
  else {
    process.stderr.write(`[run-command] uncaught: ${(error as Error).stack ?? String(error)}\n`)
    process.exitCode = 99
  }
}
