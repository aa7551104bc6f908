// End to end: the built CLI spawned as a user runs it, output piped through jq.
import {spawn, spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {createInterface} from 'node:readline'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

const root = resolve(import.meta.dirname, '../..')
const bin = join(root, 'bin/run.js')
// `mfg` on PATH, as an installed package would put it.
const shims = mkdtempSync(join(tmpdir(), 'mfg-bin-'))
symlinkSync(bin, join(shims, 'mfg'))

interface Served {
  url: string
  businesses: {id: string; name: string; apiKey: string; authToken: string; webhookAccess: boolean}[]
}

/** Runs the built CLI without a shell and waits for it, so that several can run at once. */
function mfgAsync(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{stdout: string; stderr: string; code: number | null}> {
  // Without vitest's NODE_ENV=test, under which oclif would register tsx to read TypeScript sources.
  const {NODE_ENV: _test, ...userEnv} = env
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: root,
    env: {...userEnv, NO_COLOR: '1', CI: 'true'},
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')))
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')))
  return new Promise((done) => child.on('close', (code) => done({stdout, stderr, code})))
}

/** `--all --json` output: one record a line. */
const ndjson = (text: string): unknown[] =>
  text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as unknown)

/** Runs a shell line (so pipes to jq work) with the CLI on PATH as `mfg`. */
function sh(line: string, env: NodeJS.ProcessEnv) {
  const r = spawnSync('sh', ['-c', line], {
    cwd: root,
    env: {...env, PATH: `${shims}:${process.env.PATH}`, NO_COLOR: '1', CI: 'true'},
    encoding: 'utf8',
    input: '',
    timeout: 60_000,
  })
  return {stdout: r.stdout, stderr: r.stderr, code: r.status}
}

function baseEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {...process.env, MFG_HOME: home}
  for (const k of ['MFG_PROFILE', 'MFG_API_KEY', 'MFG_AUTH_TOKEN', 'MFG_BASE_URL', 'MFG_BUSINESS_ID']) delete env[k]
  return env
}

function quotes(n: number, extra: (i: number) => object = () => ({})): string {
  return JSON.stringify(
    Array.from({length: n}, (_, i) => ({
      technique: '3D_PRINTING',
      material: 'PLA',
      quantity: (i % 5) + 1,
      email: `buyer${i}@example.com`,
      ...extra(i),
    })),
  )
}

describe('mfg as a user runs it', () => {
  let home: string
  let served: Served
  let server: ReturnType<typeof spawn>

  beforeAll(async () => {
    if (spawnSync('jq', ['--version']).status !== 0) throw new Error('jq is needed for the end-to-end test')
    home = mkdtempSync(join(tmpdir(), 'mfg-e2e-'))
    server = spawn(process.execPath, [bin, 'sandbox', 'serve', '--memory', '--port', '0', '--json'], {
      env: baseEnv(home),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const lines = createInterface({input: server.stdout!})
    served = await new Promise<Served>((ok, fail) => {
      server.once('exit', (code) => fail(new Error(`sandbox serve exited with ${code}`)))
      lines.once('line', (line) => ok(JSON.parse(line) as Served))
    })
  })

  afterAll(async () => {
    if (server && server.exitCode === null) {
      const closed = new Promise((ok) => server.once('exit', ok))
      server.kill('SIGTERM')
      await closed
    }
    rmSync(home, {recursive: true, force: true})
  })

  it("--version answers in oclif's format, from the fast path", () => {
    const r = sh('mfg --version', baseEnv(home))
    expect(r.code).toBe(0)
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {version: string}
    expect(r.stdout.trim()).toBe(`mfg/${pkg.version} ${process.platform}-${process.arch} node-${process.version}`)
  })

  it('sandbox serve --json prints one line with the url and both seeded businesses', () => {
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(served.businesses).toHaveLength(2)
    expect(served.businesses[0]!.webhookAccess).toBe(true)
    expect(served.businesses[1]!.webhookAccess).toBe(false)
    expect(served.businesses[0]!.apiKey).toMatch(/^pk_business_/)
  })

  it('creating 100 quotes from a file grows the list by exactly 100, and a pasted key works without showing', () => {
    const demo = served.businesses[0]!
    const pasted = `Your key (shown once): ${demo.apiKey}  -- keep it safe`
    const env = baseEnv(mkdtempSync(join(tmpdir(), 'mfg-e2e-home-')))
    const add = sh(
      `mfg profile add shop --base-url "${served.url}" --api-key "${pasted}" --auth-token "${demo.authToken}" --business-id ${demo.id} --use`,
      env,
    )
    expect(add.code, add.stderr).toBe(0)
    const config = join(env.MFG_HOME!, 'config.json')
    expect(statSync(config).mode & 0o777).toBe(0o600)
    expect(readFileSync(config, 'utf8')).not.toContain('Your key')

    const before = sh('mfg demand list --all --json | jq -s length', env)
    expect(before.code, before.stderr).toBe(0)
    const file = join(env.MFG_HOME!, 'hundred.json')
    writeFileSync(file, quotes(100))
    const created = sh(`mfg demand create --file ${file} --json | jq '.results | length'`, env)
    expect(created.code, created.stderr).toBe(0)
    expect(Number(created.stdout.trim())).toBe(100)
    const after = sh('mfg demand list --all --json | jq -s length', env)
    expect(Number(after.stdout.trim())).toBe(Number(before.stdout.trim()) + 100)

    const everything = [add, before, created, after].map((r) => r.stdout + r.stderr).join('\n')
    expect(everything).not.toContain(demo.apiKey)
    expect(everything).not.toContain(demo.authToken)
    const shown = sh('mfg profile show shop --json', env)
    expect(shown.stdout).not.toContain(demo.apiKey)
    expect(JSON.parse(shown.stdout).apiKey).toBe(`****${demo.apiKey.slice(-4)}`)
  })

  it('another business key gets 403 on the list and 404 on a demand', () => {
    const [demo, other] = served.businesses
    const owner = {...baseEnv(home), MFG_BASE_URL: served.url, MFG_API_KEY: demo!.apiKey, MFG_BUSINESS_ID: demo!.id}
    const id = sh('mfg demand list --limit 1 --json | jq -r ".[0]._id"', owner).stdout.trim()
    expect(id).toMatch(/\w+/)
    const intruder = {...owner, MFG_API_KEY: other!.apiKey}
    const list = sh('mfg demand list --json', intruder)
    expect(list.code).not.toBe(0)
    expect(list.stderr).toMatch(/403/)
    const get = sh(`mfg demand get ${id} --json`, intruder)
    expect(get.code).not.toBe(0)
    expect(get.stderr).toMatch(/404/)
    expect(list.stderr + get.stderr).not.toContain(other!.apiKey)
  })

  it('a v2 call without X-Auth-Token is refused with 401', async () => {
    const demo = served.businesses[0]!
    const res = await fetch(`${served.url}/api/v2/integrations_ms/webhooks/${demo.id}`, {
      headers: {authorization: `Bearer ${demo.apiKey}`},
    })
    expect(res.status).toBe(401)
    const body = (await res.json()) as {message: string}
    expect(body.message).toMatch(/X-Auth-Token/i)
  })

  it('an unknown technique exits 2 naming the field and creates nothing', () => {
    const demo = served.businesses[0]!
    const env = {...baseEnv(home), MFG_BASE_URL: served.url, MFG_API_KEY: demo.apiKey, MFG_BUSINESS_ID: demo.id}
    const before = sh('mfg demand list --all --json | jq -s length', env).stdout.trim()
    const file = join(home, 'bad.json')
    writeFileSync(
      file,
      quotes(3, (i) => (i === 1 ? {technique: 'LASER_WELDING'} : {})),
    )
    const run = sh(`mfg demand create --file ${file}`, env)
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/technique/)
    expect(run.stderr).toMatch(/row 2|1\.technique/)
    expect(run.stderr).toMatch(/CNC_MACHINING/)
    expect(run.stderr).not.toMatch(/\n\s+at /)
    expect(sh('mfg demand list --all --json | jq -s length', env).stdout.trim()).toBe(before)
  })

  it('with no profile, the embedded sandbox keeps state between commands', () => {
    const env = baseEnv(mkdtempSync(join(tmpdir(), 'mfg-e2e-local-')))
    const first = sh('mfg demand list --all --json | jq -s length', env)
    expect(first.code, first.stderr).toBe(0)
    const created = sh('mfg demand create --file examples/quotes.json --json | jq ".results | length"', env)
    expect(created.code, created.stderr).toBe(0)
    const n = Number(created.stdout.trim())
    expect(n).toBeGreaterThan(0)
    const second = sh('mfg demand list --all --json | jq -s length', env)
    expect(Number(second.stdout.trim())).toBe(Number(first.stdout.trim()) + n)
    // The same file again resumes from the journal, though the embedded sandbox listens on a new port.
    const again = sh('mfg demand create --file examples/quotes.json', env)
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toMatch(/already created by an earlier run; 0 request/)
    expect(Number(sh('mfg demand list --all --json | jq -s length', env).stdout.trim())).toBe(
      Number(second.stdout.trim()),
    )
    const db = join(env.MFG_HOME!, 'sandbox', 'sandbox.db')
    expect(statSync(db).mode & 0o777).toBe(0o600)
  })

  it('demand show and demand view run demand get, and the topic lists it once', () => {
    const env = baseEnv(mkdtempSync(join(tmpdir(), 'mfg-e2e-alias-')))
    const got = sh('mfg demand get 65f000060000000000000002 --json _id,orderNumber,status,updatedAt', env)
    expect(got.code, got.stderr).toBe(0)
    for (const verb of ['show', 'view']) {
      const r = sh(`mfg demand ${verb} 65f000060000000000000002 --json _id,orderNumber,status,updatedAt`, env)
      expect(r.code, r.stderr).toBe(0)
      expect(JSON.parse(r.stdout)).toEqual(JSON.parse(got.stdout))
    }
    const topic = sh('mfg demand --help', env)
    expect(topic.stdout).toMatch(/^ {2}demand get +Show one demand\.$/m)
    expect(topic.stdout).not.toMatch(/demand (show|view)/)
  })
})

describe('CLIs sharing one embedded home', () => {
  it('20 at once on a new home: each succeeds, the database is created and seeded once, every write is kept', async () => {
    // What a new home holds: the seeded demo business's demands.
    const reference = await mfgAsync(
      ['demand', 'list', '--all', '--json'],
      baseEnv(mkdtempSync(join(tmpdir(), 'mfg-e2e-ref-'))),
    )
    expect(reference.code, reference.stderr).toBe(0)
    const seeded = ndjson(reference.stdout).length
    expect(seeded).toBeGreaterThan(0)

    const home = mkdtempSync(join(tmpdir(), 'mfg-e2e-shared-'))
    const env = baseEnv(home)
    const WRITERS = 10
    const runs = Array.from({length: 20}, (_, i) => {
      if (i % 2 === 1) return mfgAsync(['demand', 'list', '--all', '--json'], env)
      const file = join(home, `quote-${i}.json`)
      writeFileSync(
        file,
        quotes(1, () => ({draftId: `shared-home-${i}`})),
      )
      return mfgAsync(['demand', 'create', '--file', file, '--json'], env)
    })
    const results = await Promise.all(runs)
    for (const [i, r] of results.entries()) {
      expect(r.code, `CLI ${i}: ${r.stderr}`).toBe(0)
      // Nothing on stderr at all: no lock error, no warning.
      expect(r.stderr, `CLI ${i}`).toBe('')
    }
    // A list run alongside the writers sees the seed and some of the writes, never a half-seeded database.
    for (const r of results.filter((_, i) => i % 2 === 1)) {
      const n = ndjson(r.stdout).length
      expect(n).toBeGreaterThanOrEqual(seeded)
      expect(n).toBeLessThanOrEqual(seeded + WRITERS)
    }
    const after = await mfgAsync(['demand', 'list', '--all', '--json'], env)
    expect(after.code, after.stderr).toBe(0)
    const demands = ndjson(after.stdout) as {draftId?: string}[]
    expect(demands).toHaveLength(seeded + WRITERS)
    const written = demands.map((d) => d.draftId).filter((id) => id?.startsWith('shared-home-'))
    expect(written.sort()).toEqual(Array.from({length: WRITERS}, (_, k) => `shared-home-${2 * k}`).sort())
    expect(statSync(join(home, 'sandbox', 'sandbox.db')).mode & 0o777).toBe(0o600)
    rmSync(home, {recursive: true, force: true})
  })

  it('the same batch twice at once: the second refuses naming the first, which counts its own work', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mfg-e2e-twice-'))
    const env = baseEnv(home)
    const file = join(home, 'twice.json')
    writeFileSync(file, quotes(500))
    // The first run's five chunks go one at a time and each answer takes a second (the slow quirk),
    // so it is still running when the second starts.
    const {NODE_ENV: _test, ...userEnv} = env
    const first = spawn(process.execPath, [bin, 'demand', 'create', '--file', file, '--concurrency', '1', '--json'], {
      env: {...userEnv, NO_COLOR: '1', CI: 'true', MFG_SANDBOX_QUIRKS: 'slow'},
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let firstOut = ''
    first.stdout.on('data', (c: Buffer) => (firstOut += c.toString('utf8')))
    const firstDone = new Promise<number | null>((done) => first.on('close', done))
    // Once the first holds the batch (its journal's lock exists), start the second.
    const journals = join(home, 'journals')
    for (let i = 0; i < 300; i++) {
      if (existsSync(journals) && readdirSync(journals).some((f) => f.endsWith('.lock'))) break
      await new Promise((ok) => setTimeout(ok, 50))
    }
    const second = await mfgAsync(['demand', 'create', '--file', file, '--json'], env)
    expect(second.code, second.stderr).toBe(1)
    expect(second.stdout).toBe('')
    const error = (JSON.parse(second.stderr.trim()) as {error: {code: string; message: string}}).error
    expect(error.code).toBe('busy')
    expect(error.message).toContain(`another run of this batch is in progress (pid ${first.pid}`)

    expect(await firstDone).toBe(0)
    expect(JSON.parse(firstOut)).toMatchObject({created: 500, resumed: 0, failed: 0})
    expect(readdirSync(journals).filter((f) => f.endsWith('.lock'))).toEqual([])
    // Afterwards the same command runs, and counts the first run's rows as the first run's.
    const third = await mfgAsync(['demand', 'create', '--file', file, '--json'], env)
    expect(third.code, third.stderr).toBe(0)
    expect(JSON.parse(third.stdout)).toMatchObject({created: 0, resumed: 500, requests: 0})
    rmSync(home, {recursive: true, force: true})
  })

  it('a lock left by a run that was killed does not stop the next run', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mfg-e2e-stale-'))
    const env = baseEnv(home)
    const file = join(home, 'stale.json')
    writeFileSync(file, quotes(3))
    const dry = await mfgAsync(['demand', 'create', '--file', file, '--json'], env)
    expect(dry.code, dry.stderr).toBe(0)
    const journal = (JSON.parse(dry.stdout) as {journal: string}).journal
    // A pid that no process has: the run that held it is gone.
    writeFileSync(`${journal}.lock`, JSON.stringify({pid: 2 ** 22 + 7, at: '2026-01-01T00:00:00Z'}))
    const again = await mfgAsync(['demand', 'create', '--file', file, '--json'], env)
    expect(again.code, again.stderr).toBe(0)
    expect(JSON.parse(again.stdout)).toMatchObject({created: 0, resumed: 3})
    expect(existsSync(`${journal}.lock`)).toBe(false)
    rmSync(home, {recursive: true, force: true})
  })
})
