// One stream per purpose on a real pseudo-terminal: `demand create` draws its
// progress bar on stderr while its result lines go to stdout, and on a terminal
// both land on the same screen. The built CLI runs under util-linux `script`
// (a pty as its stdin, stdout and stderr, as test/commands/prompt-pty.test.ts
// does); the transcript is played back as a terminal would show it (carriage
// returns and erase-line honoured), and every result line must stand on a line
// of its own, whole, with no piece of the bar in it.
import {spawn} from 'node:child_process'
import {join, resolve} from 'node:path'

import {afterAll, beforeAll, expect, it} from 'vitest'

import {startCliSandbox, type CliSandbox} from '../helpers/cli.js'
import {startProxy, type Proxy} from '../helpers/proxy.js'

const root = resolve(import.meta.dirname, '../..')
const ROWS = 300

let sb: CliSandbox
let slow: Proxy
let slowUrl: string

beforeAll(async () => {
  sb = await startCliSandbox()
  // Each create held for 250 ms, so that the bar is drawn between chunks.
  slow = await startProxy(sb.url, (req) => (req.method === 'POST' ? 250 : 0))
  slowUrl = slow.url
})
afterAll(async () => {
  await slow.close()
  await sb.close()
})

/** What a terminal shows for `raw`: `\r` returns to the line's start, ESC[K erases to its end, other escapes drop out. */
function screen(raw: string): string[] {
  const lines: string[] = []
  let line: string[] = []
  let col = 0
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!
    if (c === '\u001b') {
      const m = /^\[[0-9;?]*([A-Za-z])/.exec(raw.slice(i + 1))
      if (m) {
        if (m[1] === 'K') line = line.slice(0, col)
        i += m[0].length
      }
    } else if (c === '\r') col = 0
    else if (c === '\n') {
      lines.push(line.join(''))
      line = []
      col = 0
    } else {
      line[col++] = c
    }
  }
  if (line.length > 0) lines.push(line.join(''))
  return lines
}

/**
 * `demand create` of examples/big.ndjson through the slow proxy, one chunk at a time,
 * on a pseudo-terminal (`sttyCols` sets its width first): what the terminal was sent.
 */
async function createOnTerminal(extra: string[], env: NodeJS.ProcessEnv, sttyCols?: number): Promise<string> {
  const args = [process.execPath, join(root, 'bin/run.js'), 'demand', 'create', '--file', 'examples/big.ndjson']
  const cli = [...args, '--concurrency', '1', ...extra].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
  const command = sttyCols === undefined ? cli : `stty cols ${sttyCols}; exec ${cli}`
  const child = spawn('script', ['--quiet', '--return', '--command', command, '/dev/null'], {
    cwd: root,
    env: {...env, MFG_BASE_URL: slowUrl, TERM: 'xterm', CI: undefined, NODE_ENV: undefined},
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  let raw = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (c: string) => (raw += c))
  const code = await new Promise<number | null>((ok) => child.on('close', ok))
  expect(code, raw).toBe(0)
  return raw
}

it('result lines and the progress bar never share a line of the terminal', async () => {
  const raw = await createOnTerminal([], {...process.env, ...sb.env(), COLUMNS: '120'})
  // The bar was drawn (more than once) while the rows went out.
  expect(raw.match(/\r\[[#-]+\] \d+\/300 rows/g)?.length ?? 0, raw).toBeGreaterThan(1)
  const shown = screen(raw)
  const results = shown.filter((l) => l.includes('"row"'))
  expect(results).toHaveLength(ROWS)
  for (const l of results) {
    expect(l, `a result line as the terminal shows it:\n${l}`).toMatch(/^\{"row":\d+,/)
    expect(() => JSON.parse(l) as unknown).not.toThrow()
  }
  expect(shown.some((l) => /\] \d+\/300 rows.*"row"/.test(l))).toBe(false)
})

it('the bar never passes the width of a narrow terminal, so no redraw leaves a wrapped line behind', async () => {
  const out = join(sb.home, 'narrow.ndjson')
  const raw = await createOnTerminal(['--out', out, '--fresh'], {...process.env, ...sb.env(), COLUMNS: undefined}, 40)
  const draws = raw
    .split('\r')
    // Up to its erase-to-end-of-line: what the draw put on the line.
    .map((piece) => piece.split('\u001b[K')[0]!)
    .filter((piece) => /^\[[#-]+\]/.test(piece))
  expect(draws.length, raw).toBeGreaterThan(1)
  for (const d of draws) expect(d.length, d).toBeLessThanOrEqual(39)
})
