// docs/commands.md, the command reference, is written by `npm run readme` (oclif
// readme, which renders each command through the help class package.json registers).
// Here: it is current (the generator, run again, writes the same file), and each
// command's `--help` from the built CLI is exactly the reference's section for it:
// the summary oclif readme prints as the title, then the page in the code block.
import {spawnSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {join, resolve} from 'node:path'

import {describe, expect, it} from 'vitest'

const root = resolve(import.meta.dirname, '../..')
const reference = readFileSync(join(root, 'docs/commands.md'), 'utf8')
const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, {hidden?: boolean}>
}

/** Without vitest's NODE_ENV=test, in which oclif would read the TypeScript sources. */
function env(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const {NODE_ENV: _test, ...rest} = process.env
  return {...rest, NO_COLOR: '1', ...extra}
}

/** Each command's section: its words (`demand list`), the title and the code block. */
function sections(text: string): {words: string; title: string; page: string}[] {
  const found = []
  const pattern = /^## `mfg ([^`]*)`\n\n(.*)\n\n```\n([\s\S]*?)\n```$/gm
  for (const m of text.matchAll(pattern)) {
    const words = m[1]!.split(' ').filter((w, i, all) => all.slice(0, i + 1).every((x) => /^[a-z][a-z-]*$/.test(x)))
    found.push({words: words.join(' '), title: m[2]!, page: m[3]!})
  }
  return found
}

describe('docs/commands.md', () => {
  const pages = sections(reference)

  it('is what `npm run readme` writes today', () => {
    const r = spawnSync(
      process.execPath,
      [
        join(root, 'node_modules/oclif/bin/run.js'),
        'readme',
        '--readme-path',
        'docs/commands.md',
        '--no-aliases',
        '--dry-run',
      ],
      {cwd: root, env: env({COLUMNS: '120'}), encoding: 'utf8', timeout: 60_000},
    )
    expect(r.status, r.stderr).toBe(0)
    // The first line says which tag it replaced; the rest is the file it would write.
    const written = r.stdout.slice(r.stdout.indexOf('\n') + 1)
    expect(written.trimEnd()).toBe(reference.trimEnd())
  })

  it('has a section for every visible command of mfg', () => {
    const ids = Object.entries(manifest.commands)
      .filter(([, c]) => !c.hidden)
      .map(([id]) => id.replaceAll(':', ' '))
    expect(ids.length).toBeGreaterThan(30)
    const listed = pages.map((p) => p.words)
    for (const id of ids) expect(listed, id).toContain(id)
  })

  it("holds, for every command, exactly what the built CLI's `--help` prints", () => {
    expect(pages.length).toBeGreaterThan(30)
    for (const {words, title, page} of pages) {
      const r = spawnSync(process.execPath, [join(root, 'bin/run.js'), ...words.split(' '), '--help'], {
        env: env({COLUMNS: '120'}),
        encoding: 'utf8',
        timeout: 60_000,
      })
      expect(r.status, `${words}: ${r.stderr}`).toBe(0)
      expect(r.stdout, words).toBe(`${title}\n\n${page}\n`)
    }
  })
})
