import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  closeSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {assessClock} from '../../src/services/doctor/clock.js'
import {checkSandboxDatabase} from '../../src/services/doctor/database.js'
import {shellWord} from '../../src/services/doctor/files.js'
import {json, runBuiltCli, secretsOf, useCliSandbox} from '../helpers/cli.js'
import {startTestSandbox} from '../helpers/sandbox.js'

interface Check {
  check: string
  target?: string
  status: 'ok' | 'warn' | 'fail'
  message: string
  fix?: string
}
interface Report {
  ok: boolean
  checks: Check[]
}

const {sb, outputs, run} = useCliSandbox()

const temps: string[] = []
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  temps.push(dir)
  return dir
}
const closers: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const close of closers) await close()
  for (const dir of temps) rmSync(dir, {recursive: true, force: true})
})

const only = (r: Report, check: string, target?: string): Check => {
  const found = r.checks.filter((c) => c.check === check && (target === undefined || c.target === target))
  expect(found, `${check} ${target ?? ''} in ${JSON.stringify(r.checks)}`).toHaveLength(1)
  return found[0]!
}

/** Stores a profile against the test sandbox (or another base URL) in `home`. */
async function addProfile(
  home: string,
  name: string,
  opts: {baseUrl?: string; apiKey?: string; authToken?: string | null} = {},
): Promise<void> {
  const demo = sb.businesses[0]!
  const token = opts.authToken === undefined ? demo.authToken : opts.authToken
  const r = await run(
    [
      'profile',
      'add',
      name,
      '--base-url',
      opts.baseUrl ?? sb.url,
      '--api-key',
      opts.apiKey ?? demo.apiKey,
      '--business-id',
      demo.id,
      ...(token === null ? [] : ['--auth-token', token]),
    ],
    {env: {MFG_HOME: home}},
  )
  expect(r.exitCode, r.stderr).toBe(0)
}

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as net.AddressInfo).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/**
 * A real HTTP server that passes every request on to the test sandbox and
 * answers with the sandbox's response, except that its Date header is
 * `offsetMs` away from this machine's clock: a service whose clock is wrong.
 */
async function skewedProxy(offsetMs: number): Promise<string> {
  const target = new URL(sb.url)
  const server = http.createServer((req, res) => {
    const upstream = http.request(
      {host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers},
      (answer) => {
        const headers = {...answer.headers, date: new Date(Date.now() + offsetMs).toUTCString()}
        res.writeHead(answer.statusCode ?? 502, headers)
        answer.pipe(res)
      },
    )
    upstream.on('error', () => res.destroy())
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  )
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`
}

describe('mfg doctor', () => {
  it('passes a healthy setup: exit 0, and --json gives {ok, checks} with every check ok', async () => {
    const home = tempDir('mfg-doctor-')
    const r = await run(['doctor', '--json'], {env: {MFG_HOME: home}})
    expect(r.exitCode, r.stderr).toBe(0)
    const report = json<Report>(r)
    expect(Object.keys(report).sort()).toEqual(['checks', 'ok'])
    expect(report.ok).toBe(true)
    for (const c of report.checks) {
      expect(Object.keys(c).every((k) => ['check', 'target', 'status', 'message', 'fix'].includes(k))).toBe(true)
      expect(typeof c.message).toBe('string')
      expect(c.status, JSON.stringify(c)).toBe('ok')
    }
    expect(only(report, 'node').message).toContain(process.versions.node)
    expect(only(report, 'permissions').message).toMatch(/no file with secrets/)
    expect(only(report, 'sandbox-db').message).toMatch(/not created yet/)
    for (const check of ['reachability', 'clock', 'v1', 'v2', 'mcp'])
      expect(only(report, check, 'env').status).toBe('ok')
    expect(only(report, 'mcp', 'env').message).toMatch(/10 tools/)
    expect(r.stderr).toBe('')
  })

  it('prints one line per check with plain words when colour is off, and a summary on stderr', async () => {
    const home = tempDir('mfg-doctor-')
    const r = await run(['doctor'], {env: {MFG_HOME: home}})
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^This machine$/m)
    expect(r.stdout).toMatch(/^Profile env$/m)
    expect(r.stdout).toMatch(/^ {2}ok {3}v1 +API key \*{4}\w{4} accepted/m)
    expect(r.stdout).not.toMatch(/[✓✗]/)
    expect(r.stderr).toMatch(/^All \d+ checks passed\.\n$/)
  })

  it('fails on a config.json readable by others, naming the file and chmod 600', async () => {
    const home = tempDir('mfg-doctor-')
    await addProfile(home, 'shop')
    const file = join(home, 'config.json')
    chmodSync(file, 0o644)
    const r = await run(['doctor', '--profile', 'shop', '--json'], {env: {MFG_HOME: home}})
    expect(r.exitCode).toBe(1)
    const report = json<Report>(r)
    expect(report.ok).toBe(false)
    const perm = only(report, 'permissions', file)
    expect(perm.status).toBe('fail')
    expect(perm.message).toContain('0644')
    expect(perm.fix).toBe(`chmod 600 ${file}`)
    // The profile itself is fine.
    expect(only(report, 'v1', 'shop').status).toBe('ok')

    const text = await run(['doctor', '--profile', 'shop'], {env: {MFG_HOME: home}})
    expect(text.exitCode).toBe(1)
    expect(text.stdout).toMatch(new RegExp(`^ {2}FAIL permissions .*${file}`, 'm'))
    expect(text.stdout).toContain(`fix: chmod 600 ${file}`)
    expect(text.stderr).toMatch(/1 failed, 0 warnings, \d+ ok\./)

    chmodSync(file, 0o600)
    const fixed = await run(['doctor', '--profile', 'shop', '--json'], {env: {MFG_HOME: home}})
    expect(fixed.exitCode, fixed.stdout).toBe(0)
    expect(only(json<Report>(fixed), 'permissions').message).toMatch(/1 file with secrets owner-only/)
  })

  it('checks batch journals and directories too: a 0644 journal and a world-writable directory fail', async () => {
    const home = tempDir('mfg-doctor-')
    const journals = join(home, 'journals')
    mkdirSync(journals, {mode: 0o700})
    const journal = join(journals, 'create-0123.ndjson')
    closeSync(openSync(journal, 'w', 0o600))
    chmodSync(journal, 0o644)
    chmodSync(home, 0o777)
    const r = await run(['doctor', '--profile', 'local', '--json'], {env: {MFG_HOME: home}})
    expect(r.exitCode).toBe(1)
    const report = json<Report>(r)
    expect(only(report, 'permissions', journal)).toMatchObject({status: 'fail', fix: `chmod 600 ${journal}`})
    expect(only(report, 'permissions', home)).toMatchObject({status: 'fail', fix: `chmod 700 ${home}`})
    expect(only(report, 'permissions', home).message).toMatch(/writable by every user \(mode 0777\)/)
  })

  it('passes the directories mfg made itself under umask 000', async () => {
    const home = join(tempDir('mfg-doctor-'), 'home')
    const env = {MFG_HOME: home}
    const add = [
      'profile',
      'add',
      'shop',
      '--base-url',
      sb.url,
      '--api-key',
      'pk_business_abc123456',
      '--business-id',
      'b',
    ]
    for (const argv of [add, ['doctor', '--profile', 'local', '--json']]) {
      // Without the tests' shared compile cache: mfg's own is the one under MFG_HOME.
      const r = await runBuiltCli(argv, {env, prelude: 'umask 000; unset NODE_COMPILE_CACHE'})
      expect(r.exitCode, r.stderr).toBe(0)
    }
    expect(statSync(home).mode & 0o777).toBe(0o700)
    const r = await run(['doctor', '--profile', 'local', '--json'], {env})
    expect(json<Report>(r).checks.filter((c) => c.status !== 'ok')).toEqual([])
  })

  it('fails v1 and MCP with 401 for a wrong API key, with a profile add fix and the key masked', async () => {
    const home = tempDir('mfg-doctor-')
    const wrongKey = `pk_business_${'w'.repeat(24)}`
    await addProfile(home, 'badkey', {apiKey: wrongKey})
    const r = await run(['doctor', '--profile', 'badkey', '--json'], {env: {MFG_HOME: home}})
    expect(r.exitCode).toBe(1)
    const report = json<Report>(r)
    const v1 = only(report, 'v1', 'badkey')
    expect(v1.status).toBe('fail')
    expect(v1.message).toMatch(/API key \*{4}wwww rejected \(HTTP 401\)/)
    expect(v1.fix).toMatch(/^mfg profile add badkey --base-url \S+ --business-id \S+ --api-key <API key>/)
    expect(only(report, 'mcp', 'badkey')).toMatchObject({status: 'fail'})
    expect(only(report, 'mcp', 'badkey').message).toMatch(/401/)
    expect(only(report, 'reachability', 'badkey').status).toBe('ok')
    expect(r.stdout).not.toContain(wrongKey)
    // Only the chosen profile: the MFG_BASE_URL one is left out.
    expect(report.checks.some((c) => c.target === 'env')).toBe(false)
  })

  it('warns (exit 0) when a profile has no auth token, and checks v1 and MCP anyway', async () => {
    const home = tempDir('mfg-doctor-')
    await addProfile(home, 'notoken', {authToken: null})
    const r = await run(['doctor', '--profile', 'notoken', '--json'], {env: {MFG_HOME: home}})
    expect(r.exitCode, r.stdout).toBe(0)
    const report = json<Report>(r)
    expect(report.ok).toBe(true)
    const v2 = only(report, 'v2', 'notoken')
    expect(v2.status).toBe('warn')
    expect(v2.message).toMatch(/not configured/)
    expect(v2.fix).toMatch(/--auth-token <auth token>/)
    expect(only(report, 'v1', 'notoken').status).toBe('ok')
    expect(only(report, 'mcp', 'notoken').status).toBe('ok')
  })

  it('fails a profile whose service cannot be reached, naming the host, without credential checks', async () => {
    const home = tempDir('mfg-doctor-')
    const port = await closedPort()
    await addProfile(home, 'gone', {baseUrl: `http://127.0.0.1:${port}`})
    const r = await run(['doctor', '--profile', 'gone', '--json', '--timeout', '3'], {env: {MFG_HOME: home}})
    expect(r.exitCode).toBe(1)
    const report = json<Report>(r)
    const reach = only(report, 'reachability', 'gone')
    expect(reach.status).toBe('fail')
    expect(reach.message).toContain(`127.0.0.1:${port}`)
    expect(reach.message).toMatch(/connection refused/)
    expect(reach.fix).toMatch(/mfg profile show gone/)
    expect(report.checks.filter((c) => c.target === 'gone').map((c) => c.check)).toEqual(['reachability'])
  })

  it('fails a profile whose service accepts connections but never answers, within --timeout', async () => {
    const home = tempDir('mfg-doctor-')
    const sockets: net.Socket[] = []
    const silent = net.createServer((socket) => sockets.push(socket))
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy()
          silent.close(() => resolve())
        }),
    )
    const port = (silent.address() as net.AddressInfo).port
    await addProfile(home, 'mute', {baseUrl: `http://127.0.0.1:${port}`})
    const r = await run(['doctor', '--profile', 'mute', '--json', '--timeout', '1'], {env: {MFG_HOME: home}})
    expect(r.exitCode).toBe(1)
    const reach = only(json<Report>(r), 'reachability', 'mute')
    expect(reach.status).toBe('fail')
    expect(reach.message).toBe(`cannot reach 127.0.0.1:${port}: no answer within 1 s; credentials not checked`)
  })

  it('fails a plain-http base URL of another machine unless --insecure, which makes it a warning', async () => {
    const home = tempDir('mfg-doctor-')
    // 192.0.2.0/24 is reserved for documentation: not this machine, whatever answers there.
    // Made-up credentials: with --insecure they may really be sent there.
    await addProfile(home, 'clear', {
      baseUrl: 'http://192.0.2.10:8080',
      apiKey: `pk_business_${'c'.repeat(24)}`,
      authToken: null,
    })
    const refused = await run(['doctor', '--profile', 'clear', '--json', '--timeout', '1'], {env: {MFG_HOME: home}})
    expect(refused.exitCode).toBe(1)
    const report = json<Report>(refused)
    expect(only(report, 'transport', 'clear')).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/plain http to 192\.0\.2\.10:8080/),
      fix: expect.stringMatching(/--insecure/),
    })
    expect(report.checks.some((c) => ['v1', 'v2', 'mcp'].includes(c.check))).toBe(false)

    const allowed = await run(['doctor', '--profile', 'clear', '--json', '--timeout', '1'], {
      env: {MFG_HOME: home, MFG_INSECURE: '1'},
    })
    expect(only(json<Report>(allowed), 'transport', 'clear').status).toBe('warn')
  })

  it('fails a sandbox database whose pages were overwritten, pointing at mfg sandbox reset', async () => {
    // A real sandbox database, written and closed, then copied into a fresh MFG_HOME.
    const source = tempDir('mfg-doctor-db-')
    await (await startTestSandbox({dataDir: source})).close()
    const home = tempDir('mfg-doctor-')
    const dir = join(home, 'sandbox')
    mkdirSync(dir, {recursive: true, mode: 0o700})
    const db = join(dir, 'sandbox.db')
    copyFileSync(join(source, 'sandbox.db'), db)
    chmodSync(db, 0o600)

    const healthy = await run(['doctor', '--profile', 'local', '--json'], {env: {MFG_HOME: home}})
    expect(healthy.exitCode, healthy.stdout).toBe(0)
    const sound = only(json<Report>(healthy), 'sandbox-db', db)
    expect(sound.status).toBe('ok')
    expect(sound.message).toMatch(/integrity ok; schema version \d+ \(current\)/)

    const pageSize = 4096
    expect(statSync(db).size).toBeGreaterThan(pageSize * 6)
    const fd = openSync(db, 'r+')
    const junk = Buffer.alloc(pageSize * 3, 0x5a)
    writeSync(fd, junk, 0, junk.length, pageSize * 2)
    closeSync(fd)

    const r = await run(['doctor', '--profile', 'local', '--json'], {env: {MFG_HOME: home}})
    expect(r.exitCode).toBe(1)
    const report = json<Report>(r)
    const broken = only(report, 'sandbox-db', db)
    expect(broken.status).toBe('fail')
    expect(broken.message).toMatch(/damaged|integrity check failed/)
    expect(broken.fix).toMatch(/^mfg sandbox reset/)
    // --profile local checks no remote profile.
    expect(report.checks.some((c) => ['reachability', 'v1', 'v2', 'mcp'].includes(c.check))).toBe(false)
  })

  it('fails when the server clock is 10 minutes ahead and warns at 2 minutes behind, saying which is ahead', async () => {
    const home = tempDir('mfg-doctor-')
    await addProfile(home, 'fast', {baseUrl: await skewedProxy(10 * 60_000)})
    await addProfile(home, 'slow', {baseUrl: await skewedProxy(-2 * 60_000)})
    const r = await run(['doctor', '--json'], {env: {MFG_HOME: home, MFG_BASE_URL: undefined}})
    expect(r.exitCode).toBe(1)
    const report = json<Report>(r)
    const fast = only(report, 'clock', 'fast')
    expect(fast.status).toBe('fail')
    expect(fast.message).toMatch(/^the server's clock is (9 min 5\d s|10 min( \d s)?) ahead of this machine's/)
    expect(fast.fix).toMatch(/timedatectl set-ntp/)
    const slow = only(report, 'clock', 'slow')
    expect(slow.status).toBe('warn')
    expect(slow.message).toMatch(/^this machine's clock is (1 min 5\d s|2 min( \d s)?) ahead of the server's/)
    // Everything else about these services is fine: the proxy only changes the Date header.
    const others = report.checks.filter((c) => (c.target === 'fast' || c.target === 'slow') && c.check !== 'clock')
    expect(others.length).toBe(8)
    for (const c of others) expect(c.status, JSON.stringify(c)).toBe('ok')
  })

  it('exits 2 for an unknown --profile, naming it', async () => {
    const home = tempDir('mfg-doctor-')
    const r = await run(['doctor', '--profile', 'nosuch'], {env: {MFG_HOME: home}})
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toMatch(/no profile named "nosuch"/)
  })

  it('reports an unreadable config.json as a failure and still runs the other checks', async () => {
    const home = tempDir('mfg-doctor-')
    const file = join(home, 'config.json')
    const fd = openSync(file, 'w', 0o600)
    writeSync(fd, '{not json')
    closeSync(fd)
    const r = await run(['doctor', '--json'], {env: {MFG_HOME: home}})
    expect(r.exitCode).toBe(1)
    const report = json<Report>(r)
    expect(only(report, 'config', file)).toMatchObject({status: 'fail'})
    expect(only(report, 'v1', 'env').status).toBe('ok')
  })

  it('fails a stored profile whose baseUrl is not a URL, naming it, and still runs the other checks', async () => {
    const home = tempDir('mfg-doctor-')
    await addProfile(home, 'good')
    await addProfile(home, 'broken')
    const file = join(home, 'config.json')
    const config = JSON.parse(readFileSync(file, 'utf8'))
    config.profiles.broken.baseUrl = 'not a url'
    writeFileSync(file, JSON.stringify(config), {mode: 0o600})
    const r = await run(['doctor', '--json'], {env: {MFG_HOME: home, MFG_BASE_URL: undefined}})
    expect(r.exitCode, r.stderr).toBe(1)
    const report = json<Report>(r)
    expect(only(report, 'profile', 'broken')).toMatchObject({
      status: 'fail',
      message: `the baseUrl of profile "broken" in ${file} must be an http(s) URL such as https://api.example.com; got "not a url". Correct it in the file, or add the profile again: mfg profile add broken --base-url URL`,
    })
    expect(only(report, 'v1', 'good').status).toBe('ok')
    expect(only(report, 'node').status).toBe('ok')
    // The text report puts it under the profile's heading; one profile's report is that failure alone.
    const text = await run(['doctor', '--profile', 'broken'], {env: {MFG_HOME: home, MFG_BASE_URL: undefined}})
    expect(text.exitCode).toBe(1)
    expect(text.stdout).toMatch(/Profile broken\n\s*FAIL\s+profile\s+the baseUrl of profile "broken"/)
    expect(text.stdout).not.toContain('Profile good')
  })

  it('fails a current profile that is not stored, and a misspelt key, naming it and what it means', async () => {
    const home = tempDir('mfg-doctor-')
    await addProfile(home, 'shop')
    const file = join(home, 'config.json')
    const config = JSON.parse(readFileSync(file, 'utf8'))
    writeFileSync(file, JSON.stringify({...config, current: 'gone', futureThing: 1}), {mode: 0o600})
    let r = await run(['doctor', '--json'], {env: {MFG_HOME: home, MFG_BASE_URL: undefined}})
    expect(r.exitCode, r.stderr).toBe(1)
    let found = json<Report>(r).checks.filter((c) => c.check === 'config')
    expect(found).toEqual([
      {
        check: 'config',
        target: file,
        status: 'fail',
        message: '"current" names profile "gone", which is not stored: every command without --profile fails',
        fix: 'choose one with mfg profile use NAME (shop, local), or add it with mfg profile add gone',
      },
      {
        check: 'config',
        target: file,
        status: 'warn',
        message: 'mfg does not read the key "futureThing"',
        fix: `rename or remove it in ${file}: mfg reads "current" and "profiles", and in each profile baseUrl, apiKey, authToken, businessId and currency`,
      },
    ])
    expect(only(json<Report>(r), 'v1', 'shop').status).toBe('ok')

    writeFileSync(file, JSON.stringify({curent: 'shop', profiles: {shop: {...config.profiles.shop, apiKye: 'x'}}}))
    r = await run(['doctor', '--json'], {env: {MFG_HOME: home, MFG_BASE_URL: undefined}})
    expect(r.exitCode, r.stderr).toBe(1)
    found = json<Report>(r).checks.filter((c) => c.check === 'config')
    expect(found).toMatchObject([
      {
        status: 'fail',
        message:
          'mfg does not read the keys "curent" (did you mean "current"?), "profiles.shop.apiKye" (did you mean "profiles.shop.apiKey"?)',
      },
    ])
  })

  it('never shows a key or token in clear', () => {
    expect(outputs.length).toBeGreaterThan(10)
    for (const o of outputs) {
      for (const secret of secretsOf(sb)) {
        expect(o.stdout).not.toContain(secret)
        expect(o.stderr).not.toContain(secret)
      }
    }
  })
})

describe('doctor checks', () => {
  const at = Date.parse('2026-03-01T12:00:00Z')
  const header = (offsetMs: number) => new Date(at + offsetMs).toUTCString()

  it('grades clock differences: up to 30 s ok, then warn, above 5 min fail', () => {
    expect(assessClock('p', header(20_000), at, at).status).toBe('ok')
    expect(assessClock('p', header(45_000), at, at)).toMatchObject({
      status: 'warn',
      message: "the server's clock is 46 s ahead of this machine's",
    })
    expect(assessClock('p', header(-6 * 60_000), at, at)).toMatchObject({status: 'fail'})
    expect(assessClock('p', header(-6 * 60_000), at, at).message).toMatch(
      /^this machine's clock is 6 min ahead of the server's: signed file links/,
    )
    // The request's midpoint stands for "now": a slow answer does not count as skew.
    expect(assessClock('p', header(0), at - 4000, at + 4000).status).toBe('ok')
    expect(assessClock('p', undefined, at, at).status).toBe('warn')
  })

  it('quotes a path with spaces in a chmod fix', () => {
    expect(shellWord('/Users/a/Library/Application Support/mfg')).toBe("'/Users/a/Library/Application Support/mfg'")
    expect(shellWord("/tmp/it's")).toBe("'/tmp/it'\\''s'")
    expect(shellWord('/tmp/mfg-x/config.json')).toBe('/tmp/mfg-x/config.json')
  })

  it('turns integrity problems and a newer schema into failures', async () => {
    const dir = tempDir('mfg-doctor-unit-')
    const file = join(dir, 'sandbox.db')
    closeSync(openSync(file, 'w', 0o600))
    const problems = await checkSandboxDatabase(file, async () => ({
      quickCheck: ['ok'],
      integrityCheck: ['row 3 missing from index demands_by_business'],
      schemaVersion: 4,
      expectedSchemaVersion: 4,
    }))
    expect(problems).toEqual([
      expect.objectContaining({status: 'fail', message: expect.stringMatching(/row 3 missing/)}),
    ])
    const newer = await checkSandboxDatabase(file, async () => ({
      quickCheck: ['ok'],
      integrityCheck: ['ok'],
      schemaVersion: 9,
      expectedSchemaVersion: 4,
    }))
    expect(newer[0]).toMatchObject({status: 'fail', message: expect.stringMatching(/newer than this mfg's 4/)})
  })
})
