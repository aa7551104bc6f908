// Tables and colours as a terminal shows them and as a pipe gets them. The
// built CLI (bin/run.js) runs under util-linux `script`, which gives it a
// pseudo-terminal for stdin, stdout and stderr; `stty cols N` sets the width the
// CLI reads from process.stdout.columns. The piped runs are child processes
// with plain pipes, as `mfg ... | less` would give them.
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {stripVTControlCharacters} from 'node:util'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {displayWidth} from '../../src/cli/render.js'
import {startCliSandbox, type CliSandbox} from '../helpers/cli.js'

const root = resolve(import.meta.dirname, '../..')
// eslint-disable-next-line no-control-regex -- an escape code is what is looked for
const ANSI = /\u001b\[[0-9;]*m/
const ESC = '\u001b'
const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`

/** The child's environment: the sandbox's, colour variables only as the test sets them. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {...process.env, TERM: 'xterm', ...env}
  for (const name of ['FORCE_COLOR', 'NO_COLOR', 'CI', 'COLORTERM']) if (!(name in env)) delete out[name]
  return out
}

interface Shown {
  code: number | null
  /** What the program wrote, escape codes included. */
  raw: string
  /** The lines the terminal shows, escape codes removed. */
  lines: string[]
}

/** Runs the built CLI on a pseudo-terminal `cols` wide; stdout and stderr both go to it. */
function onTerminal(argv: string[], env: Record<string, string>, cols: number, stderrTo?: string): Promise<Shown> {
  let cli = [process.execPath, join(root, 'bin/run.js'), ...argv].map(quote).join(' ')
  if (stderrTo) cli += ` 2>${quote(stderrTo)}`
  const child = spawn(
    'script',
    ['--quiet', '--return', '--command', `stty cols ${cols} rows 50; exec ${cli}`, '/dev/null'],
    {
      env: childEnv(env),
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  )
  let raw = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (chunk: string) => (raw += chunk))
  return new Promise((ok, fail) => {
    child.on('error', fail)
    child.on('close', (code) => {
      const lines = stripVTControlCharacters(raw)
        .replace(/\r/g, '')
        .split('\n')
        // The slow-service note (after 5 s, on a loaded machine) shares the terminal; it is not the table.
        .filter((l) => l !== '' && !l.startsWith('Still waiting for the service'))
      ok({code, raw, lines})
    })
  })
}

/** Runs the built CLI with stdout and stderr on pipes. */
function piped(
  argv: string[],
  env: Record<string, string>,
): Promise<{code: number | null; stdout: string; stderr: string}> {
  const child = spawn(process.execPath, [join(root, 'bin/run.js'), ...argv], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c))
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c))
  return new Promise((ok, fail) => {
    child.on('error', fail)
    child.on('close', (code) => ok({code, stdout, stderr}))
  })
}

let sb: CliSandbox
beforeAll(async () => {
  sb = await startCliSandbox()
})
afterAll(async () => {
  await sb.close()
})

const widest = (lines: readonly string[]) => Math.max(...lines.map(displayWidth))

describe('tables on a terminal', () => {
  it('demand list fits a 60-column terminal: the least important columns left out and named on stderr', async () => {
    const t = await onTerminal(['demand', 'list', '--limit', '5'], sb.env(), 60)
    expect(t.code, t.raw).toBe(0)
    const table = t.lines.filter((l) => !/^(Page |Columns? )/.test(l))
    expect(table.length).toBe(6)
    expect(widest(table), t.lines.join('\n')).toBeLessThanOrEqual(60)
    expect(table[0]).toMatch(/^orderNumber\s+_id\s+status/)
    expect(table[0]).not.toMatch(/\btype\b|\bcurrency\b/)
    const note = t.lines.find((l) => l.startsWith('Column'))
    expect(note).toMatch(
      /^Columns type, .*currency.* left out to fit 60 characters; --no-truncate shows every column\.$/,
    )
  })

  it('webhook list at 80 columns keeps each whole URL: the secret and the dates go first', async () => {
    const url = 'https://hooks.example.com/shop/orders-at-eighty'
    const made = await piped(
      ['webhook', 'create', '--url', url, '--events', 'order_placed', '--use-secret', '--secret', 's3cret-eighty-01'],
      sb.env(),
    )
    expect(made.code, made.stderr).toBe(0)
    const t = await onTerminal(['webhook', 'list'], sb.env(), 80)
    expect(t.code, t.raw).toBe(0)
    expect(t.lines.some((l) => l.includes(url))).toBe(true)
    expect(widest(t.lines.filter((l) => !l.startsWith('Column')))).toBeLessThanOrEqual(80)
  })

  it('mcp tools fits 100 columns: its long descriptions cut with an ellipsis', async () => {
    const t = await onTerminal(['mcp', 'tools'], sb.env(), 100)
    expect(t.code, t.raw).toBe(0)
    expect(t.lines[0]).toMatch(/^name\s+what it does\s+data$/)
    expect(widest(t.lines)).toBeLessThanOrEqual(100)
    expect(
      t.lines.some((l) => /… +(reads|changes)$/.test(l)),
      t.lines.join('\n'),
    ).toBe(true)
  })

  it('--no-truncate shows every column and whole cells, wider than the terminal', async () => {
    const t = await onTerminal(['mcp', 'tools', '--no-truncate'], sb.env(), 100)
    expect(t.code, t.raw).toBe(0)
    expect(widest(t.lines)).toBeGreaterThan(100)
    expect(t.raw).not.toContain('…')
    const list = await onTerminal(['demand', 'list', '--limit', '3', '--no-truncate'], sb.env(), 60)
    expect(list.lines[0]).toMatch(
      /^orderNumber\s+_id\s+type\s+status\s+technique\s+material\s+priceTotal\s+currency\s+createdAt$/,
    )
    expect(list.raw).not.toContain('left out')
  })

  it("--wide adds the command's extra columns, cut to fit but never left out", async () => {
    const wide = await onTerminal(['demand', 'list', '--limit', '3', '--wide'], sb.env(), 250)
    expect(wide.code, wide.raw).toBe(0)
    expect(wide.lines[0]).toMatch(
      /createdAt\s+paymentStatus\s+uniqueItems\s+shippingAddress\.city\s+shippingAddress\.country\s+updatedAt$/,
    )
    expect(wide.lines[1]).toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    // 195 is the least width where each column keeps its header and 8 characters (below it: records, next test).
    const narrow = await onTerminal(['demand', 'list', '--limit', '3', '--wide'], sb.env(), 200)
    expect(widest(narrow.lines.filter((l) => !l.startsWith('Page ')))).toBeLessThanOrEqual(200)
    expect(narrow.raw).not.toContain('left out')
    expect(narrow.raw).toContain('…')
  })

  it('--wide where a column would be cut below its header or 8 characters shows each demand as a record, paged and streamed', async () => {
    for (const [paging, cols] of [
      [['--limit', '3'], 120],
      [['--all'], 190],
      [['--limit', '2'], 40],
    ] as const) {
      const t = await onTerminal(['demand', 'list', '--wide', ...paging], sb.env(), cols)
      expect(t.code, t.raw).toBe(0)
      const note = t.lines.filter((l) => l.startsWith("The table's 14 columns do not fit"))
      expect(note, t.raw).toEqual([
        `The table's 14 columns do not fit ${cols} characters; shown as records. --columns chooses fewer, --no-truncate prints the table uncut.`,
      ])
      const shown = t.lines.filter((l) => !l.startsWith('Page ') && !note.includes(l))
      expect(widest(shown), t.raw).toBeLessThanOrEqual(cols)
      // A rule with the record's number, then one line per column, the id whole.
      expect(shown[0]).toMatch(/^-\[ 1 \]-+$/)
      expect(shown[1]).toMatch(/^orderNumber +\d+$/)
      expect(shown[2]).toMatch(/^_id +[0-9a-f]{24}$/)
      expect(shown.filter((l) => /^-\[ \d+ \]/.test(l)).length).toBe(shown.length / 15)
      // The two shippingAddress keys stay told apart even where they are cut (…Address.city, …ess.country).
      expect(shown.filter((l) => /^\S*\.city +\S/.test(l)).length).toBe(shown.length / 15)
      expect(shown.filter((l) => /^\S*\.country +\S/.test(l)).length).toBe(shown.length / 15)
    }
  })

  it('--wide at 200 columns shows each whole _id and cuts the other columns instead, paged and streamed', async () => {
    for (const paging of [['--limit', '3'], ['--all']]) {
      const t = await onTerminal(['demand', 'list', '--wide', ...paging], sb.env(), 200)
      expect(t.code, t.raw).toBe(0)
      const table = t.lines.filter((l) => !l.startsWith('Page '))
      expect(table[0], paging.join(' ')).toMatch(/^orderNumber\s+_id\s/)
      expect(widest(table), t.lines.join('\n')).toBeLessThanOrEqual(200)
      for (const row of table.slice(1)) expect(row, t.lines.join('\n')).toMatch(/^\S+\s+[0-9a-f]{24}\s/)
      expect(t.raw).toContain('…')
    }
  })

  it('demand list --all streams its table: one header, every demand, fitted on a terminal', async () => {
    const all = await piped(['demand', 'list', '--all', '--json'], sb.env())
    // --all --json is NDJSON: one demand a line.
    const count = all.stdout.split('\n').filter((l) => l.trim() !== '').length
    expect(count).toBeGreaterThan(1)
    const p = await piped(['demand', 'list', '--all'], sb.env())
    expect(p.code, p.stderr).toBe(0)
    const lines = p.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^orderNumber\s+_id\s+type\s+status/)
    expect(lines.filter((l) => l.startsWith('orderNumber'))).toHaveLength(1)
    expect(lines).toHaveLength(count + 1)
    expect(lines[1]).toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    const t = await onTerminal(['demand', 'list', '--all'], sb.env(), 60)
    expect(t.code, t.raw).toBe(0)
    const table = t.lines.filter((l) => !l.startsWith('Column'))
    expect(table).toHaveLength(count + 1)
    expect(widest(table)).toBeLessThanOrEqual(60)
    expect(t.lines.some((l) => / left out to fit 60 characters/.test(l))).toBe(true)
  })

  it('piped output is never cut, whatever the terminal around it', async () => {
    const p = await piped(['mcp', 'tools'], {...sb.env(), COLUMNS: '40'})
    expect(p.code, p.stderr).toBe(0)
    expect(p.stdout).not.toContain('…')
    expect(widest(p.stdout.trimEnd().split('\n'))).toBeGreaterThan(100)
  })
})

describe('colours', () => {
  const list = ['demand', 'list', '--limit', '2']

  it('on a terminal the header is bold; FORCE_COLOR=0, TERM=dumb, NO_COLOR and --no-color turn colour off', async () => {
    const on = await onTerminal(list, sb.env(), 200)
    expect(on.code, on.raw).toBe(0)
    expect(on.raw).toMatch(ANSI)
    for (const [env, argv] of [
      [{FORCE_COLOR: '0'}, list],
      [{TERM: 'dumb'}, list],
      [{NO_COLOR: '1'}, list],
      [{}, [...list, '--no-color']],
    ] as const) {
      const off = await onTerminal([...argv], {...sb.env(), ...env}, 200)
      expect(off.code, off.raw).toBe(0)
      expect(off.lines[0], JSON.stringify(env)).toMatch(/^orderNumber/)
      expect(off.raw, `${JSON.stringify(env)} ${argv.join(' ')}`).not.toMatch(ANSI)
    }
  })

  it('FORCE_COLOR=1 on TERM=dumb, and over NO_COLOR, turns colour on', async () => {
    const cases: Record<string, string>[] = [
      {TERM: 'dumb', FORCE_COLOR: '1'},
      {NO_COLOR: '1', FORCE_COLOR: '1'},
    ]
    for (const env of cases) {
      const t = await onTerminal(list, {...sb.env(), ...env}, 200)
      expect(t.raw, JSON.stringify(env)).toMatch(ANSI)
    }
  })

  it('stderr in a file while stdout is a terminal: no escape codes in the file, colour on the terminal', async () => {
    const missing = ['demand', 'get', '65f0000600000000000000ff']
    const onTty = await onTerminal(missing, sb.env(), 120)
    expect(onTty.code).not.toBe(0)
    expect(onTty.raw).toContain(`${ESC}[31mError:`)
    const dir = mkdtempSync(join(tmpdir(), 'mfg-stderr-'))
    try {
      const log = join(dir, 'err.txt')
      const t = await onTerminal(missing, sb.env(), 120, log)
      expect(t.code).not.toBe(0)
      const written = readFileSync(log, 'utf8')
      expect(written).toMatch(/^Error: /)
      expect(written).not.toMatch(ANSI)
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('piped output has no escape codes, stdout or stderr, unless FORCE_COLOR asks (levels 1 to 3)', async () => {
    for (const argv of [list, ['demand', 'get', '65f0000600000000000000ff'], ['profile', 'list'], ['mcp', 'tools']]) {
      const p = await piped(argv, sb.env())
      expect(p.stdout + p.stderr, argv.join(' ')).not.toMatch(ANSI)
    }
    for (const level of ['1', '2', '3']) {
      const p = await piped(list, {...sb.env(), FORCE_COLOR: level})
      expect(p.code, p.stderr).toBe(0)
      expect(p.stdout, `FORCE_COLOR=${level}`).toMatch(ANSI)
    }
    const zero = await piped(list, {...sb.env(), FORCE_COLOR: '0'})
    expect(zero.stdout).not.toMatch(ANSI)
  })
})
