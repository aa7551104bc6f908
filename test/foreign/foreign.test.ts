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
// SAMPLE commands (cases.ts); FOREIGN_FULL=1 runs all of them (about 930 runs
// instead of 600). `npx tsx test/foreign/matrix.ts` prints the whole matrix.
import {existsSync, readFileSync, readdirSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {
  COMMANDS,
  POINTS,
  VARIANTS,
  allCases,
  removeInputFiles,
  runCases,
  type CaseResult,
  type Mode,
  type Point,
} from './cases.js'
import {startForeignServer} from './server.js'

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
