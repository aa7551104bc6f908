// The help pages and command lookup read oclif.manifest.json, which the build
// writes (npm run build, run by prepare and pretest). This checks it against
// the command sources, so a manifest older than a source change is caught.
import {readFileSync, readdirSync, statSync} from 'node:fs'
import {join, relative, resolve} from 'node:path'

import {describe, expect, it} from 'vitest'

const root = resolve(import.meta.dirname, '../..')
const commandsDir = join(root, 'src/commands')

interface ManifestCommand {
  summary?: string
  description?: string
  flags: Record<string, {type: string; options?: string[]; required?: boolean; char?: string}>
  args: Record<string, {required?: boolean}>
  examples?: unknown[]
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') ? [path] : []
  })
}

function idOf(file: string): string {
  return relative(commandsDir, file)
    .replace(/\.ts$/, '')
    .split('/')
    .filter((part, i, all) => !(part === 'index' && i === all.length - 1))
    .join(':')
}

const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, ManifestCommand>
}

describe('oclif.manifest.json is current', () => {
  const files = sources(commandsDir)

  it('lists exactly the commands under src/commands', () => {
    expect(Object.keys(manifest.commands).sort()).toEqual(files.map(idOf).sort())
  })

  it.each(files.map((f) => [idOf(f), f]))('%s: flags, arguments and texts match the source', async (id, file) => {
    const mod = (await import(file)) as {
      default: {
        summary?: string
        description?: string
        examples?: unknown[]
        flags?: Record<string, {type: string; options?: readonly string[]; required?: boolean; char?: string}>
        baseFlags?: Record<string, unknown>
        args?: Record<string, {required?: boolean}>
        enableJsonFlag?: boolean
      }
    }
    const Cmd = mod.default
    const cached = manifest.commands[id]!
    const flags = {...Cmd.baseFlags, ...Cmd.flags} as Record<
      string,
      {type: string; options?: readonly string[]; required?: boolean; char?: string}
    >
    const expected = Object.keys(flags).concat(Cmd.enableJsonFlag ? ['json'] : [])
    expect(Object.keys(cached.flags).sort(), 'flag names').toEqual([...new Set(expected)].sort())
    for (const [name, f] of Object.entries(flags)) {
      expect(cached.flags[name]!.type, `--${name} type`).toBe(f.type)
      expect(cached.flags[name]!.options, `--${name} options`).toEqual(f.options ? [...f.options] : undefined)
      expect(Boolean(cached.flags[name]!.required), `--${name} required`).toBe(Boolean(f.required))
      expect(cached.flags[name]!.char, `--${name} char`).toBe(f.char)
    }
    expect(Object.keys(cached.args ?? {}), 'argument names').toEqual(Object.keys(Cmd.args ?? {}))
    expect(cached.summary, 'summary').toBe(Cmd.summary)
    expect(cached.description, 'description').toBe(Cmd.description)
    expect(cached.examples, 'examples').toEqual(Cmd.examples)
  })
})

describe('the help an installed mfg prints', () => {
  // The package ships bin/, dist/ and the manifest (package.json "files"): a page of the
  // repository named in help is one an installed user does not have, so it is named by URL.
  it('names no repository file (docs/*.md, src/, scripts/) except by its URL', () => {
    const named: string[] = []
    for (const [id, cmd] of Object.entries(manifest.commands)) {
      const flagTexts = Object.entries(cmd.flags).map(([name, f]) => [
        `--${name}`,
        (f as {description?: string}).description,
      ])
      for (const [where, text] of [['summary', cmd.summary], ['description', cmd.description], ...flagTexts]) {
        for (const m of (text ?? '').matchAll(/(?<![\w/.-])(docs\/[\w.-]+\.md|src\/\S+|scripts\/\S+)/g))
          named.push(`${id} ${where}: ${m[1]}`)
      }
    }
    expect(named).toEqual([])
  })
})
