// The CLI against services written apart from the project (issue 16): every
// command each server variant can reach, table and --json, through the built CLI
// (bin/run.js: run `npm run build` first; `npm test` does). Each case gets a fresh
// foreign server (test/foreign/server.ts) and MFG_HOME, and must show: no duplicate,
// no crash or stack trace, no undefined/NaN/[object Object], the right exit code,
// a bounded number of requests, the data on success, and a meaningful message.
//
// What fails today is listed in `knownFailures`, each with the issue-16 point it
// belongs to, and runs with it.fails: a case that starts passing turns red until
// it is taken out of the table. Every other case must pass.
//
// By default a variant that reaches every command (failures, transport) runs the
// SAMPLE commands (cases.ts), each in one mode, the modes alternating (allCases says
// how every command still meets both); FOREIGN_FULL=1 runs all of them in both modes
// (1,174 runs instead of 549). FOREIGN_PAIRS=1 pairs the modes of the variants that
// reach some routes too (404 runs): CI's runs on the other Node.js lines, where what
// differs is Node's HTTP stack rather than how mfg reads a field, use it to stay in time.
// `npx tsx test/foreign/matrix.ts` prints the whole matrix.
import {existsSync, mkdtempSync, readFileSync, readdirSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {
  BIG_ROWS,
  COMMANDS,
  POINTS,
  VARIANTS,
  allCases,
  cliEnv,
  inputFiles,
  removeInputFiles,
  runCases,
  spawnCli,
  type CaseResult,
  type Mode,
  type Point,
} from './cases.js'
import {foreignFile, startForeignServer} from './server.js'

interface KnownFailure {
  variant: string
  /** The commands that fail ('*': every command the variant runs). */
  commands: string[] | '*'
  /** Both modes unless given. */
  modes?: Mode[]
  point: Point
  /** What the CLI does today. */
  today: string
}

// Empty since issue 16's work: every case passes, in the default and the full set.
// A case that fails is listed here with its point while it waits for a fix.
const knownFailures: KnownFailure[] = []

const root = resolve(import.meta.dirname, '../..')
const cases = allCases()
const everyCase = allCases({full: true})

function matches(k: KnownFailure, c: {variant: {name: string}; command: {id: string}; mode: Mode}): boolean {
  return (
    k.variant === c.variant.name &&
    (k.commands === '*' || k.commands.includes(c.command.id)) &&
    (k.modes === undefined || k.modes.includes(c.mode))
  )
}

const knownFor = (c: (typeof cases)[number]) => knownFailures.find((k) => matches(k, c))

/** What a failing case printed, for the assertion message. */
function details(r: CaseResult): string {
  const cut = (s: string) => (s.length > 1500 ? `${s.slice(0, 1500)}…` : s)
  const log = r.stats.log.map((x) => `${x.method} ${x.path} ${x.status}`).join('\n  ')
  return `mfg ${r.argv.join(' ')} → exit ${r.exit} in ${r.ms} ms\nrequests:\n  ${log}\nstdout:\n${cut(r.stdout)}\nstderr:\n${cut(r.stderr)}`
}

let results = new Map<string, CaseResult>()

beforeAll(async () => {
  if (!existsSync(join(root, 'dist/commands/demand/list.js'))) {
    throw new Error('The built CLI is missing: run npm run build (npm test does).')
  }
  results = await runCases(cases)
}, 900_000)

afterAll(() => removeInputFiles())

describe('the foreign-server suite itself', () => {
  it('ran every case', () => {
    expect([...results.keys()].sort()).toEqual(cases.map((c) => c.key).sort())
  })

  it('imports nothing from src/ (server, cases, matrix and this file)', () => {
    const dir = import.meta.dirname
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(join(dir, file), 'utf8')
      for (const m of text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
        const spec = m[1]!
        if (!spec.startsWith('.')) continue
        const target = resolve(dirname(join(dir, file)), spec)
        expect(target.startsWith(`${dir}/`), `${file} imports ${spec}`).toBe(true)
      }
    }
  })

  it('knownFailures names real variants, commands and cases, each once', () => {
    const variants = new Set(VARIANTS.map((v) => v.name))
    const commands = new Set(COMMANDS.map((c) => c.id))
    const points = new Set<string>(Object.values(POINTS))
    for (const k of knownFailures) {
      expect(variants.has(k.variant), k.variant).toBe(true)
      if (k.commands !== '*') for (const id of k.commands) expect(commands.has(id), `${k.variant}: ${id}`).toBe(true)
      expect(points.has(k.point), k.point).toBe(true)
      expect(everyCase.filter((c) => matches(k, c)).length, `${k.variant} matches no case`).toBeGreaterThan(0)
    }
    for (const c of everyCase) {
      expect(knownFailures.filter((k) => matches(k, c)).length, `${c.key} is listed twice`).toBeLessThanOrEqual(1)
    }
  })

  it('counts what it stores: a create sent twice is two demands, and draftId lookups work or are ignored', async () => {
    for (const draftIdFilter of [true, false]) {
      const server = await startForeignServer({draftIdFilter})
      try {
        const headers = {
          authorization: `Bearer ${server.credentials.apiKey}`,
          'content-type': 'application/json',
        }
        const url = `${server.url}/api/public/v1/demand`
        const body = JSON.stringify([{technique: '3D_PRINTING', material: 'PLA', draftId: 'twice'}])
        for (let i = 0; i < 2; i++) {
          const res = await fetch(`${url}/create-quotes/${server.credentials.businessId}`, {
            method: 'POST',
            headers,
            body,
          })
          expect(res.status).toBe(201)
        }
        const found = await fetch(`${url}/${server.credentials.businessId}/all?draftId=twice`, {headers})
        const page = (await found.json()) as {data: {draftId?: string}[]; total: number}
        expect(page.data.length).toBe(draftIdFilter ? 2 : 5)
        expect(server.stats().created.demands).toBe(2)
        expect(server.stats().served).toBe(3)
      } finally {
        await server.close()
      }
    }
  })

  it('answers a faulty first request as configured, then serves normally', async () => {
    const server = await startForeignServer({first: {kind: 'drop', afterWork: true}})
    try {
      const headers = {authorization: `Bearer ${server.credentials.apiKey}`}
      const id = server.seed.demandIds[0]!
      await expect(fetch(`${server.url}/api/public/v1/demand/${id}`, {headers})).rejects.toThrow()
      const res = await fetch(`${server.url}/api/public/v1/demand/${id}`, {headers})
      expect(((await res.json()) as {_id: string})._id).toBe(id)
      expect(server.stats().log.map((x) => x.status)).toEqual(['dropped', 200])
    } finally {
      await server.close()
    }
  })
})

describe('a file host that deviates', () => {
  /** A foreign server with these quirks, a fresh MFG_HOME, and what the built CLI made of `argv` there. */
  const withServer = async (
    quirks: Parameters<typeof startForeignServer>[0],
    use: (server: Awaited<ReturnType<typeof startForeignServer>>, home: string) => Promise<void>,
  ) => {
    const server = await startForeignServer(quirks)
    const home = mkdtempSync(join(tmpdir(), 'mfg-foreign-files-'))
    try {
      await use(server, home)
    } finally {
      await server.close()
      rmSync(home, {recursive: true, force: true})
    }
  }
  const fileRequests = (server: Awaited<ReturnType<typeof startForeignServer>>) =>
    server.stats().log.filter((x) => x.path.startsWith('/files/'))

  it('a download is asked for uncompressed; one compressed anyway (gzip) is saved as the file, and an unknown coding is refused', async () => {
    await withServer({contentEncoding: 'gzip'}, async (server, home) => {
      const [id, name] = [server.seed.demandIds[0]!, server.seed.fileNames[0]!]
      const out = join(home, 'out')
      const r = await spawnCli(['file', 'download', id, '--out', out, '--json'], cliEnv(server, home))
      expect(r.exit, r.stderr).toBe(0)
      expect(readFileSync(join(out, name), 'utf8')).toBe(foreignFile(name))
      expect(JSON.parse(r.stdout)).toMatchObject([{fileName: name, bytes: Buffer.byteLength(foreignFile(name))}])
      expect(fileRequests(server).map((x) => x.acceptEncoding)).toEqual(['identity'])

      server.setQuirks({contentEncoding: 'unknown'})
      const other = join(home, 'other')
      const refused = await spawnCli(['file', 'download', id, '--out', other], cliEnv(server, home))
      expect(refused.exit).toBe(1)
      expect(refused.stderr.trim()).toBe(
        `Error: The file host sent ${name} in a content coding mfg cannot read (x-acme-pack).`,
      )
      expect(readdirSync(other)).toEqual([])
    })
  })

  it('demand quote: a part the file host answered with a sign-in page is not kept, so the next run downloads it again', async () => {
    await withServer({fileLoginPage: true}, async (server, home) => {
      const argv = ['demand', 'quote', server.seed.demandIds[0]!, '--dry-run', '--json']
      const first = await spawnCli(argv, cliEnv(server, home))
      expect(first.exit, first.stderr).toBe(4)
      expect(JSON.parse(first.stdout).parts[0].error).toContain('unexpected "<!doctype"')

      server.setQuirks({})
      const second = await spawnCli(argv, cliEnv(server, home))
      expect(second.exit, second.stderr).toBe(0)
      expect(JSON.parse(second.stdout).parts[0]).toMatchObject({cached: false, measured: {closed: true}})
      expect(fileRequests(server)).toHaveLength(2)
    })
  })
})

/** The result lines of a batch (one JSON object a row on stdout), by row number. */
function rowLines(
  stdout: string,
): Map<number, {row: number; id?: string; draftId?: string; error?: string; outcome?: string}> {
  const rows = new Map<number, {row: number; id?: string; draftId?: string; error?: string; outcome?: string}>()
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{"row"')) continue
    const r = JSON.parse(line) as {row: number}
    rows.set(r.row, r)
  }
  return rows
}

describe("a command's time budget against a service that stops answering mid-way", () => {
  it('--total-timeout cuts a batch: rows not sent say so, the one in flight is unknown with its draftId, and a re-run on the recovered service creates the rest once', async () => {
    const server = await startForeignServer({from: {after: 1, fault: {kind: 'hang', ms: 20_000}}})
    const home = mkdtempSync(join(tmpdir(), 'mfg-foreign-budget-'))
    try {
      const argv = ['demand', 'create', '--file', inputFiles().bigRows, '--concurrency', '1']
      const cut = await spawnCli([...argv, '--total-timeout', '2'], cliEnv(server, home))
      expect(cut.exit, cut.stderr).toBe(1)
      expect(cut.stderr).not.toMatch(/\n\s+at /)
      // One message says which budget ran out, its value and how to change it.
      expect(cut.stderr).toContain(
        "Warning: Stopped early: the command's time limit of 2 s ran out; allow more with --total-timeout SECONDS or MFG_TOTAL_TIMEOUT.",
      )
      const rows = rowLines(cut.stdout)
      expect(rows.size).toBe(BIG_ROWS)
      // The first chunk was answered; the second was in flight when time ran out; the rest never left.
      expect([...rows.values()].filter((r) => r.id !== undefined)).toHaveLength(100)
      for (let row = 101; row <= 200; row++) {
        expect(rows.get(row)).toMatchObject({outcome: 'unknown', draftId: expect.stringMatching(/^mfg-/)})
      }
      for (let row = 201; row <= BIG_ROWS; row++) {
        expect(rows.get(row)?.error).toMatch(/^not sent: the command's time limit of 2 s ran out/)
      }
      // 1 answered, 1 cut short; no look-up or chunk after the time ran out.
      expect(server.stats().served).toBe(2)
      expect(server.stats().created.demands).toBe(100)

      server.setQuirks({})
      const rerun = await spawnCli(argv, cliEnv(server, home))
      expect(rerun.exit, rerun.stderr).toBe(0)
      expect(server.stats().created.demands).toBe(BIG_ROWS)
      expect(new Set(server.stats().createdIds.demands).size).toBe(BIG_ROWS)
      expect(rowLines(rerun.stdout).size).toBe(BIG_ROWS)
    } finally {
      await server.close()
      rmSync(home, {recursive: true, force: true})
    }
  }, 60_000)

  it("by default the command's 30 s for failures bounds a batch against a hanging service: its look-ups are not retried past it", async () => {
    const server = await startForeignServer({from: {after: 1, fault: {kind: 'hang', ms: 20_000}}})
    const home = mkdtempSync(join(tmpdir(), 'mfg-foreign-budget-'))
    try {
      // Four chunks in flight time out after 5 s each (20 s of failing, summed), their
      // look-ups after 5 s more: past 30 s, so none of the look-ups is tried again.
      const run = await spawnCli(['demand', 'create', '--file', inputFiles().bigRows], {
        ...cliEnv(server, home),
        MFG_TIMEOUT: '5',
      })
      expect(run.exit, run.stderr).toBe(1)
      expect(run.stderr).toMatch(
        /Warning: Stopped early: (another try would overrun the command's 30 s for failed attempts and waits|the command's 30 s for failed attempts and waits ran out) \(\d+ s spent, summed over its requests\); allow more with --total-timeout SECONDS or MFG_TOTAL_TIMEOUT\./,
      )
      const log = server.stats().log
      // 1 chunk answered, 4 in flight, one look-up for each: without the budget, 3 tries each (12).
      // The look-ups start up to half a second apart, so the first to fail may have a
      // retry scheduled before the others' failures are counted: one more at most.
      expect(log.filter((x) => x.method === 'POST')).toHaveLength(5)
      const lookups = log.filter((x) => x.method === 'GET').length
      expect(lookups).toBeGreaterThanOrEqual(4)
      expect(lookups).toBeLessThanOrEqual(5)
      const rows = rowLines(run.stdout)
      expect([...rows.values()].filter((r) => r.outcome === 'unknown')).toHaveLength(BIG_ROWS - 100)
      expect(server.stats().created.demands).toBe(100)
    } finally {
      await server.close()
      rmSync(home, {recursive: true, force: true})
    }
  }, 60_000)
})

describe('mfg against foreign servers', () => {
  for (const c of cases) {
    const known = knownFor(c)
    const title = `${c.key}${known ? ` [known: ${known.point}]` : ''}`
    ;(known ? it.fails : it)(title, () => {
      const r = results.get(c.key)
      expect(r, 'the case did not run').toBeDefined()
      expect(r!.problems, details(r!)).toEqual([])
    })
  }
})
